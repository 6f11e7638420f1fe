"""What a namespace's snapshot is made of: one list per `Source`, and the `Snapshot` they make.

Each source names the Snapshot field it fills, where the list is read (with its selectors), whether
the namespace can be shown without it, and what is kept of each object (`campaigns.cluster.kept`).
`campaigns.cluster.informer` keeps each list current by watching it; `fetch_snapshot` reads them all
once (tests). Kueue's own controller is read in its namespace (`HTRFLOW_KUEUE_NAMESPACE`, default
`kueue-system`; empty: not read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.utils.translation import gettext_lazy

from campaigns.cluster import kept, kube
from campaigns.models import Snapshot
from core.contract import LABEL_CAMPAIGN, LABEL_JOB_NAME, LABEL_KIND, LABEL_MANAGED_BY, LABEL_PIPELINE

CAMPAIGN_JOBS = f"app=htrflow-batch,{LABEL_MANAGED_BY}=converter"
WARMUP_JOBS = "app=htrflow-warmup"
CAMPAIGN_RECORDS = f"{LABEL_CAMPAIGN},{LABEL_KIND}!=status"
STATUS_RECORDS = f"{LABEL_KIND}=status"
PIPELINE_CONFIGMAPS = f"{LABEL_PIPELINE},!{LABEL_CAMPAIGN}"
JOB_PODS = f"{LABEL_JOB_NAME},app in (htrflow-batch,htrflow-warmup)"
UNFINISHED_PODS = "status.phase!=Succeeded"
WARMUP_PODS = f"{LABEL_JOB_NAME},app=htrflow-warmup"
SUCCEEDED_PODS = "status.phase=Succeeded"
KUEUE_CONTROLLER_PODS = "control-plane=controller-manager"
KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
# The list of finished warm-up pods: held by an informer of its own, merged into the snapshot's `pods`.
FINISHED_WARMUP_PODS = "finished_warmup_pods"


@dataclass(frozen=True)
class Source:
    """One list of a snapshot: the Snapshot field it fills, where it is read, and whether it is needed.

    `paths` are tried in order while the cluster answers 404 (Kueue at v1beta2, else v1beta1). A
    needed list that is refused makes the namespace unreadable; another one is "not known" (None).
    `keep` cuts each object to what is read of it, on arrival (None: kept whole).
    """

    field: str
    paths: tuple[str, ...]
    label_selector: str | None = None
    field_selector: str | None = None
    required: bool = True
    keep: Callable[[dict], dict] | None = None


def sources(namespace: str) -> list[Source]:
    ns = f"/namespaces/{namespace}"

    def kueue(tail: str) -> tuple[str, ...]:
        return tuple(f"/apis/{KUEUE_GROUP}/{version}{tail}" for version in KUEUE_VERSIONS)

    pods = (f"/api/v1{ns}/pods",)
    listed = [
        Source("jobs", (f"/apis/batch/v1{ns}/jobs",), CAMPAIGN_JOBS),
        Source("warmup_jobs", (f"/apis/batch/v1{ns}/jobs",), WARMUP_JOBS),
        Source("records", (f"/api/v1{ns}/configmaps",), CAMPAIGN_RECORDS),
        Source("status_records", (f"/api/v1{ns}/configmaps",), STATUS_RECORDS),
        Source("pipelines", (f"/api/v1{ns}/configmaps",), PIPELINE_CONFIGMAPS),
        Source("pods", pods, JOB_PODS, UNFINISHED_PODS, keep=kept.job_pod),
        # A campaign's pods that succeeded are done with; a warm-up's are few, and say the node it ran on.
        Source(FINISHED_WARMUP_PODS, pods, WARMUP_PODS, SUCCEEDED_PODS, keep=kept.job_pod),
        Source("workloads", kueue(f"{ns}/workloads"), required=False),
        Source("local_queues", kueue(f"{ns}/localqueues"), required=False),
        Source("cluster_queues", kueue("/clusterqueues"), required=False),
        Source("priority_classes", kueue("/workloadpriorityclasses"), required=False),
        Source("resource_flavors", kueue("/resourceflavors"), required=False, keep=kept.resource_flavor),
        Source("pvcs", (f"/api/v1{ns}/persistentvolumeclaims",), required=False, keep=kept.pvc),
        Source("events", (f"/api/v1{ns}/events",), required=False),
    ]
    kueue_namespace = settings.HTRFLOW_KUEUE_NAMESPACE
    if kueue_namespace:
        # Every Deployment there (few): an installation may have renamed kueue-controller-manager.
        deployments = (f"/apis/apps/v1/namespaces/{kueue_namespace}/deployments",)
        controller_pods = (f"/api/v1/namespaces/{kueue_namespace}/pods",)
        listed += [
            Source("kueue_deployments", deployments, required=False, keep=kept.deployment),
            Source("kueue_pods", controller_pods, KUEUE_CONTROLLER_PODS, required=False, keep=kept.controller_pod),
        ]
    return listed


def refused_sentence(source: Source, status: int) -> kube.ClusterUnavailable:
    if status == 403:
        return kube.ClusterUnavailable(
            gettext_lazy(
                "This site's service account may not list what the campaign browser needs (the API answered 403)."
            ),
            kube.REFUSED,
        )
    return kube.ClusterUnavailable(
        gettext_lazy("The cluster's API does not serve the objects the campaign browser needs."), kube.BROKEN
    )


def list_source(source: Source, transform=None) -> tuple[str, kube.ListAnswer] | None:
    """The first path of a source the cluster serves, and its list; None when an optional list is refused.

    `transform` is applied to each item as its page arrives, so a large list never holds every
    item whole at once.
    """
    last = 404
    for path in source.paths:
        try:
            return path, kube.list_with_version(path, source.label_selector, source.field_selector, transform)
        except kube.NotReadable as refused:
            last = refused.status
            if refused.status != 404:
                break
    if source.required:
        raise refused_sentence(source, last)
    return None


def priority_class_names(items: list[dict] | None) -> list[str] | None:
    if items is None:
        return None
    return [(item.get("metadata") or {}).get("name", "") for item in items]


def snapshot_of(namespace: str, lists: dict[str, list[dict] | None]) -> Snapshot:
    """The Snapshot that the lists of `sources(namespace)` make, by each source's field.

    The finished warm-up pods join `pods` after the others. A warm-up pod that has just succeeded
    may be in both lists for one reading (each list follows its own watch); the next has it once.
    """
    lists = dict(lists)
    lists["priority_classes"] = priority_class_names(lists["priority_classes"])
    lists["events"] = lists["events"] or []
    finished = lists.pop(FINISHED_WARMUP_PODS, None)
    if finished:
        lists["pods"] = [*(lists["pods"] or []), *finished]
    return Snapshot(
        namespace=namespace,
        read_at=datetime.now(UTC),
        kueue_namespace=settings.HTRFLOW_KUEUE_NAMESPACE,
        results_url=settings.HTRFLOW_RESULTS_URL,
        **lists,
    )


def fetch_snapshot(namespace: str) -> Snapshot:
    """Read one namespace from the API now with one list per source (no watch). Raises ClusterUnavailable."""
    lists = {}
    for source in sources(namespace):
        answered = list_source(source, source.keep)
        lists[source.field] = answered[1].items if answered else None
    return snapshot_of(namespace, lists)
