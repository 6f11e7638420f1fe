"""The model cache of one pipeline, as data (contracts §3, §8; the guide's "The model cache").

Its recipe hash (the warm-up pod template's annotation), the recipe's directory and marker on the
cache volume, the claim (name, class, access modes, size, created), the warm-up Job and the node its
pod ran on, and the guide's debug pod that mounts the whole claim: pinned with ``nodeName`` when the
volume is ReadWriteOnce (to a node that has it mounted now, else the warm-up's).
"""

from __future__ import annotations

from collections.abc import Sequence

from campaigns.domain.diagnosis.commands import cache_debug_pod
from campaigns.domain.diagnosis.objects import (
    ABSENT,
    GONE,
    NOT_READABLE,
    access_modes,
    as_str,
    by_name,
    claim_name,
    container,
    created,
    get_path,
    mount_sub_path,
    name_of,
    node_of,
    ref,
    single_node,
    template_spec,
    warmup_node,
)
from campaigns.models import bounded
from campaigns.models.findings import CacheClaim, Fact, ModelCache
from core.contract import ANNOTATION_RECIPE_SHA


def _recipe(pipeline: str, warmup_job: dict | None, campaign_job: dict | None) -> str:
    """The recipe hash: the warm-up template's annotation, else read off the campaign's cache subPath."""
    sha = as_str(get_path(warmup_job, "spec", "template", "metadata", "annotations", ANNOTATION_RECIPE_SHA))
    if not sha and campaign_job is not None:
        sub_path = mount_sub_path(container(template_spec(campaign_job), "warmup-wait", init=True)) or ""
        sha = sub_path.removeprefix(f"{pipeline}-") if sub_path.startswith(f"{pipeline}-") else ""
    return bounded(sha, 80)


def _claim(pvc: dict) -> CacheClaim:
    size = as_str(get_path(pvc, "status", "capacity", "storage")) or as_str(
        get_path(pvc, "spec", "resources", "requests", "storage")
    )
    return CacheClaim(
        name=name_of(pvc),
        storage_class=bounded(as_str(get_path(pvc, "spec", "storageClassName")), 253),
        access_modes=access_modes(pvc),
        size=bounded(size, 40),
        created=created(pvc),
        uid=bounded(as_str(get_path(pvc, "metadata", "uid")), 80),
    )


def _holder(pods: Sequence[dict], warmup_job: str) -> tuple[str, str]:
    """(pod, node) where the volume is mounted now (a running pod), else where the warm-up ran."""
    running = sorted((p for p in pods if get_path(p, "status", "phase") == "Running" and node_of(p)), key=name_of)
    if running:
        return name_of(running[0]), node_of(running[0])
    return warmup_node(pods, warmup_job)


def model_cache(
    namespace: str,
    pipeline: str,
    warmup_job: dict | None,
    campaign_job: dict | None,
    pods: Sequence[dict],
    pvcs: list[dict] | None,
) -> ModelCache:
    """The cache of ``pipeline``; ``pods`` are the pods that mount it (campaign and warm-up pods),
    ``pvcs`` the claims read (None when the installation may not read them)."""
    job_name = name_of(warmup_job) if warmup_job else f"htr-warmup-{pipeline}"
    claim = claim_name(template_spec(warmup_job)) or claim_name(template_spec(campaign_job))
    sha = _recipe(pipeline, warmup_job, campaign_job)
    cache_dir = f"/{pipeline}-{sha}/" if sha else ""
    pods = [p for p in pods if isinstance(p, dict)]
    not_read = []
    pvc = by_name(pvcs, claim) if pvcs is not None else None
    if pvcs is None or pvc is None:
        not_read.append(Fact(ref("PersistentVolumeClaim", claim), "", NOT_READABLE if pvcs is None else ABSENT))
    warmup_pod, node = warmup_node(pods, job_name)
    if not node:
        not_read.append(Fact(ref("Job", job_name), "pods.spec.nodeName", GONE))
    pinned_by, pinned = ("", "")
    if pvc is not None and single_node(access_modes(pvc)):
        pinned_by, pinned = _holder(pods, job_name)
        if not pinned:
            not_read.append(Fact(ref("PersistentVolumeClaim", claim), "node", GONE))
    return ModelCache(
        pipeline=pipeline,
        recipe_sha256=sha,
        cache_dir=cache_dir,
        marker=f"{cache_dir}warmup/{pipeline}.done" if cache_dir else "",
        marker_in_pods=f"/data/warmup/{pipeline}.done",
        claim_name=claim,
        claim=_claim(pvc) if pvc is not None else None,
        warmup_job=job_name,
        warmup_pod=warmup_pod,
        warmup_node=node,
        debug=cache_debug_pod(namespace, claim, pinned),
        pinned_node=pinned,
        pinned_by=pinned_by,
        not_read=tuple(not_read),
    )
