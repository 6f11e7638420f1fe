"""What is kept of each object a snapshot holds: cut on arrival, before the informer holds it.

A source (`campaigns.cluster.sources`) names one of these as its `keep`. Pods are most of what a
namespace holds (800 running at the archive, 14 400 at five times it), so a campaign or warm-up pod
keeps its metadata, its status without the parts no page reads (addresses, images, container ids and
mounts) and of its spec only `nodeName`: the node it ran on is the one part of a spec the troubleshooting
guide compares (a ReadWriteOnce cache filled on one node and read on another), and the rest of a spec
is most of a pod. The other kinds keep exactly the fields contracts section 8 reads and the metadata
that names them.

Each function returns a new dict and never changes the one it is given.
"""

from __future__ import annotations

# Parts of a pod's status, and of each of its container statuses, that no page reads.
UNREAD_POD_STATUS = frozenset({"hostIP", "hostIPs", "podIP", "podIPs", "qosClass", "resize", "resourceClaimStatuses"})
UNREAD_CONTAINER_STATUS = frozenset(
    {"image", "imageID", "containerID", "volumeMounts", "started", "ready", "allocatedResources", "resources", "user"}
)
CONTAINER_STATUSES = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")

# Metadata that names an object and says when it was made (namespace too: the informer keys by it).
NAMING = ("name", "namespace", "uid", "creationTimestamp", "labels")
PVC_SPEC = ("accessModes", "storageClassName", "resources")
PVC_STATUS = ("accessModes", "capacity", "phase")
FLAVOR_SPEC = ("nodeLabels", "nodeTaints", "tolerations")
DEPLOYMENT_SPEC = ("replicas", "selector")  # the selector ties a renamed controller to its pods' labels
DEPLOYMENT_STATUS = ("conditions", "readyReplicas", "availableReplicas", "replicas")
CONTROLLER_POD_STATUS = ("phase", "conditions", "containerStatuses", "startTime")
CONTROLLER_CONTAINER_STATUS = ("name", "state", "lastState", "restartCount", "ready")


def _only(part, keys: tuple[str, ...]) -> dict | None:
    """The entries of a dict that `keys` name and it has; None when it is not a dict or has none."""
    if not isinstance(part, dict):
        return None
    kept = {key: part[key] for key in keys if key in part}
    return kept or None


def _object(obj: dict, metadata=None, **parts) -> dict:
    """`obj`'s apiVersion and kind, its metadata (all of it unless given), and the parts given that are not None."""
    kept = {key: obj[key] for key in ("apiVersion", "kind") if key in obj}
    kept["metadata"] = obj.get("metadata") if metadata is None else metadata
    kept.update({name: part for name, part in parts.items() if part is not None})
    return kept


def job_pod(pod: dict) -> dict:
    """A campaign or warm-up pod: metadata, status without what no page reads, and `spec.nodeName` only."""
    kept = {key: value for key, value in pod.items() if key not in ("spec", "status")}
    spec = pod.get("spec")
    node = spec.get("nodeName") if isinstance(spec, dict) else None
    if node:
        kept["spec"] = {"nodeName": node}
    status = pod.get("status")
    if isinstance(status, dict):
        status = {key: value for key, value in status.items() if key not in UNREAD_POD_STATUS}
        for field in CONTAINER_STATUSES:
            if isinstance(status.get(field), list):
                status[field] = [
                    {k: v for k, v in each.items() if k not in UNREAD_CONTAINER_STATUS} if isinstance(each, dict)
                    else each
                    for each in status[field]
                ]
    if status is not None:
        kept["status"] = status
    return kept


def pvc(claim: dict) -> dict:
    """A PersistentVolumeClaim: what names it, its access modes, class and size asked for and given, its phase."""
    spec = _only(claim.get("spec"), PVC_SPEC)
    if spec and "resources" in spec:
        storage = (_only(spec["resources"], ("requests",)) or {}).get("requests")
        requested = _only(storage, ("storage",))
        spec = {key: value for key, value in spec.items() if key != "resources"}
        if requested:
            spec["resources"] = {"requests": requested}
    return _object(claim, _only(claim.get("metadata"), NAMING) or {}, spec=spec or None,
                   status=_only(claim.get("status"), PVC_STATUS))


def resource_flavor(flavor: dict) -> dict:
    """A Kueue ResourceFlavor: its metadata and the node labels, taints and tolerations it brings."""
    return _object(flavor, spec=_only(flavor.get("spec"), FLAVOR_SPEC))


def deployment(found: dict) -> dict:
    """A Deployment: its metadata, replicas and selector, and whether its replicas are there and ready."""
    return _object(found, spec=_only(found.get("spec"), DEPLOYMENT_SPEC),
                   status=_only(found.get("status"), DEPLOYMENT_STATUS))


def controller_pod(pod: dict) -> dict:
    """A pod of Kueue's controller: its metadata, phase, conditions, start and each container's state,
    last state, restarts and readiness."""
    status = _only(pod.get("status"), CONTROLLER_POD_STATUS)
    if status and isinstance(status.get("containerStatuses"), list):
        status["containerStatuses"] = [
            _only(each, CONTROLLER_CONTAINER_STATUS) or {} for each in status["containerStatuses"]
        ]
    return _object(pod, status=status)
