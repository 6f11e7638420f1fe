"""The attempts of one volume that the cluster still holds: one per pod of its Job and completion index.

The volume page tells a volume's story attempt by attempt; the projection keeps only the newest pod's
reason on the volume, so the page looks its pods up in the same snapshot (pure: no I/O, no words). The
pods the cluster has already removed are not here: the volume's failure count says how many there were.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from campaigns.domain.projection.index import _pod_place
from campaigns.domain.projection.readers import as_list, as_str, created_time, get_path, name_of
from campaigns.domain.projection.reasons import container_status, reason_from_pod
from campaigns.models import Volume, VolumeReason, parse_time

# How an attempt stands or ended, from its pod's phase: a code the wording says.
RUNNING, WAITING, SUCCEEDED, FAILED, UNKNOWN = "running", "waiting", "succeeded", "failed", "unknown"
_PHASES = {"Running": RUNNING, "Pending": WAITING, "Succeeded": SUCCEEDED, "Failed": FAILED}


@dataclass(frozen=True)
class Attempt:
    """One pod that ran (or runs, or waits to run) the volume."""

    pod: str
    node: str
    started_at: datetime | None
    ended_at: datetime | None
    outcome: str  # RUNNING, WAITING, SUCCEEDED, FAILED or UNKNOWN
    reason: VolumeReason | None  # why it stopped, when its pod says


def _ended_at(pod: dict) -> datetime | None:
    wrapper = container_status(pod, "wrapper")
    finished = parse_time(get_path(wrapper, "state", "terminated", "finishedAt"))
    if finished is not None:
        return finished
    for status in as_list(get_path(pod, "status", "containerStatuses")):
        finished = parse_time(get_path(status, "state", "terminated", "finishedAt"))
        if finished is not None:
            return finished
    return None


def attempt_of(pod: dict) -> Attempt:
    outcome = _PHASES.get(as_str(get_path(pod, "status", "phase")), UNKNOWN)
    return Attempt(
        pod=name_of(pod),
        node=as_str(get_path(pod, "spec", "nodeName")),
        started_at=parse_time(get_path(pod, "status", "startTime")) or created_time(pod),
        ended_at=_ended_at(pod) if outcome in (SUCCEEDED, FAILED, UNKNOWN) else None,
        outcome=outcome,
        reason=reason_from_pod(pod) if outcome != SUCCEEDED else None,
    )


def volume_attempts(pods: list[dict], volume: Volume) -> list[Attempt]:
    """The volume's attempts the snapshot holds, oldest first (its Job and completion index)."""
    mine = [pod for pod in pods if isinstance(pod, dict) and _pod_place(pod) == (volume.job, volume.index)]
    attempts = [attempt_of(pod) for pod in mine]
    return sorted(attempts, key=lambda a: (a.started_at is None, a.started_at or datetime.min))
