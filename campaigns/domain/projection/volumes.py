"""The volumes list (``volumes.txt``) and the state of each volume of a live Job.

Decides which index holds which volume (malformed lines become ``unknown`` volumes, never errors),
and for each index whether it is done, failed, active, pending or unknown, how many tries it took,
whether it waits for the model cache and why it last stopped.
"""

from __future__ import annotations

from typing import Any

from campaigns.domain.projection.readers import (
    annotations_of,
    as_int,
    as_str,
    condition_true,
    get_path,
    metadata_of,
    newest_first,
)
from campaigns.domain.projection.reasons import container_status, reason_from_pod
from campaigns.models import (
    FINAL_PHASES,
    Volume,
    bounded,
)
from core.contract import ANNOTATION_INDEX_FAILURE_COUNT, VolumeLine, read_volume_line, volumes_txt_lines

# The most volumes one Job can hold is 10 000; guard the loops against absurd completions.
MAX_VOLUMES_PER_JOB = 20_000


def parse_volumes_txt(text: Any, limit: int = MAX_VOLUMES_PER_JOB) -> dict[int, VolumeLine]:
    """Index -> volume from ``volumes.txt`` (the grammar: ``core.contract.read_volume_line``), bounded.

    Blank lines hold no volume but keep their position; a line that does not parse becomes a
    malformed entry (shown as an ``unknown`` volume), never an error.
    """
    if not isinstance(text, str):
        return {}
    volumes: dict[int, VolumeLine] = {}
    for index, line in enumerate(volumes_txt_lines(text, limit)):
        read = read_volume_line(line)
        if read is not None:
            ident = bounded(read.id, 80) if read.malformed else read.id
            volumes[index] = VolumeLine(ident, bounded(read.source, 4000), read.malformed)
    return volumes


def _pod_is_live(pod: dict) -> bool:
    return as_str(get_path(pod, "status", "phase")) in ("Pending", "Running") and not metadata_of(pod).get(
        "deletionTimestamp"
    )


def _waiting_for_cache(pod: dict) -> bool:
    init = container_status(pod, "warmup-wait", init=True)
    return bool(get_path(init, "state", "running")) or bool(get_path(init, "state", "waiting"))


def _failed_try(pod: dict) -> bool:
    """A failed pod that counts against the index's retries (a drained pod does not)."""
    return as_str(get_path(pod, "status", "phase")) == "Failed" and not condition_true(pod, "DisruptionTarget")


def volume_state(volume: Volume, position: int, completed, failed, phase: str, pods: list[dict]) -> None:
    """Fill state, reason, attempts and retrying of one volume from the Job status and its pods."""
    newest = newest_first(p for p in pods if isinstance(p, dict))
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
        failures = as_int(annotations_of(newest[0]).get(ANNOTATION_INDEX_FAILURE_COUNT), 0)
        count = failures + (1 if _failed_try(newest[0]) else 0)
        volume.attempts = max(count, failed_tries)
    for pod in newest:
        reason = reason_from_pod(pod)
        if reason is not None:
            if reason.kind == "transient" and volume.state == "failed":
                reason.kind = "transient_final"
            volume.reason = reason
            break
    volume.retrying = volume.state in ("active", "pending") and volume.reason is not None
