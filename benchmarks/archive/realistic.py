"""What a real API server adds to the test builders' objects: defaulted fields and `managedFields`.

The factory's builders (devstack/scene_kube.py) give the fields the product reads. A real cluster's
answer is larger: every field manager that wrote the object is listed with the fields it owns
(`managedFields`, mirroring the object), and pods carry the whole pod template of their Job with
the API server's defaults filled in. Sizes matter here, because the benchmark measures bytes.
"""

from __future__ import annotations

import copy
import json

WRAPPER_SCRIPT = (
    "set -eu\n"
    'mkdir -p "$HOME" "$TMPDIR" "$YOLO_CONFIG_DIR"\n'
    'line=$(sed -n "$((JOB_COMPLETION_INDEX + 1))p" /campaign/volumes.txt)\n'
    '[ -n "$line" ] || { echo "no volume for index $JOB_COMPLETION_INDEX" >&2; exit 13; }\n'
    "id=${line%%\t*}; src=${line#*\t}\n"
    'export VOLUME_REF="$id"\n'
    'case "$src" in images:*) export IMAGES="${src#images:}" ;; *) export IIIF_MANIFEST_URL="$src" ;; esac\n'
    "exec python -m htrflow_batch\n"
)
MORE_ENV = [
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
    {"name": "MANIFEST_MAX_BYTES", "value": "16777216"},
    {"name": "FETCH_MAX_BYTES", "value": "67108864"},
    {"name": "HF_HOME", "value": "/data/hf"},
    {"name": "WORKDIR_PATH", "value": "/work"},
    {"name": "HOME", "value": "/work/home"},
    {"name": "TMPDIR", "value": "/work/tmp"},
    {"name": "YOLO_CONFIG_DIR", "value": "/work/ultralytics"},
    {"name": "AWS_SHARED_CREDENTIALS_FILE", "value": "/secrets/s3/credentials"},
    {"name": "S3_ENDPOINT", "valueFrom": {"secretKeyRef": {"name": "htr-batch-s3", "key": "S3_ENDPOINT"}}},
    {"name": "S3_BUCKET", "valueFrom": {"secretKeyRef": {"name": "htr-batch-s3", "key": "S3_BUCKET"}}},
]
LOCKED_DOWN = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}
TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
]
OWNED_METADATA = ("labels", "annotations", "ownerReferences", "generateName")
# The list keys the API server uses in fieldsV1 for lists of objects.
LIST_KEYS = ("name", "type", "mountPath", "containerPort", "key", "ip")


def filled_template(template: dict, pipeline: str) -> dict:
    """A Job's pod template as the API server stores it: script, full env, defaults, security."""
    template = copy.deepcopy(template)
    spec = template["spec"]
    spec.update(
        dnsPolicy="ClusterFirst",
        schedulerName="default-scheduler",
        securityContext={
            "runAsNonRoot": True,
            "runAsUser": 1000,
            "runAsGroup": 1000,
            "fsGroup": 1000,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        tolerations=copy.deepcopy(TOLERATIONS),
        nodeSelector={"nvidia.com/gpu.present": "true"},
    )
    for container in spec["containers"] + spec["initContainers"]:
        container.setdefault("imagePullPolicy", "IfNotPresent")
        container.setdefault("terminationMessagePath", "/dev/termination-log")
        container["securityContext"] = copy.deepcopy(LOCKED_DOWN)
    wrapper = spec["containers"][0]
    wrapper["args"] = [WRAPPER_SCRIPT]
    have = {item["name"] for item in wrapper["env"]}
    wrapper["env"] = wrapper["env"] + [copy.deepcopy(item) for item in MORE_ENV if item["name"] not in have]
    mounted = {mount["name"] for mount in wrapper["volumeMounts"]}
    wrapper["volumeMounts"] += [
        mount
        for mount in (
            {"name": "work", "mountPath": "/work"},
            {"name": "s3", "mountPath": "/secrets/s3", "readOnly": True},
        )
        if mount["name"] not in mounted
    ]
    spec["initContainers"][0]["volumeMounts"] = [m for m in wrapper["volumeMounts"] if m["name"] == "data"]
    template["metadata"]["labels"]["kueue.x-k8s.io/podset"] = "main"
    template["metadata"].setdefault("annotations", {})["htrflow.riksarkivet.se/pipeline"] = pipeline
    return template


def fields_v1(value, top: bool = True) -> dict:
    """The fieldsV1 tree of a value, as a field manager owning all of it would have it."""
    if isinstance(value, dict):
        tree = {} if top else {".": {}}
        tree.update({f"f:{key}": fields_v1(item, top=False) for key, item in value.items()})
        return tree
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        tree = {}
        for item in value:
            key = next((k for k in LIST_KEYS if k in item), None)
            if key is None:
                return {}
            tree[f"k:{json.dumps({key: item[key]}, separators=(',', ':'))}"] = fields_v1(item, top=False)
        return tree
    return {}


def managed(manager: str, api_version: str, owned: dict, when: str, *, subresource: str = "", apply=False) -> dict:
    entry = {
        "manager": manager,
        "operation": "Apply" if apply else "Update",
        "apiVersion": api_version,
        "time": when,
        "fieldsType": "FieldsV1",
        "fieldsV1": fields_v1(owned),
    }
    if subresource:
        entry["subresource"] = subresource
    return entry


def with_managed_fields(obj: dict, writers: list[tuple[str, tuple[str, ...], str]], when: str) -> dict:
    """Add `managedFields`: `writers` are (manager, top-level fields it owns, subresource or "")."""
    metadata = obj["metadata"]
    entries = []
    for manager, fields, subresource in writers:
        owned: dict = {}
        for name in fields:
            if name == "metadata":
                owned["metadata"] = {k: v for k, v in metadata.items() if k in OWNED_METADATA}
            elif name in obj:
                owned[name] = obj[name]
        entries.append(managed(manager, obj.get("apiVersion", "v1"), owned, when, subresource=subresource))
    metadata["managedFields"] = entries
    return obj


def pod_as_served(pod: dict, template: dict, node: str) -> dict:
    """A builder's pod given its Job's full template, node details, and its managers."""
    pod = copy.deepcopy(pod)
    spec = copy.deepcopy(template["spec"])
    spec.update(
        nodeName=node,
        hostname=pod["metadata"]["generateName"].rstrip("-"),
        subdomain=pod["metadata"]["labels"]["job-name"],
        serviceAccountName="default",
        serviceAccount="default",
        priority=0,
        enableServiceLinks=True,
        preemptionPolicy="PreemptLowerPriority",
    )
    pod["spec"] = spec
    pod["metadata"]["labels"]["kueue.x-k8s.io/podset"] = "main"
    status = pod["status"]
    status.update(hostIP="10.40.3.17", podIP="10.244.7.121", qosClass="Burstable")
    status["hostIPs"] = [{"ip": "10.40.3.17"}]
    status["podIPs"] = [{"ip": "10.244.7.121"}]
    status.setdefault("conditions", [])
    for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"):
        if not any(c.get("type") == kind for c in status["conditions"]):
            ready = status.get("phase") == "Running" or kind in ("PodScheduled", "Initialized")
            status["conditions"].append(
                {"type": kind, "status": "True" if ready else "False", "lastTransitionTime": status["startTime"]}
            )
    for container in status.get("containerStatuses", []) + status.get("initContainerStatuses", []):
        container.setdefault("imageID", container.get("image", ""))
        container.setdefault("containerID", "containerd://" + "5e" * 32)
        container.setdefault("started", status.get("phase") == "Running")
        container.setdefault("volumeMounts", [{"name": "data", "mountPath": "/data", "readOnly": True}])
    return with_managed_fields(
        pod,
        [("kube-controller-manager", ("metadata", "spec"), ""), ("kubelet", ("status",), "status")],
        pod["metadata"]["creationTimestamp"],
    )
