"""Why Kueue has not admitted a campaign: its ``QuotaReserved=False`` reason first, its message as
evidence, the ResourceFlavors read to say which taint or label against which flavor (contracts §8).

Kueue being down is checked before any of this (pass its :class:`KueueHealth`): while it is down the
condition is stale. The reason token decides when Kueue ≥ 0.19 gives one (``NoMatchingFlavor``,
``ExceedsMaxQuota``, ``WaitingForQuota``, ...). Older Kueue says only ``Pending`` or ``Inadmissible``;
then the message decides, the way Kueue itself would: a pod set waits when any flavor would admit it
after waiting, never fits when every flavor is beyond its capacity, matches no flavor when every
flavor rules it out; the worst pod set decides for the Workload.

Only ``queue.waiting_for_quota`` (quota that other workloads hold and will free) is waiting its turn.
"""

from __future__ import annotations

from collections.abc import Callable

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis import kueue_message as km
from campaigns.domain.diagnosis.commands import describe_workload, get_cluster_queue, get_local_queues
from campaigns.domain.diagnosis.kueue_health import KueueHealth
from campaigns.domain.diagnosis.objects import as_str, condition, name_of, ref
from campaigns.domain.diagnosis.queue_case import Case
from campaigns.domain.diagnosis.queue_causes import exceeds, no_matching, queue_problem
from campaigns.models import bounded
from campaigns.models.findings import NOBODY, OPERATOR, Command, Fact, Finding

# Reasons that decide the kind of cause by themselves (Kueue ≥ 0.19), as a blocker severity.
REASON_LEVELS = {
    "NoMatchingFlavor": 3,
    "ExceedsMaxQuota": 2,
    "WaitingForQuota": 1,
    "WaitingForPreemptedWorkloads": 1,
}
# Reasons whose finding needs no message: code and who acts.
REASON_CODES = {
    "PendingEvaluation": (codes.QUEUE_PENDING_EVALUATION, NOBODY),
    "WaitingForPodsReady": (codes.QUEUE_WAITING_FOR_PODS_READY, NOBODY),
    "Misconfigured": (codes.QUEUE_MISCONFIGURED, OPERATOR),
    "Suspended": (codes.QUEUE_SUSPENDED, OPERATOR),
    "BorrowingLimitReached": (codes.QUEUE_BORROWING_LIMIT, OPERATOR),
}


def queue_finding(
    namespace: str,
    job: dict,
    workload: dict | None,
    resource_flavors: list[dict] | None,
    cluster_queue: str = "",
    cluster_queues: list[dict] | None = None,
    kueue: KueueHealth | None = None,
) -> Finding | None:
    """The cause Kueue gives for not reserving quota for ``job``'s Workload; None when it has reserved
    (or not looked yet). ``cluster_queue`` is the ClusterQueue the projection found for it;
    ``resource_flavors`` and ``cluster_queues`` are None when they could not be read."""
    if kueue is not None and kueue.finding is not None:
        return kueue.finding
    cond = condition(workload, "QuotaReserved") if workload else None
    if workload is None or cond is None or cond.get("status") != "False":
        return None
    reason, message = bounded(as_str(cond.get("reason")), 80), as_str(cond.get("message"))
    case = Case(namespace, job, workload, cluster_queue, reason, bounded(message))
    workload_ref = ref("Workload", name_of(workload))
    case.evidence += [
        Fact(workload_ref, "status.conditions[QuotaReserved].reason", reason),
        Fact(workload_ref, "status.conditions[QuotaReserved].message", case.message),
    ]
    if kueue is not None:
        case.ruled_out, case.not_read = kueue.checks, list(kueue.not_read)
    return _decide(case, km.parse_message(message), resource_flavors, cluster_queues)


def _decide(case: Case, parsed: km.KueueMessage, resource_flavors, cluster_queues) -> Finding:
    if parsed.queue is not None:
        return queue_problem(case, parsed.queue, cluster_queues)
    if case.reason in REASON_CODES:
        code, actor = REASON_CODES[case.reason]
        return case.finding(code, actor, _look(case))
    level = REASON_LEVELS.get(case.reason) or blocker_level(parsed.blockers)
    deciders: dict[int, Callable[[], Finding]] = {
        3: lambda: no_matching(case, parsed, resource_flavors),
        2: lambda: exceeds(case, parsed),
        1: lambda: _waiting(case, parsed),
    }
    if level in deciders:
        return deciders[level]()
    return case.finding(codes.QUEUE_KUEUE_SAYS, OPERATOR, _look(case), message=case.message)


def blocker_level(blockers: tuple[km.Blocker, ...]) -> int:
    """Kueue's own rule: per pod set the mildest flavor decides (any flavor that would fit after waiting
    lets it wait, whatever the others say); a reason with no flavor (a resource the queue lacks) holds
    whatever the flavors say; the worst pod set decides for the Workload."""
    level = 0
    for podset in dict.fromkeys(b.podset for b in blockers):
        per_flavor: dict[str, int] = {}
        unflavored = 0
        for blocker in (b for b in blockers if b.podset == podset and b.severity):
            if blocker.flavor:
                per_flavor[blocker.flavor] = max(per_flavor.get(blocker.flavor, 0), blocker.severity)
            else:
                unflavored = max(unflavored, blocker.severity)
        level = max(level, min(per_flavor.values(), default=0), unflavored)
    return level


def _waiting(case: Case, parsed: km.KueueMessage) -> Finding:
    shortfalls = tuple((b.podset, b.resource, b.flavor, b.needed) for b in parsed.blockers if b.kind == km.UNUSED_QUOTA)
    return case.finding(
        codes.QUEUE_WAITING_FOR_QUOTA,
        NOBODY,
        (),
        shortfalls=shortfalls,
        preempting=parsed.preempting,
    )


def _look(case: Case) -> tuple[Command, ...]:
    steps = [describe_workload(case.namespace, name_of(case.workload))]
    if case.reason in ("Suspended", "BorrowingLimitReached") and case.cluster_queue:
        steps += [get_local_queues(case.namespace), get_cluster_queue(case.cluster_queue)]
    return tuple(steps)
