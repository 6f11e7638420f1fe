"""One namespace as read from the cluster: the plain JSON dicts the projection turns into campaigns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass
class Snapshot:
    """One namespace as read from the cluster, as plain JSON dicts."""

    namespace: str
    jobs: list[dict] = field(default_factory=list)  # campaign Jobs (app=htrflow-batch, h/managed-by=converter)
    warmup_jobs: list[dict] = field(default_factory=list)  # app=htrflow-warmup
    records: list[dict] = field(default_factory=list)  # campaign record ConfigMaps campaign-<job>
    status_records: list[dict] = field(default_factory=list)  # status ConfigMaps (h/kind=status)
    pipelines: list[dict] = field(default_factory=list)  # pipeline ConfigMaps htr-pipeline-<id>
    workloads: list[dict] = field(default_factory=list)  # Kueue Workloads in the namespace
    # campaign pods not Succeeded, warm-up pods in any phase; of a spec only nodeName is kept
    pods: list[dict] = field(default_factory=list)
    local_queues: list[dict] | None = None  # None = not readable
    cluster_queues: list[dict] | None = None  # None = not readable
    priority_classes: list[str] | None = None  # WorkloadPriorityClass names; None = not readable
    events: list[dict] = field(default_factory=list)
    pvcs: list[dict] | None = None  # the namespace's PersistentVolumeClaims; None = not readable
    resource_flavors: list[dict] | None = None  # Kueue ResourceFlavors; None = not readable
    kueue_deployments: list[dict] | None = None  # Deployments in Kueue's namespace; None = not read or readable
    kueue_pods: list[dict] | None = None  # Kueue's controller pods (control-plane=controller-manager); None = same
    # What the site that read it is set up with (not read from the cluster): where Kueue runs, and the
    # results address its viewers read, against which a campaign's own address is compared.
    kueue_namespace: str = ""
    results_url: str = ""
    read_at: datetime = field(default_factory=lambda: datetime.now(UTC))
