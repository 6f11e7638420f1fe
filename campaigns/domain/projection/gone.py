"""Campaigns whose Job is gone (TTL or deleted), known only from their records.

Decides which records have no live Job, groups them into campaigns, and rebuilds phase, counts and
volumes from what the status ConfigMap stored; a volume is only called done when the record
accounts for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from campaigns.domain.projection.grouping import campaign_key
from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.pipeline import fill_pipeline
from campaigns.domain.projection.readers import (
    as_dict,
    as_int,
    as_str,
    created_time,
    earliest,
    get_path,
    labels_of,
    latest,
)
from campaigns.domain.projection.records import failed_volumes_from_record, read_record_info, record_reason
from campaigns.domain.projection.volumes import VolumeLine, parse_volumes_txt
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


@dataclass
class _GonePart:
    """What one gone Job's records say: its phase, counts, times and volumes."""

    phase: str
    counts: Counts
    started_at: datetime | None
    finished_at: datetime | None
    volumes: list[Volume]
    truncated: bool  # the record counted more failures than it listed


def _records_of(index: SnapshotIndex, job: str) -> tuple[dict, dict]:
    """A gone Job's record and status record ({} for one not found)."""
    record = index.records.get(f"campaign-{job}") or {}
    status = index.status_records.get(f"campaign-{job}-status") or {}
    return record, status


def _gone_part(namespace: str, pipeline: str, job: str, record: dict, status: dict) -> _GonePart:
    data = as_dict(status.get("data"))
    phase = RECORD_PHASE_TO_PHASE.get(as_str(data.get("phase")), UNKNOWN)
    lines = parse_volumes_txt(get_path(record, "data", "volumes.txt"))
    total = as_int(data.get("volumesTotal"), -1)
    if total < 0:
        total = max(lines) + 1 if lines else 0
    done = max(0, as_int(data.get("volumesDone"), 0))
    failed_count = max(0, as_int(data.get("volumesFailed"), 0))
    failed_ids = dict(failed_volumes_from_record(data))
    return _GonePart(
        phase=phase,
        counts=Counts(total=max(0, total), done=done, failed=failed_count),
        started_at=parse_time(data.get("startedAt")),
        finished_at=parse_time(data.get("finishedAt")),
        volumes=_gone_volumes(namespace, pipeline, job, lines, failed_ids, phase, done, failed_count),
        truncated=failed_count > len(failed_ids),
    )


def _gone_parts(namespace: str, index: SnapshotIndex, job_names: list[str]) -> tuple[list[_GonePart], str, str]:
    """Each gone Job's part, with the campaign's pipeline and label: the first any part's records name.

    A part's volumes carry the pipeline named by that part or an earlier one.
    """
    parts = []
    pipeline = ""
    label = ""
    for job in job_names:
        record, status = _records_of(index, job)
        labels = {**labels_of(status), **labels_of(record)}
        pipeline = pipeline or as_str(labels.get(LABEL_PIPELINE))
        label = label or as_str(labels.get(LABEL_CAMPAIGN))
        parts.append(_gone_part(namespace, pipeline, job, record, status))
    return parts, pipeline, label


def _first_records(index: SnapshotIndex, job_names: list[str]) -> tuple[dict, dict]:
    """The first record and the first status record found among the parts ({} when none is)."""
    found = [_records_of(index, job) for job in job_names]
    first_record = next((record for record, _ in found if record), {})
    first_status = next((status for _, status in found if status), {})
    return first_record, first_status


def _total_counts(parts: list[_GonePart]) -> Counts:
    return Counts(
        total=sum(part.counts.total for part in parts),
        done=sum(part.counts.done for part in parts),
        failed=sum(part.counts.failed for part in parts),
        pending=0,
    )


def _combine_phase(phases: list[str], done: int) -> str:
    """Final only when every part is: succeeded if all did, else partially failed if any volume is done."""
    if not phases or not all(phase in FINAL_PHASES for phase in phases):
        return UNKNOWN
    if all(phase == SUCCEEDED for phase in phases):
        return SUCCEEDED
    return PARTIALLY_FAILED if done else FAILED


def project_gone(snapshot: Snapshot, index: SnapshotIndex, name: str, job_names: list[str]) -> Campaign:
    """A campaign known only from its records: the status ConfigMap says how far it got."""
    parts, pipeline, label = _gone_parts(snapshot.namespace, index, job_names)
    first_record, first_status = _first_records(index, job_names)
    status_data = as_dict(first_status.get("data"))
    counts = _total_counts(parts)
    phase = _combine_phase([part.phase for part in parts], counts.done)
    volumes = [volume for part in parts for volume in part.volumes]
    record_info = read_record_info(first_record)
    campaign = Campaign(
        namespace=snapshot.namespace,
        name=name,
        campaign=label,
        pipeline=pipeline,
        phase=phase,
        parts=list(job_names),
        created_at=created_time(first_record) or parse_time(record_info.applied_at),
        started_at=earliest(part.started_at for part in parts),
        finished_at=latest(part.finished_at for part in parts) if phase in FINAL_PHASES else None,
        job_gone=True,
        job_uid=as_str(status_data.get("jobUid")) or record_info.job_uid,
        counts=counts,
        volumes=volumes,
        failures=[volume for volume in volumes if volume.state == "failed"],
        failures_truncated=any(part.truncated for part in parts),
        record=record_info,
        results_prefix=results_prefix(snapshot.namespace, pipeline) if pipeline else "",
        stored_phase=bounded(as_str(status_data.get("phase")), 40),
    )
    fill_pipeline(campaign, index, None)
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
