"""Realistic Kubernetes objects for projection tests, as the API returns them (JSON dicts, camelCase).

Shapes follow what a real cluster holds for the batch HTR system: a running Indexed campaign Job
with status, its admitted Kueue Workload, a queued Job with a pending Workload, a failed warm-up Job
and its pod, a campaign pod whose warmup-wait init container gave up (exit 13), campaign record and
status ConfigMaps, and a pipeline ConfigMap. Builders take the few values a test varies; the rest
stays as a cluster would return it.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime

from campaigns.models import Snapshot

NS = "htr-batch"
QUEUE = "htr-batch"
CLUSTER_QUEUE = "htr-batch-cq"
PIPELINE = "swe-lines-v2"
PIPELINE_V3 = "swe-lines-v3"
RECIPE_V2 = "c9d92b23fbb8ca448ab9c8cf83ccaf1ff7b3ca76f3cbf926b8ed38508641d1e1"
RECIPE_V3 = "cddf3d3e3ee8ef24f94f1304f8b36aa0ad768d75dba2bc0d0eff652a8aab0f17"
PIPELINE_SHA_V2 = "00657074f93b1db22ef51d52745d9ff88dc8181ee631677a561d75ad5531638b"
IMAGE = "registry.example.se/htr/htrflow-batch@sha256:3c1f0a9b7e2d4c6a8b0f1e3d5c7a9b1d2e4f6a8c0b2d4e6f8a1c3e5b7d9f0a2c"
RESULTS_URL = "https://htr.arkiv.example.se/results"
H = "htrflow.riksarkivet.se/"

RUNNING_UID = "6f3c2b9e-8d41-4a57-b0e2-1c9a7d5e3f80"
QUEUED_UID = "d0e1f2a3-b4c5-4d6e-8f70-8192a3b4c5d6"
COURT_UID = "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"

# "Now" in the scene: an hour into the parish campaign.
NOW = datetime(2026, 9, 24, 9, 0, 0, tzinfo=UTC)

PARISH_VOLUMES = [
    ("C0074512", "https://iiif.arkiv.example.se/arkis!C0074512/manifest"),
    ("C0074513", "https://iiif.arkiv.example.se/arkis!C0074513/manifest"),
    ("C0074514", "https://iiif.arkiv.example.se/arkis!C0074514/manifest"),
    ("C0074515", "https://iiif.arkiv.example.se/arkis!C0074515/manifest"),
    ("bouppteckning-1871", "https://iiif.example.se/manifests/bouppteckning-1871/manifest.json"),
    ("C0074516", "https://iiif.arkiv.example.se/arkis!C0074516/manifest"),
    ("C0074517", "https://iiif.arkiv.example.se/arkis!C0074517/manifest"),
    ("C0074518", "https://iiif.arkiv.example.se/arkis!C0074518/manifest"),
    ("C0074519", "https://iiif.arkiv.example.se/arkis!C0074519/manifest"),
    ("C0074520", "https://iiif.arkiv.example.se/arkis!C0074520/manifest"),
    (
        "loose-scans-0042",
        "images:https://images.example.se/scans/0042/p001.jpg https://images.example.se/scans/0042/p002.jpg "
        "https://images.example.se/scans/0042/p003.jpg",
    ),
    ("C0074521", "https://iiif.arkiv.example.se/arkis!C0074521/manifest"),
]

MANIFEST_404 = "manifest fetch failed: https://iiif.example.se/manifests/bouppteckning-1871/manifest.json: HTTP 404"
MARKER_LINE_V3 = (
    "no warm-up marker at /data/warmup/swe-lines-v3.done after 900s: the pipeline's warm-up Job has not finished\n"
)
WARMUP_ERROR_V3 = (
    "404 Client Error. (Request ID: Root=1-66f2a9c1-3b7d0e52a81f4c6d9e2b7a10) Repository Not Found for url: "
    "https://huggingface.co/api/models/Riksarkivet/trocr-base-handwritten-hist-swe-9/revision/"
    "5e4d3c2b1a0f9e8d7c6b5a49382716051f4e3d2c. Please make sure you specified the correct `repo_id` and `repo_type`."
)

PIPELINE_YAML_V2 = (
    "steps:\n- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    "      model: Riksarkivet/yolov9-regions-1\n      revision: 8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796\n"
    "- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    "      model: Riksarkivet/yolov9-lines-within-regions-1\n      revision: 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d\n"
    "- step: TextRecognition\n  settings:\n    model: TrOCR\n    model_settings:\n"
    "      model: Riksarkivet/trocr-base-handwritten-hist-swe-2\n      model_kwargs:\n"
    "        revision: 0f9e8d7c6b5a49382716051f4e3d2c1b0a998877\n      processor_kwargs:\n"
    "        revision: 0f9e8d7c6b5a49382716051f4e3d2c1b0a998877\n"
)


def volumes_txt(volumes) -> str:
    return "".join(f"{vid}\t{source}\n" for vid, source in volumes)


def wrapper_message(stage: str, permanent: bool, error: str) -> str:
    """The wrapper's termination message, as json.dumps writes it."""
    return json.dumps({"stage": stage, "permanent": permanent, "error": error})


# ---------------------------------------------------------------------------------------------
# Campaign Jobs


def pod_template(job: str, uid: str, pipeline: str = PIPELINE, recipe: str = RECIPE_V2) -> dict:
    marker = f"/data/warmup/{pipeline}.done"
    return {
        "metadata": {
            "labels": {
                "app": "htrflow-batch",
                "batch.kubernetes.io/controller-uid": uid,
                "batch.kubernetes.io/job-name": job,
                "controller-uid": uid,
                "job-name": job,
            }
        },
        "spec": {
            "restartPolicy": "Never",
            "activeDeadlineSeconds": 21600,
            "terminationGracePeriodSeconds": 120,
            "automountServiceAccountToken": False,
            "runtimeClassName": "nvidia",
            "containers": [
                {
                    "name": "wrapper",
                    "image": IMAGE,
                    "command": ["/bin/sh", "-c"],
                    "env": [
                        {"name": "PIPELINE_PATH", "value": "/config/pipeline.yaml"},
                        {"name": "PIPELINE_ID", "value": pipeline},
                        {"name": "S3_PREFIX", "value": f"{NS}/"},
                        {"name": "RESULTS_URL", "value": RESULTS_URL},
                        {"name": "BACKOFF_LIMIT_PER_INDEX", "value": "3"},
                    ],
                    "volumeMounts": [
                        {"name": "campaign", "mountPath": "/campaign", "readOnly": True},
                        {"name": "pipeline", "mountPath": "/config"},
                        {"name": "data", "mountPath": "/data", "readOnly": True, "subPath": f"{pipeline}-{recipe}"},
                    ],
                    "resources": {
                        "requests": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "1"},
                        "limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                    },
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "initContainers": [
                {
                    "name": "warmup-wait",
                    "image": IMAGE,
                    "command": [
                        "/bin/sh",
                        "-c",
                        f'n=0; until [ -f {marker} ]; do n=$((n+10)); [ "$n" -le 900 ] || exit 13; sleep 10; done',
                    ],
                    "terminationMessagePolicy": "FallbackToLogsOnError",
                    "resources": {
                        "requests": {"cpu": "50m", "memory": "64Mi"},
                        "limits": {"cpu": "50m", "memory": "64Mi"},
                    },
                }
            ],
            "volumes": [
                {"name": "campaign", "configMap": {"name": f"campaign-{job}", "defaultMode": 420}},
                {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline}", "defaultMode": 420}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "htr-test-data"}},
                {"name": "work", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}},
                {"name": "s3", "secret": {"secretName": "htr-batch-s3", "defaultMode": 288}},
            ],
        },
    }


def campaign_job(
    name: str,
    uid: str,
    *,
    campaign: str | None = None,
    pipeline: str = PIPELINE,
    completions: int = 12,
    parallelism: int = 4,
    suspend: bool = False,
    completed: str | None = None,
    failed: str | None = "",
    active: int | None = None,
    conditions: list[dict] | None = None,
    priority_class: str | None = None,
    created: str = "2026-09-24T07:58:09Z",
    start_time: str | None = None,
    completion_time: str | None = None,
) -> dict:
    labels = {
        "app": "htrflow-batch",
        H + "managed-by": "converter",
        H + "campaign": campaign or name,
        H + "pipeline": pipeline,
        "kueue.x-k8s.io/queue-name": QUEUE,
    }
    if priority_class:
        labels["kueue.x-k8s.io/priority-class"] = priority_class
    status: dict = {"ready": active or 0, "terminating": 0, "uncountedTerminatedPods": {}}
    if failed is not None:
        status["failedIndexes"] = failed
    if completed is not None:
        status["completedIndexes"] = completed
    if active is not None:
        status["active"] = active
    if start_time:
        status["startTime"] = start_time
    if completion_time:
        status["completionTime"] = completion_time
    status["conditions"] = conditions if conditions is not None else []
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": uid,
            "resourceVersion": "48211937",
            "generation": 2,
            "creationTimestamp": created,
            "labels": labels,
            "annotations": {"argocd.argoproj.io/hook": "Skip"},
        },
        "spec": {
            "suspend": suspend,
            "completionMode": "Indexed",
            "completions": completions,
            "parallelism": parallelism,
            "backoffLimitPerIndex": 3,
            "maxFailedIndexes": completions,
            "podReplacementPolicy": "Failed",
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "podFailurePolicy": {
                "rules": [
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
                    {
                        "action": "FailIndex",
                        "onExitCodes": {"containerName": "wrapper", "operator": "In", "values": [13]},
                    },
                    {
                        "action": "FailIndex",
                        "onExitCodes": {"containerName": "warmup-wait", "operator": "In", "values": [13]},
                    },
                ]
            },
            "ttlSecondsAfterFinished": 604800,
            "template": pod_template(name, uid, pipeline),
        },
        "status": status,
    }


def cond(kind: str, status: str = "True", reason: str = "", message: str = "", at: str = "2026-09-24T07:58:14Z"):
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastProbeTime": at,
        "lastTransitionTime": at,
    }


def running_job(**overrides) -> dict:
    """parish-records-1870 mid-run: done 0-3,5,7 | failed 4 | active 6,8,9,10 | pending 11."""
    values = dict(
        priority_class="htr-bulk",
        completed="0-3,5,7",
        failed="4",
        active=4,
        start_time="2026-09-24T07:58:14Z",
        conditions=[cond("Suspended", "False", "JobResumed", "Job resumed")],
    )
    values.update(overrides)
    return campaign_job("parish-records-1870", RUNNING_UID, **values)


def queued_job(**overrides) -> dict:
    """estate-inventories-1890: suspended by Kueue at creation, nothing run (no priority label)."""
    values = dict(
        suspend=True,
        created="2026-09-24T08:40:02Z",
        conditions=[cond("Suspended", "True", "JobSuspended", "Job suspended", at="2026-09-24T08:40:02Z")],
    )
    values.update(overrides)
    return campaign_job("estate-inventories-1890", QUEUED_UID, **values)


def finished_job(name: str, uid: str, *, completed: str, failed: str = "", completions: int = 12, **overrides):
    """A Job at its end: Complete when nothing failed, else Failed (reason FailedIndexes)."""
    end = "2026-09-24T08:50:00Z"
    if failed:
        conditions = [
            cond("FailureTarget", reason="FailedIndexes", message="Job has failed indexes", at=end),
            cond("Failed", reason="FailedIndexes", message="Job has failed indexes", at=end),
        ]
    else:
        conditions = [cond("SuccessCriteriaMet", reason="CompletionsReached", at=end), cond("Complete", at=end)]
    values = dict(
        completed=completed,
        failed=failed,
        active=0,
        completions=completions,
        start_time="2026-09-24T07:00:00Z",
        completion_time=end if not failed else None,
        conditions=[cond("Suspended", "False", "JobResumed"), *conditions],
        created="2026-09-24T06:59:00Z",
    )
    values.update(overrides)
    return campaign_job(name, uid, **values)


# ---------------------------------------------------------------------------------------------
# Kueue


def workload(
    job: str,
    job_uid: str,
    *,
    suffix: str = "9e4d2",
    active: bool = True,
    priority: int = 0,
    priority_class: str | None = None,
    count: int = 4,
    conditions: list[dict] | None = None,
    cluster_queue: str | None = None,
    created: str = "2026-09-24T07:58:09Z",
    template: bool = True,
) -> dict:
    spec: dict = {"active": active, "queueName": QUEUE, "priority": priority, "podSets": []}
    if priority_class:
        spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": priority_class}
    pod_set: dict = {"name": "main", "count": count, "template": {}}
    if template:
        pod_set["template"] = {
            "metadata": {"labels": {"app": "htrflow-batch"}},
            "spec": copy.deepcopy(pod_template(job, job_uid)["spec"]),
        }
    spec["podSets"].append(pod_set)
    status: dict = {}
    if conditions is not None:
        status["conditions"] = conditions
    if cluster_queue:
        status["admission"] = {
            "clusterQueue": cluster_queue,
            "podSetAssignments": [
                {
                    "name": "main",
                    "count": count,
                    "flavors": {
                        "cpu": "default-flavor",
                        "memory": "default-flavor",
                        "nvidia.com/gpu": "default-flavor",
                    },
                    "resourceUsage": {"cpu": str(4 * count), "memory": f"{8 * count}Gi", "nvidia.com/gpu": str(count)},
                }
            ],
        }
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"job-{job}-{suffix}",
            "namespace": NS,
            "uid": f"wl-{job_uid}",
            "generation": 1,
            "creationTimestamp": created,
            "labels": {"kueue.x-k8s.io/job-uid": job_uid},
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": job,
                    "uid": job_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": spec,
        "status": status,
    }


def admitted_workload(**overrides) -> dict:
    values = dict(
        priority_class="htr-bulk",
        cluster_queue=CLUSTER_QUEUE,
        conditions=[
            cond("QuotaReserved", reason="QuotaReserved", message=f"Quota reserved in ClusterQueue {CLUSTER_QUEUE}"),
            cond("Admitted", reason="Admitted", message="The workload is admitted"),
        ],
    )
    values.update(overrides)
    return workload("parish-records-1870", RUNNING_UID, **values)


PENDING_MESSAGE = (
    "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor "
    "default-flavor, 4 more needed"
)


def pending_workload(**overrides) -> dict:
    values = dict(
        suffix="4b7c1",
        created="2026-09-24T08:40:02Z",
        template=False,
        conditions=[
            cond("QuotaReserved", "False", "Pending", PENDING_MESSAGE, at="2026-09-24T08:40:03Z"),
        ],
    )
    values.update(overrides)
    return workload("estate-inventories-1890", QUEUED_UID, **values)


def cluster_queue(cpu="16", memory="32Gi", gpu="4", active=True, used=("16", "32Gi", "4")) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": CLUSTER_QUEUE},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "default-flavor",
                            "resources": [
                                {"name": "cpu", "nominalQuota": cpu},
                                {"name": "memory", "nominalQuota": memory},
                                {"name": "nvidia.com/gpu", "nominalQuota": gpu},
                            ],
                        }
                    ],
                }
            ],
        },
        "status": {
            "pendingWorkloads": 1,
            "admittedWorkloads": 1,
            "flavorsUsage": [
                {
                    "name": "default-flavor",
                    "resources": [
                        {"name": "cpu", "total": used[0]},
                        {"name": "memory", "total": used[1]},
                        {"name": "nvidia.com/gpu", "total": used[2]},
                    ],
                }
            ],
            "conditions": [
                cond(
                    "Active",
                    "True" if active else "False",
                    "Ready" if active else "FlavorNotFound",
                    "Can admit new workloads" if active else "Can't admit new workloads: FlavorNotFound",
                )
            ],
        },
    }


def local_queue(name: str = QUEUE) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"clusterQueue": CLUSTER_QUEUE},
    }


PRIORITY_CLASSES = ["htr-interactive", "htr-bulk", "htr-idle"]


# ---------------------------------------------------------------------------------------------
# Pods


def campaign_pod(
    job: str,
    index: int,
    *,
    suffix: str = "abcde",
    phase: str = "Running",
    created: str = "2026-09-24T07:58:15Z",
    failure_count: int = 0,
    wrapper: dict | None = None,
    init: dict | None = None,
    reason: str | None = None,
    message: str | None = None,
    uid: str = RUNNING_UID,
) -> dict:
    """A campaign pod of ``job`` at ``index``; ``wrapper`` / ``init`` are container status bodies."""
    status: dict = {"phase": phase, "startTime": created}
    if reason:
        status["reason"] = reason
    if message:
        status["message"] = message
    status["initContainerStatuses"] = [
        {
            "name": "warmup-wait",
            "ready": phase == "Running",
            "restartCount": 0,
            "image": IMAGE,
            **(init or {"state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}),
        }
    ]
    status["containerStatuses"] = [
        {
            "name": "wrapper",
            "ready": phase == "Running",
            "restartCount": 0,
            "image": IMAGE,
            **(wrapper or {"state": {"running": {"startedAt": created}}}),
        }
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{job}-{index}-{suffix}",
            "generateName": f"{job}-{index}-",
            "namespace": NS,
            "creationTimestamp": created,
            "labels": {
                "app": "htrflow-batch",
                "batch.kubernetes.io/controller-uid": uid,
                "batch.kubernetes.io/job-completion-index": str(index),
                "batch.kubernetes.io/job-name": job,
                "controller-uid": uid,
                "job-name": job,
            },
            "annotations": {
                "batch.kubernetes.io/job-completion-index": str(index),
                "batch.kubernetes.io/job-index-failure-count": str(failure_count),
            },
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": uid, "controller": True}],
        },
        "spec": {"restartPolicy": "Never", "nodeName": "gpu-node-01"},
        "status": status,
    }


def terminated(exit_code: int, message: str = "", reason: str = "Error", finished: str = "2026-09-24T08:10:00Z"):
    body = {"exitCode": exit_code, "reason": reason, "startedAt": "2026-09-24T08:00:00Z", "finishedAt": finished}
    if message:
        body["message"] = message
    return {"state": {"terminated": body}}


def failed_wrapper_pod(job: str, index: int, message: str, exit_code: int = 13, **kwargs) -> dict:
    return campaign_pod(job, index, phase="Failed", wrapper=terminated(exit_code, message), **kwargs)


def warmup_wait_exit13_pod() -> dict:
    """court-rolls-1650 index 2: warmup-wait gave up on the marker; the wrapper never ran."""
    pod = campaign_pod(
        "court-rolls-1650",
        2,
        suffix="7hq4z",
        phase="Failed",
        created="2026-09-24T06:20:11Z",
        uid=COURT_UID,
        init=terminated(13, MARKER_LINE_V3, finished="2026-09-24T06:35:14Z"),
        wrapper={"state": {"waiting": {"reason": "PodInitializing"}}, "started": False},
    )
    pod["status"]["conditions"] = [
        {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized"},
        {"type": "Ready", "status": "False", "reason": "PodFailed"},
    ]
    return pod


def court_rolls_job(**overrides) -> dict:
    values = dict(
        pipeline=PIPELINE_V3,
        completions=3,
        parallelism=3,
        completed="",
        failed="2",
        active=2,
        start_time="2026-09-24T06:20:10Z",
        created="2026-09-24T06:20:09Z",
        conditions=[cond("Suspended", "False", "JobResumed")],
    )
    values.update(overrides)
    return campaign_job("court-rolls-1650", COURT_UID, **values)


# ---------------------------------------------------------------------------------------------
# Warm-up


def warmup_job(
    pipeline: str,
    *,
    state: str = "succeeded",
    recipe: str = RECIPE_V2,
    created: str = "2026-09-24T06:10:41Z",
    finished: str = "2026-09-24T06:12:05Z",
) -> dict:
    name = f"htr-warmup-{pipeline}"
    status: dict = {"startTime": created, "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}}
    if state == "succeeded":
        status.update(succeeded=1, completionTime=finished)
        status["conditions"] = [cond("SuccessCriteriaMet", at=finished), cond("Complete", at=finished)]
    elif state == "failed":
        message = (
            f"Container warmup for pod {NS}/{name}-q7k2m failed with exit code 13 matching FailJob rule at index 1"
        )
        status["failed"] = 1
        status["conditions"] = [
            cond("FailureTarget", reason="PodFailurePolicy", message=message, at=finished),
            cond("Failed", reason="PodFailurePolicy", message=message, at=finished),
        ]
    elif state == "running":
        status.update(active=1, ready=1)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "creationTimestamp": created,
            "labels": {"app": "htrflow-warmup", H + "managed-by": "converter", H + "pipeline": pipeline},
        },
        "spec": {
            "backoffLimit": 2,
            "completions": 1,
            "parallelism": 1,
            "suspend": False,
            "template": {
                "metadata": {
                    "labels": {"app": "htrflow-warmup", "batch.kubernetes.io/job-name": name},
                    "annotations": {H + "recipe-sha256": recipe},
                },
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "warmup", "image": IMAGE}],
                    "volumes": [
                        {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline}"}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "htr-test-data"}},
                    ],
                },
            },
        },
        "status": status,
    }


def failed_warmup_pod(pipeline: str = PIPELINE_V3, error: str = WARMUP_ERROR_V3, permanent: bool = True) -> dict:
    name = f"htr-warmup-{pipeline}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{name}-q7k2m",
            "namespace": NS,
            "creationTimestamp": "2026-09-24T06:10:41Z",
            "labels": {
                "app": "htrflow-warmup",
                "batch.kubernetes.io/job-name": name,
                "job-name": name,
            },
        },
        "spec": {},
        "status": {
            "phase": "Failed",
            "containerStatuses": [
                {
                    "name": "warmup",
                    "ready": False,
                    "restartCount": 0,
                    "state": {
                        "terminated": {
                            "exitCode": 13 if permanent else 1,
                            "reason": "Error",
                            "message": wrapper_message("warmup", permanent, error),
                            "startedAt": "2026-09-24T06:10:43Z",
                            "finishedAt": "2026-09-24T06:12:03Z",
                        }
                    },
                }
            ],
        },
    }


# ---------------------------------------------------------------------------------------------
# ConfigMaps


def campaign_record(job: str, volumes=PARISH_VOLUMES, *, campaign: str | None = None, pipeline: str = PIPELINE):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{job}",
            "namespace": NS,
            "creationTimestamp": "2026-09-24T07:58:08Z",
            "labels": {H + "managed-by": "converter", H + "campaign": campaign or job, H + "pipeline": pipeline},
            "annotations": {
                H + "image-digest": IMAGE,
                H + "campaigns-commit": "4f2a9c81d03b6e7f5a1c2d3e4f5061728394a5b6",
                H + "applied-by": "argocd-hook/htr-campaigns",
                H + "applied-at": "2026-09-24T07:58:08Z",
                H + "job-uid": RUNNING_UID if job == "parish-records-1870" else f"uid-{job}",
            },
        },
        "data": {"volumes.txt": volumes_txt(volumes) if not isinstance(volumes, str) else volumes},
    }


def status_record(job: str, data: dict, *, campaign: str | None = None, pipeline: str = PIPELINE) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{job}-status",
            "namespace": NS,
            "labels": {
                H + "managed-by": "converter",
                H + "campaign": campaign or job,
                H + "pipeline": pipeline,
                H + "kind": "status",
            },
        },
        "data": data,
    }


def parish_status_record() -> dict:
    return status_record(
        "parish-records-1870",
        {
            "phase": "Running",
            "volumesTotal": "12",
            "volumesDone": "6",
            "volumesFailed": "1",
            "startedAt": "2026-09-24T07:58:14Z",
            "finishedAt": "",
            "resultsBase": f"{RESULTS_URL}/{NS}/{PIPELINE}",
            "jobUid": RUNNING_UID,
            "failedVolumes": json.dumps([{"id": "bouppteckning-1871", "reason": MANIFEST_404}], separators=(",", ":")),
            "failedVolumesJobUid": RUNNING_UID,
        },
    )


def county_tax_status_record() -> dict:
    """A reaped campaign's terminal record, written before its Job's TTL."""
    return status_record(
        "county-tax-1790",
        {
            "phase": "PartiallyFailed",
            "volumesTotal": "40",
            "volumesDone": "38",
            "volumesFailed": "2",
            "startedAt": "2026-09-10T13:02:51Z",
            "finishedAt": "2026-09-12T04:47:30Z",
            "resultsBase": f"{RESULTS_URL}/{NS}/{PIPELINE}",
            "jobUid": "a1b2c3d4-e5f6-4718-9a0b-1c2d3e4f5a6b",
        },
    )


def pipeline_configmap(pipeline: str = PIPELINE, text: str = PIPELINE_YAML_V2) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"htr-pipeline-{pipeline}",
            "namespace": NS,
            "labels": {H + "managed-by": "converter", H + "pipeline": pipeline},
            "annotations": {H + "pipeline-sha256": PIPELINE_SHA_V2},
        },
        "data": {"pipeline.yaml": text},
    }


# ---------------------------------------------------------------------------------------------
# Scenes


def parish_pods() -> list[dict]:
    """Pods of the running parish campaign: index 4 failed for good in setup; index 6 on its third try."""
    job = "parish-records-1870"
    return [
        failed_wrapper_pod(job, 4, wrapper_message("setup", True, MANIFEST_404), suffix="x4a1b"),
        failed_wrapper_pod(
            job,
            6,
            wrapper_message("stream", False, "upload failed: UploadOutage (503)"),
            exit_code=1,
            suffix="a6aaa",
            created="2026-09-24T08:01:00Z",
        ),
        failed_wrapper_pod(
            job,
            6,
            wrapper_message("stream", False, "S3 endpoint unreachable: ConnectTimeout"),
            exit_code=1,
            suffix="b6bbb",
            created="2026-09-24T08:20:00Z",
            failure_count=1,
        ),
        campaign_pod(job, 6, suffix="c6ccc", created="2026-09-24T08:40:00Z", failure_count=2),
        campaign_pod(job, 8, suffix="d8ddd"),
        campaign_pod(job, 9, suffix="e9eee"),
        campaign_pod(job, 10, suffix="f10ff"),
    ]


def scene(**overrides) -> Snapshot:
    """The whole namespace: running parish campaign, queued estate campaign, court rolls stuck on a failed
    warm-up, and the reaped county-tax campaign. Keyword arguments replace whole lists."""
    values = dict(
        namespace=NS,
        jobs=[running_job(), queued_job(), court_rolls_job()],
        warmup_jobs=[warmup_job(PIPELINE), warmup_job(PIPELINE_V3, state="failed", recipe=RECIPE_V3)],
        records=[
            campaign_record("parish-records-1870"),
            campaign_record("estate-inventories-1890", PARISH_VOLUMES),
            campaign_record(
                "court-rolls-1650",
                [
                    ("CR-1", "https://iiif.example.se/cr1"),
                    ("CR-2", "https://iiif.example.se/cr2"),
                    ("CR-3", "https://iiif.example.se/cr3"),
                ],
                pipeline=PIPELINE_V3,
            ),
        ],
        status_records=[parish_status_record(), county_tax_status_record()],
        pipelines=[pipeline_configmap()],
        workloads=[admitted_workload(), pending_workload()],
        pods=[
            *parish_pods(),
            warmup_wait_exit13_pod(),
            campaign_pod(
                "court-rolls-1650",
                0,
                suffix="p0",
                phase="Pending",
                uid=COURT_UID,
                init={"state": {"running": {"startedAt": "2026-09-24T08:50:00Z"}}},
                wrapper={"state": {"waiting": {"reason": "PodInitializing"}}},
            ),
            campaign_pod(
                "court-rolls-1650",
                1,
                suffix="p1",
                phase="Pending",
                uid=COURT_UID,
                init={"state": {"running": {"startedAt": "2026-09-24T08:50:00Z"}}},
                wrapper={"state": {"waiting": {"reason": "PodInitializing"}}},
            ),
            failed_warmup_pod(),
        ],
        local_queues=[local_queue()],
        cluster_queues=[cluster_queue()],
        priority_classes=list(PRIORITY_CLASSES),
        events=[],
        read_at=NOW,
    )
    values.update(overrides)
    return Snapshot(**values)
