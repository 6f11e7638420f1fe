"""Pure projection: a namespace :class:`Snapshot` of Kubernetes objects -> :class:`Campaign` values.

No I/O and no Django. Every input is a plain dict as the API returns it; any field may be missing
or of an unexpected type, and the answer is still a Campaign (defensive reads throughout).
Conditions are always looked up by ``type``, never by position.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml

from campaigns import sentences
from campaigns.models import (
    ANNOTATION_APPLIED_AT,
    ANNOTATION_APPLIED_BY,
    ANNOTATION_COMMIT,
    ANNOTATION_IMAGE_DIGEST,
    ANNOTATION_JOB_UID,
    ANNOTATION_PIPELINE_SHA,
    ANNOTATION_RECIPE_SHA,
    FAILED,
    FINAL_PHASES,
    LABEL_CAMPAIGN,
    LABEL_COMPLETION_INDEX,
    LABEL_JOB_NAME,
    LABEL_KIND,
    LABEL_PIPELINE,
    LABEL_PRIORITY_CLASS,
    LABEL_QUEUE_NAME,
    LABEL_WORKLOAD_JOB_UID,
    PARTIALLY_FAILED,
    PAUSED,
    QUEUED,
    RECORD_PHASES,
    RUNNING,
    SUCCEEDED,
    UNKNOWN,
    Campaign,
    Counts,
    PartState,
    QueueState,
    RecordInfo,
    ResourceFit,
    Snapshot,
    Step,
    Volume,
    VolumeReason,
    Warmup,
    bounded,
    failed_volumes_json,
    parse_time,
)
from campaigns.ranges import parse_ranges

# Kueue is given this long to create a Workload for a new Job before we say it is silent.
KUEUE_SILENT_AFTER = timedelta(minutes=3)
# Failed campaigns count as "in trouble" (sorted up) for this long after they finished.
RECENT_TROUBLE = timedelta(hours=48)
# The most volumes one Job can hold is 10 000; guard the loops against absurd completions.
MAX_VOLUMES_PER_JOB = 20_000
MAX_PIPELINE_YAML = 256 * 1024
MAX_FAILED_VOLUMES_RECORD = 50

VOLUME_ID_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?")
PART_RE = re.compile(r"^(?P<stem>.+)-part(?P<n>\d{1,6})$")
INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
RECORD_PHASE_TO_PHASE = {stored: phase for phase, stored in RECORD_PHASES.items()}
RECORD_PHASE_TO_PHASE.update({"Partially failed": PARTIALLY_FAILED, "Complete": SUCCEEDED, "Completed": SUCCEEDED})


# ---------------------------------------------------------------------------------------------
# Small defensive readers


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) < 12:
        return int(value.strip())
    return default


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _meta(obj: Any) -> dict:
    return _dict(_get(obj, "metadata"))


def _name(obj: Any) -> str:
    return _str(_meta(obj).get("name"))


def _labels(obj: Any) -> dict:
    return _dict(_meta(obj).get("labels"))


def _annotations(obj: Any) -> dict:
    return _dict(_meta(obj).get("annotations"))


def _created(obj: Any) -> datetime | None:
    return parse_time(_meta(obj).get("creationTimestamp"))


def condition(obj: Any, kind: str) -> dict | None:
    """The status condition of the given type (never by position), or None."""
    for cond in _list(_get(obj, "status", "conditions")):
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def condition_true(obj: Any, kind: str) -> bool:
    cond = condition(obj, kind)
    return cond is not None and cond.get("status") == "True"


# A Job's end: Complete / Failed, or the conditions Kubernetes 1.31+ sets just before them.
SUCCESS_CONDITIONS = ("Complete", "SuccessCriteriaMet")
FAILURE_CONDITIONS = ("Failed", "FailureTarget")


def _any_condition_true(obj: Any, kinds: tuple[str, ...]) -> bool:
    return any(condition_true(obj, kind) for kind in kinds)


def _true_failure_condition(job: dict) -> dict | None:
    """The Job's Failed (or FailureTarget) condition when it is true."""
    for kind in FAILURE_CONDITIONS:
        cond = condition(job, kind)
        if cond is not None and cond.get("status") == "True":
            return cond
    return None


def _newest_first(objects: Iterable[dict]) -> list[dict]:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return sorted(objects, key=lambda o: _created(o) or epoch, reverse=True)


# ---------------------------------------------------------------------------------------------
# Volumes list


@dataclass
class VolumeLine:
    id: str
    source: str
    malformed: bool = False


def parse_volumes_txt(text: Any, limit: int = MAX_VOLUMES_PER_JOB) -> dict[int, VolumeLine]:
    """Index -> volume from ``volumes.txt``: index i is line i+1, ``<id><TAB><source>``.

    Blank lines hold no volume but keep their position; a line that does not parse becomes a
    malformed entry (shown as an ``unknown`` volume), never an error.
    """
    if not isinstance(text, str):
        return {}
    volumes: dict[int, VolumeLine] = {}
    for index, line in enumerate(text.split("\n")[:limit]):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        ident, tab, source = line.partition("\t")
        ident = ident.strip()
        if tab and VOLUME_ID_RE.fullmatch(ident):
            volumes[index] = VolumeLine(ident, bounded(source, 4000))
        else:
            volumes[index] = VolumeLine(bounded(ident or line, 80), bounded(source, 4000), malformed=True)
    return volumes


# ---------------------------------------------------------------------------------------------
# Why a volume stopped (contracts §2)


def _terminated(status: dict) -> tuple[dict, str]:
    """The terminated block of a container status: its current state first, else its last state."""
    current = _dict(_get(status, "state", "terminated"))
    if current:
        return current, "state"
    last = _dict(_get(status, "lastState", "terminated"))
    if last:
        return last, "last"
    return {}, ""


def _container_message(status: dict) -> tuple[dict, str, str]:
    """(terminated block, "state" or "last", its message): the current message, else the last one's."""
    term, which = _terminated(status)
    message = _str(term.get("message"))
    if not message.strip() and which == "state":
        last = _dict(_get(status, "lastState", "terminated"))
        if _str(last.get("message")).strip():
            return last, "last", _str(last.get("message"))
    return term, which, message


def _message_reason(term: dict, which: str, message: str, pod: dict, container: str) -> VolumeReason:
    """A reason from a container's termination message (JSON from the wrapper, or plain text)."""
    stage, permanent, error = _parse_message(message)
    return VolumeReason(
        stage=stage,
        permanent=permanent,
        error=error,
        exit_code=_exit_code(term),
        pod_name=bounded(_name(pod), 253),
        container=container,
        source="message" if which == "state" else "last_message",
        finished_at=parse_time(term.get("finishedAt")),
    )


def _container_status(pod: dict, name: str, init: bool = False) -> dict:
    key = "initContainerStatuses" if init else "containerStatuses"
    for status in _list(_get(pod, "status", key)):
        if isinstance(status, dict) and status.get("name") == name:
            return status
    return {}


def _parse_message(message: str) -> tuple[str | None, bool | None, str]:
    """(stage, permanent, error) from a wrapper/warm-up termination message; plain text as error."""
    text = message.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            stage = data.get("stage")
            permanent = data.get("permanent")
            error = data.get("error")
            return (
                bounded(stage, 40) if isinstance(stage, str) and stage else None,
                permanent if isinstance(permanent, bool) else None,
                bounded(error if isinstance(error, str) else ("" if error is None else json.dumps(error))),
            )
    return None, None, bounded(text)


def reason_from_pod(pod: dict) -> VolumeReason | None:
    """Why the pod's volume stopped, first evidence wins (contracts §2); None when it says nothing."""
    pod_name = bounded(_name(pod), 253)
    pod_reason = _str(_get(pod, "status", "reason"))
    pod_message = _str(_get(pod, "status", "message"))
    term, which, message = _container_message(_container_status(pod, "wrapper"))
    if message.strip():
        reason = _message_reason(term, which, message, pod, "wrapper")
        reason.kind = _kind(reason, pod_reason, _str(term.get("reason")))
        return reason
    for init in _list(_get(pod, "status", "initContainerStatuses")):
        if not isinstance(init, dict):
            continue
        init_term, _ = _terminated(init)
        code = _exit_code(init_term)
        if code:
            name = bounded(_str(init.get("name")), 63)
            error = bounded(_str(init_term.get("message"))) or f"init container {name} exited with code {code}"
            reason = VolumeReason(
                error=error,
                exit_code=code,
                pod_name=pod_name,
                container=name,
                source="init",
                permanent=True if code == 13 else None,
                finished_at=parse_time(init_term.get("finishedAt")),
            )
            reason.kind = "warmup_marker" if _is_marker_timeout(name, code, error) else _kind(reason, pod_reason, "")
            return reason
    if pod_reason in POD_REASON_KINDS or (pod_reason and pod_message):
        reason = VolumeReason(
            error=bounded(pod_message) or pod_reason,
            pod_name=pod_name,
            source="pod_reason",
            exit_code=_exit_code(term) if term else None,
            container="wrapper" if term else "",
        )
        reason.kind = POD_REASON_KINDS.get(pod_reason, "unknown")
        return reason
    if term:
        code = _exit_code(term)
        term_reason = _str(term.get("reason"))
        if code or (term_reason and term_reason != "Completed"):
            reason = VolumeReason(
                error=bounded(f"{term_reason or 'terminated'}, exit code {code}"),
                exit_code=code,
                pod_name=pod_name,
                container="wrapper",
                source="exit",
                finished_at=parse_time(term.get("finishedAt")),
            )
            reason.kind = _kind(reason, pod_reason, term_reason)
            return reason
    return None


# A pod's own status.reason that says why its volume stopped, and the failure class it means.
POD_REASON_KINDS = {"Evicted": "evicted", "DeadlineExceeded": "deadline"}


def _exit_code(term: dict) -> int | None:
    code = term.get("exitCode") if isinstance(term, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _is_marker_timeout(container: str, code: int | None, error: str) -> bool:
    return "no warm-up marker" in error or (container == "warmup-wait" and code == 13)


def _kind(reason: VolumeReason, pod_reason: str, term_reason: str) -> str:
    """The failure class of a reason (contracts §2), before the retrying/final distinction."""
    if pod_reason in POD_REASON_KINDS:  # a SIGTERM (exit 143) too: the pod's reason says who sent it
        return POD_REASON_KINDS[pod_reason]
    if reason.exit_code == 143 or (reason.error or "").strip() == "SIGTERM":
        return "sigterm"
    if term_reason == "OOMKilled" or (reason.exit_code == 137 and not reason.stage):
        return "oom"
    return classify_text(reason.error, stage=reason.stage, permanent=reason.permanent, exit_code=reason.exit_code)


def classify_text(
    error: str, stage: str | None = None, permanent: bool | None = None, exit_code: int | None = None
) -> str:
    """The failure class from the wrapper's fields, or from plain text alone (status records)."""
    error = error or ""
    if "no warm-up marker" in error:
        return "warmup_marker"
    if stage == "config":
        return "config"
    if stage == "verify" or error.startswith("verify failed"):
        return "verify"
    if error.strip() == "SIGTERM":
        return "sigterm"
    if "OOMKilled" in error:
        return "oom"
    if permanent is None and exit_code == 13:
        permanent = True
    if permanent is None and exit_code == 1:
        permanent = False
    if stage == "setup" and permanent:
        return "setup_permanent"
    if permanent is None and error.startswith("manifest fetch failed"):
        return "setup_permanent"
    if permanent is True:
        return "permanent"
    if permanent is False:
        return "transient"
    return "unknown"


# ---------------------------------------------------------------------------------------------
# Indexes of the snapshot


@dataclass
class _Index:
    """Lookups built once per snapshot, so projecting N campaigns stays linear."""

    pods_by_job: dict[str, dict[int, list[dict]]] = field(default_factory=dict)
    warmup_pods: dict[str, list[dict]] = field(default_factory=dict)
    workloads_by_uid: dict[str, list[dict]] = field(default_factory=dict)
    workloads_by_owner: dict[str, list[dict]] = field(default_factory=dict)
    records: dict[str, dict] = field(default_factory=dict)
    status_records: dict[str, dict] = field(default_factory=dict)
    pipelines: dict[str, dict] = field(default_factory=dict)
    warmups: dict[str, dict] = field(default_factory=dict)
    cluster_queues: dict[str, dict] = field(default_factory=dict)
    local_queues: dict[str, dict] = field(default_factory=dict)


def _build_index(snapshot: Snapshot) -> _Index:
    index = _Index()
    for pod in _list(snapshot.pods):
        labels = _labels(pod)
        job = _str(labels.get(LABEL_JOB_NAME)) or _str(labels.get("job-name"))
        if not job:
            continue
        if _str(labels.get("app")) == "htrflow-warmup" or job.startswith("htr-warmup-"):
            index.warmup_pods.setdefault(job, []).append(pod)
            continue
        raw_index = labels.get(LABEL_COMPLETION_INDEX)
        if raw_index is None:
            raw_index = _annotations(pod).get(LABEL_COMPLETION_INDEX)
        position = _int(raw_index, -1)
        if position < 0:
            continue
        index.pods_by_job.setdefault(job, {}).setdefault(position, []).append(pod)
    for workload in _list(snapshot.workloads):
        uid = _str(_labels(workload).get(LABEL_WORKLOAD_JOB_UID))
        if uid:
            index.workloads_by_uid.setdefault(uid, []).append(workload)
        for owner in _list(_meta(workload).get("ownerReferences")):
            if isinstance(owner, dict) and owner.get("kind", "Job") == "Job" and _str(owner.get("name")):
                index.workloads_by_owner.setdefault(_str(owner.get("name")), []).append(workload)
    for config_map in [*_list(snapshot.records), *_list(snapshot.status_records)]:
        name = _name(config_map)
        if not name:
            continue
        if _str(_labels(config_map).get(LABEL_KIND)) == "status":
            index.status_records[name] = config_map
        else:
            index.records[name] = config_map
    for config_map in _list(snapshot.pipelines):
        name = _name(config_map)
        if name:
            index.pipelines[name] = config_map
        pipeline = _str(_labels(config_map).get(LABEL_PIPELINE))
        if pipeline:
            index.pipelines.setdefault(f"htr-pipeline-{pipeline}", config_map)
    for job in _list(snapshot.warmup_jobs):
        pipeline = _str(_labels(job).get(LABEL_PIPELINE))
        name = _name(job)
        if not pipeline and name.startswith("htr-warmup-"):
            pipeline = name[len("htr-warmup-") :]
        if pipeline:
            index.warmups[pipeline] = job
    for queue in _list(snapshot.cluster_queues or []):
        if _name(queue):
            index.cluster_queues[_name(queue)] = queue
    for queue in _list(snapshot.local_queues or []):
        if _name(queue):
            index.local_queues[_name(queue)] = queue
    return index


# ---------------------------------------------------------------------------------------------
# Grouping Jobs into campaigns


def campaign_key(job_name: str, campaign_label: str) -> tuple[str, int]:
    """(campaign name, part number) of a Job: ``<stem>-part<N>`` with label ``<stem>`` is a part."""
    match = PART_RE.match(job_name)
    if match and campaign_label and match.group("stem") == campaign_label:
        return campaign_label, int(match.group("n"))
    return job_name, 0


def _group_jobs(jobs: Iterable[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[tuple[int, dict]]] = {}
    for job in jobs:
        if not isinstance(job, dict):
            continue
        name = _name(job)
        if not name:
            continue
        key, part = campaign_key(name, _str(_labels(job).get(LABEL_CAMPAIGN)))
        groups.setdefault(key, []).append((part, job))
    return {key: [job for _, job in sorted(parts, key=lambda p: (p[0], _name(p[1])))] for key, parts in groups.items()}


# ---------------------------------------------------------------------------------------------
# Public entry points


def project(snapshot: Snapshot, now: datetime) -> list[Campaign]:
    """Every campaign of the snapshot's namespace: live ones from their Jobs, gone ones from records."""
    index = _build_index(snapshot)
    campaigns = []
    live_jobs: set[str] = set()
    for name, jobs in _group_jobs(_list(snapshot.jobs)).items():
        live_jobs.update(_name(job) for job in jobs)
        campaigns.append(_project_live(snapshot, index, name, jobs, now))
    for name, job_names in _gone_groups(index, live_jobs).items():
        campaigns.append(_project_gone(snapshot, index, name, job_names))
    return campaigns


def project_one(snapshot: Snapshot, name: str, now: datetime) -> Campaign | None:
    """The campaign called ``name`` (a Job name, the stem of a split campaign or one of its parts, or a
    campaign whose Job is gone), or None."""
    index = _build_index(snapshot)
    groups = _group_jobs(_list(snapshot.jobs))
    if name in groups:
        return _project_live(snapshot, index, name, groups[name], now)
    for key, jobs in groups.items():  # a part's Job name shows the whole split campaign
        if any(_name(job) == name for job in jobs):
            return _project_live(snapshot, index, key, jobs, now)
    live_jobs = {_name(job) for jobs in groups.values() for job in jobs}
    gone = _gone_groups(index, live_jobs)
    if name in gone:
        return _project_gone(snapshot, index, name, gone[name])
    return None


# ---------------------------------------------------------------------------------------------
# Live campaigns


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
    volumes: list[Volume]
    started_at: datetime | None
    finished_at: datetime | None


def _job_phase(job: dict, completed: set[int]) -> str:
    if _any_condition_true(job, SUCCESS_CONDITIONS):
        return SUCCEEDED
    if _any_condition_true(job, FAILURE_CONDITIONS):
        return PARTIALLY_FAILED if completed else FAILED
    if _job_suspended(job):
        return PAUSED if completed else QUEUED
    return RUNNING


def _job_suspended(job: dict) -> bool:
    suspend = _get(job, "spec", "suspend")
    if isinstance(suspend, bool):
        return suspend
    return condition_true(job, "Suspended")


def _job_finished_at(job: dict) -> datetime | None:
    finished = parse_time(_get(job, "status", "completionTime"))
    if finished is not None:
        return finished
    for kind in ("Complete", "Failed"):
        cond = condition(job, kind)
        if cond is not None and cond.get("status") == "True":
            return parse_time(cond.get("lastTransitionTime"))
    return None


def _template_config_map(job: dict, volume_name: str) -> str:
    for volume in _list(_get(job, "spec", "template", "spec", "volumes")):
        if isinstance(volume, dict) and volume.get("name") == volume_name:
            return _str(_get(volume, "configMap", "name"))
    return ""


def _record_for(index: _Index, job: dict) -> dict:
    name = _template_config_map(job, "campaign") or f"campaign-{_name(job)}"
    return index.records.get(name) or index.records.get(f"campaign-{_name(job)}") or {}


def _project_part(snapshot: Snapshot, index: _Index, job: dict, pipeline: str) -> _Part:
    name = _name(job)
    status = _dict(job.get("status"))
    completed = parse_ranges(status.get("completedIndexes"))
    failed = parse_ranges(status.get("failedIndexes")) - completed
    lines = parse_volumes_txt(_get(_record_for(index, job), "data", "volumes.txt"))
    completions = _int(_get(job, "spec", "completions"), 0)
    total = completions if 0 < completions <= MAX_VOLUMES_PER_JOB else (max(lines) + 1 if lines else 0)
    phase = _job_phase(job, completed)
    retry_limit = max(0, _int(_get(job, "spec", "backoffLimitPerIndex"), 3))
    pods = index.pods_by_job.get(name, {})
    volumes = []
    for position in range(total):
        line = lines.get(position)
        volume = Volume(
            index=position,
            id=line.id if line else f"index-{position}",
            source=line.source if line else "",
            job=name,
            namespace=snapshot.namespace,
            pipeline=pipeline,
            malformed=line is None or line.malformed,
            retry_limit=retry_limit,
        )
        _volume_state(volume, position, completed, failed, phase, pods.get(position, []))
        if line is not None and line.malformed and volume.state == "pending":
            volume.state = "unknown"  # a line that exists but does not parse cannot run
        volumes.append(volume)
    return _Part(
        job=job,
        name=name,
        phase=phase,
        completed={i for i in completed if i < total} if total else completed,
        failed={i for i in failed if i < total} if total else failed,
        total=total,
        active=max(0, _int(status.get("active"), 0)),
        suspended=_job_suspended(job),
        volumes=volumes,
        started_at=parse_time(status.get("startTime")),
        finished_at=_job_finished_at(job) if phase in FINAL_PHASES else None,
    )


def _pod_is_live(pod: dict) -> bool:
    return _str(_get(pod, "status", "phase")) in ("Pending", "Running") and not _meta(pod).get("deletionTimestamp")


def _waiting_for_cache(pod: dict) -> bool:
    init = _container_status(pod, "warmup-wait", init=True)
    return bool(_get(init, "state", "running")) or bool(_get(init, "state", "waiting"))


def _failed_try(pod: dict) -> bool:
    """A failed pod that counts against the index's retries (a drained pod does not)."""
    return _str(_get(pod, "status", "phase")) == "Failed" and not condition_true(pod, "DisruptionTarget")


def _volume_state(volume: Volume, position: int, completed, failed, phase: str, pods: list[dict]) -> None:
    """Fill state, reason, attempts and retrying of one volume from the Job status and its pods."""
    newest = _newest_first(p for p in pods if isinstance(p, dict))
    if position in completed:
        volume.state = "done"
        return
    if position in failed:
        volume.state = "failed"
    elif newest and _pod_is_live(newest[0]):
        volume.state = "active"
        volume.waiting_for_cache = _waiting_for_cache(newest[0])
    elif phase in FINAL_PHASES:
        volume.state = "unknown"
    else:
        volume.state = "pending"
    failed_tries = sum(1 for pod in newest if _failed_try(pod))
    if newest:
        count = _int(_annotations(newest[0]).get(INDEX_FAILURE_COUNT), 0) + (1 if _failed_try(newest[0]) else 0)
        volume.attempts = max(count, failed_tries)
    for pod in newest:
        reason = reason_from_pod(pod)
        if reason is not None:
            if reason.kind == "transient" and volume.state == "failed":
                reason.kind = "transient_final"
            volume.reason = reason
            break
    volume.retrying = volume.state in ("active", "pending") and volume.reason is not None


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


def _project_live(snapshot: Snapshot, index: _Index, name: str, jobs: list[dict], now: datetime) -> Campaign:
    first = jobs[0]
    labels = _labels(first)
    pipeline = _str(labels.get(LABEL_PIPELINE))
    parts = [_project_part(snapshot, index, job, pipeline) for job in jobs]
    phase = _combine_phase(parts)
    volumes = [volume for part in parts for volume in part.volumes]
    counts = Counts(
        total=sum(part.total for part in parts),
        done=sum(len(part.completed) for part in parts),
        failed=sum(len(part.failed) for part in parts),
        active=sum(part.active for part in parts),
    )
    counts.pending = max(0, counts.total - counts.done - counts.failed - counts.active)
    record = _record_for(index, first)
    campaign = Campaign(
        namespace=snapshot.namespace,
        name=name,
        campaign=_str(labels.get(LABEL_CAMPAIGN)) or _str(_labels(record).get(LABEL_CAMPAIGN)),
        pipeline=pipeline,
        phase=phase,
        parts=[part.name for part in parts],
        suspended=any(part.suspended for part in parts),
        created_at=_min_time(_created(job) for job in jobs),
        started_at=_min_time(part.started_at for part in parts),
        finished_at=_max_time(part.finished_at for part in parts) if phase in FINAL_PHASES else None,
        job_uid=_str(_meta(first).get("uid")),
        counts=counts,
        volumes=volumes,
        parallelism=sum(max(0, _int(_get(job, "spec", "parallelism"), 0)) for job in jobs),
        record=_record_info(record),
        results_prefix=f"{snapshot.namespace}/{pipeline}/" if pipeline else "",
        priority_class=_str(labels.get(LABEL_PRIORITY_CLASS)),
        queue_name=_str(labels.get(LABEL_QUEUE_NAME)),
    )
    campaign.job_message = _failed_condition_text(jobs)
    _fill_failures_from_status_records(campaign, index, parts)
    campaign.failures = [v for v in volumes if v.state == "failed" or (v.retrying and v.reason is not None)]
    _fill_pipeline(campaign, index, first)
    campaign.warmup = _warmup(snapshot, index, pipeline, campaign)
    if campaign.is_final and not any(v.reason and v.reason.kind == "warmup_marker" for v in campaign.failures):
        campaign.warmup = None  # a finished campaign no longer waits for the cache
    if phase not in FINAL_PHASES:
        queue_part = next((part for part in parts if part.suspended and part.phase in (QUEUED, PAUSED)), parts[0])
        campaign.queue = _queue_state(snapshot, index, queue_part.job, now)
        if campaign.queue is not None:
            campaign.workload_name = campaign.queue.workload_name
            campaign.queue_name = campaign.queue.queue_name or campaign.queue_name
            campaign.cluster_queue_name = campaign.queue.cluster_queue
            campaign.priority_class = campaign.queue.priority_class or campaign.priority_class
            campaign.queue.sentence = sentences.queue_sentence(campaign.queue, snapshot.namespace, queue_part.name)
    else:
        workload = _workload_for(index, first)
        if workload:
            campaign.workload_name = _name(workload)
            campaign.cluster_queue_name = _str(_get(workload, "status", "admission", "clusterQueue"))
    campaign.part_states = [_part_state(part) for part in parts]
    held = phase in (QUEUED, PAUSED)
    for volume in volumes:
        volume.sentence = sentences.volume_sentence(volume, snapshot.namespace, held=held)
    campaign.sentence = sentences.campaign_sentence(campaign)
    return campaign


def _failed_condition_text(jobs: list[dict]) -> str:
    for job in jobs:
        cond = _true_failure_condition(job)
        if cond is not None:
            reason, message = _str(cond.get("reason")), _str(cond.get("message"))
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
        job_uid=_str(_meta(part.job).get("uid")),
        phase=part.phase,
        counts=counts,
        started_at=part.started_at,
        finished_at=part.finished_at,
        failed_volumes=failed[:MAX_FAILED_VOLUMES_RECORD],
    )


def _fill_failures_from_status_records(campaign: Campaign, index: _Index, parts: list[_Part]) -> None:
    """A failed volume whose pod is gone keeps the reason its status record stored (same Job uid)."""
    for part in parts:
        if not any(v.state == "failed" and v.reason is None for v in part.volumes):
            continue
        record = index.status_records.get(f"campaign-{part.name}-status")
        data = _dict(_get(record, "data"))
        uid = _str(_meta(part.job).get("uid"))
        if _str(data.get("failedVolumesJobUid")) not in ("", uid):
            continue
        stored = dict(_failed_volumes_from_record(data))
        for volume in part.volumes:
            if volume.state == "failed" and volume.reason is None and volume.id in stored:
                volume.reason = _record_reason(stored[volume.id], final=True)


_PAGE_ERROR_RE = re.compile(r"^page \d{1,6}:")


def _record_reason(text: str, final: bool) -> VolumeReason:
    """A reason kept in a status record: its text only; a page's error was written while processing pages."""
    kind = classify_text(text)
    if kind == "transient" and final:
        kind = "transient_final"
    stage = "stream" if _PAGE_ERROR_RE.match(text or "") else None
    return VolumeReason(stage=stage, error=bounded(text), kind=kind, source="record")


def _record_info(record: dict) -> RecordInfo:
    annotations = _annotations(record)
    return RecordInfo(
        commit=bounded(annotations.get(ANNOTATION_COMMIT), 80),
        applied_by=bounded(annotations.get(ANNOTATION_APPLIED_BY), 200),
        applied_at=bounded(annotations.get(ANNOTATION_APPLIED_AT), 40),
        image_digest=bounded(annotations.get(ANNOTATION_IMAGE_DIGEST), 300),
        job_uid=bounded(annotations.get(ANNOTATION_JOB_UID), 80),
    )


def _min_time(values: Iterable[datetime | None]) -> datetime | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _max_time(values: Iterable[datetime | None]) -> datetime | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


# ---------------------------------------------------------------------------------------------
# Pipeline


def _fill_pipeline(campaign: Campaign, index: _Index, job: dict | None) -> None:
    name = (_template_config_map(job, "pipeline") if job else "") or f"htr-pipeline-{campaign.pipeline}"
    config_map = index.pipelines.get(name) or index.pipelines.get(f"htr-pipeline-{campaign.pipeline}")
    if not config_map:
        return
    text = _str(_get(config_map, "data", "pipeline.yaml"))
    campaign.pipeline_yaml = text[:MAX_PIPELINE_YAML]
    campaign.pipeline_sha256 = bounded(_annotations(config_map).get(ANNOTATION_PIPELINE_SHA), 80)
    campaign.pipeline_steps = pipeline_steps(text)


def pipeline_steps(text: str) -> list[Step]:
    """The steps of a pipeline.yaml with each step's model and revision; [] when unreadable."""
    if not text or len(text) > MAX_PIPELINE_YAML:
        return []
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return []
    steps = []
    for item in _list(_get(data, "steps"))[:100]:
        if not isinstance(item, dict):
            continue
        settings = _dict(item.get("settings"))
        model_settings = _dict(settings.get("model_settings"))
        model = model_settings.get("model") or settings.get("model") or ""
        revision = model_settings.get("revision") or _get(model_settings, "model_kwargs", "revision") or ""
        steps.append(
            Step(
                name=bounded(item.get("step") or "step", 80),
                model=bounded(model if isinstance(model, str) else "", 200),
                revision=bounded(revision if isinstance(revision, str) else "", 80),
            )
        )
    return steps


# ---------------------------------------------------------------------------------------------
# Warm-up (contracts §3)


def _warmup(snapshot: Snapshot, index: _Index, pipeline: str, campaign: Campaign | None = None) -> Warmup | None:
    if not pipeline:
        return None
    job = index.warmups.get(pipeline)
    warmup = Warmup(pipeline=pipeline, state="missing", job_name=f"htr-warmup-{pipeline}")
    warmup.marker_path = f"/data/warmup/{pipeline}.done"
    if job:
        warmup.job_name = _name(job) or warmup.job_name
        sha = _str(_get(job, "spec", "template", "metadata", "annotations", ANNOTATION_RECIPE_SHA))
        warmup.recipe_sha256 = bounded(sha, 80)
        warmup.cache_dir = f"/{pipeline}-{warmup.recipe_sha256}/" if warmup.recipe_sha256 else ""
        if _any_condition_true(job, SUCCESS_CONDITIONS):
            warmup.state = "succeeded"
        elif _any_condition_true(job, FAILURE_CONDITIONS):
            warmup.state = "failed"
        elif _int(_get(job, "status", "active"), 0) > 0:
            warmup.state = "running"
        else:
            warmup.state = "pending"
        if warmup.state == "failed":
            warmup.reason = _warmup_reason(index, warmup.job_name)
            if warmup.reason is None:
                cond = _true_failure_condition(job) or {}
                text = bounded(_str(cond.get("message")) or _str(cond.get("reason")))
                if text:
                    warmup.reason = VolumeReason(stage="warmup", error=text, kind="unknown", source="job")
            warmup.message = warmup.reason.error if warmup.reason else ""
        if warmup.state == "succeeded" and campaign is not None:
            warmup.marker_missing = _marker_missing_after(job, campaign)
    warmup.sentence = sentences.warmup_sentence(warmup, snapshot.namespace)
    return warmup


def _warmup_reason(index: _Index, job_name: str) -> VolumeReason | None:
    for pod in _newest_first(p for p in index.warmup_pods.get(job_name, []) if isinstance(p, dict)):
        term, which, message = _container_message(_container_status(pod, "warmup"))
        if message.strip():
            reason = _message_reason(term, which, message, pod, "warmup")
            reason.stage = reason.stage or "warmup"
            reason.kind = {True: "permanent", False: "transient"}.get(reason.permanent, "unknown")
            return reason
        reason = reason_from_pod(pod)
        if reason is not None:
            return reason
    return None


def _marker_missing_after(job: dict, campaign: Campaign) -> bool:
    """A Complete warm-up, yet a campaign pod gave up on the marker after it completed."""
    completed = _job_finished_at(job)
    if completed is None:
        return False
    for volume in campaign.volumes:
        reason = volume.reason
        if reason is not None and reason.kind == "warmup_marker" and reason.finished_at is not None:
            if reason.finished_at > completed:
                return True
    return False


# ---------------------------------------------------------------------------------------------
# Queue (contracts §6)


def _workload_for(index: _Index, job: dict) -> dict | None:
    uid = _str(_meta(job).get("uid"))
    candidates = index.workloads_by_uid.get(uid, []) if uid else []
    if not candidates:
        candidates = index.workloads_by_owner.get(_name(job), [])
    if not candidates:
        return None
    return _newest_first(candidates)[0]


def _cluster_queue_name(index: _Index, workload: dict | None, queue_name: str) -> str:
    admitted = _str(_get(workload, "status", "admission", "clusterQueue"))
    if admitted:
        return admitted
    local = index.local_queues.get(queue_name)
    if local:
        named = _str(_get(local, "spec", "clusterQueue"))
        if named:
            return named
    return f"{queue_name}-cq" if queue_name else ""


def _priority_class_of(workload: dict | None, job: dict) -> str:
    return (
        _str(_get(workload, "spec", "priorityClassRef", "name"))
        or _str(_get(workload, "spec", "priorityClassName"))
        or _str(_labels(job).get(LABEL_PRIORITY_CLASS))
    )


def _queue_state(snapshot: Snapshot, index: _Index, job: dict, now: datetime) -> QueueState | None:
    workload = _workload_for(index, job)
    labels = _labels(job)
    queue_name = _str(_get(workload, "spec", "queueName")) or _str(labels.get(LABEL_QUEUE_NAME))
    state = QueueState(
        kind="not_looked_at",
        workload_name=_name(workload) if workload else "",
        queue_name=queue_name,
        cluster_queue=_cluster_queue_name(index, workload, queue_name),
        priority_class=_priority_class_of(workload, job),
    )
    if workload is None:
        if not _job_suspended(job):
            return None
        _no_workload(state, snapshot, job, now)
        return state
    if _get(workload, "spec", "active") is False:
        state.kind = "paused"
        return state
    evicted = condition(workload, "Evicted")
    if evicted is not None and evicted.get("status") == "True":
        state.reason = bounded(_str(evicted.get("reason")), 80)
        state.message = bounded(_str(evicted.get("message")))
        state.since = parse_time(evicted.get("lastTransitionTime"))
        state.kind = {"Deactivated": "paused", "Preempted": "preempted", "InactiveWorkload": "paused"}.get(
            state.reason, "evicted"
        )
        return state
    preempted = condition(workload, "Preempted")
    if preempted is not None and preempted.get("status") == "True":
        state.kind = "preempted"
        state.reason = bounded(_str(preempted.get("reason")), 80)
        state.message = bounded(_str(preempted.get("message")))
        return state
    if condition_true(workload, "Admitted") or condition_true(workload, "Finished"):
        state.kind = "admitted"
        return state
    conditions = [c for c in _list(_get(workload, "status", "conditions")) if isinstance(c, dict)]
    state.fits = _resource_fits(index, workload, job, state.cluster_queue)
    if any(not fit.fits for fit in state.fits):
        state.kind = "never_fits"
        return state
    if not conditions:
        created = _created(workload) or _created(job)
        state.kind = "kueue_silent" if created and now - created > KUEUE_SILENT_AFTER else "not_looked_at"
        state.since = created
        return state
    reserved = condition(workload, "QuotaReserved") or {}
    state.message = bounded(_str(reserved.get("message")))
    state.reason = bounded(_str(reserved.get("reason")), 80)
    state.since = parse_time(reserved.get("lastTransitionTime"))
    if _inadmissible(index, snapshot, state, reserved):
        state.kind = "inadmissible"
        return state
    if snapshot.cluster_queues is None and _says_never_fits(state.message):
        state.kind = "never_fits"
        return state
    state.kind = "waiting"
    state.ahead, state.holders, state.ahead_names = _queue_position(index, snapshot, workload, state.cluster_queue)
    cluster_queue = index.cluster_queues.get(state.cluster_queue)
    if cluster_queue is not None and isinstance(_get(cluster_queue, "status", "pendingWorkloads"), int):
        state.pending_in_queue = max(0, _int(_get(cluster_queue, "status", "pendingWorkloads"), 0))
    pending_since = state.since or _created(workload)
    if (
        state.ahead == 0
        and pending_since is not None
        and now - pending_since > KUEUE_SILENT_AFTER
        and _room_for(index, workload, job, state.cluster_queue)
    ):
        state.kind = "kueue_silent"  # first in line, the queue has room, yet nothing admits it
    return state


def _no_workload(state: QueueState, snapshot: Snapshot, job: dict, now: datetime) -> None:
    name = state.priority_class
    classes = snapshot.priority_classes
    if name and classes is not None and name not in classes:
        state.kind = "no_workload_priority_class"
        return
    if name and _events_say_priority_missing(snapshot, _name(job)):
        state.kind = "no_workload_priority_class"
        return
    created = _created(job)
    state.since = created
    if created is not None and now - created > KUEUE_SILENT_AFTER:
        state.kind = "kueue_silent"
    else:
        state.kind = "no_workload_yet"


def _events_say_priority_missing(snapshot: Snapshot, job_name: str) -> bool:
    for event in _list(snapshot.events):
        if not isinstance(event, dict) or _str(_get(event, "involvedObject", "name")) != job_name:
            continue
        message = _str(event.get("message")).lower()
        if "priority" in message and ("not found" in message or "doesn't exist" in message):
            return True
    return False


def _inadmissible(index: _Index, snapshot: Snapshot, state: QueueState, reserved: dict) -> bool:
    if state.reason == "Inadmissible":
        return True
    if snapshot.local_queues is not None and state.queue_name and state.queue_name not in index.local_queues:
        state.message = f"LocalQueue {state.queue_name} does not exist in this namespace"
        return True
    cluster_queue = index.cluster_queues.get(state.cluster_queue)
    if cluster_queue is not None:
        active = condition(cluster_queue, "Active")
        if active is not None and active.get("status") == "False":
            inactive = _str(active.get("message")) or f"ClusterQueue {state.cluster_queue} is inactive"
            state.message = bounded(inactive)
            return True
    return False


def _says_never_fits(message: str) -> bool:
    lowered = message.lower()
    return "maximum capacity" in lowered or "exceeds the quota" in lowered or "exceeds quota" in lowered


def _workload_priority(workload: dict) -> int:
    return _int(_get(workload, "spec", "priority"), 0)


def _workload_pending(workload: dict) -> bool:
    if _get(workload, "spec", "active") is False:
        return False
    for kind in ("QuotaReserved", "Admitted", "Finished"):
        if condition_true(workload, kind):
            return False
    return True


def _holds_quota(workload: dict) -> bool:
    return (condition_true(workload, "QuotaReserved") or condition_true(workload, "Admitted")) and not condition_true(
        workload, "Finished"
    )


def _queue_position(
    index: _Index, snapshot: Snapshot, workload: dict, cluster_queue: str
) -> tuple[int, list[str], list[str]]:
    """How many pending workloads of the same ClusterQueue go first, who holds its quota, and the
    Jobs of those that go first.

    Kueue orders by priority, then by creation: a higher priority goes first whenever it came, an
    equal one if it was created earlier. Only this namespace's Workloads are visible here.
    """
    mine_priority = _workload_priority(workload)
    mine_created = _created(workload)
    mine_name = _name(workload)
    ahead = 0
    holders = []
    ahead_names = []
    for other in _list(snapshot.workloads):
        if not isinstance(other, dict) or _name(other) == mine_name:
            continue
        other_queue = _cluster_queue_name(index, other, _str(_get(other, "spec", "queueName")))
        if other_queue != cluster_queue:
            continue
        if _holds_quota(other):
            holders.append(_owner_job_name(other))
            continue
        if not _workload_pending(other):
            continue
        priority = _workload_priority(other)
        created = _created(other)
        earlier = created is not None and mine_created is not None and created < mine_created
        if priority > mine_priority or (priority == mine_priority and earlier):
            ahead += 1
            ahead_names.append(_owner_job_name(other))
    return ahead, sorted(holders), sorted(ahead_names)


def _owner_job_name(workload: dict) -> str:
    for owner in _list(_meta(workload).get("ownerReferences")):
        if isinstance(owner, dict) and owner.get("kind") == "Job" and _str(owner.get("name")):
            return bounded(owner["name"], 253)
    return bounded(_name(workload), 253)


# ---------------------------------------------------------------------------------------------
# Quantities and fit


_QUANTITY_RE = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d{1,3}))?([A-Za-z]{0,2})$")
_SUFFIXES = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity (``4``, ``50m``, ``8Gi``, ``1e3``) as a Decimal, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(str(value))
        except InvalidOperation:
            return None
    if not isinstance(value, str) or len(value) > 40:
        return None
    match = _QUANTITY_RE.match(value.strip())
    if not match or match.group(3) not in _SUFFIXES:
        return None
    try:
        number = Decimal(match.group(1))
        if match.group(2):
            number = number.scaleb(int(match.group(2)))
    except InvalidOperation:
        return None
    return number * _SUFFIXES[match.group(3)]


def format_quantity(resource: str, value: Decimal) -> str:
    """A quantity back in readable Kubernetes form: memory in Gi/Mi, CPU in cores or millicores."""
    if "memory" in resource or "storage" in resource:
        for suffix in ("Ti", "Gi", "Mi", "Ki"):
            unit = _SUFFIXES[suffix]
            if value >= unit and value % unit == 0:
                return f"{value / unit:f}".rstrip("0").rstrip(".") + suffix
        return f"{value:f}".rstrip("0").rstrip(".") if "." in f"{value:f}" else f"{value:f}"
    if value != value.to_integral_value() and (value * 1000) == (value * 1000).to_integral_value():
        return f"{int(value * 1000)}m"
    text = f"{value.normalize():f}"
    return text


def _pod_requests(template: dict) -> dict[str, Decimal]:
    """Effective per-pod requests: max(sum of containers, each init container), per resource."""
    spec = _dict(_get(template, "spec"))
    total: dict[str, Decimal] = {}
    for key, combine in (("containers", Decimal.__add__), ("initContainers", max)):
        for container in _list(spec.get(key)):
            for resource, raw in _dict(_get(container, "resources", "requests")).items():
                amount = parse_quantity(raw)
                if amount is not None and isinstance(resource, str):
                    total[resource] = combine(total.get(resource, Decimal(0)), amount)
    return total


def _requested(workload: dict, job: dict) -> dict[str, Decimal]:
    """What the whole workload asks at once: per-pod requests × pod count, summed over pod sets."""
    asked: dict[str, Decimal] = {}
    pod_sets = [p for p in _list(_get(workload, "spec", "podSets")) if isinstance(p, dict)]
    job_template = _dict(_get(job, "spec", "template"))
    parallelism = max(0, _int(_get(job, "spec", "parallelism"), 1))
    if not pod_sets:
        pod_sets = [{"count": parallelism, "template": job_template}]
    for pod_set in pod_sets:
        template = _dict(pod_set.get("template"))
        if not _list(_get(template, "spec", "containers")):
            template = job_template
        count = max(0, _int(pod_set.get("count"), parallelism))
        for resource, amount in _pod_requests(template).items():
            asked[resource] = asked.get(resource, Decimal(0)) + amount * count
    return asked


def _nominal_quota(cluster_queue: dict) -> dict[str, Decimal]:
    """The most a ClusterQueue can ever give per resource: the largest nominal quota among flavors."""
    quota: dict[str, Decimal] = {}
    for group in _list(_get(cluster_queue, "spec", "resourceGroups")):
        for flavor in _list(_get(group, "flavors")):
            for resource in _list(_get(flavor, "resources")):
                name = _str(_get(resource, "name"))
                amount = parse_quantity(_get(resource, "nominalQuota"))
                if name and amount is not None:
                    quota[name] = max(quota.get(name, Decimal(0)), amount)
    return quota


def _quota_in_use(cluster_queue: dict) -> dict[str, Decimal]:
    """What the ClusterQueue has handed out per resource (reservations if reported, else usage)."""
    status = _dict(cluster_queue.get("status"))
    flavors = _list(status.get("flavorsReservation")) or _list(status.get("flavorsUsage"))
    used: dict[str, Decimal] = {}
    for flavor in flavors:
        for resource in _list(_get(flavor, "resources")):
            name = _str(_get(resource, "name"))
            amount = parse_quantity(_get(resource, "total"))
            if name and amount is not None:
                used[name] = used.get(name, Decimal(0)) + amount
    return used


def _room_for(index: _Index, workload: dict, job: dict, cluster_queue_name: str) -> bool:
    """The ClusterQueue is readable and has enough unused quota for the whole workload right now."""
    cluster_queue = index.cluster_queues.get(cluster_queue_name)
    if cluster_queue is None:
        return False
    quota = _nominal_quota(cluster_queue)
    used = _quota_in_use(cluster_queue)
    asked = {r: a for r, a in _requested(workload, job).items() if a > 0 and r in quota}
    if not asked:
        return False
    return all(used.get(r, Decimal(0)) + a <= quota[r] for r, a in asked.items())


def _covered_resources(cluster_queue: dict) -> set[str]:
    covered = set()
    for group in _list(_get(cluster_queue, "spec", "resourceGroups")):
        covered.update(_str(r) for r in _list(_get(group, "coveredResources")))
    return covered


def _resource_fits(index: _Index, workload: dict, job: dict, cluster_queue_name: str) -> list[ResourceFit]:
    cluster_queue = index.cluster_queues.get(cluster_queue_name)
    if cluster_queue is None:
        return []
    quota = _nominal_quota(cluster_queue)
    covered = _covered_resources(cluster_queue) | set(quota)
    fits = []
    for resource, asked in sorted(_requested(workload, job).items()):
        if asked <= 0:
            continue
        if resource not in covered:
            continue
        limit = quota.get(resource)
        fits.append(
            ResourceFit(
                resource=bounded(resource, 80),
                requested=format_quantity(resource, asked),
                quota=format_quantity(resource, limit) if limit is not None else "",
                fits=limit is not None and asked <= limit,
            )
        )
    return fits


# ---------------------------------------------------------------------------------------------
# Campaigns whose Job is gone


def _record_job_name(config_map_name: str, status: bool) -> str:
    if not config_map_name.startswith("campaign-"):
        return ""
    rest = config_map_name[len("campaign-") :]
    if status:
        if not rest.endswith("-status"):
            return ""
        rest = rest[: -len("-status")]
    return rest


def _gone_groups(index: _Index, live_jobs: set[str]) -> dict[str, list[str]]:
    """Campaign name -> its gone Job names, from records and status records with no live Job."""
    labels_by_job: dict[str, str] = {}
    for name, record in index.records.items():
        job = _record_job_name(name, status=False)
        if job and job not in live_jobs:
            labels_by_job.setdefault(job, _str(_labels(record).get(LABEL_CAMPAIGN)))
    for name, record in index.status_records.items():
        job = _record_job_name(name, status=True)
        if job and job not in live_jobs:
            labels_by_job[job] = labels_by_job.get(job) or _str(_labels(record).get(LABEL_CAMPAIGN))
    groups: dict[str, list[tuple[int, str]]] = {}
    for job, label in labels_by_job.items():
        key, part = campaign_key(job, label)
        groups.setdefault(key, []).append((part, job))
    return {key: [job for _, job in sorted(jobs)] for key, jobs in groups.items()}


def _failed_volumes_from_record(data: dict) -> list[tuple[str, str]]:
    raw = data.get("failedVolumes")
    if not isinstance(raw, str) or not raw.strip() or len(raw) > 1_000_000:
        return []
    try:
        items = json.loads(raw)
    except (ValueError, RecursionError):
        return []
    found = []
    for item in _list(items)[:MAX_FAILED_VOLUMES_RECORD]:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
            found.append((bounded(item["id"], 80), bounded(_str(item.get("reason")))))
    return found


def _project_gone(snapshot: Snapshot, index: _Index, name: str, job_names: list[str]) -> Campaign:
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
        labels = {**_labels(status), **_labels(record)}
        pipeline = pipeline or _str(labels.get(LABEL_PIPELINE))
        label = label or _str(labels.get(LABEL_CAMPAIGN))
        data = _dict(status.get("data"))
        stored = _str(data.get("phase"))
        phase = RECORD_PHASE_TO_PHASE.get(stored, UNKNOWN)
        phases.append(phase)
        lines = parse_volumes_txt(_get(record, "data", "volumes.txt"))
        total = _int(data.get("volumesTotal"), -1)
        if total < 0:
            total = max(lines) + 1 if lines else 0
        done = max(0, _int(data.get("volumesDone"), 0))
        failed_count = max(0, _int(data.get("volumesFailed"), 0))
        counts.total += max(0, total)
        counts.done += done
        counts.failed += failed_count
        started.append(parse_time(data.get("startedAt")))
        finished.append(parse_time(data.get("finishedAt")))
        failed_ids = dict(_failed_volumes_from_record(data))
        truncated = truncated or failed_count > len(failed_ids)
        part_volumes = _gone_volumes(snapshot.namespace, pipeline, job, lines, failed_ids, phase, done, failed_count)
        volumes.extend(part_volumes)
        failures.extend(v for v in part_volumes if v.state == "failed")
    stored_phase = _str(_dict(first_status.get("data")).get("phase"))
    if phases and all(p in FINAL_PHASES for p in phases):
        phase = SUCCEEDED if all(p == SUCCEEDED for p in phases) else (PARTIALLY_FAILED if counts.done else FAILED)
    else:
        phase = UNKNOWN
    counts.pending = 0
    record_info = _record_info(first_record)
    campaign = Campaign(
        namespace=snapshot.namespace,
        name=name,
        campaign=label,
        pipeline=pipeline,
        phase=phase,
        parts=list(job_names),
        created_at=_created(first_record) or parse_time(record_info.applied_at),
        started_at=_min_time(started),
        finished_at=_max_time(finished) if phase in FINAL_PHASES else None,
        job_gone=True,
        job_uid=_str(_dict(first_status.get("data")).get("jobUid")) or record_info.job_uid,
        counts=counts,
        volumes=volumes,
        failures=failures,
        failures_truncated=truncated,
        record=record_info,
        results_prefix=f"{snapshot.namespace}/{pipeline}/" if pipeline else "",
        stored_phase=bounded(stored_phase, 40),
    )
    _fill_pipeline(campaign, index, None)
    for volume in volumes:
        volume.sentence = sentences.volume_sentence(volume, snapshot.namespace)
    campaign.sentence = sentences.campaign_sentence(campaign)
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
            volume.reason = _record_reason(failed_ids[line.id], final=True)
        elif phase == SUCCEEDED or all_accounted:
            volume.state = "done"
        seen.add(line.id)
        volumes.append(volume)
    for vid, text in failed_ids.items():
        if vid in seen:
            continue
        volume = Volume(index=-1, id=vid, job=job, namespace=namespace, pipeline=pipeline, state="failed")
        volume.reason = _record_reason(text, final=True)
        volumes.append(volume)
    return volumes


# ---------------------------------------------------------------------------------------------
# Keeping the status record current


def status_record_update(campaign: Campaign, existing_data: dict | None, results_url: str = "") -> dict | None:
    """The data to write to the campaign's status ConfigMap, or None when nothing changed.

    Never shrinks the record: empty values never overwrite filled ones, keys are never dropped,
    ``finishedAt`` never moves back, and stored failed-volume reasons of the same Job are kept.
    A campaign whose Job is gone is never written from here. For split campaigns use
    :func:`status_record_updates`.
    """
    if campaign.job_gone:
        return None
    return merge_status_record(campaign.status_record_data(results_url), existing_data)


def status_record_updates(
    campaign: Campaign, existing: dict[str, dict], results_url: str = ""
) -> dict[str, dict[str, str]]:
    """ConfigMap name -> data to write, one per part Job that changed (existing: name -> data)."""
    if campaign.job_gone:
        return {}
    base = campaign.results_base(results_url)
    writes = {}
    for part in campaign.part_states:
        name = part.status_record_name
        merged = merge_status_record(part.status_record_data(base), _dict(existing.get(name)))
        if merged is not None:
            writes[name] = merged
    return writes


def merge_status_record(desired: dict[str, str], existing_data: dict | None) -> dict | None:
    existing = {k: v for k, v in _dict(existing_data).items() if isinstance(k, str)}
    merged = dict(existing)
    same_job = not existing.get("jobUid") or existing.get("jobUid") == desired.get("jobUid")
    for key, value in desired.items():
        old = existing.get(key)
        if value == "" and old:
            continue
        if key == "finishedAt" and old and same_job:
            old_time, new_time = parse_time(old), parse_time(value)
            if old_time is not None and (new_time is None or new_time < old_time):
                continue
        if key == "failedVolumes":
            value = _merge_failed_volumes(existing, desired)
        merged[key] = value
    if merged == existing:
        return None
    return {k: v if isinstance(v, str) else str(v) for k, v in merged.items()}


def _merge_failed_volumes(existing: dict, desired: dict) -> str:
    new_items = _failed_volumes_from_record(desired)
    if existing.get("failedVolumesJobUid") and existing.get("failedVolumesJobUid") != desired.get(
        "failedVolumesJobUid"
    ):
        items = new_items
    else:
        stored = dict(_failed_volumes_from_record(existing))
        items = []
        seen = set()
        for vid, reason in new_items:
            items.append((vid, reason or stored.get(vid, "")))
            seen.add(vid)
        for vid, reason in _failed_volumes_from_record(existing):
            if vid not in seen:
                items.append((vid, reason))
    return failed_volumes_json(items, MAX_FAILED_VOLUMES_RECORD)


# ---------------------------------------------------------------------------------------------
# Ordering


def sort_campaigns(campaigns: Iterable[Campaign], now: datetime | None = None) -> list[Campaign]:
    """Running first, then in trouble, then finished (newest first), then queued and paused."""
    now = now or datetime.now(UTC)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)

    def key(campaign: Campaign):
        newest = campaign.finished_at or campaign.started_at or campaign.created_at or epoch
        created = campaign.created_at or epoch
        if campaign.phase == RUNNING:
            return (0, 0 if campaign.in_trouble else 1, -newest.timestamp(), campaign.name)
        if _troubled_now(campaign, now):
            return (1, 0, -newest.timestamp(), campaign.name)
        if campaign.phase in FINAL_PHASES or campaign.phase == UNKNOWN:
            return (2, 0, -newest.timestamp(), campaign.name)
        return (3, 0 if campaign.phase == QUEUED else 1, created.timestamp(), campaign.name)

    return sorted(campaigns, key=key)


def _troubled_now(campaign: Campaign, now: datetime) -> bool:
    if not campaign.in_trouble:
        return False
    if campaign.phase in FINAL_PHASES:
        if campaign.job_gone:
            return False
        return campaign.finished_at is None or now - campaign.finished_at <= RECENT_TROUBLE
    return True
