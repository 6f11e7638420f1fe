"""Defensive readers of the plain API dicts the checks compare, and how a fact names its object.

Any field may be missing or of an unexpected type: these answer an empty dict, list or string
instead of failing. They are the diagnosis's own (the projection sits above this package and
imports it, so nothing here may import the projection).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from campaigns.models import bounded, parse_time
from core.contract import LABEL_JOB_NAME
from core.plain import as_dict, as_list, as_str, get_path  # noqa: F401 - read through this module too

NAME_LIMIT = 253  # a Kubernetes object name at most

# Why a fact could not be read (the value of a finding's not_read fact).
GONE = "gone"  # the object no longer exists (a pod deleted with its Job, or by its node)
NOT_READABLE = "not_readable"  # the installation does not let this site read it
ABSENT = "absent"  # the objects were read, and there is no such object (or no such field)


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 12:
        return int(value.strip())
    return None


def name_of(obj: Any) -> str:
    return bounded(as_str(get_path(obj, "metadata", "name")), NAME_LIMIT)


def labels_of(obj: Any) -> dict:
    return as_dict(get_path(obj, "metadata", "labels"))


def created(obj: Any) -> datetime | None:
    return parse_time(get_path(obj, "metadata", "creationTimestamp"))


def condition(obj: Any, kind: str) -> dict | None:
    """The status condition of the given type (never by position), or None."""
    for cond in as_list(get_path(obj, "status", "conditions")):
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def ref(kind: str, name: str) -> str:
    """How a fact names its object: ``Job/htr-warmup-swe-lines-v2``."""
    return f"{kind}/{bounded(name, NAME_LIMIT)}"


# --- pod templates and pods ------------------------------------------------------------------------


def template_spec(job: Any) -> dict:
    """A Job's pod template spec (``spec.template.spec``)."""
    return as_dict(get_path(job, "spec", "template", "spec"))


def container(spec: dict, name: str, init: bool = False) -> dict:
    """The (init) container of that name in a pod spec, or {}."""
    for item in as_list(spec.get("initContainers" if init else "containers")):
        if isinstance(item, dict) and item.get("name") == name:
            return item
    return {}


def env_entry(container_spec: dict, name: str) -> dict | None:
    """The env entry of that name in a container, or None when it has none."""
    for item in as_list(container_spec.get("env")):
        if isinstance(item, dict) and item.get("name") == name:
            return item
    return None


def claim_name(spec: dict, volume: str = "data") -> str:
    """The PersistentVolumeClaim a pod spec mounts as the named volume (the model cache is ``data``)."""
    for item in as_list(spec.get("volumes")):
        if isinstance(item, dict) and item.get("name") == volume:
            return bounded(as_str(get_path(item, "persistentVolumeClaim", "claimName")), NAME_LIMIT)
    return ""


def mount_sub_path(container_spec: dict, volume: str = "data") -> str | None:
    """The subPath a container mounts the named volume with; "" without one, None without the mount."""
    for item in as_list(container_spec.get("volumeMounts")):
        if isinstance(item, dict) and item.get("name") == volume:
            return bounded(as_str(item.get("subPath")), NAME_LIMIT)
    return None


def container_status(pod: Any, name: str, init: bool = False) -> dict:
    key = "initContainerStatuses" if init else "containerStatuses"
    for status in as_list(get_path(pod, "status", key)):
        if isinstance(status, dict) and status.get("name") == name:
            return status
    return {}


def node_of(pod: Any) -> str:
    return bounded(as_str(get_path(pod, "spec", "nodeName")), NAME_LIMIT)


def warmup_node(pods, job: str) -> tuple[str, str]:
    """(pod, node) of the Job's pod that ran to completion, else of its newest pod with a node."""
    own = [p for p in pods if isinstance(p, dict) and labels_of(p).get(LABEL_JOB_NAME) == job and node_of(p)]
    own.sort(key=lambda p: (get_path(p, "status", "phase") == "Succeeded", str(created(p) or "")), reverse=True)
    return (name_of(own[0]), node_of(own[0])) if own else ("", "")


def job_finished_at(job: Any) -> datetime | None:
    """When a Job completed: ``status.completionTime``, else its Complete condition's transition."""
    finished = parse_time(get_path(job, "status", "completionTime"))
    if finished is not None:
        return finished
    cond = condition(job, "Complete")
    if cond is not None and cond.get("status") == "True":
        return parse_time(cond.get("lastTransitionTime"))
    return None


def access_modes(pvc: Any) -> tuple[str, ...]:
    """A claim's access modes: ``spec.accessModes``, else ``status.accessModes``."""
    modes = as_list(get_path(pvc, "spec", "accessModes")) or as_list(get_path(pvc, "status", "accessModes"))
    return tuple(bounded(mode, 40) for mode in modes if isinstance(mode, str))


SINGLE_NODE_MODES = ("ReadWriteOnce", "ReadWriteOncePod")


def single_node(modes: tuple[str, ...]) -> bool:
    """The volume can be mounted on one node only (and not also ReadWriteMany)."""
    return any(mode in SINGLE_NODE_MODES for mode in modes) and "ReadWriteMany" not in modes


def unique(items) -> tuple:
    """The items in order, each once (by equality: facts may hold unhashable values)."""
    kept: list = []
    for item in items:
        if item not in kept:
            kept.append(item)
    return tuple(kept)


def by_name(objects: list[dict] | None, name: str) -> dict | None:
    for obj in as_list(objects):
        if isinstance(obj, dict) and name_of(obj) == name:
            return obj
    return None
