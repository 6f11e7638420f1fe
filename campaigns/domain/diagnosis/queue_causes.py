"""The queue causes that need more than Kueue's reason: which flavor rules the pods out and why,
how far a campaign is beyond what its queue can ever give, and a queue that is missing or stopped.
"""

from __future__ import annotations

from decimal import Decimal

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis import kueue_message as km
from campaigns.domain.diagnosis.commands import (
    APPLY,
    change,
    describe_workload,
    get_cluster_queue,
    get_local_queues,
    get_resource_flavor,
    kubectl,
    resume_queue,
)
from campaigns.domain.diagnosis.flavors import flavor_lookup, label_mismatches, node_labels, taint_texts
from campaigns.domain.diagnosis.objects import (
    NOT_READABLE,
    as_int,
    as_list,
    as_str,
    by_name,
    condition,
    container,
    get_path,
    name_of,
    ref,
    unique,
)
from campaigns.domain.diagnosis.queue_case import Case
from campaigns.models import bounded
from campaigns.models.findings import AUTHOR, OPERATOR, Command, Fact, Finding
from core.quantities import format_quantity, parse_quantity

# A set of no-matching-flavor kinds that all say the same thing, and the code it gets.
_ONE_KIND = {
    frozenset({km.UNTOLERATED_TAINT}): codes.QUEUE_UNTOLERATED_TAINT,
    frozenset({km.NODE_AFFINITY}): codes.QUEUE_NODE_AFFINITY,
    frozenset({km.RESOURCE_UNAVAILABLE}): codes.QUEUE_RESOURCE_UNAVAILABLE,
    frozenset({km.FLAVOR_NOT_FOUND}): codes.QUEUE_FLAVOR_NOT_FOUND,
}
_MISSING = ("doesn't exist", "not found", "is terminating or missing")
_QUEUE_CODES = {
    ("LocalQueue", "is inactive"): codes.QUEUE_LOCAL_QUEUE_INACTIVE,
    ("LocalQueue", "is stopped"): codes.QUEUE_LOCAL_QUEUE_STOPPED,
    ("ClusterQueue", "is inactive"): codes.QUEUE_CLUSTER_QUEUE_INACTIVE,
    ("ClusterQueue", "is stopped"): codes.QUEUE_CLUSTER_QUEUE_STOPPED,
    **{("LocalQueue", state): codes.QUEUE_LOCAL_QUEUE_MISSING for state in _MISSING},
    **{("ClusterQueue", state): codes.QUEUE_CLUSTER_QUEUE_MISSING for state in _MISSING},
}


# --- no flavor matches ------------------------------------------------------------------------------


def no_matching(case: Case, parsed: km.KueueMessage, resource_flavors: list[dict] | None) -> Finding:
    """The pods match no flavor: each untolerated taint and each label the flavors' labels rule out."""
    blockers = [b for b in parsed.blockers if b.kind in km.NO_MATCHING_FLAVOR_KINDS]
    kinds = {b.kind for b in blockers}
    named: dict = {}
    steps: list[Command] = []
    for kind, collect in (
        (km.UNTOLERATED_TAINT, _taints),
        (km.NODE_AFFINITY, _labels),
        (km.RESOURCE_UNAVAILABLE, _resources),
        (km.FLAVOR_NOT_FOUND, _missing_flavors),
    ):
        if kind in kinds:
            collect(case, [b for b in blockers if b.kind == kind], resource_flavors, named, steps)
    code = _ONE_KIND.get(frozenset(kinds), codes.QUEUE_NO_MATCHING_FLAVOR)
    if not blockers:  # Kueue's reason without a message in a format known here: its words are the evidence
        steps.append(describe_workload(case.namespace, name_of(case.workload)))
    return case.finding(code, OPERATOR, unique(steps), **named)


def _flavor_fact(case: Case, resource_flavors, flavor: str, field: str, read) -> dict | None:
    found, missing = flavor_lookup(resource_flavors, flavor, field)
    if missing is not None:
        case.not_read.append(missing)
        return None
    case.evidence.append(Fact(ref("ResourceFlavor", flavor), field, read(found)))
    return found


def _taints(case: Case, blockers, resource_flavors, named: dict, steps: list[Command]) -> None:
    found = unique((b.podset, b.flavor, b.taint.text) for b in blockers if b.taint is not None)
    for flavor in unique(flavor for _, flavor, _ in found):
        _flavor_fact(case, resource_flavors, flavor, "spec.nodeTaints", taint_texts)
        steps.append(get_resource_flavor(flavor))
    case.evidence.append(
        Fact(ref("Job", name_of(case.job)), "spec.template.spec.tolerations", case.job_spec.get("tolerations"))
    )
    for _, flavor, taint in found:
        steps.append(
            change("flavor.add_toleration", object=ref("ResourceFlavor", flavor), field="spec.tolerations", value=taint)
        )
    named.update(taints=found, taint=found[0][2] if found else "", flavor=found[0][1] if found else "")


def _labels(case: Case, blockers, resource_flavors, named: dict, steps: list[Command]) -> None:
    flavors = unique(b.flavor for b in blockers)
    mismatches = []
    for flavor in flavors:
        steps.append(get_resource_flavor(flavor))
        found = _flavor_fact(case, resource_flavors, flavor, "spec.nodeLabels", node_labels)
        if found is not None:
            mismatches += [(flavor, wants, has) for wants, has in label_mismatches(case.job_spec, found)]
    job = ref("Job", name_of(case.job))
    case.evidence += [
        Fact(job, "spec.template.spec.nodeSelector", case.job_spec.get("nodeSelector")),
        Fact(job, "spec.template.spec.affinity.nodeAffinity", get_path(case.job_spec, "affinity", "nodeAffinity")),
    ]
    for flavor, wants, has in mismatches:
        steps.append(
            change(
                "flavor.match_node_labels",
                object=ref("ResourceFlavor", flavor),
                field="spec.nodeLabels",
                pods_want=wants,
                flavor_has=has,
            )
        )
    named.update(affinity_flavors=flavors, mismatches=tuple(mismatches))


def _resources(case: Case, blockers, resource_flavors, named: dict, steps: list[Command]) -> None:
    resources = unique(b.resource for b in blockers)
    requests = get_path(container(case.job_spec, "wrapper"), "resources", "requests")
    case.evidence.append(
        Fact(ref("Job", name_of(case.job)), "spec.template.spec.containers[wrapper].resources.requests", requests)
    )
    if case.cluster_queue:
        steps.append(get_cluster_queue(case.cluster_queue))
        for resource in resources:
            steps.append(
                change(
                    "queue.cover_resource",
                    object=ref("ClusterQueue", case.cluster_queue),
                    field="spec.resourceGroups",
                    value=resource,
                )
            )
    named.update(resources=resources)


def _missing_flavors(case: Case, blockers, resource_flavors, named: dict, steps: list[Command]) -> None:
    flavors = unique(b.flavor for b in blockers)
    for flavor in flavors:
        if resource_flavors is None:
            case.not_read.append(Fact(ref("ResourceFlavor", flavor), "metadata.name", NOT_READABLE))
        else:
            read = by_name(resource_flavors, flavor)
            case.evidence.append(Fact(ref("ResourceFlavor", flavor), "metadata.name", name_of(read) if read else None))
        steps.append(change("flavor.create", object=ref("ResourceFlavor", flavor)))
    if case.cluster_queue:
        steps.append(get_cluster_queue(case.cluster_queue))
    named.update(missing_flavors=flavors)


# --- beyond what the queue can ever give ------------------------------------------------------------


def _count(case: Case, podset: str) -> int | None:
    for item in as_list(get_path(case.workload, "spec", "podSets")):
        if isinstance(item, dict) and as_str(item.get("name")) == podset and as_int(item.get("count")) is not None:
            return as_int(item.get("count"))
    return as_int(get_path(case.job, "spec", "parallelism"))


def _fit(blocker: km.Blocker, count: int | None) -> tuple[int | None, Decimal | None]:
    """(how many pods of this pod set fit under the capacity, what one pod asks) from Kueue's numbers."""
    request, capacity = parse_quantity(blocker.request), parse_quantity(blocker.capacity)
    previous = parse_quantity(blocker.previous) if blocker.previous else Decimal(0)
    if request is None or capacity is None or previous is None or not count or count <= 0 or request <= 0:
        return None, None
    per_pod = request / count
    return max(0, int((capacity - previous) // per_pod)), per_pod


def exceeds(case: Case, parsed: km.KueueMessage) -> Finding:
    """``queue.exceeds_max_quota``: never admitted as rendered. The author lowers ``window`` so the
    campaign's pods fit; when not even one pod fits, an operator raises the queue's quota."""
    limits = [b for b in parsed.blockers if b.kind == km.MAX_CAPACITY]
    parallelism = as_int(get_path(case.job, "spec", "parallelism"))
    case.evidence.append(Fact(ref("Job", name_of(case.job)), "spec.parallelism", parallelism))
    fits = [(b, *_fit(b, _count(case, b.podset))) for b in limits]
    windows = [window for _, window, _ in fits if window is not None]
    window = min(windows) if windows else None
    named = dict(
        limits=tuple((b.podset, b.resource, b.flavor, b.request, b.capacity) for b in limits),
        resource=limits[0].resource if limits else "",
        flavor=limits[0].flavor if limits else "",
        parallelism=parallelism,
        window=window,
    )
    if window == 0:
        steps = [get_cluster_queue(case.cluster_queue)] if case.cluster_queue else []
        for blocker, fit, per_pod in fits:
            if fit == 0 and per_pod is not None:
                steps.append(_raise_quota(case, blocker, per_pod))
        return case.finding(codes.QUEUE_EXCEEDS_MAX_QUOTA, OPERATOR, tuple(steps), **named)
    if window is not None:
        edit = change("converter.window", file="converter.yaml", key="window", value=window)
    else:
        edit = change("converter.window", file="converter.yaml", key="window", below=parallelism)
    return case.finding(codes.QUEUE_EXCEEDS_MAX_QUOTA, AUTHOR, (edit, APPLY), **named)


def _raise_quota(case: Case, blocker: km.Blocker, per_pod: Decimal) -> Command:
    return change(
        "queue.raise_quota",
        object=ref("ClusterQueue", case.cluster_queue),
        field="spec.resourceGroups[].flavors[].resources[].nominalQuota",
        flavor=blocker.flavor,
        resource=blocker.resource,
        at_least=format_quantity(blocker.resource, per_pod),
    )


# --- the queue itself ---------------------------------------------------------------------------------


def queue_problem(case: Case, problem: km.QueueProblem, cluster_queues: list[dict] | None) -> Finding:
    """A LocalQueue or ClusterQueue that is missing, inactive or stopped, as Kueue's controller says."""
    code = _QUEUE_CODES.get((problem.kind, problem.state), codes.QUEUE_MISCONFIGURED)
    if problem.kind == "ClusterQueue":
        _cluster_queue_facts(case, problem.name, cluster_queues)
    namespace = case.namespace if problem.kind == "LocalQueue" else ""
    look = Command(
        code="inspect.queue", argv=kubectl(namespace, "get", problem.kind.lower(), problem.name, "-o", "yaml")
    )
    if problem.state == "is stopped":
        steps: tuple[Command, ...] = (resume_queue(case.namespace, problem.kind, problem.name),)
    elif problem.state in _MISSING:
        listing = get_local_queues(case.namespace) if problem.kind == "LocalQueue" else None
        create = change(
            f"queue.create_{problem.kind.lower()}", object=ref(problem.kind, problem.name), namespace=namespace
        )
        steps = tuple(s for s in (listing, create) if s is not None)
    else:
        steps = (look,)
    return case.finding(
        code, OPERATOR, steps, queue_kind=problem.kind, queue_name=problem.name, queue_state=problem.state
    )


def _cluster_queue_facts(case: Case, name: str, cluster_queues: list[dict] | None) -> None:
    if cluster_queues is None:
        case.not_read.append(Fact(ref("ClusterQueue", name), "status.conditions[Active]", NOT_READABLE))
        return
    found = by_name(cluster_queues, name)
    if found is None:
        case.evidence.append(Fact(ref("ClusterQueue", name), "metadata.name", None))
        return
    active = condition(found, "Active") or {}
    for key in ("status", "reason", "message"):
        value = bounded(as_str(active.get(key))) if active.get(key) is not None else None
        case.evidence.append(Fact(ref("ClusterQueue", name), f"status.conditions[Active].{key}", value))
