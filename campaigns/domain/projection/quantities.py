"""Kubernetes quantities and whether a workload fits its ClusterQueue.

Adds up what a workload asks for (quantities such as ``50m`` and ``8Gi`` are read and written by
``core.quantities``, which the diagnosis shares), and decides per resource whether it could ever fit
the queue's nominal quota and whether there is room for it right now.
"""

from __future__ import annotations

from decimal import Decimal

from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.readers import as_dict, as_int, as_list, as_str, get_path
from campaigns.models import (
    ResourceFit,
    bounded,
)
from core.quantities import format_quantity, parse_quantity


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
