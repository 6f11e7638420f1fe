"""Kubernetes objects as a cluster holds them for the batch HTR system: the one object factory.

Every function here is pure. Builders take the values a caller varies (names, uids, states, times
as datetimes or Kubernetes time strings) and fill in the rest as ``kubectl get -o yaml`` shows the
converter's objects, abridged where the browser never looks, with the label and annotation keys of
``core.contract``. Defaults are the sample namespace's (an hour into the parish campaign, see
``kube_samples``), so a test names only what it varies.

The demo scene renders its model (``scene_model``) through the ``*_of`` adapters at the end; the
tests and benchmarks call the builders, and ``kube_samples`` holds the named samples.
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid
from datetime import UTC, datetime

from core.contract import (
    ANNOTATION_APPLIED_AT,
    ANNOTATION_APPLIED_BY,
    ANNOTATION_COMMIT,
    ANNOTATION_IMAGE_DIGEST,
    ANNOTATION_INDEX_FAILURE_COUNT,
    ANNOTATION_JOB_UID,
    ANNOTATION_PIPELINE_SHA,
    ANNOTATION_RECIPE_SHA,
    ANNOTATION_WRITTEN_BY,
    KUEUE_PREFIX,
    LABEL_CAMPAIGN,
    LABEL_COMPLETION_INDEX,
    LABEL_JOB_NAME,
    LABEL_KIND,
    LABEL_MANAGED_BY,
    LABEL_PIPELINE,
    LABEL_PREFIX,
    LABEL_PRIORITY_CLASS,
    LABEL_QUEUE_NAME,
    LABEL_WORKLOAD_JOB_UID,
    format_volumes_txt,
)

NAMESPACE = "htr-batch"
QUEUE = "htr-batch"
CLUSTER_QUEUE = "htr-batch-cq"
GPU_FLAVOR = "gpu-a100"
CPU_FLAVOR = "default-flavor"
DEFAULT_FLAVOR = "default-flavor"
TAINTED_FLAVOR = "ocr-dedicated"  # nodes kept for one team by a taint: only that team's ClusterQueue names it
OCR_QUEUE = "htr-ocr"  # that team's LocalQueue in the namespace, and its ClusterQueue
OCR_CLUSTER_QUEUE = "htr-ocr-cq"
GPU_QUOTA = 10
CPU_QUOTA = 64
MEMORY_QUOTA_GI = 256
CPU_PER_POD = 4
MEMORY_PER_POD_GI = 8

H = LABEL_PREFIX
KUEUE = KUEUE_PREFIX
PRIORITY_CLASSES = {"htr-interactive": 1000, "htr-bulk": 0, "htr-idle": -10}
WRAPPER_IMAGE = (
    "registry.example.se/htr/htrflow-batch@sha256:3c1f0a9b7e2d4c6a8b0f1e3d5c7a9b1d2e4f6a8c0b2d4e6f8a1c3e5b7d9f0a2c"
)
WARMUP_WAIT_SECONDS = 900
MAX_SECONDS = 21600
BACKOFF_LIMIT_PER_INDEX = 3
DEMO_RESULTS_SECRET = "htr-batch-s3"
DATA_PVC = "htr-model-cache"
CACHE_STORAGE_CLASS = "cephfs"
CACHE_PROVISIONER = "cephfs.csi.ceph.com"
PROVISIONERS = {CACHE_STORAGE_CLASS: CACHE_PROVISIONER, "local-path": "rancher.io/local-path"}  # by storage class
CACHE_SIZE = "200Gi"
KUEUE_NAMESPACE = "kueue-system"
KUEUE_CONTROLLER = "kueue-controller-manager"
KUEUE_IMAGE = "registry.k8s.io/kueue/kueue:v0.14.2"
KUEUE_POD_HASH = "7c9d6b5f48"

# --- the sample namespace: the builders' defaults -------------------------------------------

PIPELINE = "swe-lines-v2"
PIPELINE_V3 = "swe-lines-v3"
RECIPE_V2 = "c9d92b23fbb8ca448ab9c8cf83ccaf1ff7b3ca76f3cbf926b8ed38508641d1e1"
RECIPE_V3 = "cddf3d3e3ee8ef24f94f1304f8b36aa0ad768d75dba2bc0d0eff652a8aab0f17"
PIPELINE_SHA_V2 = "00657074f93b1db22ef51d52745d9ff88dc8181ee631677a561d75ad5531638b"
RESULTS_URL = "https://htr.arkiv.example.se/results"
RUNNING_UID = "6f3c2b9e-8d41-4a57-b0e2-1c9a7d5e3f80"  # parish-records-1870
SAMPLE_COMMIT = "4f2a9c81d03b6e7f5a1c2d3e4f5061728394a5b6"
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
JOB_CREATED = "2026-09-24T07:58:09Z"
RECORD_CREATED = "2026-09-24T07:58:08Z"
POD_CREATED = "2026-09-24T07:58:15Z"
CONDITION_AT = "2026-09-24T07:58:14Z"
WARMUP_CREATED = "2026-09-24T06:10:41Z"
WARMUP_FINISHED = "2026-09-24T06:12:05Z"
QUEUES_CREATED = "2026-07-26T09:00:00Z"


def iso(moment: datetime | str) -> str:
    """Kubernetes time format: UTC with a Z, whole seconds (a string is taken as already so)."""
    if isinstance(moment, str):
        return moment
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def stable_uid(*parts: str) -> str:
    """A UUID that depends only on ``parts``, so a scene built twice has the same uids."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def stable_suffix(*parts: str, length: int = 5) -> str:
    """Short lowercase suffix like the random ones Kubernetes and Kueue append to names."""
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    number = int.from_bytes(hashlib.sha256("/".join(parts).encode()).digest()[:8], "big")
    chars = []
    for _ in range(length):
        number, rest = divmod(number, len(alphabet))
        chars.append(alphabet[rest])
    return "".join(chars)


def hex_suffix(*parts: str, length: int = 5) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:length]


def index_ranges(indexes) -> str:
    """[0, 1, 2, 5, 7, 8] -> "0-2,5,7-8", the Job controller's interval format."""
    ordered = sorted(set(indexes))
    parts = []
    start = previous = None
    for index in ordered:
        if start is None:
            start = previous = index
        elif index == previous + 1:
            previous = index
        else:
            parts.append(f"{start}" if start == previous else f"{start}-{previous}")
            start = previous = index
    if start is not None:
        parts.append(f"{start}" if start == previous else f"{start}-{previous}")
    return ",".join(parts)


def cache_dir(pipeline_id: str, recipe_sha256: str) -> str:
    return f"{pipeline_id}-{recipe_sha256}"


def warmup_marker(pipeline_id: str) -> str:
    return f"/data/warmup/{pipeline_id}.done"


def warmup_wait_message(pipeline_id: str) -> str:
    return (
        f"no warm-up marker at {warmup_marker(pipeline_id)} after {WARMUP_WAIT_SECONDS}s: "
        "the pipeline's warm-up Job has not finished\n"
    )


def wrapper_message(stage: str, permanent: bool, error: str) -> str:
    """The wrapper's termination message, as json.dumps writes it."""
    return json.dumps({"stage": stage, "permanent": permanent, "error": error})


def cond(
    kind: str,
    status: str = "True",
    reason: str = "",
    message: str = "",
    at: datetime | str = CONDITION_AT,
    probe: bool = True,
) -> dict:
    """A condition of a Job, Workload, queue or pod; ``probe`` adds ``lastProbeTime`` (Jobs have it)."""
    condition = {"type": kind, "status": status, "reason": reason, "message": message}
    if probe:
        condition["lastProbeTime"] = iso(at)
    condition["lastTransitionTime"] = iso(at)
    return condition


def _controller_labels(job_name: str, job_uid: str) -> dict:
    return {
        "batch.kubernetes.io/controller-uid": job_uid,
        LABEL_JOB_NAME: job_name,
        "controller-uid": job_uid,
        "job-name": job_name,
    }


def _owner(api_version: str, kind: str, name: str, uid: str) -> dict:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


# --- cluster-wide queue objects --------------------------------------------------------------


def priority_class(name: str, value: int, now: datetime) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "WorkloadPriorityClass",
        "metadata": {
            "name": name,
            "uid": stable_uid("wpc", name),
            "creationTimestamp": iso(now.replace(month=1, day=1)),
        },
        "value": value,
        "description": {
            "htr-interactive": "Small campaigns someone is waiting for",
            "htr-bulk": "Ordinary campaigns (the default)",
            "htr-idle": "Backfill that runs only when nothing else wants the GPUs",
        }.get(name, ""),
    }


def local_queue(
    name: str = QUEUE,
    *,
    created: datetime | str = QUEUES_CREATED,
    pending: int = 0,
    admitted: int = 0,
    cluster_queue: str = CLUSTER_QUEUE,
) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": stable_uid("lq", name),
            "creationTimestamp": iso(created),
            "labels": {"app.kubernetes.io/name": "htrflow-batch"},
        },
        "spec": {"clusterQueue": cluster_queue},
        "status": {
            "pendingWorkloads": pending,
            "reservingWorkloads": admitted,
            "admittedWorkloads": admitted,
            "conditions": [
                cond("Active", "True", "Ready", "Can submit new workloads to localQueue", created, probe=False)
            ],
        },
    }


def cluster_queue(
    cpu: str = "16",
    memory: str = "32Gi",
    gpu: str = "4",
    active: bool = True,
    used: tuple[str, str, str] = ("16", "32Gi", "4"),
    *,
    cpu_flavor: str = DEFAULT_FLAVOR,
    gpu_flavor: str = DEFAULT_FLAVOR,
    pending: int = 1,
    admitted: int = 1,
    created: datetime | str = QUEUES_CREATED,
    name: str = CLUSTER_QUEUE,
) -> dict:
    """The ClusterQueue with nominal quota and usage (usage counts requests of admitted workloads).

    One resource group when GPUs share the CPU flavor, else one for CPU and memory and one for GPUs.
    """
    cpu_resources = [("cpu", cpu, used[0]), ("memory", memory, used[1])]
    gpu_resources = [("nvidia.com/gpu", gpu, used[2])]
    if cpu_flavor == gpu_flavor:
        groups = [(cpu_flavor, cpu_resources + gpu_resources)]
    else:
        groups = [(cpu_flavor, cpu_resources), (gpu_flavor, gpu_resources)]

    def usage():
        return [
            {"name": flavor, "resources": [{"name": r, "total": total, "borrowed": "0"} for r, _q, total in resources]}
            for flavor, resources in groups
        ]

    if active:
        condition = cond("Active", "True", "Ready", "Can admit new workloads", created, probe=False)
    else:
        message = "Can't admit new workloads: FlavorNotFound"
        condition = cond("Active", "False", "FlavorNotFound", message, created, probe=False)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name, "uid": stable_uid("cq", name), "creationTimestamp": iso(created)},
        "spec": {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "preemption": {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"},
            "resourceGroups": [
                {
                    "coveredResources": [r for r, _q, _t in resources],
                    "flavors": [
                        {"name": flavor, "resources": [{"name": r, "nominalQuota": q} for r, q, _t in resources]}
                    ],
                }
                for flavor, resources in groups
            ],
        },
        "status": {
            "flavorsUsage": usage(),
            "flavorsReservation": usage(),
            "pendingWorkloads": pending,
            "reservingWorkloads": admitted,
            "admittedWorkloads": admitted,
            "conditions": [condition],
        },
    }


# --- pipelines and warm-ups ------------------------------------------------------------------


def pipeline_configmap(
    pipeline: str, text: str, *, sha256: str | None = None, created: datetime | str | None = None
) -> dict:
    """ConfigMap ``htr-pipeline-<id>``; its sha256 annotation is the text's unless given."""
    metadata = {"name": f"htr-pipeline-{pipeline}", "namespace": NAMESPACE, "uid": stable_uid("pipeline", pipeline)}
    if created is not None:
        metadata["creationTimestamp"] = iso(created)
    metadata["labels"] = {H + "managed-by": "converter", LABEL_PIPELINE: pipeline}
    metadata["annotations"] = {
        ANNOTATION_PIPELINE_SHA: sha256 or hashlib.sha256(text.encode()).hexdigest(),
        "argocd.argoproj.io/hook": "Skip",
    }
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"pipeline.yaml": text}}


def warmup_job(
    pipeline: str,
    *,
    state: str = "succeeded",
    recipe: str = RECIPE_V2,
    created: datetime | str = WARMUP_CREATED,
    finished: datetime | str | None = WARMUP_FINISHED,
    pod_suffix: str | None = None,
    claim: str = DATA_PVC,
) -> dict:
    """The pipeline's warm-up Job: ``state`` succeeded, failed, running, or pending (nothing yet); its
    pods mount the cache claim ``claim``."""
    name = f"htr-warmup-{pipeline}"
    uid = stable_uid("warmup", pipeline)
    labels = {"app": "htrflow-warmup", LABEL_MANAGED_BY: "converter", LABEL_PIPELINE: pipeline}
    status: dict = {"startTime": iso(created), "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}}
    if state == "succeeded":
        message = "Reached expected number of succeeded pods"
        status.update(
            succeeded=1,
            completionTime=iso(finished),
            conditions=[
                cond("SuccessCriteriaMet", "True", "CompletionsReached", message, finished),
                cond("Complete", "True", "CompletionsReached", message, finished),
            ],
        )
    elif state == "failed":
        pod = f"{name}-{pod_suffix or stable_suffix(name, 'pod')}"
        message = (
            f"Container warmup for pod {NAMESPACE}/{pod} failed with exit code 13 matching FailJob rule at index 1"
        )
        status.update(
            failed=1,
            conditions=[
                cond("FailureTarget", "True", "PodFailurePolicy", message, finished),
                cond("Failed", "True", "PodFailurePolicy", message, finished),
            ],
        )
    elif state == "running":
        status.update(active=1, ready=1)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": uid,
            "generation": 1,
            "creationTimestamp": iso(created),
            "labels": labels,
            "annotations": {"argocd.argoproj.io/hook": "Skip"},
        },
        "spec": {
            "backoffLimit": 2,
            "completionMode": "NonIndexed",
            "completions": 1,
            "parallelism": 1,
            "suspend": False,
            "podReplacementPolicy": "Failed",
            "manualSelector": False,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "podFailurePolicy": {
                "rules": [
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
                    {"action": "FailJob", "onExitCodes": {"containerName": "warmup", "operator": "In", "values": [13]}},
                ]
            },
            "template": {
                "metadata": {
                    "labels": {**_controller_labels(name, uid), "app": "htrflow-warmup"},
                    "annotations": {ANNOTATION_RECIPE_SHA: recipe},
                },
                "spec": {
                    "restartPolicy": "Never",
                    "activeDeadlineSeconds": 3600,
                    "automountServiceAccountToken": False,
                    "runtimeClassName": "nvidia",
                    "containers": [
                        {
                            "name": "warmup",
                            "image": WRAPPER_IMAGE,
                            "command": ["/bin/sh", "-c"],
                            "args": [
                                'set -eu\nmkdir -p "$HOME" "$TMPDIR" "$HF_HOME"\nexec python -m htrflow_batch.warmup\n'
                            ],
                            "env": [
                                {"name": "PIPELINE_PATH", "value": "/config/pipeline.yaml"},
                                {"name": "PIPELINE_ID", "value": pipeline},
                                {"name": "HF_HOME", "value": "/data/hf"},
                            ],
                            "volumeMounts": [
                                {"name": "pipeline", "mountPath": "/config"},
                                {"name": "data", "mountPath": "/data", "subPath": cache_dir(pipeline, recipe)},
                                {"name": "work", "mountPath": "/work"},
                            ],
                            "resources": {
                                "requests": {"cpu": "2", "memory": "4Gi"},
                                "limits": {"cpu": "2", "memory": "8Gi"},
                            },
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File",
                        }
                    ],
                    "volumes": [
                        {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline}", "defaultMode": 420}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": claim}},
                        {"name": "work", "emptyDir": {"sizeLimit": "4Gi"}},
                    ],
                },
            },
        },
        "status": status,
    }


def warmup_pod(
    pipeline: str,
    *,
    state: str = "failed",
    recipe: str = RECIPE_V2,
    created: datetime | str = WARMUP_CREATED,
    started: datetime | str | None = None,
    finished: datetime | str | None = WARMUP_FINISHED,
    error: str = "",
    permanent: bool = True,
    suffix: str | None = None,
    node: str = "gpu-node-02",
) -> dict:
    """The warm-up Job's pod in ``state`` succeeded, failed or running, on ``node``; a failed one carries
    the warm-up's JSON termination message (exit 13 when permanent)."""
    job = f"htr-warmup-{pipeline}"
    job_uid = stable_uid("warmup", pipeline)
    name = f"{job}-{suffix or stable_suffix(job, 'pod')}"
    started = created if started is None else started
    if state == "succeeded":
        phase = "Succeeded"
        container_state = {
            "terminated": {"exitCode": 0, "reason": "Completed", "startedAt": iso(started), "finishedAt": iso(finished)}
        }
    elif state == "failed":
        phase = "Failed"
        container_state = {
            "terminated": {
                "exitCode": 13 if permanent else 1,
                "reason": "Error",
                "message": wrapper_message("warmup", permanent, error),
                "startedAt": iso(started),
                "finishedAt": iso(finished),
            }
        }
    else:
        phase = "Running"
        container_state = {"running": {"startedAt": iso(started)}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": stable_uid("pod", name),
            "creationTimestamp": iso(created),
            "labels": {**_controller_labels(job, job_uid), "app": "htrflow-warmup"},
            "annotations": {ANNOTATION_RECIPE_SHA: recipe},
            "ownerReferences": [_owner("batch/v1", "Job", job, job_uid)],
        },
        "spec": {
            "restartPolicy": "Never",
            "nodeName": node,
            "containers": [{"name": "warmup", "image": WRAPPER_IMAGE}],
        },
        "status": {
            "phase": phase,
            "startTime": iso(started),
            "conditions": [cond("PodScheduled", "True", "", "", created, probe=False)],
            "containerStatuses": [
                {
                    "name": "warmup",
                    "ready": phase == "Running",
                    "started": phase == "Running",
                    "restartCount": 0,
                    "image": WRAPPER_IMAGE,
                    "imageID": WRAPPER_IMAGE,
                    "state": container_state,
                }
            ],
        },
    }


# --- campaign Jobs and Workloads -------------------------------------------------------------


def _resources(gpus: int) -> dict:
    requests = {"cpu": str(CPU_PER_POD), "memory": f"{MEMORY_PER_POD_GI}Gi", "nvidia.com/gpu": str(gpus)}
    return {"requests": requests, "limits": {**requests, "memory": f"{2 * MEMORY_PER_POD_GI}Gi"}}


_WRAPPER_SCRIPT = (
    "set -eu\n"
    'mkdir -p "$HOME" "$TMPDIR" "$YOLO_CONFIG_DIR"\n'
    'line=$(sed -n "$((JOB_COMPLETION_INDEX + 1))p" /campaign/volumes.txt)\n'
    '[ -n "$line" ] || { echo "no volume for index $JOB_COMPLETION_INDEX" >&2; exit 13; }\n'
    "id=${line%%\t*}; src=${line#*\t}\n"
    'export VOLUME_REF="$id"\n'
    'case "$src" in images:*) export IMAGES="${src#images:}" ;; *) export IIIF_MANIFEST_URL="$src" ;; esac\n'
    "exec python -m htrflow_batch\n"
)


def _warmup_wait_command(pipeline_id: str) -> str:
    marker = warmup_marker(pipeline_id)
    return (
        f'n=0; until [ -f {marker} ]; do n=$((n+10)); [ "$n" -le {WARMUP_WAIT_SECONDS} ] || '
        f'{{ echo "no warm-up marker at {marker} after {WARMUP_WAIT_SECONDS}s: '
        "the pipeline's warm-up Job has not finished\" >&2; exit 13; }; sleep 10; done"
    )


def pod_template(
    job: str,
    uid: str,
    pipeline: str = PIPELINE,
    recipe: str = RECIPE_V2,
    *,
    results_url: str = RESULTS_URL,
    gpus: int = 1,
    workload: str = "",
    claim: str = DATA_PVC,
    node_selector: dict | None = None,
) -> dict:
    """A campaign Job's pod template: the wrapper behind its warmup-wait init container, mounting the
    cache claim ``claim``, its pods landing where ``node_selector`` says (anywhere: None)."""
    data_mount = {"name": "data", "mountPath": "/data", "readOnly": True, "subPath": cache_dir(pipeline, recipe)}
    env = [
        {"name": "PIPELINE_PATH", "value": "/config/pipeline.yaml"},
        {"name": "PIPELINE_ID", "value": pipeline},
        {"name": "S3_PREFIX", "value": f"{NAMESPACE}/"},
        {"name": "RESULTS_URL", "value": results_url},
        {"name": "IMAGE_DIGEST", "value": WRAPPER_IMAGE},
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        {
            "name": "INDEX_FAILURE_COUNT",
            "valueFrom": {
                "fieldRef": {
                    "apiVersion": "v1",
                    "fieldPath": f"metadata.annotations['{ANNOTATION_INDEX_FAILURE_COUNT}']",
                }
            },
        },
        {"name": "BACKOFF_LIMIT_PER_INDEX", "value": str(BACKOFF_LIMIT_PER_INDEX)},
        {"name": "HF_HOME", "value": "/data/hf"},
        {"name": "AWS_SHARED_CREDENTIALS_FILE", "value": "/secrets/s3/credentials"},
        {"name": "S3_BUCKET", "valueFrom": {"secretKeyRef": {"name": DEMO_RESULTS_SECRET, "key": "S3_BUCKET"}}},
    ]
    labels = {**_controller_labels(job, uid), "app": "htrflow-batch", KUEUE + "podset": "main"}
    annotations = {KUEUE + "workload": workload} if workload else {}
    placement = {"nodeSelector": dict(node_selector)} if node_selector else {}
    return {
        "metadata": {"labels": labels, "annotations": annotations},
        "spec": {
            "restartPolicy": "Never",
            "activeDeadlineSeconds": MAX_SECONDS,
            "terminationGracePeriodSeconds": 120,
            "automountServiceAccountToken": False,
            "runtimeClassName": "nvidia",
            **placement,
            "containers": [
                {
                    "name": "wrapper",
                    "image": WRAPPER_IMAGE,
                    "command": ["/bin/sh", "-c"],
                    "args": [_WRAPPER_SCRIPT],
                    "env": env,
                    "volumeMounts": [
                        {"name": "campaign", "mountPath": "/campaign", "readOnly": True},
                        {"name": "pipeline", "mountPath": "/config"},
                        data_mount,
                        {"name": "work", "mountPath": "/work"},
                        {"name": "s3", "mountPath": "/secrets/s3", "readOnly": True},
                    ],
                    "resources": _resources(gpus),
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "initContainers": [
                {
                    "name": "warmup-wait",
                    "image": WRAPPER_IMAGE,
                    "command": ["/bin/sh", "-c", _warmup_wait_command(pipeline)],
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "FallbackToLogsOnError",
                    "volumeMounts": [data_mount],
                    "resources": {
                        "requests": {"cpu": "50m", "memory": "64Mi"},
                        "limits": {"cpu": "50m", "memory": "64Mi"},
                    },
                }
            ],
            "volumes": [
                {"name": "campaign", "configMap": {"name": f"campaign-{job}", "defaultMode": 420}},
                {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline}", "defaultMode": 420}},
                {"name": "data", "persistentVolumeClaim": {"claimName": claim}},
                {"name": "work", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}},
                {"name": "s3", "secret": {"secretName": DEMO_RESULTS_SECRET, "defaultMode": 288}},
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
    created: datetime | str = JOB_CREATED,
    start_time: str | None = None,
    completion_time: str | None = None,
    generation: int = 2,
    status: dict | None = None,
    template: dict | None = None,
    queue: str = QUEUE,
) -> dict:
    """A campaign's Indexed Job in the LocalQueue ``queue``. Its status is built from the index sets
    given, unless ``status`` is."""
    labels = {
        "app": "htrflow-batch",
        LABEL_MANAGED_BY: "converter",
        LABEL_CAMPAIGN: campaign or name,
        LABEL_PIPELINE: pipeline,
        LABEL_QUEUE_NAME: queue,
    }
    if priority_class:
        labels[LABEL_PRIORITY_CLASS] = priority_class
    if status is None:
        status = {"ready": active or 0, "terminating": 0, "uncountedTerminatedPods": {}}
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
            "namespace": NAMESPACE,
            "uid": uid,
            "generation": generation,
            "creationTimestamp": iso(created),
            "labels": labels,
            "annotations": {"argocd.argoproj.io/hook": "Skip"},
        },
        "spec": {
            "suspend": suspend,
            "completionMode": "Indexed",
            "completions": completions,
            "parallelism": parallelism,
            "backoffLimitPerIndex": BACKOFF_LIMIT_PER_INDEX,
            "maxFailedIndexes": completions,
            "podReplacementPolicy": "Failed",
            "manualSelector": False,
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
            "template": template if template is not None else pod_template(name, uid, pipeline),
        },
        "status": status,
    }


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
    created: datetime | str = JOB_CREATED,
    template: bool | dict = True,
    name: str | None = None,
    uid: str | None = None,
    gpus_per_pod: int = 1,
    cpu_flavor: str = DEFAULT_FLAVOR,
    gpu_flavor: str = DEFAULT_FLAVOR,
    queue: str = QUEUE,
) -> dict:
    """A campaign Job's Kueue Workload ``job-<job>-<suffix>`` in the LocalQueue ``queue``; admitted when
    ``cluster_queue`` is given.

    ``template``: True for the Job's pod template, False for none, or the template itself.
    """
    spec: dict = {"active": active, "queueName": queue, "priority": priority}
    if priority_class:
        spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": priority_class}
    if template is True:
        template = {
            "metadata": {"labels": {"app": "htrflow-batch"}},
            "spec": copy.deepcopy(pod_template(job, job_uid)["spec"]),
        }
    spec["podSets"] = [{"name": "main", "count": count, "template": template or {}}]
    status: dict = {}
    if cluster_queue:
        status["admission"] = {
            "clusterQueue": cluster_queue,
            "podSetAssignments": [
                {
                    "name": "main",
                    "count": count,
                    "flavors": {"cpu": cpu_flavor, "memory": cpu_flavor, "nvidia.com/gpu": gpu_flavor},
                    "resourceUsage": {
                        "cpu": str(count * CPU_PER_POD),
                        "memory": f"{count * MEMORY_PER_POD_GI}Gi",
                        "nvidia.com/gpu": str(count * gpus_per_pod),
                    },
                }
            ],
        }
    if conditions is not None:
        status["conditions"] = conditions
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": name or f"job-{job}-{suffix}",
            "namespace": NAMESPACE,
            "uid": uid or f"wl-{job_uid}",
            "generation": 1,
            "creationTimestamp": iso(created),
            "labels": {LABEL_WORKLOAD_JOB_UID: job_uid},
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
            "ownerReferences": [_owner("batch/v1", "Job", job, job_uid)],
        },
        "spec": spec,
        "status": status,
    }


# --- campaign pods ---------------------------------------------------------------------------


def campaign_pod(
    job: str,
    index: int,
    *,
    suffix: str = "abcde",
    phase: str = "Running",
    created: datetime | str = POD_CREATED,
    started: datetime | str | None = None,
    failure_count: int = 0,
    wrapper: dict | None = None,
    init: dict | None = None,
    reason: str | None = None,
    message: str | None = None,
    conditions: list[dict] | None = None,
    uid: str = RUNNING_UID,
    workload: str = "",
    node: str = "gpu-node-01",
    node_selector: dict | None = None,
) -> dict:
    """A campaign pod of ``job`` at ``index`` on ``node``; ``wrapper`` / ``init`` are container status
    bodies (a finished warmup-wait and a running wrapper unless given); ``node_selector`` as its
    Job's template has it."""
    created = iso(created)
    name = f"{job}-{index}-{suffix}"
    status: dict = {"phase": phase, "startTime": iso(started) if started is not None else created}
    if reason:
        status["reason"] = reason
    if message:
        status["message"] = message
    status["initContainerStatuses"] = [
        {
            "name": "warmup-wait",
            "ready": phase == "Running",
            "restartCount": 0,
            "image": WRAPPER_IMAGE,
            **(init or {"state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}),
        }
    ]
    status["containerStatuses"] = [
        {
            "name": "wrapper",
            "ready": phase == "Running",
            "restartCount": 0,
            "image": WRAPPER_IMAGE,
            **(wrapper or {"state": {"running": {"startedAt": created}}}),
        }
    ]
    if conditions is not None:
        status["conditions"] = conditions
    annotations = {LABEL_COMPLETION_INDEX: str(index), ANNOTATION_INDEX_FAILURE_COUNT: str(failure_count)}
    if workload:
        annotations[KUEUE + "workload"] = workload
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "generateName": f"{job}-{index}-",
            "namespace": NAMESPACE,
            "uid": stable_uid("pod", name),
            "creationTimestamp": created,
            "labels": {
                "app": "htrflow-batch",
                "batch.kubernetes.io/controller-uid": uid,
                LABEL_COMPLETION_INDEX: str(index),
                LABEL_JOB_NAME: job,
                "controller-uid": uid,
                "job-name": job,
                KUEUE + "podset": "main",
            },
            "annotations": annotations,
            "ownerReferences": [_owner("batch/v1", "Job", job, uid)],
        },
        "spec": {
            "hostname": f"{job}-{index}",
            "subdomain": job,
            "restartPolicy": "Never",
            "activeDeadlineSeconds": MAX_SECONDS,
            "nodeName": node,
            "runtimeClassName": "nvidia",
            **({"nodeSelector": dict(node_selector)} if node_selector else {}),
            "initContainers": [{"name": "warmup-wait", "image": WRAPPER_IMAGE}],
            "containers": [{"name": "wrapper", "image": WRAPPER_IMAGE}],
        },
        "status": status,
    }


def terminated(exit_code: int, message: str = "", reason: str = "Error", finished: str = "2026-09-24T08:10:00Z"):
    """A container status body: terminated with ``exit_code`` (and its termination message)."""
    body = {"exitCode": exit_code, "reason": reason, "startedAt": "2026-09-24T08:00:00Z", "finishedAt": finished}
    if message:
        body["message"] = message
    return {"state": {"terminated": body}}


def failed_wrapper_pod(job: str, index: int, message: str, exit_code: int = 13, **kwargs) -> dict:
    return campaign_pod(job, index, phase="Failed", wrapper=terminated(exit_code, message), **kwargs)


# --- ConfigMaps and events -------------------------------------------------------------------


def campaign_record(
    job: str,
    volumes: str | list[tuple[str, str]] = PARISH_VOLUMES,
    *,
    campaign: str | None = None,
    pipeline: str = PIPELINE,
    created: datetime | str = RECORD_CREATED,
    job_uid: str | None = None,
    commit: str = SAMPLE_COMMIT,
) -> dict:
    """ConfigMap ``campaign-<job>`` stamped by the apply: ``volumes.txt`` and who applied what."""
    if job_uid is None:
        job_uid = RUNNING_UID if job == "parish-records-1870" else f"uid-{job}"
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{job}",
            "namespace": NAMESPACE,
            "uid": stable_uid("record", job),
            "creationTimestamp": iso(created),
            "labels": {LABEL_MANAGED_BY: "converter", LABEL_CAMPAIGN: campaign or job, LABEL_PIPELINE: pipeline},
            "annotations": {
                ANNOTATION_IMAGE_DIGEST: WRAPPER_IMAGE,
                "argocd.argoproj.io/hook": "Skip",
                ANNOTATION_COMMIT: commit,
                ANNOTATION_APPLIED_BY: "argocd-hook/htr-campaigns",
                ANNOTATION_APPLIED_AT: iso(created),
                ANNOTATION_JOB_UID: job_uid,
            },
        },
        "data": {"volumes.txt": volumes if isinstance(volumes, str) else format_volumes_txt(volumes)},
    }


def status_record(
    job: str,
    data: dict,
    *,
    campaign: str | None = None,
    pipeline: str = PIPELINE,
    created: datetime | str | None = None,
    written_by_site: bool = False,
) -> dict:
    """ConfigMap ``campaign-<job>-status``; ``written_by_site`` adds the provenance this site stamps."""
    metadata: dict = {"name": f"campaign-{job}-status", "namespace": NAMESPACE}
    if written_by_site:
        metadata["uid"] = stable_uid("status", job)
    if created is not None:
        metadata["creationTimestamp"] = iso(created)
    metadata["labels"] = {
        LABEL_MANAGED_BY: "converter",
        LABEL_CAMPAIGN: campaign or job,
        LABEL_PIPELINE: pipeline,
        LABEL_KIND: "status",
    }
    if written_by_site:
        metadata["annotations"] = {ANNOTATION_WRITTEN_BY: "htrbrowser", ANNOTATION_JOB_UID: data.get("jobUid", "")}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


def event(involved: dict, reason: str, message: str, when: datetime, component: str, kind: str = "Normal") -> dict:
    meta = involved["metadata"]
    name = f"{meta['name']}.{hex_suffix(meta['name'], reason, message, length=16)}"
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": stable_uid("event", name),
            "creationTimestamp": iso(when),
        },
        "involvedObject": {
            "apiVersion": involved["apiVersion"],
            "kind": involved["kind"],
            "name": meta["name"],
            "namespace": NAMESPACE,
            "uid": meta.get("uid", ""),
        },
        "reason": reason,
        "message": message,
        "type": kind,
        "count": 1,
        "firstTimestamp": iso(when),
        "lastTimestamp": iso(when),
        "source": {"component": component},
        "reportingComponent": component,
        "reportingInstance": "",
    }


# --- the model cache's claim, Kueue's flavors and Kueue's own controller ----------------------


def cache_pvc(
    name: str = DATA_PVC,
    *,
    namespace: str = NAMESPACE,
    access_modes: tuple[str, ...] = ("ReadWriteMany",),
    storage_class: str = CACHE_STORAGE_CLASS,
    size: str = CACHE_SIZE,
    created: datetime | str = QUEUES_CREATED,
    phase: str = "Bound",
) -> dict:
    """The model cache's PersistentVolumeClaim, bound by its class's provisioner (``phase`` Pending: not yet)."""
    uid = stable_uid("pvc", namespace, name)
    bound = phase == "Bound"
    annotations = {"volume.kubernetes.io/storage-provisioner": PROVISIONERS.get(storage_class, CACHE_PROVISIONER)}
    if bound:
        annotations.update({"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes"})
    spec = {
        "accessModes": list(access_modes),
        "resources": {"requests": {"storage": size}},
        "storageClassName": storage_class,
        "volumeMode": "Filesystem",
    }
    status: dict = {"phase": phase}
    if bound:
        spec["volumeName"] = f"pvc-{uid}"
        status.update(accessModes=list(access_modes), capacity={"storage": size})
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "creationTimestamp": iso(created),
            "labels": {"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": NAMESPACE},
            "annotations": annotations,
            "finalizers": ["kubernetes.io/pvc-protection"],
        },
        "spec": spec,
        "status": status,
    }


def taint(key: str, value: str, effect: str = "NoSchedule") -> dict:
    return {"key": key, "value": value, "effect": effect}


def resource_flavor(
    name: str,
    *,
    node_labels: dict | None = None,
    node_taints: list[dict] | None = None,
    tolerations: list[dict] | None = None,
    created: datetime | str = QUEUES_CREATED,
    version: str = "v1beta2",
) -> dict:
    """A Kueue ResourceFlavor (cluster-scoped); with none of the three it is an empty flavor."""
    spec: dict = {}
    if node_labels:
        spec["nodeLabels"] = dict(node_labels)
    if node_taints:
        spec["nodeTaints"] = [dict(each) for each in node_taints]
    if tolerations:
        spec["tolerations"] = [dict(each) for each in tolerations]
    return {
        "apiVersion": f"kueue.x-k8s.io/{version}",
        "kind": "ResourceFlavor",
        "metadata": {
            "name": name,
            "uid": stable_uid("flavor", name),
            "generation": 1,
            "creationTimestamp": iso(created),
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
        },
        "spec": spec,
    }


def _kueue_labels() -> dict:
    return {"app.kubernetes.io/name": "kueue", "app.kubernetes.io/component": "controller",
            "control-plane": "controller-manager"}


def kueue_deployment(
    *,
    ready: bool = True,
    name: str = KUEUE_CONTROLLER,
    namespace: str = KUEUE_NAMESPACE,
    created: datetime | str = QUEUES_CREATED,
    since: datetime | str = QUEUES_CREATED,
) -> dict:
    """Kueue's controller Deployment (one replica): Available since ``since``, or not available since then."""
    replica_set = f"{name}-{KUEUE_POD_HASH}"
    if ready:
        available = cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.",
                         since, probe=False)
        counts = {"readyReplicas": 1, "availableReplicas": 1}
    else:
        available = cond("Available", "False", "MinimumReplicasUnavailable",
                         "Deployment does not have minimum availability.", since, probe=False)
        counts = {"unavailableReplicas": 1}
    progressing = cond("Progressing", "True", "NewReplicaSetAvailable",
                       f'ReplicaSet "{replica_set}" has successfully progressed.', created, probe=False)
    for each in (available, progressing):
        each["lastUpdateTime"] = each["lastTransitionTime"]
    selector = {"matchLabels": {"control-plane": "controller-manager"}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": stable_uid("deployment", namespace, name),
            "generation": 1,
            "creationTimestamp": iso(created),
            "labels": _kueue_labels(),
            "annotations": {"deployment.kubernetes.io/revision": "1"},
        },
        "spec": {
            "replicas": 1,
            "selector": selector,
            "template": {
                "metadata": {
                    "labels": _kueue_labels(),
                    "annotations": {"kubectl.kubernetes.io/default-container": "manager"},
                },
                "spec": {
                    "serviceAccountName": "kueue-controller-manager",
                    "containers": [
                        {
                            "name": "manager",
                            "image": KUEUE_IMAGE,
                            "args": ["--config=/controller_manager_config.yaml", "--zap-log-level=2"],
                        }
                    ],
                },
            },
        },
        "status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, **counts,
                   "conditions": [available, progressing]},
    }


def kueue_controller_pod(
    *,
    state: str = "running",
    restarts: int = 0,
    name: str = KUEUE_CONTROLLER,
    namespace: str = KUEUE_NAMESPACE,
    created: datetime | str = QUEUES_CREATED,
    since: datetime | str = QUEUES_CREATED,
    node: str = "cpu-node-01",
) -> dict:
    """A pod of Kueue's controller: ``state`` running (ready since ``since``) or crashloop (restarting,
    not ready since ``since``, its last run ended with exit code 1)."""
    pod_name = f"{name}-{KUEUE_POD_HASH}-{stable_suffix(namespace, name, 'pod')}"
    ready = state == "running"
    container = {"name": "manager", "ready": ready, "started": ready, "restartCount": restarts,
                 "image": KUEUE_IMAGE, "imageID": KUEUE_IMAGE,
                 "containerID": "containerd://" + hashlib.sha256(pod_name.encode()).hexdigest()}
    if ready:
        container["state"] = {"running": {"startedAt": iso(since)}}
    else:
        container["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                          "message": f"back-off 5m0s restarting failed container=manager pod={pod_name}"
                                          f"_{namespace}({stable_uid('pod', pod_name)})"}}
        container["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": iso(since),
                                                 "finishedAt": iso(since)}}
    readiness = "True" if ready else "False"
    reason = "" if ready else "ContainersNotReady"
    message = "" if ready else "containers with unready status: [manager]"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": pod_name,
            "namespace": namespace,
            "uid": stable_uid("pod", pod_name),
            "creationTimestamp": iso(created),
            "labels": {**_kueue_labels(), "pod-template-hash": KUEUE_POD_HASH},
            "ownerReferences": [_owner("apps/v1", "ReplicaSet", f"{name}-{KUEUE_POD_HASH}",
                                       stable_uid("replicaset", namespace, name))],
        },
        "spec": {"nodeName": node, "serviceAccountName": "kueue-controller-manager",
                 "containers": [{"name": "manager", "image": KUEUE_IMAGE}]},
        "status": {
            "phase": "Running",
            "startTime": iso(created),
            "podIP": "10.244.0.17",
            "conditions": [
                cond("PodReadyToStartContainers", "True", "", "", created, probe=False),
                cond("Initialized", "True", "", "", created, probe=False),
                cond("Ready", readiness, reason, message, since, probe=False),
                cond("ContainersReady", readiness, reason, message, since, probe=False),
                cond("PodScheduled", "True", "", "", created, probe=False),
            ],
            "containerStatuses": [container],
        },
    }


# --- the demo scene's model, rendered (``scene_model``) --------------------------------------


def pipeline_configmap_of(pipeline, created: datetime) -> dict:
    return pipeline_configmap(pipeline.id, pipeline.yaml, sha256=pipeline.sha256, created=created)


def _warmup_state(state: str) -> str:
    return "succeeded" if state == "complete" else state


def warmup_job_of(pipeline, created: datetime, state: str, finished: datetime | None) -> dict:
    """The pipeline's warm-up Job in the model's state: complete, failed or running."""
    return warmup_job(
        pipeline.id,
        state=_warmup_state(state),
        recipe=pipeline.recipe_sha256,
        created=created,
        finished=finished,
        claim=pipeline.claim,
    )


def warmup_pod_of(pipeline, created: datetime, state: str, finished: datetime | None, error: str = "") -> dict:
    return warmup_pod(
        pipeline.id,
        state=_warmup_state(state),
        recipe=pipeline.recipe_sha256,
        created=created,
        finished=finished,
        error=error,
        node=pipeline.warmup_node,
    )


def pod_template_of(campaign, results_url: str) -> dict:
    """The campaign's pod template; its pods publish under the campaign's own results address if it
    has one, else under ``results_url`` (the site's)."""
    return pod_template(
        campaign.name,
        campaign.uid,
        campaign.pipeline.id,
        campaign.pipeline.recipe_sha256,
        results_url=campaign.results_url or results_url,
        gpus=campaign.gpus_per_pod,
        workload=campaign.workload_name if campaign.workload_state else "",
        claim=campaign.pipeline.claim,
        node_selector=campaign.node_selector,
    )


def campaign_job_of(campaign, results_url: str) -> dict:
    """The campaign's Indexed Job with a status consistent with its volumes' states."""
    return campaign_job(
        campaign.name,
        campaign.uid,
        campaign=campaign.campaign,
        pipeline=campaign.pipeline.id,
        completions=len(campaign.volumes),
        parallelism=campaign.parallelism,
        suspend=campaign.suspended,
        priority_class=campaign.priority,
        created=campaign.created,
        generation=2 if campaign.started else 1,
        status=job_status_of(campaign),
        template=pod_template_of(campaign, results_url),
        queue=campaign.queue,
    )


def job_status_of(campaign) -> dict:
    done = [v.index for v in campaign.volumes if v.state == "done"]
    failed = [v.index for v in campaign.volumes if v.state == "failed"]
    pods = [pod for volume in campaign.volumes for pod in volume.pods]
    active = sum(1 for pod in pods if pod["status"]["phase"] in ("Pending", "Running"))
    ready = sum(1 for pod in pods if pod["status"]["phase"] == "Running")
    failed_pods = sum(
        1
        for pod in pods
        if pod["status"]["phase"] == "Failed"
        and not any(c["type"] == "DisruptionTarget" for c in pod["status"].get("conditions", []))
    )
    status = {
        "active": active,
        "ready": ready,
        "terminating": 0,
        "succeeded": len(done),
        "failed": failed_pods,
        "failedIndexes": index_ranges(failed),
        "uncountedTerminatedPods": {},
        "conditions": [],
    }
    if done:
        status["completedIndexes"] = index_ranges(done)
    if campaign.started:
        status["startTime"] = iso(campaign.started)
    conditions = status["conditions"]
    if campaign.suspended:
        when = campaign.paused_at or campaign.created
        conditions.append(cond("Suspended", "True", "JobSuspended", "Job suspended", when))
    elif campaign.started:
        conditions.append(cond("Suspended", "False", "JobResumed", "Job resumed", campaign.started))
    if campaign.finished:
        if failed:
            message = "Job has failed indexes"
            conditions.append(cond("FailureTarget", "True", "FailedIndexes", message, campaign.finished))
            conditions.append(cond("Failed", "True", "FailedIndexes", message, campaign.finished))
        else:
            message = "Reached expected number of succeeded pods"
            conditions.append(cond("SuccessCriteriaMet", "True", "CompletionsReached", message, campaign.finished))
            conditions.append(cond("Complete", "True", "CompletionsReached", message, campaign.finished))
            status["completionTime"] = iso(campaign.finished)
    if not conditions:
        del status["conditions"]
    return status


def _pending_message(campaign) -> str:
    """What Kueue's scheduler says of a Workload it cannot place (v0.14: reason Pending), in its own
    format: per pod set, each flavor's reason."""
    where = "couldn't assign flavors to pod set main"
    if campaign.workload_state == "waiting":
        return (
            f"{where}: insufficient unused quota for nvidia.com/gpu in flavor {GPU_FLAVOR}, "
            f"{campaign.gpus_short} more needed"
        )
    if campaign.workload_state == "never_fits":
        return (
            f"{where}: insufficient quota for nvidia.com/gpu in flavor {GPU_FLAVOR}, previously considered podsets "
            f"requests (0) + current podset request ({campaign.gpus}) > maximum capacity ({GPU_QUOTA})"
        )
    # untolerated: the only flavor of its queue is kept for one team by a taint the pods do not tolerate
    return f"{where}: untolerated taint {{dedicated ocr-only NoSchedule <nil>}} in flavor {TAINTED_FLAVOR}"


def workload_of(campaign) -> dict:
    """The campaign's Kueue Workload in its state (admitted, waiting, never_fits, untolerated, paused,
    finished)."""
    state = campaign.workload_state
    count = campaign.parallelism
    created = campaign.created
    admitted_at = campaign.started or created
    conditions = []
    if state in ("admitted", "finished"):
        quota = f"Quota reserved in ClusterQueue {CLUSTER_QUEUE}"
        running = "All pods reached readiness and the workload is running"
        conditions.append(cond("QuotaReserved", "True", "QuotaReserved", quota, admitted_at, probe=False))
        conditions.append(cond("Admitted", "True", "Admitted", "The workload is admitted", admitted_at, probe=False))
        conditions.append(cond("PodsReady", "True", "PodsReady", running, admitted_at, probe=False))
    if state == "finished":
        success = not any(v.state == "failed" for v in campaign.volumes)
        message = "Job finished successfully" if success else "Job has failed indexes"
        reason = "Succeeded" if success else "Failed"
        conditions.append(cond("Finished", "True", reason, message, campaign.finished, probe=False))
    if state in ("waiting", "never_fits", "untolerated"):
        conditions.append(cond("QuotaReserved", "False", "Pending", _pending_message(campaign), created, probe=False))
    if state == "paused":
        when = campaign.paused_at or created
        message = "The workload is deactivated"
        conditions.append(cond("QuotaReserved", "False", "Pending", message, when, probe=False))
        if campaign.started:
            no_reservation = "The workload has no reservation"
            conditions.append(cond("Admitted", "False", "NoReservation", no_reservation, when, probe=False))
            conditions.append(cond("Requeued", "False", "Deactivated", message, when, probe=False))
        conditions.append(cond("Evicted", "True", "Deactivated", message, when, probe=False))
    template = {
        "metadata": {"labels": {"app": "htrflow-batch"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {"name": "wrapper", "image": WRAPPER_IMAGE, "resources": _resources(campaign.gpus_per_pod)}
            ],
        },
    }
    return workload(
        campaign.name,
        campaign.uid,
        name=campaign.workload_name,
        uid=stable_uid("workload", campaign.name),
        active=state != "paused",
        priority=PRIORITY_CLASSES.get(campaign.priority or "htr-bulk", 0),
        priority_class=campaign.priority,
        count=count,
        conditions=conditions,
        cluster_queue=CLUSTER_QUEUE if state in ("admitted", "finished") else None,
        created=created,
        template=template,
        gpus_per_pod=campaign.gpus_per_pod,
        cpu_flavor=CPU_FLAVOR,
        gpu_flavor=GPU_FLAVOR,
        queue=campaign.queue,
    )


def campaign_record_of(campaign) -> dict:
    return campaign_record(
        campaign.name,
        [(volume.id, volume.source) for volume in campaign.volumes],
        campaign=campaign.campaign,
        pipeline=campaign.pipeline.id,
        created=campaign.created,
        job_uid=campaign.uid,
        commit=hashlib.sha1(campaign.campaign.encode()).hexdigest(),
    )


def status_record_of(campaign, phase: str, results_url: str, failed_volumes: list | None) -> dict:
    """The status record as this site writes it (the scene's story has the site write them)."""
    done = sum(1 for v in campaign.volumes if v.state == "done")
    failed = sum(1 for v in campaign.volumes if v.state == "failed")
    data = {
        "phase": phase,
        "volumesTotal": str(len(campaign.volumes)),
        "volumesDone": str(done),
        "volumesFailed": str(failed),
        "startedAt": iso(campaign.started) if campaign.started else "",
        "finishedAt": iso(campaign.finished) if campaign.finished else "",
        "resultsBase": f"{results_url}/{NAMESPACE}/{campaign.pipeline.id}",
        "jobUid": campaign.uid,
    }
    if failed_volumes is not None:
        data["failedVolumes"] = json.dumps(failed_volumes[:50], separators=(",", ":"))
        data["failedVolumesJobUid"] = campaign.uid
    return status_record(
        campaign.name,
        data,
        campaign=campaign.campaign,
        pipeline=campaign.pipeline.id,
        created=campaign.started or campaign.created,
        written_by_site=True,
    )


def ocr_cluster_queue_of(created: datetime, pending: int) -> dict:
    """The OCR team's ClusterQueue: all of its quota in the flavor a taint keeps for the team's nodes."""
    return cluster_queue(
        "32",
        "128Gi",
        "4",
        used=("0", "0Gi", "0"),
        cpu_flavor=TAINTED_FLAVOR,
        gpu_flavor=TAINTED_FLAVOR,
        pending=pending,
        admitted=0,
        created=created,
        name=OCR_CLUSTER_QUEUE,
    )


def cluster_queue_of(created: datetime, gpus_used: int, pending: int, admitted: int) -> dict:
    """The demo's ClusterQueue: CPU and memory in one flavor, GPUs in another."""
    return cluster_queue(
        str(CPU_QUOTA),
        f"{MEMORY_QUOTA_GI}Gi",
        str(GPU_QUOTA),
        used=(str(gpus_used * CPU_PER_POD), f"{gpus_used * MEMORY_PER_POD_GI}Gi", str(gpus_used)),
        cpu_flavor=CPU_FLAVOR,
        gpu_flavor=GPU_FLAVOR,
        pending=pending,
        admitted=admitted,
        created=created,
    )
