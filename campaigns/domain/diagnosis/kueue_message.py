"""Kueue's ``QuotaReserved=False`` message, read in Kueue's own formats (contracts §8).

The scheduler writes, per pod set that does not fit, ``couldn't assign flavors to pod set <podset>:
<reason>, <reason>`` (each flavor's reasons sorted and joined by ", "; several pod sets joined by
"; "), then perhaps ``. Pending the preemption of <n> workload(s)``. A reason may itself hold ", "
(``…, 4 more needed``), so reasons are found by their patterns, never by splitting. The taint is
printed as a Go struct: ``{dedicated ocr-only NoSchedule <nil>}``, ``{dedicated  NoSchedule <nil>}``
when its value is empty. The controller writes the queue's own problems: ``LocalQueue <name>
doesn't exist``, ``ClusterQueue <name> is inactive``, ``… is stopped``, ``… is terminating or missing``.

Older quota formats are read too (``request > maximum capacity (24 > 16)``, Kueue < 0.15). Text in
no known format is kept as an ``other`` blocker, never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from campaigns.models import bounded

MESSAGE_LIMIT = 32_768  # Kueue truncates condition messages at this length too
TEXT_LIMIT = 500  # one reason's raw text at most

# Blocker kinds, and the QuotaReserved reason Kueue would give each (its severity order).
UNTOLERATED_TAINT = "untolerated_taint"
NODE_AFFINITY = "node_affinity"
RESOURCE_UNAVAILABLE = "resource_unavailable"
FLAVOR_NOT_FOUND = "flavor_not_found"
MAX_CAPACITY = "max_capacity"
UNUSED_QUOTA = "unused_quota"
OTHER = "other"
NO_MATCHING_FLAVOR_KINDS = (UNTOLERATED_TAINT, NODE_AFFINITY, RESOURCE_UNAVAILABLE, FLAVOR_NOT_FOUND)
SEVERITY = {
    **dict.fromkeys(NO_MATCHING_FLAVOR_KINDS, 3),  # NoMatchingFlavor
    MAX_CAPACITY: 2,  # ExceedsMaxQuota
    UNUSED_QUOTA: 1,  # WaitingForQuota
}

_FLAVOR = r"(?P<flavor>[^\s,;]+)"
_RESOURCE = r"(?P<resource>[^\s,;]+)"
_PATTERNS = (
    (
        UNTOLERATED_TAINT,
        re.compile(
            r"untolerated taint \{(?P<key>[^\s{}]*) (?P<value>[^\s{}]*) (?P<effect>[^\s{}]*) [^{}]*\} in flavor "
            + _FLAVOR
        ),
    ),
    (
        UNTOLERATED_TAINT,
        re.compile(
            r"untolerated taint &Taint\{Key:(?P<key>[^,{}]*),Value:(?P<value>[^,{}]*),Effect:(?P<effect>[^,{}]*),"
            r"[^{}]*\} in flavor " + _FLAVOR
        ),
    ),
    (NODE_AFFINITY, re.compile(r"flavor " + _FLAVOR + r" doesn't match node affinity")),
    (
        UNUSED_QUOTA,
        re.compile(
            r"insufficient unused quota for " + _RESOURCE + r" in flavor " + _FLAVOR + r", (?P<needed>\S+?) more needed"
        ),
    ),
    (
        MAX_CAPACITY,
        re.compile(
            r"insufficient quota for " + _RESOURCE + r" in flavor " + _FLAVOR + r", previously considered podsets "
            r"requests \((?P<previous>[^()]*)\) \+ current podset request \((?P<request>[^()]*)\) > maximum capacity "
            r"\((?P<capacity>[^()]*)\)"
        ),
    ),
    (
        MAX_CAPACITY,
        re.compile(
            r"insufficient quota for " + _RESOURCE + r" in flavor " + _FLAVOR + r", (?:one pod per zero-count podset )?"
            r"request (?:\((?P<request>[^()]*)\) > maximum capacity \((?P<capacity>[^()]*)\)|"
            r"> maximum capacity \((?P<old_request>[^()\s]*) > (?P<old_capacity>[^()\s]*)\))"
        ),
    ),
    (RESOURCE_UNAVAILABLE, re.compile(r"resource " + _RESOURCE + r" unavailable in ClusterQueue")),
    (FLAVOR_NOT_FOUND, re.compile(r"flavor " + _FLAVOR + r" not found")),
)
_PODSET = re.compile(r"(?:couldn't|failed to) assign flavors to pod set (?P<podset>[^:;]{1,253}): ")
_QUEUE = re.compile(
    r"(?P<kind>LocalQueue|ClusterQueue) (?P<name>[^\s,;]+) "
    r"(?P<state>doesn't exist|not found|is inactive|is stopped|is terminating or missing)"
)
_PREEMPTING = re.compile(r"\. Pending the preemption of (?P<n>\d{1,9}) workload\(s\)")
_PREEMPTION_FAILED = re.compile(r"\. Preempting (?P<n>\d{1,9}) workload\(s\) failed, will retry\.")


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    @property
    def text(self) -> str:
        """``key=value:Effect`` (``key:Effect`` when the value is empty), as kubectl writes a taint."""
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True)
class Blocker:
    """One reason a pod set does not fit, as Kueue printed it."""

    kind: str
    podset: str = ""
    flavor: str = ""
    resource: str = ""
    taint: Taint | None = None
    needed: str = ""  # insufficient unused quota: how much more
    previous: str = ""  # maximum capacity: what earlier pod sets asked
    request: str = ""  # maximum capacity: what this pod set asks
    capacity: str = ""  # maximum capacity: the most the queue can ever give
    text: str = ""  # the reason as printed

    @property
    def severity(self) -> int:
        return SEVERITY.get(self.kind, 0)


@dataclass(frozen=True)
class QueueProblem:
    kind: str  # LocalQueue | ClusterQueue
    name: str
    state: str  # doesn't exist | not found | is inactive | is stopped | is terminating or missing


@dataclass(frozen=True)
class KueueMessage:
    blockers: tuple[Blocker, ...] = ()
    podsets: tuple[str, ...] = ()
    queue: QueueProblem | None = None
    preempting: int | None = None  # "Pending the preemption of <n> workload(s)"
    preemption_failed: int | None = None


def _blocker(kind: str, podset: str, match: re.Match) -> Blocker:
    found = {k: bounded(v, TEXT_LIMIT) for k, v in match.groupdict().items() if v is not None}
    taint = Taint(found["key"], found["value"], found["effect"]) if kind == UNTOLERATED_TAINT else None
    return Blocker(
        kind=kind,
        podset=podset,
        flavor=found.get("flavor", ""),
        resource=found.get("resource", ""),
        taint=taint,
        needed=found.get("needed", ""),
        previous=found.get("previous", ""),
        request=found.get("request") or found.get("old_request", ""),
        capacity=found.get("capacity") or found.get("old_capacity", ""),
        text=bounded(match.group(0), TEXT_LIMIT),
    )


def _reasons(podset: str, text: str) -> list[Blocker]:
    """Every known reason in one pod set's text; what is left between them becomes an ``other`` blocker."""
    spans: list[tuple[int, int, Blocker]] = []
    taken = bytearray(len(text))  # the characters an earlier pattern already read: linear, whatever the count
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if not any(taken[start:end]):
                taken[start:end] = b"\x01" * (end - start)
                spans.append((start, end, _blocker(kind, podset, match)))
    spans.sort(key=lambda span: span[0])
    found, position = [], 0
    for start, end, blocker in spans:
        found.extend(_other(podset, text[position:start]))
        found.append(blocker)
        position = end
    found.extend(_other(podset, text[position:]))
    return found


def _other(podset: str, text: str) -> list[Blocker]:
    left = text.strip(" ,;.")
    return [Blocker(OTHER, podset=podset, text=bounded(left, TEXT_LIMIT))] if left else []


def parse_message(message: str) -> KueueMessage:
    text = message[:MESSAGE_LIMIT] if isinstance(message, str) else ""
    preempting = _PREEMPTING.search(text)
    failed = _PREEMPTION_FAILED.search(text)
    for suffix in (preempting, failed):
        if suffix is not None:
            text = text.replace(suffix.group(0), "")
    queue = _QUEUE.search(text)
    blockers: list[Blocker] = []
    podsets = list(_PODSET.finditer(text))
    for number, match in enumerate(podsets):
        end = podsets[number + 1].start() if number + 1 < len(podsets) else len(text)
        blockers.extend(_reasons(bounded(match.group("podset"), 253), text[match.end() : end]))
    if not podsets and queue is None:
        blockers = _reasons("", text)
    return KueueMessage(
        blockers=tuple(blockers),
        podsets=tuple(bounded(m.group("podset"), 253) for m in podsets),
        queue=QueueProblem(queue.group("kind"), bounded(queue.group("name"), 253), queue.group("state"))
        if queue
        else None,
        preempting=int(preempting.group("n")) if preempting else None,
        preemption_failed=int(failed.group("n")) if failed else None,
    )
