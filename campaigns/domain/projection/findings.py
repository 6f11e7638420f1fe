"""A campaign's findings: the troubleshooting guide's Check steps run on what the projection holds.

Each check is `campaigns.domain.diagnosis`'s; this module only hands each one the objects of this
campaign, looked up in the snapshot's index (its Jobs' pods, its warm-up's pods, its Workload), so
the incremental projection tracks exactly what a campaign's findings read: a PVC, a ResourceFlavor
or Kueue's controller that changes projects anew only the campaigns that looked at it.

The findings are data (`campaigns.models.findings`); the card, the list, the feed and the read API
word them when they are rendered.
"""

from __future__ import annotations

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.cache import model_cache
from campaigns.domain.diagnosis.campaign_file import missing_priority_class, paused
from campaigns.domain.diagnosis.failures import model_not_in_cache
from campaigns.domain.diagnosis.kueue_health import kueue_health
from campaigns.domain.diagnosis.queue import queue_finding
from campaigns.domain.diagnosis.results import results_address
from campaigns.domain.diagnosis.wait import wait_limit, waiting_finding
from campaigns.domain.diagnosis.warmup import marker_missing
from campaigns.domain.diagnosis.warmup_failed import warmup_failed
from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.queue import workload_for
from campaigns.domain.projection.readers import name_of
from campaigns.models import PAUSED, QUEUED, Campaign, Snapshot, Volume
from campaigns.models.findings import Finding, ModelCache, Subject

# Queue states whose cause is not Kueue's to give: paused in git, or admitted.
_NOT_KUEUES = ("paused", "admitted")


def diagnose(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign, jobs: list[dict]) -> list[Finding]:
    """Every finding of a live campaign, the one that explains its state first. The campaign is also given
    its pipeline's model cache (`Campaign.model_cache`): the guide's section the warm-up checks refer to."""
    campaign.model_cache = pipeline_cache(snapshot, index, campaign, jobs)
    found = [
        _queue(snapshot, index, campaign, jobs),
        _campaign_file(snapshot, index, campaign, jobs),
        _warmup_failed(snapshot, index, campaign),
        _marker(snapshot, index, campaign, jobs),
        *_waiting(snapshot, index, campaign, jobs),
        *_models(campaign),
        _address(snapshot, campaign, jobs),
    ]
    return [finding for finding in found if finding is not None]


def _pods_of(index: SnapshotIndex, job: dict) -> list[dict]:
    return [pod for pods in index.pods_by_job.get(name_of(job), {}).values() for pod in pods]


def _queue(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign, jobs: list[dict]) -> Finding | None:
    """Why Kueue holds a queued or paused campaign back, Kueue's own health checked first."""
    queue = campaign.queue
    if campaign.phase not in (QUEUED, PAUSED) or queue is None or queue.kind in _NOT_KUEUES:
        return None
    job = next((job for job in jobs if name_of(job) == queue.job), jobs[0])
    health = kueue_health(snapshot.namespace, snapshot.kueue_namespace, snapshot.kueue_deployments, snapshot.kueue_pods)
    return queue_finding(
        snapshot.namespace,
        job,
        workload_for(index, job),
        snapshot.resource_flavors,
        campaign.cluster_queue_name,
        snapshot.cluster_queues,
        health,
    )


def _campaign_file(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign, jobs: list[dict]) -> Finding | None:
    """A campaign held back by its own file: paused in git, or a priority class the cluster does not have."""
    queue = campaign.queue
    if campaign.phase not in (QUEUED, PAUSED) or queue is None:
        return None
    job = next((job for job in jobs if name_of(job) == queue.job), jobs[0])
    if queue.kind == "paused":
        return paused(snapshot.namespace, job, workload_for(index, job))
    if queue.kind == "no_workload_priority_class":
        return missing_priority_class(snapshot.namespace, job, snapshot.priority_classes, snapshot.events)
    return None


def _warmup_failed(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign) -> Finding | None:
    """The pipeline's warm-up Job failed: what its error says, and who acts on it."""
    warmup = campaign.warmup
    job = index.warmups.get(campaign.pipeline) if warmup is not None and warmup.state == "failed" else None
    if job is None:
        return None
    steps, wait = campaign.pipeline_steps, campaign.warmup_wait_seconds
    return warmup_failed(snapshot.namespace, campaign.pipeline, job, warmup.reason, steps, wait)


def pipeline_cache(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign, jobs: list[dict]) -> ModelCache | None:
    """The model cache of a live campaign's pipeline, from the claims read, its warm-up Job and the pods that
    mount the cache (the warm-up's and the campaign's own); None for a campaign without a pipeline."""
    if not campaign.pipeline or not jobs:
        return None
    warmup_job = index.warmups.get(campaign.pipeline)
    pods = list(index.warmup_pods.get(name_of(warmup_job), [])) if warmup_job is not None else []
    pods += [pod for job in jobs for pod in _pods_of(index, job)]
    return model_cache(snapshot.namespace, campaign.pipeline, warmup_job, jobs[0], pods, snapshot.pvcs)


def _gave_up(campaign: Campaign) -> list[Volume]:
    return [
        volume
        for volume in campaign.volumes.notable()
        if volume.reason is not None and volume.reason.kind == "warmup_marker" and volume.reason.pod_name
    ]


def _marker(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign, jobs: list[dict]) -> Finding | None:
    """A Complete warm-up whose marker the pods did not find: which of the guide's causes holds."""
    warmup = campaign.warmup
    if warmup is None or not warmup.marker_missing:
        return None
    warmup_job = index.warmups.get(campaign.pipeline)
    gave_up = _gave_up(campaign)
    if warmup_job is None or not gave_up:
        return None
    job = next((job for job in jobs if name_of(job) == gave_up[0].job), jobs[0])
    pods = [*index.warmup_pods.get(name_of(warmup_job), []), *_pods_of(index, job)]
    names = [volume.reason.pod_name for volume in gave_up if volume.job == name_of(job)]
    return marker_missing(snapshot.namespace, warmup_job, job, names, pods, snapshot.pvcs, campaign.name)


def _waiting(snapshot: Snapshot, index: SnapshotIndex, campaign: Campaign, jobs: list[dict]) -> list[Finding]:
    """Pods waiting in warmup-wait: since when, and when each gives up by the Job's own limit."""
    if not any(volume.waiting_for_cache for volume in campaign.volumes.notable()):
        return []
    said = [
        (volume.reason.pod_name, volume.reason.error)
        for volume in _gave_up(campaign)
        if volume.reason is not None and volume.reason.error
    ]
    found = []
    for job in jobs:
        pods = _pods_of(index, job)
        finding = waiting_finding(snapshot.namespace, campaign.name, job, pods, wait_limit(job, said))
        if finding is not None:
            found.append(finding)
    return found


def _models(campaign: Campaign) -> list[Finding]:
    """Volumes whose error says a model is not in the offline cache: one finding, with every such volume."""
    for volume in campaign.failures:
        reason = volume.reason
        if reason is None or not reason.error:
            continue
        subject = Subject("volume", campaign.namespace, campaign.name, volume.id, campaign.pipeline)
        pod, container = reason.pod_name, reason.container or "wrapper"
        finding = model_not_in_cache(
            subject, pod, reason.error, campaign.pipeline_steps, container, stage=reason.stage or ""
        )
        if finding is not None:
            return [finding]
    return []


def _address(snapshot: Snapshot, campaign: Campaign, jobs: list[dict]) -> Finding | None:
    """A campaign that publishes its results under another address than the site reads."""
    if not snapshot.results_url:
        return None
    for job in jobs:
        finding = results_address(snapshot.namespace, job, snapshot.results_url)
        if finding is not None:
            return finding
    return None


def findings_count(campaigns: list[Campaign]) -> dict[str, int]:
    """How many campaigns carry each finding code, every known code included (0 where none does)."""
    counts = dict.fromkeys(codes.ALL, 0)
    for campaign in campaigns:
        for code in {finding.code for finding in campaign.findings}:
            counts[code] = counts.get(code, 0) + 1
    return counts
