"""Why Kueue has not admitted a campaign, from its QuotaReserved reason and message (verbatim in Kueue's
formats), matched against the ResourceFlavors read; the queued sample estate-inventories-1890."""

from __future__ import annotations

from datetime import UTC, datetime

from campaigns.domain.diagnosis.kueue_health import kueue_health
from campaigns.domain.diagnosis.queue import queue_finding
from campaigns.models.findings import AUTHOR, EQUAL, NOBODY, OPERATOR, Check, Command, Fact, Finding, Subject
from tests.campaigns.domain.diagnosis import samples as s

WORKLOAD = "Workload/job-estate-inventories-1890-4b7c1"
JOB = "Job/estate-inventories-1890"
SUBJECT = Subject("campaign", "htr-batch", campaign="estate-inventories-1890")
SINCE = datetime(2026, 9, 24, 8, 40, 3, tzinfo=UTC)
PREFIX = "couldn't assign flavors to pod set main: "
KUEUE = "Deployment/kueue-system/kueue-controller-manager"
KUEUE_RUNNING = Check(
    "kueue_running",
    EQUAL,
    (
        Fact(KUEUE, "status.conditions[Available].status", "True"),
        Fact(KUEUE, "status.readyReplicas", 1),
        Fact(KUEUE, "spec.replicas", 1),
        Fact(KUEUE, "status.conditions[Available].message", "Deployment has minimum availability."),
    ),
)


def _names(reason: str, **more) -> tuple:
    named = {
        "job": "estate-inventories-1890",
        "workload": "job-estate-inventories-1890-4b7c1",
        "reason": reason,
        "queue": "htr-batch",
        "cluster_queue": "htr-batch-cq",
        **more,
    }
    return tuple(sorted(named.items()))


def _said(reason: str, message: str) -> list[Fact]:
    return [
        Fact(WORKLOAD, "status.conditions[QuotaReserved].reason", reason),
        Fact(WORKLOAD, "status.conditions[QuotaReserved].message", message),
    ]


def _diagnose(reason: str, message: str, job: dict | None = None, flavors=None, **more) -> Finding | None:
    queued_job, workload = s.queued()
    return queue_finding(
        "htr-batch",
        job or queued_job,
        s.with_condition(workload, reason, message),
        flavors,
        cluster_queue="htr-batch-cq",
        **more,
    )


def _get_flavor(flavor: str) -> Command:
    return Command("inspect.resource_flavor", ("kubectl", "get", "resourceflavor", flavor, "-o", "yaml"))


def test_queue_untolerated_taint_names_each_taint_against_its_flavor():
    message = (
        PREFIX + "untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100, "
        "untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-a100"
    )
    deployments, pods = s.kueue_objects()

    finding = _diagnose(
        "NoMatchingFlavor",
        message,
        flavors=s.flavors(),
        kueue=kueue_health("htr-batch", "kueue-system", deployments, pods),
    )

    assert finding == Finding(
        code="queue.untolerated_taint",
        subject=SUBJECT,
        actor=OPERATOR,
        values=_names(
            "NoMatchingFlavor",
            taints=(
                ("main", "gpu-h100", "dedicated:NoSchedule"),
                ("main", "gpu-a100", "dedicated=ocr-only:NoSchedule"),
            ),
            taint="dedicated:NoSchedule",
            flavor="gpu-h100",
        ),
        evidence=(
            *_said("NoMatchingFlavor", message),
            Fact("ResourceFlavor/gpu-h100", "spec.nodeTaints", ("dedicated:NoSchedule",)),
            Fact("ResourceFlavor/gpu-a100", "spec.nodeTaints", ("dedicated=ocr-only:NoSchedule",)),
            Fact(JOB, "spec.template.spec.tolerations", None),
        ),
        ruled_out=(KUEUE_RUNNING,),
        fix=(
            _get_flavor("gpu-h100"),
            _get_flavor("gpu-a100"),
            Command(
                "flavor.add_toleration",
                change=(
                    ("object", "ResourceFlavor/gpu-h100"),
                    ("field", "spec.tolerations"),
                    ("value", "dedicated:NoSchedule"),
                ),
            ),
            Command(
                "flavor.add_toleration",
                change=(
                    ("object", "ResourceFlavor/gpu-a100"),
                    ("field", "spec.tolerations"),
                    ("value", "dedicated=ocr-only:NoSchedule"),
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_untolerated_taint_says_when_the_flavors_could_not_be_read():
    message = PREFIX + "untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-a100"

    finding = _diagnose("NoMatchingFlavor", message, flavors=None)

    assert finding == Finding(
        code="queue.untolerated_taint",
        subject=SUBJECT,
        values=_names(
            "NoMatchingFlavor",
            taints=(("main", "gpu-a100", "dedicated=ocr-only:NoSchedule"),),
            taint="dedicated=ocr-only:NoSchedule",
            flavor="gpu-a100",
        ),
        evidence=(*_said("NoMatchingFlavor", message), Fact(JOB, "spec.template.spec.tolerations", None)),
        not_read=(Fact("ResourceFlavor/gpu-a100", "spec.nodeTaints", "not_readable"),),
        fix=(
            _get_flavor("gpu-a100"),
            Command(
                "flavor.add_toleration",
                change=(
                    ("object", "ResourceFlavor/gpu-a100"),
                    ("field", "spec.tolerations"),
                    ("value", "dedicated=ocr-only:NoSchedule"),
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_node_affinity_names_the_label_the_flavor_does_not_have():
    job, _ = s.queued()
    job["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}
    message = PREFIX + "flavor gpu-h100 doesn't match node affinity"

    finding = _diagnose("NoMatchingFlavor", message, job=job, flavors=s.flavors())

    wants, has = "nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"
    assert finding == Finding(
        code="queue.node_affinity",
        subject=SUBJECT,
        values=_names("NoMatchingFlavor", affinity_flavors=("gpu-h100",), mismatches=(("gpu-h100", wants, has),)),
        evidence=(
            *_said("NoMatchingFlavor", message),
            Fact("ResourceFlavor/gpu-h100", "spec.nodeLabels", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
            Fact(JOB, "spec.template.spec.nodeSelector", {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}),
            Fact(JOB, "spec.template.spec.affinity.nodeAffinity", None),
        ),
        fix=(
            _get_flavor("gpu-h100"),
            Command(
                "flavor.match_node_labels",
                change=(
                    ("object", "ResourceFlavor/gpu-h100"),
                    ("field", "spec.nodeLabels"),
                    ("pods_want", wants),
                    ("flavor_has", has),
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_waiting_for_quota_is_waiting_its_turn():
    _, workload = s.queued()
    message = PREFIX + "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more needed"

    finding = queue_finding("htr-batch", s.queued()[0], workload, s.flavors(), cluster_queue="htr-batch-cq")

    assert finding == Finding(
        code="queue.waiting_for_quota",
        subject=SUBJECT,
        actor=NOBODY,
        values=_names("Pending", shortfalls=(("main", "nvidia.com/gpu", "default-flavor", "4"),), preempting=None),
        evidence=tuple(_said("Pending", message)),
        since=SINCE,
    )


def test_queue_waits_when_any_flavor_would_admit_it_after_waiting():
    message = (
        PREFIX + "insufficient unused quota for nvidia.com/gpu in flavor gpu-a100, 4 more needed, "
        "untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100. Pending the preemption of 1 workload(s)"
    )

    finding = _diagnose("Pending", message, flavors=s.flavors())

    assert finding == Finding(
        code="queue.waiting_for_quota",
        subject=SUBJECT,
        actor=NOBODY,
        values=_names("Pending", shortfalls=(("main", "nvidia.com/gpu", "gpu-a100", "4"),), preempting=1),
        evidence=tuple(_said("Pending", message)),
        since=SINCE,
    )


def test_queue_worst_pod_set_decides_across_pod_sets():
    message = (
        PREFIX + "insufficient unused quota for cpu in flavor default-flavor, 8 more needed; "
        "couldn't assign flavors to pod set workers: untolerated taint {dedicated ocr-only NoSchedule <nil>} "
        "in flavor gpu-a100"
    )

    finding = _diagnose("Pending", message, flavors=s.flavors())

    assert finding == Finding(
        code="queue.untolerated_taint",
        subject=SUBJECT,
        values=_names(
            "Pending",
            taints=(("workers", "gpu-a100", "dedicated=ocr-only:NoSchedule"),),
            taint="dedicated=ocr-only:NoSchedule",
            flavor="gpu-a100",
        ),
        evidence=(
            *_said("Pending", message),
            Fact("ResourceFlavor/gpu-a100", "spec.nodeTaints", ("dedicated=ocr-only:NoSchedule",)),
            Fact(JOB, "spec.template.spec.tolerations", None),
        ),
        fix=(
            _get_flavor("gpu-a100"),
            Command(
                "flavor.add_toleration",
                change=(
                    ("object", "ResourceFlavor/gpu-a100"),
                    ("field", "spec.tolerations"),
                    ("value", "dedicated=ocr-only:NoSchedule"),
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_exceeds_max_quota_asks_the_author_for_a_window_that_fits():
    message = (
        PREFIX + "insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered podsets "
        "requests (0) + current podset request (4) > maximum capacity (2)"
    )

    finding = _diagnose("ExceedsMaxQuota", message)

    assert finding == Finding(
        code="queue.exceeds_max_quota",
        subject=SUBJECT,
        actor=AUTHOR,
        values=_names(
            "ExceedsMaxQuota",
            limits=(("main", "nvidia.com/gpu", "default-flavor", "4", "2"),),
            resource="nvidia.com/gpu",
            flavor="default-flavor",
            parallelism=4,
            window=2,
        ),
        evidence=(*_said("ExceedsMaxQuota", message), Fact(JOB, "spec.parallelism", 4)),
        fix=(
            Command("converter.window", change=(("file", "converter.yaml"), ("key", "window"), ("value", 2))),
            Command("campaigns.apply", ("htrflow-campaigns", "apply")),
        ),
        since=SINCE,
    )


def test_queue_exceeds_max_quota_when_not_one_pod_fits_asks_an_operator_for_quota():
    message = PREFIX + "insufficient quota for memory in flavor default-flavor, request > maximum capacity (32Gi > 4Gi)"

    finding = _diagnose("Pending", message)

    assert finding == Finding(
        code="queue.exceeds_max_quota",
        subject=SUBJECT,
        actor=OPERATOR,
        values=_names(
            "Pending",
            limits=(("main", "memory", "default-flavor", "32Gi", "4Gi"),),
            resource="memory",
            flavor="default-flavor",
            parallelism=4,
            window=0,
        ),
        evidence=(*_said("Pending", message), Fact(JOB, "spec.parallelism", 4)),
        fix=(
            Command("inspect.cluster_queue", ("kubectl", "get", "clusterqueue", "htr-batch-cq", "-o", "yaml")),
            Command(
                "queue.raise_quota",
                change=(
                    ("object", "ClusterQueue/htr-batch-cq"),
                    ("field", "spec.resourceGroups[].flavors[].resources[].nominalQuota"),
                    ("flavor", "default-flavor"),
                    ("resource", "memory"),
                    ("at_least", "8Gi"),
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_resource_unavailable_in_the_cluster_queue():
    message = PREFIX + "resource nvidia.com/gpu unavailable in ClusterQueue"

    finding = _diagnose("NoMatchingFlavor", message, flavors=s.flavors())

    requests = {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "1"}
    assert finding == Finding(
        code="queue.resource_unavailable",
        subject=SUBJECT,
        values=_names("NoMatchingFlavor", resources=("nvidia.com/gpu",)),
        evidence=(
            *_said("NoMatchingFlavor", message),
            Fact(JOB, "spec.template.spec.containers[wrapper].resources.requests", requests),
        ),
        fix=(
            Command("inspect.cluster_queue", ("kubectl", "get", "clusterqueue", "htr-batch-cq", "-o", "yaml")),
            Command(
                "queue.cover_resource",
                change=(
                    ("object", "ClusterQueue/htr-batch-cq"),
                    ("field", "spec.resourceGroups"),
                    ("value", "nvidia.com/gpu"),
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_flavor_not_found():
    message = PREFIX + "flavor gpu-l40s not found"

    finding = _diagnose("NoMatchingFlavor", message, flavors=s.flavors())

    assert finding == Finding(
        code="queue.flavor_not_found",
        subject=SUBJECT,
        values=_names("NoMatchingFlavor", missing_flavors=("gpu-l40s",)),
        evidence=(*_said("NoMatchingFlavor", message), Fact("ResourceFlavor/gpu-l40s", "metadata.name", None)),
        fix=(
            Command("flavor.create", change=(("object", "ResourceFlavor/gpu-l40s"),)),
            Command("inspect.cluster_queue", ("kubectl", "get", "clusterqueue", "htr-batch-cq", "-o", "yaml")),
        ),
        since=SINCE,
    )


def test_queue_local_queue_missing():
    finding = _diagnose("Misconfigured", "LocalQueue htr-batch doesn't exist")

    assert finding == Finding(
        code="queue.local_queue_missing",
        subject=SUBJECT,
        values=_names("Misconfigured", queue_kind="LocalQueue", queue_name="htr-batch", queue_state="doesn't exist"),
        evidence=tuple(_said("Misconfigured", "LocalQueue htr-batch doesn't exist")),
        fix=(
            Command("inspect.local_queues", ("kubectl", "-n", "htr-batch", "get", "localqueues")),
            Command("queue.create_localqueue", change=(("object", "LocalQueue/htr-batch"), ("namespace", "htr-batch"))),
        ),
        since=SINCE,
    )


def test_queue_cluster_queue_inactive_shows_its_active_condition():
    cluster_queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "htr-batch-cq"},
        "status": {
            "conditions": [
                {
                    "type": "Active",
                    "status": "False",
                    "reason": "FlavorNotFound",
                    "message": "Can't admit new workloads: references missing ResourceFlavor(s): gpu-l40s.",
                }
            ]
        },
    }

    finding = _diagnose("Suspended", "ClusterQueue htr-batch-cq is inactive", cluster_queues=[cluster_queue])

    active = "status.conditions[Active]"
    assert finding == Finding(
        code="queue.cluster_queue_inactive",
        subject=SUBJECT,
        values=_names("Suspended", queue_kind="ClusterQueue", queue_name="htr-batch-cq", queue_state="is inactive"),
        evidence=(
            *_said("Suspended", "ClusterQueue htr-batch-cq is inactive"),
            Fact("ClusterQueue/htr-batch-cq", f"{active}.status", "False"),
            Fact("ClusterQueue/htr-batch-cq", f"{active}.reason", "FlavorNotFound"),
            Fact(
                "ClusterQueue/htr-batch-cq",
                f"{active}.message",
                "Can't admit new workloads: references missing ResourceFlavor(s): gpu-l40s.",
            ),
        ),
        fix=(Command("inspect.queue", ("kubectl", "get", "clusterqueue", "htr-batch-cq", "-o", "yaml")),),
        since=SINCE,
    )


def test_queue_cluster_queue_stopped_is_resumed():
    finding = _diagnose("Suspended", "ClusterQueue htr-batch-cq is stopped", cluster_queues=None)

    assert finding == Finding(
        code="queue.cluster_queue_stopped",
        subject=SUBJECT,
        values=_names("Suspended", queue_kind="ClusterQueue", queue_name="htr-batch-cq", queue_state="is stopped"),
        evidence=tuple(_said("Suspended", "ClusterQueue htr-batch-cq is stopped")),
        not_read=(Fact("ClusterQueue/htr-batch-cq", "status.conditions[Active]", "not_readable"),),
        fix=(
            Command(
                "queue.resume_clusterqueue",
                (
                    "kubectl",
                    "patch",
                    "clusterqueue",
                    "htr-batch-cq",
                    "--type=merge",
                    "-p",
                    '{"spec":{"stopPolicy":"None"}}',
                ),
            ),
        ),
        since=SINCE,
    )


def test_queue_kueue_says_keeps_kueues_words_for_a_format_not_known_here():
    message = PREFIX + 'topology "cloud.provider.com/topology-block" doesn\'t allow to fit any of 4 pod(s)'

    finding = _diagnose("TopologyPlacementFailed", message)

    assert finding == Finding(
        code="queue.kueue_says",
        subject=SUBJECT,
        values=_names("TopologyPlacementFailed", message=message),
        evidence=tuple(_said("TopologyPlacementFailed", message)),
        fix=(
            Command(
                "inspect.workload",
                ("kubectl", "-n", "htr-batch", "describe", "workload", "job-estate-inventories-1890-4b7c1"),
            ),
        ),
        since=SINCE,
    )


def test_queue_reports_kueue_down_before_any_workload_reason_and_nothing_once_admitted():
    deployments, pods = s.kueue_objects()
    deployments[0]["status"]["conditions"][0].update(status="False", reason="MinimumReplicasUnavailable")
    del deployments[0]["status"]["readyReplicas"]
    health = kueue_health("htr-batch", "kueue-system", deployments, pods)
    message = PREFIX + "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more needed"

    assert _diagnose("Pending", message, kueue=health) is health.finding
    assert health.finding.code == "kueue.down"
    admitted = s.load("workload-admitted.yaml")
    assert queue_finding("htr-batch", s.load("campaign-job-running.yaml"), admitted, s.flavors()) is None
