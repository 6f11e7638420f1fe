"""What one Job says about itself: its phase, whether it is suspended, when it finished.

The phase of a single Job comes from its conditions and completed indexes; a split campaign's
phase is combined from these in :mod:`campaigns.domain.projection.live`. Also which ConfigMap the Job's
pod template mounts under a given volume name (its campaign record, its pipeline).
"""

from __future__ import annotations

from datetime import datetime

from campaigns.domain.projection.readers import (
    FAILURE_CONDITIONS,
    SUCCESS_CONDITIONS,
    any_condition_true,
    as_list,
    as_str,
    condition,
    condition_true,
    get_path,
)
from campaigns.models import (
    FAILED,
    PARTIALLY_FAILED,
    PAUSED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    parse_time,
)


def job_phase(job: dict, completed: set[int]) -> str:
    if any_condition_true(job, SUCCESS_CONDITIONS):
        return SUCCEEDED
    if any_condition_true(job, FAILURE_CONDITIONS):
        return PARTIALLY_FAILED if completed else FAILED
    if job_suspended(job):
        return PAUSED if completed else QUEUED
    return RUNNING


def job_suspended(job: dict) -> bool:
    suspend = get_path(job, "spec", "suspend")
    if isinstance(suspend, bool):
        return suspend
    return condition_true(job, "Suspended")


def job_finished_at(job: dict) -> datetime | None:
    finished = parse_time(get_path(job, "status", "completionTime"))
    if finished is not None:
        return finished
    for kind in ("Complete", "Failed"):
        cond = condition(job, kind)
        if cond is not None and cond.get("status") == "True":
            return parse_time(cond.get("lastTransitionTime"))
    return None


def template_config_map(job: dict, volume_name: str) -> str:
    for volume in as_list(get_path(job, "spec", "template", "spec", "volumes")):
        if isinstance(volume, dict) and volume.get("name") == volume_name:
            return as_str(get_path(volume, "configMap", "name"))
    return ""
