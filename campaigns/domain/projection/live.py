"""Campaigns whose Jobs exist: each part Job projected, then combined into one campaign.

Decides the campaign's phase and counts from its parts, fills failure reasons from status
records when the pods are gone, and attaches the pipeline, warm-up and queue state and the
facts a page words when it is rendered (campaigns.wording): nothing here is a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from campaigns.domain.diagnosis.wait import wait_limit
from campaigns.domain.projection.findings import diagnose
from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.jobs import job_finished_at, job_phase, job_suspended, template_config_map
from campaigns.domain.projection.pipeline import fill_pipeline
from campaigns.domain.projection.queue import queue_state, workload_for
from campaigns.domain.projection.readers import (
    as_dict,
    as_int,
    as_str,
    created_time,
    earliest,
    get_path,
    labels_of,
    latest,
    metadata_of,
    name_of,
    true_failure_condition,
)
from campaigns.domain.projection.records import (
    MAX_FAILED_VOLUMES_RECORD,
    failed_volumes_from_record,
    read_record_info,
    record_reason,
)
from campaigns.domain.projection.volume_parts import PartVolumes, volume_lines
from campaigns.domain.projection.volumes import MAX_VOLUMES_PER_JOB, volume_state
from campaigns.domain.projection.warmup import mark_warmup_state, project_warmup
from campaigns.domain.ranges import parse_ranges
from campaigns.models import (
    FAILED,
    FINAL_PHASES,
    PARTIALLY_FAILED,
    PAUSED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    UNKNOWN,
    Campaign,
    Counts,
    PartState,
    Snapshot,
    Volume,
    bounded,
    parse_time,
)
from campaigns.models.volume_list import Volumes
from core.contract import LABEL_CAMPAIGN, LABEL_PIPELINE, LABEL_PRIORITY_CLASS, LABEL_QUEUE_NAME, results_prefix


@dataclass
class _Part:
    job: dict
    name: str
    phase: str
    completed: set[int]
    failed: set[int]
    total: int
    active: int
    suspended: bool
    volumes: list[Volume]  # the notable ones (failed, or with pods)
    all_volumes: PartVolumes
    started_at: datetime | None
    finished_at: datetime | None


def _record_for(index: SnapshotIndex, job: dict) -> dict:
    name = template_config_map(job, "campaign") or f"campaign-{name_of(job)}"
    return index.records.get(name) or index.records.get(f"campaign-{name_of(job)}") or {}


def _project_part(snapshot: Snapshot, index: SnapshotIndex, job: dict, pipeline: str) -> _Part:
    """One Job's part of a campaign: objects only for its notable volumes (failed, or with pods);
    done and pending ones stay index sets (`volume_parts.PartVolumes`)."""
    name = name_of(job)
    status = as_dict(job.get("status"))
    completed = parse_ranges(status.get("completedIndexes"))
    failed = parse_ranges(status.get("failedIndexes")) - completed
    lines = volume_lines(get_path(_record_for(index, job), "data", "volumes.txt"), MAX_VOLUMES_PER_JOB)
    completions = as_int(get_path(job, "spec", "completions"), 0)
    total = completions if 0 < completions <= MAX_VOLUMES_PER_JOB else len(lines)
    phase = job_phase(job, completed)
    retry_limit = max(0, as_int(get_path(job, "spec", "backoffLimitPerIndex"), 3))
    budget = as_int(get_path(job, "spec", "template", "spec", "activeDeadlineSeconds"), 0)
    pods = index.pods_by_job.get(name, {})
    notable: dict[int, Volume] = {}
    for position in sorted(p for p in (failed | set(pods)) if p < total and p not in completed):
        malformed = position in lines.malformed
        volume = Volume(
            index=position,
            id=lines.ident(position) or f"index-{position}",
            source=lines.source(position),
            job=name,
            namespace=snapshot.namespace,
            pipeline=pipeline,
            malformed=not lines.has(position) or malformed,
            retry_limit=retry_limit,
            time_budget=budget if budget > 0 else None,
        )
        volume_state(volume, position, completed, failed, phase, pods.get(position, []))
        if malformed and volume.state == "pending":
            volume.state = "unknown"  # a line that exists but does not parse cannot run
        notable[position] = volume
    return _Part(
        job=job,
        name=name,
        phase=phase,
        completed={i for i in completed if i < total} if total else completed,
        failed={i for i in failed if i < total} if total else failed,
        total=total,
        active=max(0, as_int(status.get("active"), 0)),
        suspended=job_suspended(job),
        volumes=list(notable.values()),
        all_volumes=PartVolumes(
            job=name,
            namespace=snapshot.namespace,
            pipeline=pipeline,
            total=total,
            completed=completed,
            phase=phase,
            lines=lines,
            notable=notable,
            retry_limit=retry_limit,
        ),
        started_at=parse_time(status.get("startTime")),
        finished_at=job_finished_at(job) if phase in FINAL_PHASES else None,
    )


def _combine_phase(parts: list[_Part]) -> str:
    phases = [part.phase for part in parts]
    if not phases:
        return UNKNOWN
    if RUNNING in phases:
        return RUNNING
    if PAUSED in phases:
        return PAUSED
    if QUEUED in phases:
        return PAUSED if any(part.completed for part in parts) else QUEUED
    if all(phase == SUCCEEDED for phase in phases):
        return SUCCEEDED
    if any(part.completed for part in parts):
        return PARTIALLY_FAILED
    return FAILED


def _live_counts(parts: list[_Part]) -> Counts:
    counts = Counts(
        total=sum(part.total for part in parts),
        done=sum(len(part.completed) for part in parts),
        failed=sum(len(part.failed) for part in parts),
        active=sum(part.active for part in parts),
    )
    counts.pending = max(0, counts.total - counts.done - counts.failed - counts.active)
    return counts


def project_live(snapshot: Snapshot, index: SnapshotIndex, name: str, jobs: list[dict], now: datetime) -> Campaign:
    first = jobs[0]
    labels = labels_of(first)
    pipeline = as_str(labels.get(LABEL_PIPELINE))
    parts = [_project_part(snapshot, index, job, pipeline) for job in jobs]
    phase = _combine_phase(parts)
    notable = [volume for part in parts for volume in part.volumes]
    record = _record_for(index, first)
    campaign = Campaign(
        namespace=snapshot.namespace,
        name=name,
        campaign=as_str(labels.get(LABEL_CAMPAIGN)) or as_str(labels_of(record).get(LABEL_CAMPAIGN)),
        pipeline=pipeline,
        phase=phase,
        parts=[part.name for part in parts],
        suspended=any(part.suspended for part in parts),
        created_at=earliest(created_time(job) for job in jobs),
        started_at=earliest(part.started_at for part in parts),
        finished_at=latest(part.finished_at for part in parts) if phase in FINAL_PHASES else None,
        job_uid=as_str(metadata_of(first).get("uid")),
        counts=_live_counts(parts),
        volumes=Volumes([part.all_volumes for part in parts]),
        parallelism=sum(max(0, as_int(get_path(job, "spec", "parallelism"), 0)) for job in jobs),
        record=read_record_info(record),
        results_prefix=results_prefix(snapshot.namespace, pipeline) if pipeline else "",
        priority_class=as_str(labels.get(LABEL_PRIORITY_CLASS)),
        queue_name=as_str(labels.get(LABEL_QUEUE_NAME)),
    )
    campaign.job_message = _failed_condition_text(jobs)
    _fill_failures_from_status_records(campaign, index, parts)
    campaign.failures = [v for v in notable if v.state == "failed" or (v.retrying and v.reason is not None)]
    fill_pipeline(campaign, index, first)
    _fill_warmup(campaign, snapshot, index, pipeline)
    if phase in FINAL_PHASES:
        _fill_finished_workload(campaign, index, first)
    else:
        _fill_queue(campaign, snapshot, index, parts, now)
        _paused_in_git(campaign, parts)
    campaign.part_states = [_part_state(part) for part in parts]
    _mark_held(parts, notable, held=phase in (QUEUED, PAUSED))
    campaign.counts.waiting = sum(1 for volume in notable if volume.state == "active" and volume.waiting_for_cache)
    campaign.warmup_wait_seconds = wait_limit(first).seconds
    campaign.findings = diagnose(snapshot, index, campaign, jobs)
    return campaign


def _fill_warmup(campaign: Campaign, snapshot: Snapshot, index: SnapshotIndex, pipeline: str) -> None:
    campaign.warmup = project_warmup(snapshot, index, pipeline, campaign)
    if campaign.is_final and not any(v.reason and v.reason.kind == "warmup_marker" for v in campaign.failures):
        campaign.warmup = None  # a finished campaign no longer waits for the cache
    mark_warmup_state(campaign)


def _fill_queue(
    campaign: Campaign, snapshot: Snapshot, index: SnapshotIndex, parts: list[_Part], now: datetime
) -> None:
    """Where an unfinished campaign stands in Kueue, read from its held part (else its first)."""
    queue_part = next((part for part in parts if part.suspended and part.phase in (QUEUED, PAUSED)), parts[0])
    campaign.queue = queue_state(snapshot, index, queue_part.job, now)
    if campaign.queue is None:
        return
    campaign.workload_name = campaign.queue.workload_name
    campaign.queue_name = campaign.queue.queue_name or campaign.queue_name
    campaign.cluster_queue_name = campaign.queue.cluster_queue
    campaign.priority_class = campaign.queue.priority_class or campaign.priority_class
    campaign.queue.job = queue_part.name


def _paused_in_git(campaign: Campaign, parts: list[_Part]) -> None:
    """A campaign its file pauses (`suspend: true`: Kueue's Workload inactive) is Paused whether or not a volume
    finished before: "Queued" says it waits its turn and starts by itself, which one paused in git never does.
    The Job alone cannot tell the two apart (contracts §6 calls both Queued); the Workload can."""
    if campaign.phase != QUEUED or campaign.queue is None or campaign.queue.kind != "paused":
        return
    campaign.phase = PAUSED
    for part in parts:
        if part.phase == QUEUED:
            part.phase = PAUSED  # its status record and the read API say the same


def _fill_finished_workload(campaign: Campaign, index: SnapshotIndex, job: dict) -> None:
    """A finished campaign keeps the names of the Workload and ClusterQueue that ran it."""
    workload = workload_for(index, job)
    if workload:
        campaign.workload_name = name_of(workload)
        campaign.cluster_queue_name = as_str(get_path(workload, "status", "admission", "clusterQueue"))


def _mark_held(parts: list[_Part], notable: list[Volume], held: bool) -> None:
    """A queued or paused campaign's volumes wait for the campaign, not for a slot of their own."""
    for part in parts:
        part.all_volumes.held = held
    for volume in notable:
        volume.held = held


def _failed_condition_text(jobs: list[dict]) -> str:
    for job in jobs:
        cond = true_failure_condition(job)
        if cond is not None:
            reason, message = as_str(cond.get("reason")), as_str(cond.get("message"))
            return bounded(f"{reason}: {message}" if reason and message else reason or message)
    return ""


def _part_state(part: _Part) -> PartState:
    failed = [(v.id, v.reason.error if v.reason else "") for v in part.volumes if v.state == "failed"]
    counts = Counts(
        total=part.total,
        done=len(part.completed),
        failed=len(part.failed),
        active=part.active,
    )
    return PartState(
        job=part.name,
        job_uid=as_str(metadata_of(part.job).get("uid")),
        phase=part.phase,
        counts=counts,
        started_at=part.started_at,
        finished_at=part.finished_at,
        failed_volumes=failed[:MAX_FAILED_VOLUMES_RECORD],
    )


def _fill_failures_from_status_records(campaign: Campaign, index: SnapshotIndex, parts: list[_Part]) -> None:
    """A failed volume whose pod is gone keeps the reason its status record stored (same Job uid)."""
    for part in parts:
        if not any(v.state == "failed" and v.reason is None for v in part.volumes):
            continue
        record = index.status_records.get(f"campaign-{part.name}-status")
        data = as_dict(get_path(record, "data"))
        uid = as_str(metadata_of(part.job).get("uid"))
        if as_str(data.get("failedVolumesJobUid")) not in ("", uid):
            continue
        stored = dict(failed_volumes_from_record(data))
        for volume in part.volumes:
            if volume.state == "failed" and volume.reason is None and volume.id in stored:
                volume.reason = record_reason(stored[volume.id], final=True)
