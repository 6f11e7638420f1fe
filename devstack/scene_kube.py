"""Kubernetes object shapes for the demo scene: Jobs, pods, Workloads, queues, records and events.

Every function here is pure: it turns a campaign model (see ``scene_model``) into the dicts a
real cluster would return, with the label keys, names and fields the contracts name. The shapes
follow what ``kubectl get -o yaml`` shows for the converter's objects, abridged where the
browser never looks.
"""

import hashlib
import json
import uuid
from datetime import UTC, datetime

NAMESPACE = "htr-batch"
QUEUE = "htr-batch"
CLUSTER_QUEUE = "htr-batch-cq"
GPU_FLAVOR = "gpu-a100"
CPU_FLAVOR = "default-flavor"
GPU_QUOTA = 10
CPU_QUOTA = 64
MEMORY_QUOTA_GI = 256
CPU_PER_POD = 4
MEMORY_PER_POD_GI = 8

H = "htrflow.riksarkivet.se/"
KUEUE = "kueue.x-k8s.io/"
PRIORITY_CLASSES = {"htr-interactive": 1000, "htr-bulk": 0, "htr-idle": -10}
WRAPPER_IMAGE = (
    "registry.example.se/htr/htrflow-batch@sha256:3c1f0a9b7e2d4c6a8b0f1e3d5c7a9b1d2e4f6a8c0b2d4e6f8a1c3e5b7d9f0a2c"
)
WARMUP_WAIT_SECONDS = 900
MAX_SECONDS = 21600
BACKOFF_LIMIT_PER_INDEX = 3
DEMO_RESULTS_SECRET = "htr-batch-s3"
DATA_PVC = "htr-model-cache"


def iso(moment: datetime) -> str:
    """Kubernetes time format: UTC with a Z, whole seconds."""
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


def cache_dir(pipeline) -> str:
    return f"{pipeline.id}-{pipeline.recipe_sha256}"


def warmup_marker(pipeline_id: str) -> str:
    return f"/data/warmup/{pipeline_id}.done"


def warmup_wait_message(pipeline_id: str) -> str:
    return (
        f"no warm-up marker at {warmup_marker(pipeline_id)} after {WARMUP_WAIT_SECONDS}s: "
        "the pipeline's warm-up Job has not finished\n"
    )


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


def local_queue(created: datetime, pending: int, admitted: int) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {
            "name": QUEUE,
            "namespace": NAMESPACE,
            "uid": stable_uid("lq", QUEUE),
            "creationTimestamp": iso(created),
            "labels": {"app.kubernetes.io/name": "htrflow-batch"},
        },
        "spec": {"clusterQueue": CLUSTER_QUEUE},
        "status": {
            "pendingWorkloads": pending,
            "reservingWorkloads": admitted,
            "admittedWorkloads": admitted,
            "conditions": [_condition("Active", "True", "Ready", "Can submit new workloads to localQueue", created)],
        },
    }


def _quantity(resource: str, amount: int) -> str:
    return f"{amount}Gi" if resource == "memory" else str(amount)


def cluster_queue(created: datetime, gpus_used: int, pending: int, admitted: int) -> dict:
    """The ClusterQueue with quota and usage; usage counts requests of admitted workloads."""
    cpu_used = gpus_used * CPU_PER_POD
    memory_used = gpus_used * MEMORY_PER_POD_GI

    def usage():
        return [
            {
                "name": CPU_FLAVOR,
                "resources": [
                    {"name": "cpu", "total": _quantity("cpu", cpu_used), "borrowed": "0"},
                    {"name": "memory", "total": _quantity("memory", memory_used), "borrowed": "0"},
                ],
            },
            {"name": GPU_FLAVOR, "resources": [{"name": "nvidia.com/gpu", "total": str(gpus_used), "borrowed": "0"}]},
        ]

    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": CLUSTER_QUEUE, "uid": stable_uid("cq", CLUSTER_QUEUE), "creationTimestamp": iso(created)},
        "spec": {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "preemption": {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": CPU_FLAVOR,
                            "resources": [
                                {"name": "cpu", "nominalQuota": str(CPU_QUOTA)},
                                {"name": "memory", "nominalQuota": f"{MEMORY_QUOTA_GI}Gi"},
                            ],
                        }
                    ],
                },
                {
                    "coveredResources": ["nvidia.com/gpu"],
                    "flavors": [
                        {"name": GPU_FLAVOR, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": str(GPU_QUOTA)}]}
                    ],
                },
            ],
        },
        "status": {
            "flavorsUsage": usage(),
            "flavorsReservation": usage(),
            "pendingWorkloads": pending,
            "reservingWorkloads": admitted,
            "admittedWorkloads": admitted,
            "conditions": [_condition("Active", "True", "Ready", "Can admit new workloads", created)],
        },
    }


def _condition(kind, status, reason, message, when, probe=False):
    condition = {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": iso(when),
    }
    if probe:
        condition["lastProbeTime"] = iso(when)
    return condition


# --- pipelines and warm-ups ------------------------------------------------------------------


def pipeline_configmap(pipeline, created: datetime) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"htr-pipeline-{pipeline.id}",
            "namespace": NAMESPACE,
            "uid": stable_uid("pipeline", pipeline.id),
            "creationTimestamp": iso(created),
            "labels": {H + "managed-by": "converter", H + "pipeline": pipeline.id},
            "annotations": {H + "pipeline-sha256": pipeline.sha256, "argocd.argoproj.io/hook": "Skip"},
        },
        "data": {"pipeline.yaml": pipeline.yaml},
    }


def warmup_job(pipeline, created: datetime, state: str, finished: datetime | None) -> dict:
    """The pipeline's warm-up Job in ``state`` complete, failed or running."""
    name = f"htr-warmup-{pipeline.id}"
    uid = stable_uid("warmup", pipeline.id)
    labels = {"app": "htrflow-warmup", H + "managed-by": "converter", H + "pipeline": pipeline.id}
    status = {"startTime": iso(created), "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}}
    if state == "complete":
        status.update(
            succeeded=1,
            completionTime=iso(finished),
            conditions=[
                _condition(
                    "SuccessCriteriaMet",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    finished,
                    True,
                ),
                _condition(
                    "Complete",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    finished,
                    True,
                ),
            ],
        )
    elif state == "failed":
        pod = f"{name}-{stable_suffix(name, 'pod')}"
        message = (
            f"Container warmup for pod {NAMESPACE}/{pod} failed with exit code 13 matching FailJob rule at index 1"
        )
        status.update(
            failed=1,
            conditions=[
                _condition("FailureTarget", "True", "PodFailurePolicy", message, finished, True),
                _condition("Failed", "True", "PodFailurePolicy", message, finished, True),
            ],
        )
    else:
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
                    "annotations": {H + "recipe-sha256": pipeline.recipe_sha256},
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
                                {"name": "PIPELINE_ID", "value": pipeline.id},
                                {"name": "HF_HOME", "value": "/data/hf"},
                            ],
                            "volumeMounts": [
                                {"name": "pipeline", "mountPath": "/config"},
                                {"name": "data", "mountPath": "/data", "subPath": cache_dir(pipeline)},
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
                        {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline.id}", "defaultMode": 420}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": DATA_PVC}},
                        {"name": "work", "emptyDir": {"sizeLimit": "4Gi"}},
                    ],
                },
            },
        },
        "status": status,
    }


def warmup_pod(pipeline, created: datetime, state: str, finished: datetime | None, error: str = "") -> dict:
    """The warm-up Job's pod; a failed one carries the warm-up's JSON termination message."""
    job = f"htr-warmup-{pipeline.id}"
    job_uid = stable_uid("warmup", pipeline.id)
    name = f"{job}-{stable_suffix(job, 'pod')}"
    started = created.replace(microsecond=0)
    if state == "complete":
        phase = "Succeeded"
        container_state = {
            "terminated": {"exitCode": 0, "reason": "Completed", "startedAt": iso(started), "finishedAt": iso(finished)}
        }
    elif state == "failed":
        phase = "Failed"
        message = json.dumps({"stage": "warmup", "permanent": True, "error": error})
        container_state = {
            "terminated": {
                "exitCode": 13,
                "reason": "Error",
                "message": message,
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
            "annotations": {H + "recipe-sha256": pipeline.recipe_sha256},
            "ownerReferences": [_owner("batch/v1", "Job", job, job_uid)],
        },
        "spec": {
            "restartPolicy": "Never",
            "nodeName": "gpu-node-02",
            "containers": [{"name": "warmup", "image": WRAPPER_IMAGE}],
        },
        "status": {
            "phase": phase,
            "startTime": iso(started),
            "conditions": [_condition("PodScheduled", "True", "", "", created)],
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


# --- campaign objects ------------------------------------------------------------------------


def _controller_labels(job_name: str, job_uid: str) -> dict:
    return {
        "batch.kubernetes.io/controller-uid": job_uid,
        "batch.kubernetes.io/job-name": job_name,
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


def campaign_labels(campaign) -> dict:
    labels = {
        "app": "htrflow-batch",
        H + "managed-by": "converter",
        H + "campaign": campaign.campaign,
        H + "pipeline": campaign.pipeline.id,
        KUEUE + "queue-name": QUEUE,
    }
    if campaign.priority:
        labels[KUEUE + "priority-class"] = campaign.priority
    return labels


def _resources(campaign) -> dict:
    requests = {
        "cpu": str(CPU_PER_POD),
        "memory": f"{MEMORY_PER_POD_GI}Gi",
        "nvidia.com/gpu": str(campaign.gpus_per_pod),
    }
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


def pod_template(campaign, results_url: str) -> dict:
    pipeline = campaign.pipeline
    data_mount = {"name": "data", "mountPath": "/data", "readOnly": True, "subPath": cache_dir(pipeline)}
    env = [
        {"name": "PIPELINE_PATH", "value": "/config/pipeline.yaml"},
        {"name": "PIPELINE_ID", "value": pipeline.id},
        {"name": "S3_PREFIX", "value": f"{NAMESPACE}/"},
        {"name": "RESULTS_URL", "value": results_url},
        {"name": "IMAGE_DIGEST", "value": WRAPPER_IMAGE},
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        {
            "name": "INDEX_FAILURE_COUNT",
            "valueFrom": {
                "fieldRef": {
                    "apiVersion": "v1",
                    "fieldPath": "metadata.annotations['batch.kubernetes.io/job-index-failure-count']",
                }
            },
        },
        {"name": "BACKOFF_LIMIT_PER_INDEX", "value": str(BACKOFF_LIMIT_PER_INDEX)},
        {"name": "HF_HOME", "value": "/data/hf"},
        {"name": "AWS_SHARED_CREDENTIALS_FILE", "value": "/secrets/s3/credentials"},
        {"name": "S3_BUCKET", "valueFrom": {"secretKeyRef": {"name": DEMO_RESULTS_SECRET, "key": "S3_BUCKET"}}},
    ]
    labels = {**_controller_labels(campaign.name, campaign.uid), "app": "htrflow-batch", KUEUE + "podset": "main"}
    annotations = {KUEUE + "workload": campaign.workload_name} if campaign.workload_state else {}
    return {
        "metadata": {"labels": labels, "annotations": annotations},
        "spec": {
            "restartPolicy": "Never",
            "activeDeadlineSeconds": MAX_SECONDS,
            "terminationGracePeriodSeconds": 120,
            "automountServiceAccountToken": False,
            "runtimeClassName": "nvidia",
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
                    "resources": _resources(campaign),
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "initContainers": [
                {
                    "name": "warmup-wait",
                    "image": WRAPPER_IMAGE,
                    "command": ["/bin/sh", "-c", _warmup_wait_command(pipeline.id)],
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
                {"name": "campaign", "configMap": {"name": f"campaign-{campaign.name}", "defaultMode": 420}},
                {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline.id}", "defaultMode": 420}},
                {"name": "data", "persistentVolumeClaim": {"claimName": DATA_PVC}},
                {"name": "work", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}},
                {"name": "s3", "secret": {"secretName": DEMO_RESULTS_SECRET, "defaultMode": 288}},
            ],
        },
    }


def campaign_job(campaign, results_url: str) -> dict:
    """The campaign's Indexed Job with a status consistent with its volumes' states."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": campaign.name,
            "namespace": NAMESPACE,
            "uid": campaign.uid,
            "generation": 2 if campaign.started else 1,
            "creationTimestamp": iso(campaign.created),
            "labels": campaign_labels(campaign),
            "annotations": {"argocd.argoproj.io/hook": "Skip"},
        },
        "spec": {
            "suspend": campaign.suspended,
            "completionMode": "Indexed",
            "completions": len(campaign.volumes),
            "parallelism": campaign.parallelism,
            "backoffLimitPerIndex": BACKOFF_LIMIT_PER_INDEX,
            "maxFailedIndexes": len(campaign.volumes),
            "podReplacementPolicy": "Failed",
            "manualSelector": False,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": campaign.uid}},
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
            "template": pod_template(campaign, results_url),
        },
        "status": job_status(campaign),
    }


def job_status(campaign) -> dict:
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
        conditions.append(_condition("Suspended", "True", "JobSuspended", "Job suspended", when, True))
    elif campaign.started:
        conditions.append(_condition("Suspended", "False", "JobResumed", "Job resumed", campaign.started, True))
    if campaign.finished:
        if failed:
            message = "Job has failed indexes"
            conditions.append(_condition("FailureTarget", "True", "FailedIndexes", message, campaign.finished, True))
            conditions.append(_condition("Failed", "True", "FailedIndexes", message, campaign.finished, True))
        else:
            message = "Reached expected number of succeeded pods"
            conditions.append(
                _condition("SuccessCriteriaMet", "True", "CompletionsReached", message, campaign.finished, True)
            )
            conditions.append(_condition("Complete", "True", "CompletionsReached", message, campaign.finished, True))
            status["completionTime"] = iso(campaign.finished)
    if not conditions:
        del status["conditions"]
    return status


def workload(campaign) -> dict:
    """The campaign's Kueue Workload in its state (admitted, waiting, never_fits, paused, finished)."""
    state = campaign.workload_state
    count = campaign.parallelism
    gpus = count * campaign.gpus_per_pod
    spec = {
        "active": state != "paused",
        "queueName": QUEUE,
        "priority": PRIORITY_CLASSES.get(campaign.priority or "htr-bulk", 0),
    }
    if campaign.priority:
        spec["priorityClassRef"] = {
            "group": "kueue.x-k8s.io",
            "kind": "WorkloadPriorityClass",
            "name": campaign.priority,
        }
    spec["podSets"] = [
        {
            "name": "main",
            "count": count,
            "template": {
                "metadata": {"labels": {"app": "htrflow-batch"}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "wrapper", "image": WRAPPER_IMAGE, "resources": _resources(campaign)}],
                },
            },
        }
    ]
    created = campaign.created
    admitted_at = campaign.started or created
    conditions = []
    status = {}
    if state in ("admitted", "finished"):
        status["admission"] = {
            "clusterQueue": CLUSTER_QUEUE,
            "podSetAssignments": [
                {
                    "name": "main",
                    "count": count,
                    "flavors": {"cpu": CPU_FLAVOR, "memory": CPU_FLAVOR, "nvidia.com/gpu": GPU_FLAVOR},
                    "resourceUsage": {
                        "cpu": str(count * CPU_PER_POD),
                        "memory": f"{count * MEMORY_PER_POD_GI}Gi",
                        "nvidia.com/gpu": str(gpus),
                    },
                }
            ],
        }
    if state in ("admitted", "finished"):
        conditions.append(
            _condition(
                "QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {CLUSTER_QUEUE}", admitted_at
            )
        )
        conditions.append(_condition("Admitted", "True", "Admitted", "The workload is admitted", admitted_at))
        conditions.append(
            _condition(
                "PodsReady", "True", "PodsReady", "All pods reached readiness and the workload is running", admitted_at
            )
        )
    if state == "finished":
        success = not any(v.state == "failed" for v in campaign.volumes)
        message = "Job finished successfully" if success else "Job has failed indexes"
        conditions.append(
            _condition("Finished", "True", "Succeeded" if success else "Failed", message, campaign.finished)
        )
    if state == "waiting":
        message = (
            "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu "
            f"in flavor {GPU_FLAVOR}, {campaign.gpus_short} more needed"
        )
        conditions.append(_condition("QuotaReserved", "False", "Pending", message, created))
    if state == "never_fits":
        message = (
            f"couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor {GPU_FLAVOR}, "
            f"request ({gpus}) exceeds the maximum quota ({GPU_QUOTA})"
        )
        conditions.append(_condition("QuotaReserved", "False", "Pending", message, created))
    if state == "paused":
        when = campaign.paused_at or created
        message = "The workload is deactivated"
        conditions.append(_condition("QuotaReserved", "False", "Pending", "The workload is deactivated", when))
        if campaign.started:
            conditions.append(_condition("Admitted", "False", "NoReservation", "The workload has no reservation", when))
            conditions.append(_condition("Requeued", "False", "Deactivated", message, when))
        conditions.append(_condition("Evicted", "True", "Deactivated", message, when))
    status["conditions"] = conditions
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": campaign.workload_name,
            "namespace": NAMESPACE,
            "uid": stable_uid("workload", campaign.name),
            "generation": 1,
            "creationTimestamp": iso(created),
            "labels": {KUEUE + "job-uid": campaign.uid},
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
            "ownerReferences": [_owner("batch/v1", "Job", campaign.name, campaign.uid)],
        },
        "spec": spec,
        "status": status,
    }


def campaign_record(campaign, volumes_txt: str) -> dict:
    """ConfigMap ``campaign-<job>`` stamped by the apply: volumes.txt and who applied what."""
    applied = campaign.created
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{campaign.name}",
            "namespace": NAMESPACE,
            "uid": stable_uid("record", campaign.name),
            "creationTimestamp": iso(applied),
            "labels": {
                H + "managed-by": "converter",
                H + "campaign": campaign.campaign,
                H + "pipeline": campaign.pipeline.id,
            },
            "annotations": {
                H + "image-digest": WRAPPER_IMAGE,
                "argocd.argoproj.io/hook": "Skip",
                H + "campaigns-commit": hashlib.sha1(campaign.campaign.encode()).hexdigest(),
                H + "applied-by": "argocd-hook/htr-campaigns",
                H + "applied-at": iso(applied),
                H + "job-uid": campaign.uid,
            },
        },
        "data": {"volumes.txt": volumes_txt},
    }


def status_record(campaign, phase: str, results_url: str, failed_volumes: list | None) -> dict:
    """ConfigMap ``campaign-<job>-status``: every value a string, as the read API writes it."""
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
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{campaign.name}-status",
            "namespace": NAMESPACE,
            "uid": stable_uid("status", campaign.name),
            "creationTimestamp": iso(campaign.started or campaign.created),
            "labels": {
                H + "managed-by": "converter",
                H + "campaign": campaign.campaign,
                H + "pipeline": campaign.pipeline.id,
                H + "kind": "status",
            },
            # Written by the site in the scene's story, so it carries the site's provenance.
            "annotations": {H + "written-by": "htrbrowser", H + "job-uid": campaign.uid},
        },
        "data": data,
    }


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
