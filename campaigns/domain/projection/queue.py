"""Where a suspended campaign stands in Kueue (contracts §6).

Decides the queue state of a Job: no Workload yet, Kueue silent, paused, evicted, preempted,
inadmissible, never fits, waiting (with how many go first and who holds the quota) or admitted.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from campaigns.domain.diagnosis.kueue_message import parse_message
from campaigns.domain.diagnosis.queue import REASON_LEVELS, blocker_level
from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.jobs import job_suspended
from campaigns.domain.projection.quantities import resource_fits, room_for
from campaigns.domain.projection.readers import (
    as_int,
    as_list,
    as_str,
    condition,
    condition_true,
    created_time,
    get_path,
    labels_of,
    metadata_of,
    name_of,
    newest_first,
)
from campaigns.models import QueueState, Snapshot, bounded, parse_time
from core.contract import LABEL_PRIORITY_CLASS, LABEL_QUEUE_NAME

# Kueue is given this long to create a Workload for a new Job before we say it is silent.
KUEUE_SILENT_AFTER = timedelta(minutes=3)
# Every decision here that compares `now` with something ends in one of these kinds (see `counts_time`).
COUNTS_TIME = frozenset({"no_workload_yet", "not_looked_at", "waiting", "kueue_silent"})


def workload_for(index: SnapshotIndex, job: dict) -> dict | None:
    uid = as_str(metadata_of(job).get("uid"))
    candidates = index.workloads_by_uid.get(uid, []) if uid else []
    if not candidates:
        candidates = index.workloads_by_owner.get(name_of(job), [])
    if not candidates:
        return None
    return newest_first(candidates)[0]


def _cluster_queue_name(index: SnapshotIndex, workload: dict | None, queue_name: str) -> str:
    admitted = as_str(get_path(workload, "status", "admission", "clusterQueue"))
    if admitted:
        return admitted
    local = index.local_queues.get(queue_name)
    if local:
        named = as_str(get_path(local, "spec", "clusterQueue"))
        if named:
            return named
    return f"{queue_name}-cq" if queue_name else ""


def _priority_class_of(workload: dict | None, job: dict) -> str:
    return (
        as_str(get_path(workload, "spec", "priorityClassRef", "name"))
        or as_str(get_path(workload, "spec", "priorityClassName"))
        or as_str(labels_of(job).get(LABEL_PRIORITY_CLASS))
    )


def queue_state(snapshot: Snapshot, index: SnapshotIndex, job: dict, now: datetime) -> QueueState | None:
    workload = workload_for(index, job)
    state = _new_state(index, workload, job)
    if workload is None:
        if not job_suspended(job):
            return None
        _no_workload(state, snapshot, job, now)
        return state
    if _stopped_or_admitted(state, workload):
        return state
    conditions = [c for c in as_list(get_path(workload, "status", "conditions")) if isinstance(c, dict)]
    state.fits = resource_fits(index, workload, job, state.cluster_queue)
    if any(not fit.fits for fit in state.fits):
        state.kind = "never_fits"
        return state
    if not conditions:
        created = created_time(workload) or created_time(job)
        state.kind = "kueue_silent" if created and now - created > KUEUE_SILENT_AFTER else "not_looked_at"
        state.since = created
        return state
    _not_admitted(state, snapshot, index, workload, job, now)
    return state


def counts_time(state: QueueState | None) -> bool:
    """The state was decided by comparing `now` with something, so it may read otherwise a moment later
    (the incremental projection projects such a campaign anew every time). A Workload waiting behind
    others is decided without the clock: only the first in line can be found waiting too long."""
    if state is None or state.kind not in COUNTS_TIME:
        return False
    return not (state.kind == "waiting" and state.ahead > 0)


def _new_state(index: SnapshotIndex, workload: dict | None, job: dict) -> QueueState:
    queue_name = as_str(get_path(workload, "spec", "queueName")) or as_str(labels_of(job).get(LABEL_QUEUE_NAME))
    return QueueState(
        kind="not_looked_at",
        workload_name=name_of(workload) if workload else "",
        queue_name=queue_name,
        cluster_queue=_cluster_queue_name(index, workload, queue_name),
        priority_class=_priority_class_of(workload, job),
    )


def _stopped_or_admitted(state: QueueState, workload: dict) -> bool:
    """Sets the kind of a Workload that is paused, evicted, preempted or admitted; False for any other."""
    if get_path(workload, "spec", "active") is False:
        state.kind = "paused"
        return True
    evicted = condition(workload, "Evicted")
    if evicted is not None and evicted.get("status") == "True":
        state.reason = bounded(as_str(evicted.get("reason")), 80)
        state.message = bounded(as_str(evicted.get("message")))
        state.since = parse_time(evicted.get("lastTransitionTime"))
        state.kind = {"Deactivated": "paused", "Preempted": "preempted", "InactiveWorkload": "paused"}.get(
            state.reason, "evicted"
        )
        return True
    preempted = condition(workload, "Preempted")
    if preempted is not None and preempted.get("status") == "True":
        state.kind = "preempted"
        state.reason = bounded(as_str(preempted.get("reason")), 80)
        state.message = bounded(as_str(preempted.get("message")))
        return True
    if condition_true(workload, "Admitted") or condition_true(workload, "Finished"):
        state.kind = "admitted"
        return True
    return False


def _not_admitted(
    state: QueueState, snapshot: Snapshot, index: SnapshotIndex, workload: dict, job: dict, now: datetime
) -> None:
    """Why a Workload Kueue has looked at is not admitted: inadmissible, never fits, or waiting."""
    reserved = condition(workload, "QuotaReserved") or {}
    state.message = bounded(as_str(reserved.get("message")))
    state.reason = bounded(as_str(reserved.get("reason")), 80)
    state.since = parse_time(reserved.get("lastTransitionTime"))
    if _inadmissible(index, snapshot, state, reserved):
        state.kind = "inadmissible"
    elif snapshot.cluster_queues is None and _says_never_fits(state.message):
        state.kind = "never_fits"
    else:
        _waiting(state, snapshot, index, workload, job, now)


def _waiting(
    state: QueueState, snapshot: Snapshot, index: SnapshotIndex, workload: dict, job: dict, now: datetime
) -> None:
    """A Workload waiting in line: how many go first, who holds the quota, and whether Kueue is silent."""
    state.kind = "waiting"
    state.ahead, state.holders, state.ahead_names = _queue_position(index, snapshot, workload, state.cluster_queue)
    cluster_queue = index.cluster_queues.get(state.cluster_queue)
    if cluster_queue is not None and isinstance(get_path(cluster_queue, "status", "pendingWorkloads"), int):
        state.pending_in_queue = max(0, as_int(get_path(cluster_queue, "status", "pendingWorkloads"), 0))
    pending_since = state.since or created_time(workload)
    if (
        state.ahead == 0
        and pending_since is not None
        and now - pending_since > KUEUE_SILENT_AFTER
        and room_for(index, workload, job, state.cluster_queue)
    ):
        state.kind = "kueue_silent"  # first in line, the queue has room, yet nothing admits it


def _no_workload(state: QueueState, snapshot: Snapshot, job: dict, now: datetime) -> None:
    name = state.priority_class
    classes = snapshot.priority_classes
    if name and classes is not None and name not in classes:
        state.kind = "no_workload_priority_class"
        return
    if name and _events_say_priority_missing(snapshot, name_of(job)):
        state.kind = "no_workload_priority_class"
        return
    created = created_time(job)
    state.since = created
    if created is not None and now - created > KUEUE_SILENT_AFTER:
        state.kind = "kueue_silent"
    else:
        state.kind = "no_workload_yet"


def _events_say_priority_missing(snapshot: Snapshot, job_name: str) -> bool:
    for event in as_list(snapshot.events):
        if not isinstance(event, dict) or as_str(get_path(event, "involvedObject", "name")) != job_name:
            continue
        message = as_str(event.get("message")).lower()
        if "priority" in message and ("not found" in message or "doesn't exist" in message):
            return True
    return False


def _inadmissible(index: SnapshotIndex, snapshot: Snapshot, state: QueueState, reserved: dict) -> bool:
    if state.reason == "Inadmissible":
        return True
    if snapshot.local_queues is not None and state.queue_name and state.queue_name not in index.local_queues:
        state.message = f"LocalQueue {state.queue_name} does not exist in this namespace"
        return True
    cluster_queue = index.cluster_queues.get(state.cluster_queue)
    if cluster_queue is not None:
        active = condition(cluster_queue, "Active")
        if active is not None and active.get("status") == "False":
            inactive = as_str(active.get("message")) or f"ClusterQueue {state.cluster_queue} is inactive"
            state.message = bounded(inactive)
            return True
    return False


def _says_never_fits(message: str) -> bool:
    lowered = message.lower()
    return "maximum capacity" in lowered or "exceeds the quota" in lowered or "exceeds quota" in lowered


def _workload_priority(workload: dict) -> int:
    return as_int(get_path(workload, "spec", "priority"), 0)


def _workload_pending(workload: dict) -> bool:
    if get_path(workload, "spec", "active") is False:
        return False
    for kind in ("QuotaReserved", "Admitted", "Finished"):
        if condition_true(workload, kind):
            return False
    return True


def _never_admitted(index: SnapshotIndex, workload: dict, cluster_queue: str) -> bool:
    """Kueue can never admit it as it is: it asks more than its ClusterQueue can ever give (read from the
    queue's quota, else from Kueue's own reason or message), so it is no campaign ahead of another."""
    if any(not fit.fits for fit in resource_fits(index, workload, {}, cluster_queue)):
        return True
    reserved = condition(workload, "QuotaReserved") or {}
    if reserved.get("status") != "False":
        return False
    level = REASON_LEVELS.get(as_str(reserved.get("reason")))
    if level is None:  # older Kueue gives no deciding reason: its message decides, by Kueue's own rule
        level = blocker_level(parse_message(as_str(reserved.get("message"))).blockers)
    return level == REASON_LEVELS["ExceedsMaxQuota"]


def _holds_quota(workload: dict) -> bool:
    return (condition_true(workload, "QuotaReserved") or condition_true(workload, "Admitted")) and not condition_true(
        workload, "Finished"
    )


def _queue_position(
    index: SnapshotIndex, snapshot: Snapshot, workload: dict, cluster_queue: str
) -> tuple[int, list[str], list[str]]:
    """How many pending workloads of the same ClusterQueue go first, who holds its quota, and the
    Jobs of those that go first.

    Kueue orders by priority, then by creation: a higher priority goes first whenever it came, an
    equal one if it was created earlier. Only this namespace's Workloads are visible here.
    """
    mine_priority = _workload_priority(workload)
    mine_created = created_time(workload)
    mine_name = name_of(workload)
    ahead = 0
    holders = []
    ahead_names = []
    for other in as_list(snapshot.workloads):
        if not isinstance(other, dict) or name_of(other) == mine_name:
            continue
        other_queue = _cluster_queue_name(index, other, as_str(get_path(other, "spec", "queueName")))
        if other_queue != cluster_queue:
            continue
        if _holds_quota(other):
            holders.append(_owner_job_name(other))
            continue
        if not _workload_pending(other) or _never_admitted(index, other, other_queue):
            continue  # one that can never be admitted is not ahead in line: it never goes first
        priority = _workload_priority(other)
        created = created_time(other)
        earlier = created is not None and mine_created is not None and created < mine_created
        if priority > mine_priority or (priority == mine_priority and earlier):
            ahead += 1
            ahead_names.append(_owner_job_name(other))
    return ahead, sorted(holders), sorted(ahead_names)


def _owner_job_name(workload: dict) -> str:
    for owner in as_list(metadata_of(workload).get("ownerReferences")):
        if isinstance(owner, dict) and owner.get("kind") == "Job" and as_str(owner.get("name")):
            return bounded(owner["name"], 253)
    return bounded(name_of(workload), 253)
