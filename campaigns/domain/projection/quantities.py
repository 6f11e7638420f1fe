"""Kubernetes quantities and whether a workload fits its ClusterQueue.

Parses and formats quantities (``50m``, ``8Gi``), adds up what a workload asks for, and decides
per resource whether it could ever fit the queue's nominal quota and whether there is room for it
right now.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.readers import as_dict, as_int, as_list, as_str, get_path
from campaigns.models import (
    ResourceFit,
    bounded,
)

_QUANTITY_RE = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d{1,3}))?([A-Za-z]{0,2})$")


_SUFFIXES = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity (``4``, ``50m``, ``8Gi``, ``1e3``) as a Decimal, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(str(value))
        except InvalidOperation:
            return None
    if not isinstance(value, str) or len(value) > 40:
        return None
    match = _QUANTITY_RE.match(value.strip())
    if not match or match.group(3) not in _SUFFIXES:
        return None
    try:
        number = Decimal(match.group(1))
        if match.group(2):
            number = number.scaleb(int(match.group(2)))
    except InvalidOperation:
        return None
    return number * _SUFFIXES[match.group(3)]


def format_quantity(resource: str, value: Decimal) -> str:
    """A quantity back in readable Kubernetes form: memory in Gi/Mi, CPU in cores or millicores."""
    if "memory" in resource or "storage" in resource:
        for suffix in ("Ti", "Gi", "Mi", "Ki"):
            unit = _SUFFIXES[suffix]
            if value >= unit and value % unit == 0:
                return f"{value / unit:f}".rstrip("0").rstrip(".") + suffix
        return f"{value:f}".rstrip("0").rstrip(".") if "." in f"{value:f}" else f"{value:f}"
    if value != value.to_integral_value() and (value * 1000) == (value * 1000).to_integral_value():
        return f"{int(value * 1000)}m"
    text = f"{value.normalize():f}"
    return text


def _pod_requests(template: dict) -> dict[str, Decimal]:
    """Effective per-pod requests: max(sum of containers, each init container), per resource."""
    spec = as_dict(get_path(template, "spec"))
    total: dict[str, Decimal] = {}
    for key, combine in (("containers", Decimal.__add__), ("initContainers", max)):
        for container in as_list(spec.get(key)):
            for resource, raw in as_dict(get_path(container, "resources", "requests")).items():
                amount = parse_quantity(raw)
                if amount is not None and isinstance(resource, str):
                    total[resource] = combine(total.get(resource, Decimal(0)), amount)
    return total


def _requested(workload: dict, job: dict) -> dict[str, Decimal]:
    """What the whole workload asks at once: per-pod requests × pod count, summed over pod sets."""
    asked: dict[str, Decimal] = {}
    pod_sets = [p for p in as_list(get_path(workload, "spec", "podSets")) if isinstance(p, dict)]
    job_template = as_dict(get_path(job, "spec", "template"))
    parallelism = max(0, as_int(get_path(job, "spec", "parallelism"), 1))
    if not pod_sets:
        pod_sets = [{"count": parallelism, "template": job_template}]
    for pod_set in pod_sets:
        template = as_dict(pod_set.get("template"))
        if not as_list(get_path(template, "spec", "containers")):
            template = job_template
        count = max(0, as_int(pod_set.get("count"), parallelism))
        for resource, amount in _pod_requests(template).items():
            asked[resource] = asked.get(resource, Decimal(0)) + amount * count
    return asked


def _nominal_quota(cluster_queue: dict) -> dict[str, Decimal]:
    """The most a ClusterQueue can ever give per resource: the largest nominal quota among flavors."""
    quota: dict[str, Decimal] = {}
    for group in as_list(get_path(cluster_queue, "spec", "resourceGroups")):
        for flavor in as_list(get_path(group, "flavors")):
            for resource in as_list(get_path(flavor, "resources")):
                name = as_str(get_path(resource, "name"))
                amount = parse_quantity(get_path(resource, "nominalQuota"))
                if name and amount is not None:
                    quota[name] = max(quota.get(name, Decimal(0)), amount)
    return quota


def _quota_in_use(cluster_queue: dict) -> dict[str, Decimal]:
    """What the ClusterQueue has handed out per resource (reservations if reported, else usage)."""
    status = as_dict(cluster_queue.get("status"))
    flavors = as_list(status.get("flavorsReservation")) or as_list(status.get("flavorsUsage"))
    used: dict[str, Decimal] = {}
    for flavor in flavors:
        for resource in as_list(get_path(flavor, "resources")):
            name = as_str(get_path(resource, "name"))
            amount = parse_quantity(get_path(resource, "total"))
            if name and amount is not None:
                used[name] = used.get(name, Decimal(0)) + amount
    return used


def room_for(index: SnapshotIndex, workload: dict, job: dict, cluster_queue_name: str) -> bool:
    """The ClusterQueue is readable and has enough unused quota for the whole workload right now."""
    cluster_queue = index.cluster_queues.get(cluster_queue_name)
    if cluster_queue is None:
        return False
    quota = _nominal_quota(cluster_queue)
    used = _quota_in_use(cluster_queue)
    asked = {r: a for r, a in _requested(workload, job).items() if a > 0 and r in quota}
    if not asked:
        return False
    return all(used.get(r, Decimal(0)) + a <= quota[r] for r, a in asked.items())


def _covered_resources(cluster_queue: dict) -> set[str]:
    covered = set()
    for group in as_list(get_path(cluster_queue, "spec", "resourceGroups")):
        covered.update(as_str(r) for r in as_list(get_path(group, "coveredResources")))
    return covered


def resource_fits(index: SnapshotIndex, workload: dict, job: dict, cluster_queue_name: str) -> list[ResourceFit]:
    cluster_queue = index.cluster_queues.get(cluster_queue_name)
    if cluster_queue is None:
        return []
    quota = _nominal_quota(cluster_queue)
    covered = _covered_resources(cluster_queue) | set(quota)
    fits = []
    for resource, asked in sorted(_requested(workload, job).items()):
        if asked <= 0:
            continue
        if resource not in covered:
            continue
        limit = quota.get(resource)
        fits.append(
            ResourceFit(
                resource=bounded(resource, 80),
                requested=format_quantity(resource, asked),
                quota=format_quantity(resource, limit) if limit is not None else "",
                fits=limit is not None and asked <= limit,
            )
        )
    return fits
