"""The model-cache warm-up of a campaign's pipeline (contracts §3).

Decides whether the warm-up Job is missing, pending, running, succeeded or failed, why it failed,
and whether its marker is missing although it succeeded (a campaign pod gave up on the marker
after the warm-up completed).
"""

from __future__ import annotations

from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.jobs import job_finished_at
from campaigns.domain.projection.readers import (
    FAILURE_CONDITIONS,
    SUCCESS_CONDITIONS,
    any_condition_true,
    as_int,
    as_str,
    get_path,
    name_of,
    newest_first,
    true_failure_condition,
)
from campaigns.domain.projection.reasons import container_message, container_status, message_reason, reason_from_pod
from campaigns.models import Campaign, Snapshot, VolumeReason, Warmup, bounded
from core.contract import ANNOTATION_RECIPE_SHA


def project_warmup(
    snapshot: Snapshot, index: SnapshotIndex, pipeline: str, campaign: Campaign | None = None
) -> Warmup | None:
    if not pipeline:
        return None
    job = index.warmups.get(pipeline)
    warmup = Warmup(pipeline=pipeline, state="missing", job_name=f"htr-warmup-{pipeline}")
    warmup.marker_path = f"/data/warmup/{pipeline}.done"
    if job:
        warmup.job_name = name_of(job) or warmup.job_name
        sha = as_str(get_path(job, "spec", "template", "metadata", "annotations", ANNOTATION_RECIPE_SHA))
        warmup.recipe_sha256 = bounded(sha, 80)
        warmup.cache_dir = f"/{pipeline}-{warmup.recipe_sha256}/" if warmup.recipe_sha256 else ""
        if any_condition_true(job, SUCCESS_CONDITIONS):
            warmup.state = "succeeded"
        elif any_condition_true(job, FAILURE_CONDITIONS):
            warmup.state = "failed"
        elif as_int(get_path(job, "status", "active"), 0) > 0:
            warmup.state = "running"
        else:
            warmup.state = "pending"
        if warmup.state == "failed":
            warmup.reason = _warmup_reason(index, warmup.job_name)
            if warmup.reason is None:
                cond = true_failure_condition(job) or {}
                text = bounded(as_str(cond.get("message")) or as_str(cond.get("reason")))
                if text:
                    warmup.reason = VolumeReason(stage="warmup", error=text, kind="unknown", source="job")
            warmup.message = warmup.reason.error if warmup.reason else ""
        if warmup.state == "succeeded" and campaign is not None:
            warmup.marker_missing = _marker_missing_after(job, campaign)
    return warmup


def _warmup_reason(index: SnapshotIndex, job_name: str) -> VolumeReason | None:
    for pod in newest_first(p for p in index.warmup_pods.get(job_name, []) if isinstance(p, dict)):
        term, which, message = container_message(container_status(pod, "warmup"))
        if message.strip():
            reason = message_reason(term, which, message, pod, "warmup")
            reason.stage = reason.stage or "warmup"
            reason.kind = {True: "permanent", False: "transient"}.get(reason.permanent, "unknown")
            return reason
        reason = reason_from_pod(pod)
        if reason is not None:
            return reason
    return None


def _marker_missing_after(job: dict, campaign: Campaign) -> bool:
    """A Complete warm-up, yet a campaign pod gave up on the marker after it completed."""
    completed = job_finished_at(job)
    if completed is None:
        return False
    for volume in campaign.volumes.notable():
        reason = volume.reason
        if reason is not None and reason.kind == "warmup_marker" and reason.finished_at is not None:
            if reason.finished_at > completed:
                return True
    return False


def mark_warmup_state(campaign: Campaign) -> None:
    """Each volume that gave up on the warm-up marker carries the warm-up's state now, as the campaign's chip
    reads it, so its row says the same of the warm-up as the chip (failed, still running, complete yet its
    marker not found, ...), never "had not finished" beside a chip that says it failed."""
    warmup = campaign.warmup
    state = "" if warmup is None else "marker_missing" if warmup.marker_missing else warmup.state
    for volume in campaign.volumes.notable():
        if volume.reason is not None and volume.reason.kind == "warmup_marker":
            volume.warmup_state = state
