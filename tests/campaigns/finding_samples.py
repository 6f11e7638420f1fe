"""One finding per finding code (some codes more than one), each made by the diagnosis's own checks on the
contract's sample objects (tests/fixtures/samples, via tests/campaigns/domain/diagnosis/samples.py): the findings
that the wording, and whatever renders findings, is tested on. ``SAMPLES`` maps each code to its makers."""

from __future__ import annotations

import copy
import json

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.campaign_file import missing_priority_class, paused
from campaigns.domain.diagnosis.failures import model_not_in_cache
from campaigns.domain.diagnosis.kueue_health import kueue_health
from campaigns.domain.diagnosis.queue import queue_finding
from campaigns.domain.diagnosis.results import results_address
from campaigns.domain.diagnosis.wait import wait_limit, waiting_finding
from campaigns.domain.diagnosis.warmup import marker_missing
from campaigns.domain.diagnosis.warmup_failed import warmup_failed
from campaigns.domain.projection import pipeline_steps
from campaigns.domain.projection.index import build_index
from campaigns.domain.projection.warmup import project_warmup
from campaigns.models import Snapshot
from campaigns.models.findings import Finding, Subject
from tests.campaigns.domain.diagnosis import samples as s

GAVE_UP = "court-rolls-1650-2-7hq4z"
PREFIX = "couldn't assign flavors to pod set main: "
MISS = (
    "LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been "
    "disabled. To enable hf.co look-ups and downloads online, set 'local_files_only' to False."
)


# --- findings made by the diagnosis, one or more per code ---------------------------------------------------


def _marker(warmup=None, job=None, pods=None, pvcs=None, gave_up=(GAVE_UP,)) -> Finding:
    warmup_job, warmup_pod = s.complete_warmup()
    return marker_missing(
        "htr-batch",
        warmup if warmup is not None else warmup_job,
        job if job is not None else s.campaign_job(),
        gave_up,
        pods if pods is not None else [warmup_pod, s.gave_up_pod()],
        pvcs if pvcs is not None else [s.pvc()],
        campaign="court-rolls-1650",
    )


def placement_differs() -> Finding:
    warmup, _ = s.complete_warmup()
    warmup["spec"]["template"]["spec"]["nodeSelector"] = {"node-role.kubernetes.io/cpu": "true"}
    return _marker(warmup=warmup)


def other_claim() -> Finding:
    warmup, _ = s.complete_warmup()
    warmup["spec"]["template"]["spec"]["volumes"][1]["persistentVolumeClaim"]["claimName"] = "htr-model-cache"
    return _marker(warmup=warmup)


def other_directory() -> Finding:
    job = s.campaign_job()
    for item in job["spec"]["template"]["spec"]["initContainers"] + job["spec"]["template"]["spec"]["containers"]:
        for mount in item["volumeMounts"]:
            if mount["name"] == "data":
                mount["subPath"] = f"swe-lines-v3-{s.V2_SHA}"
    return _marker(job=job)


def rwo_other_node() -> Finding:
    _, warmup_pod = s.complete_warmup()
    warmup_pod["spec"]["nodeName"] = "gpu-node-02"
    return _marker(
        pods=[warmup_pod, s.gave_up_pod()],
        pvcs=[s.pvc(accessModes=["ReadWriteOnce"], storageClassName="local-path")],
        gave_up=(GAVE_UP, "court-rolls-1650-5-b8xkq"),
    )


def replaced() -> Finding:
    return _marker(pvcs=[s.pvc(created="2026-09-24T06:20:00Z")])


def marker_not_found() -> Finding:
    """Nothing differs; the claim could not be read and the pod that gave up is gone."""
    warmup, _ = s.complete_warmup()
    return marker_missing("htr-batch", warmup, s.campaign_job(), (GAVE_UP,), [], None, campaign="court-rolls-1650")


def waiting() -> Finding:
    job = s.campaign_job()
    wait = job["spec"]["template"]["spec"]["initContainers"][0]
    wait["command"][2] = wait["command"][2].replace("900", "1800")
    pods = []
    for name, index, started in (
        ("court-rolls-1650-2-7hq4z", "2", "2026-09-24T06:20:13Z"),
        ("court-rolls-1650-3-k2j9d", "3", "2026-09-24T06:21:00Z"),
    ):
        pod = copy.deepcopy(s.gave_up_pod())
        pod["metadata"]["name"] = name
        pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] = index
        pod["status"]["phase"] = "Pending"
        pod["status"]["initContainerStatuses"][0]["state"] = {"running": {"startedAt": started}}
        pods.append(pod)
    return waiting_finding("htr-batch", "court-rolls-1650", job, pods, wait_limit(job))


def queued(reason: str, message: str, job: dict | None = None, **more) -> Finding:
    queued_job, workload = s.queued()
    finding = queue_finding(
        "htr-batch",
        job or queued_job,
        s.with_condition(workload, reason, message),
        more.pop("flavors", s.flavors()),
        cluster_queue="htr-batch-cq",
        **more,
    )
    assert finding is not None
    return finding


def untolerated_taint() -> Finding:
    message = (
        PREFIX + "untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100, "
        "untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-a100"
    )
    return queued("NoMatchingFlavor", message, kueue=kueue_health("htr-batch", "kueue-system", *s.kueue_objects()))


def _a100_job() -> dict:
    job, _ = s.queued()
    job["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}
    return job


def node_affinity() -> Finding:
    return queued("NoMatchingFlavor", PREFIX + "flavor gpu-h100 doesn't match node affinity", job=_a100_job())


def no_matching_flavor() -> Finding:
    message = (
        PREFIX + "flavor gpu-h100 doesn't match node affinity, "
        "untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-a100"
    )
    return queued("NoMatchingFlavor", message, job=_a100_job())


def waiting_for_quota() -> Finding:
    message = PREFIX + "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more needed"
    return queued("Pending", message)


def preempting() -> Finding:
    message = (
        PREFIX + "insufficient unused quota for nvidia.com/gpu in flavor gpu-a100, 4 more needed, "
        "untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100. Pending the preemption of 2 workload(s)"
    )
    return queued("Pending", message)


def exceeds_for_the_author() -> Finding:
    message = (
        PREFIX + "insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered podsets "
        "requests (0) + current podset request (4) > maximum capacity (2)"
    )
    return queued("ExceedsMaxQuota", message)


def exceeds_for_an_operator() -> Finding:
    message = PREFIX + "insufficient quota for memory in flavor default-flavor, request > maximum capacity (32Gi > 4Gi)"
    return queued("Pending", message)


def kueue_down() -> Finding:
    """kueue-system once its controller crashloops: the Deployment unavailable, the pod in CrashLoopBackOff."""
    deployments, pods = s.kueue_objects()
    status = deployments[0]["status"]
    del status["readyReplicas"], status["availableReplicas"]
    status["unavailableReplicas"] = 1
    status["conditions"][0].update(
        status="False",
        reason="MinimumReplicasUnavailable",
        message="Deployment does not have minimum availability.",
        lastTransitionTime="2026-09-24T08:02:11Z",
    )
    pods[0]["status"]["conditions"][1].update(
        status="False", reason="ContainersNotReady", lastTransitionTime="2026-09-24T08:01:40Z"
    )
    pods[0]["status"]["containerStatuses"][0].update(
        ready=False,
        started=False,
        restartCount=14,
        state={
            "waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=manager"}
        },
    )
    finding = kueue_health("htr-batch", "kueue-system", deployments, pods).finding
    assert finding is not None
    return finding


def kueue_missing() -> Finding:
    finding = kueue_health("htr-batch", "kueue-system", [], []).finding
    assert finding is not None
    return finding


def other_address() -> Finding:
    job = s.load("campaign-job-running.yaml")
    for entry in job["spec"]["template"]["spec"]["containers"][0]["env"]:
        if entry["name"] == "RESULTS_URL":
            entry.update(name="PUBLIC_RESULTS_BASE", value="https://htr-old.arkiv.example.se/results/")
    finding = results_address("htr-batch", job, "https://htr.arkiv.example.se/results")
    assert finding is not None
    return finding


def not_in_cache() -> Finding:
    subject = Subject("volume", "htr-batch", campaign="parish-records-1870", volume="C0074517", pipeline="swe-lines-v2")
    steps = pipeline_steps(s.load("pipeline-configmap.yaml")["data"]["pipeline.yaml"])
    message = json.dumps({"stage": "load", "permanent": False, "error": MISS})
    finding = model_not_in_cache(subject, "parish-records-1870-6-x9p2w", message, steps)
    assert finding is not None
    return finding


def paused_in_git() -> Finding:
    job, workload = s.load("campaign-job-queued.yaml")
    workload["spec"]["active"] = False
    finding = paused("htr-batch", job, workload)
    assert finding is not None
    return finding


def no_priority_class() -> Finding:
    job, _ = s.load("campaign-job-queued.yaml")
    job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "htr-urgent"
    finding = missing_priority_class("htr-batch", job, ["htr-interactive", "htr-bulk", "htr-idle"], [])
    assert finding is not None
    return finding


def _warmup_failed(message: str | None = None) -> Finding:
    job, pod = s.load("warmup-job-failed.yaml")
    if message is not None:
        pod["status"]["containerStatuses"][0]["state"]["terminated"]["message"] = message
    snapshot = Snapshot(namespace="htr-batch", warmup_jobs=[job], pods=[pod])
    reason = project_warmup(snapshot, build_index(snapshot), "swe-lines-v3").reason
    finding = warmup_failed("htr-batch", "swe-lines-v3", job, reason, wait_seconds=900)
    assert finding is not None
    return finding


def warmup_model_not_found() -> Finding:
    return _warmup_failed()


def warmup_failed_passing() -> Finding:
    return _warmup_failed('{"stage": "warmup", "permanent": false, "error": "ConnectionError: hub unreachable"}')


def _queue_said(reason: str, message: str, **more):
    """A maker of the queue finding for Kueue's reason and message, named by its reason (test ids)."""

    def make() -> Finding:
        return queued(reason, message, **more)

    make.__name__ = reason
    return make


SAMPLES = {
    "warmup.placement_differs": (placement_differs,),
    "cache.other_claim": (other_claim,),
    "cache.other_directory": (other_directory,),
    "cache.rwo_other_node": (rwo_other_node,),
    "cache.replaced": (replaced,),
    "warmup.marker_missing": (marker_not_found,),
    "warmup.waiting": (waiting,),
    "warmup.failed": (warmup_model_not_found, warmup_failed_passing),
    "queue.paused": (paused_in_git,),
    "queue.no_priority_class": (no_priority_class,),
    "queue.untolerated_taint": (untolerated_taint,),
    "queue.node_affinity": (node_affinity,),
    "queue.no_matching_flavor": (no_matching_flavor, _queue_said("NoMatchingFlavor", "")),
    "queue.resource_unavailable": (
        _queue_said("NoMatchingFlavor", PREFIX + "resource nvidia.com/gpu unavailable in ClusterQueue"),
    ),
    "queue.flavor_not_found": (_queue_said("NoMatchingFlavor", PREFIX + "flavor gpu-l40s not found"),),
    "queue.waiting_for_quota": (waiting_for_quota, preempting),
    "queue.exceeds_max_quota": (exceeds_for_the_author, exceeds_for_an_operator),
    "queue.borrowing_limit_reached": (_queue_said("BorrowingLimitReached", "borrowing limit reached"),),
    "queue.pending_evaluation": (_queue_said("PendingEvaluation", ""),),
    "queue.waiting_for_pods_ready": (_queue_said("WaitingForPodsReady", "waiting for all admitted workloads"),),
    "queue.misconfigured": (_queue_said("Misconfigured", "the workload's priority class is not valid"),),
    "queue.suspended": (_queue_said("Suspended", "the workload is deactivated"),),
    "queue.local_queue_missing": (_queue_said("Misconfigured", "LocalQueue htr-batch doesn't exist"),),
    "queue.local_queue_inactive": (_queue_said("Misconfigured", "LocalQueue htr-batch is inactive"),),
    "queue.local_queue_stopped": (_queue_said("Suspended", "LocalQueue htr-batch is stopped"),),
    "queue.cluster_queue_missing": (_queue_said("Misconfigured", "ClusterQueue htr-batch-cq doesn't exist"),),
    "queue.cluster_queue_inactive": (
        _queue_said("Suspended", "ClusterQueue htr-batch-cq is inactive", cluster_queues=[]),
    ),
    "queue.cluster_queue_stopped": (_queue_said("Suspended", "ClusterQueue htr-batch-cq is stopped"),),
    "queue.kueue_says": (
        _queue_said(
            "TopologyPlacementFailed",
            PREFIX + 'topology "cloud.provider.com/topology-block" doesn\'t allow to fit any of 4 pod(s)',
        ),
    ),
    "kueue.down": (kueue_down,),
    "kueue.missing": (kueue_missing,),
    "results.other_address": (other_address,),
    "model.not_in_cache": (not_in_cache,),
}
EVERY = [(code, make) for code in codes.ALL for make in SAMPLES.get(code, ())]
