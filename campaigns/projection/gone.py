"""Campaigns whose Job is gone (TTL or deleted), known only from their records.

Decides which records have no live Job, groups them into campaigns, and rebuilds phase, counts and
volumes from what the status ConfigMap stored; a volume is only called done when the record
accounts for it.
"""

from __future__ import annotations

from datetime import datetime

from campaigns.models import (
    FAILED,
    FINAL_PHASES,
    PARTIALLY_FAILED,
    RECORD_PHASES,
    SUCCEEDED,
    UNKNOWN,
    Campaign,
    Counts,
    Snapshot,
    Volume,
    bounded,
    parse_time,
)
from campaigns.projection.grouping import campaign_key
from campaigns.projection.index import SnapshotIndex
from campaigns.projection.pipeline import fill_pipeline
from campaigns.projection.readers import as_dict, as_int, as_str, created_time, earliest, get_path, labels_of, latest
from campaigns.projection.records import failed_volumes_from_record, read_record_info, record_reason
from campaigns.projection.volumes import VolumeLine, parse_volumes_txt
from campaigns.wording.states import campaign_sentence
from campaigns.wording.volumes import volume_sentence
from core.contract import LABEL_CAMPAIGN, LABEL_PIPELINE, results_prefix

RECORD_PHASE_TO_PHASE = {stored: phase for phase, stored in RECORD_PHASES.items()}


RECORD_PHASE_TO_PHASE.update({"Partially failed": PARTIALLY_FAILED, "Complete": SUCCEEDED, "Completed": SUCCEEDED})


def _record_job_name(config_map_name: str, status: bool) -> str:
    if not config_map_name.startswith("campaign-"):
        return ""
    rest = config_map_name[len("campaign-") :]
    if status:
        if not rest.endswith("-status"):
            return ""
        rest = rest[: -len("-status")]
    return rest


def gone_groups(index: SnapshotIndex, live_jobs: set[str]) -> dict[str, list[str]]:
    """Campaign name -> its gone Job names, from records and status records with no live Job."""
    labels_by_job: dict[str, str] = {}
    for name, record in index.records.items():
        job = _record_job_name(name, status=False)
        if job and job not in live_jobs:
            labels_by_job.setdefault(job, as_str(labels_of(record).get(LABEL_CAMPAIGN)))
    for name, record in index.status_records.items():
        job = _record_job_name(name, status=True)
        if job and job not in live_jobs:
            labels_by_job[job] = labels_by_job.get(job) or as_str(labels_of(record).get(LABEL_CAMPAIGN))
    groups: dict[str, list[tuple[int, str]]] = {}
    for job, label in labels_by_job.items():
        key, part = campaign_key(job, label)
        groups.setdefault(key, []).append((part, job))
    return {key: [job for _, job in sorted(jobs)] for key, jobs in groups.items()}


def project_gone(snapshot: Snapshot, index: SnapshotIndex, name: str, job_names: list[str]) -> Campaign:
    """A campaign known only from its records: the status ConfigMap says how far it got."""
    phases = []
    counts = Counts()
    started: list[datetime | None] = []
    finished: list[datetime | None] = []
    volumes: list[Volume] = []
    failures: list[Volume] = []
    truncated = False
    first_record: dict = {}
    first_status: dict = {}
    pipeline = ""
    label = ""
    for job in job_names:
        record = index.records.get(f"campaign-{job}") or {}
        status = index.status_records.get(f"campaign-{job}-status") or {}
        first_record = first_record or record
        first_status = first_status or status
        labels = {**labels_of(status), **labels_of(record)}
        pipeline = pipeline or as_str(labels.get(LABEL_PIPELINE))
        label = label or as_str(labels.get(LABEL_CAMPAIGN))
        data = as_dict(status.get("data"))
        stored = as_str(data.get("phase"))
        phase = RECORD_PHASE_TO_PHASE.get(stored, UNKNOWN)
        phases.append(phase)
        lines = parse_volumes_txt(get_path(record, "data", "volumes.txt"))
        total = as_int(data.get("volumesTotal"), -1)
        if total < 0:
            total = max(lines) + 1 if lines else 0
        done = max(0, as_int(data.get("volumesDone"), 0))
        failed_count = max(0, as_int(data.get("volumesFailed"), 0))
        counts.total += max(0, total)
        counts.done += done
        counts.failed += failed_count
        started.append(parse_time(data.get("startedAt")))
        finished.append(parse_time(data.get("finishedAt")))
        failed_ids = dict(failed_volumes_from_record(data))
        truncated = truncated or failed_count > len(failed_ids)
        part_volumes = _gone_volumes(snapshot.namespace, pipeline, job, lines, failed_ids, phase, done, failed_count)
        volumes.extend(part_volumes)
        failures.extend(v for v in part_volumes if v.state == "failed")
    stored_phase = as_str(as_dict(first_status.get("data")).get("phase"))
    if phases and all(p in FINAL_PHASES for p in phases):
        phase = SUCCEEDED if all(p == SUCCEEDED for p in phases) else (PARTIALLY_FAILED if counts.done else FAILED)
    else:
        phase = UNKNOWN
    counts.pending = 0
    record_info = read_record_info(first_record)
    campaign = Campaign(
        namespace=snapshot.namespace,
        name=name,
        campaign=label,
        pipeline=pipeline,
        phase=phase,
        parts=list(job_names),
        created_at=created_time(first_record) or parse_time(record_info.applied_at),
        started_at=earliest(started),
        finished_at=latest(finished) if phase in FINAL_PHASES else None,
        job_gone=True,
        job_uid=as_str(as_dict(first_status.get("data")).get("jobUid")) or record_info.job_uid,
        counts=counts,
        volumes=volumes,
        failures=failures,
        failures_truncated=truncated,
        record=record_info,
        results_prefix=results_prefix(snapshot.namespace, pipeline) if pipeline else "",
        stored_phase=bounded(stored_phase, 40),
    )
    fill_pipeline(campaign, index, None)
    for volume in volumes:
        volume.sentence = volume_sentence(volume, snapshot.namespace)
    campaign.sentence = campaign_sentence(campaign)
    return campaign


def _gone_volumes(
    namespace: str,
    pipeline: str,
    job: str,
    lines: dict[int, VolumeLine],
    failed_ids: dict[str, str],
    phase: str,
    done: int,
    failed_count: int,
) -> list[Volume]:
    total_lines = max(lines) + 1 if lines else 0
    all_accounted = phase in FINAL_PHASES and done + failed_count >= len(lines) and failed_count <= len(failed_ids)
    volumes = []
    seen = set()
    for position in range(total_lines):
        line = lines.get(position)
        if line is None:
            continue
        volume = Volume(
            index=position,
            id=line.id,
            source=line.source,
            job=job,
            namespace=namespace,
            pipeline=pipeline,
            malformed=line.malformed,
        )
        if line.id in failed_ids:
            volume.state = "failed"
            volume.reason = record_reason(failed_ids[line.id], final=True)
        elif phase == SUCCEEDED or all_accounted:
            volume.state = "done"
        seen.add(line.id)
        volumes.append(volume)
    for vid, text in failed_ids.items():
        if vid in seen:
            continue
        volume = Volume(index=-1, id=vid, job=job, namespace=namespace, pipeline=pipeline, state="failed")
        volume.reason = record_reason(text, final=True)
        volumes.append(volume)
    return volumes
