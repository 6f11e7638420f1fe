"""The operator's account of a finding: each value as read, the checks that came out equal, what could not be
read, and the steps of its fix; and how a value, a time and a limit are said in any finding's words.

Whatever the code, the account reads the same: ``Read:`` each object, field and value; ``Ruled out`` only the
checks made whose two sides agree; ``Not read:`` what could not be read and why (gone, not readable, not
found), never counted as ruled out; ``What to do:`` each step, a change to a file or object worded here over
its pairs, a command said by what it does (the command itself is a shell line beside it). The words of each
finding code are in :mod:`campaigns.wording.findings`; these are the parts every code shares.

Every time is said by :func:`when`: the one function to replace when times are said in the reader's zone.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from campaigns.models import bounded
from campaigns.models.findings import EQUAL, NOT_READ, Check, Command, Fact, Finding
from campaigns.wording.pace import moment

VALUE_LIMIT = 1000  # one value in the operator's paragraph at most
LIST_LIMIT = 20  # pods or items named one by one; the rest are counted
FACT_LIMIT = 40  # facts named one by one in one part of the account

NONE = "none"
EMPTY = "empty"
MORE = "and {count} more"

# The account: its parts, in this order.
ACCOUNT = {
    "read": "Read: {facts}.",
    "ruled_out": "Ruled out (compared, and equal): {checks}.",
    "not_read": "Not read: {facts}.",
    "fix": "What to do: {steps}.",
}
FACT = ("{object} {field} = {value}", "{object} = {value}")
CHECK = "{what} ({facts})"
NOT_COMPARED = "{what}, not compared ({facts})"
NOT_READ_FACT = ("{object} {field} ({why})", "{object} ({why})")
NOT_READ_WHY = {
    "gone": "no longer there",
    "not_readable": "this site may not read it",
    "absent": "not found",
    "withheld": "not shown to you: it may name campaigns your account may not see",
}
NOT_READ_COUNT = "{count} more not read"
CHECK_WORDS = {
    "claimName": "the cache claim",
    "subPath": "the cache directory",
    "accessModes": "a cache only one node can mount",
    "nodeName": "the warm-up on another node",
    "claimCreated": "a cache claim newer than the warm-up",
    "kueue_running": "Kueue's controller down",
}

# Each step of a fix: a change to a file or object over its pairs, or what a command does.
STEP_WORDS = {
    "warmup.match_placement": "give {object} the campaign's {field} ({value})",
    "warmup.match_claim": "make {object} mount the campaign's claim {value} ({field})",
    "cache.read_write_many": (
        "replace {object} (storage class {storage_class}) by a claim whose {field} is {value}, of a storage class "
        "that offers it",
        "replace {object} by a claim whose {field} is {value}, of a storage class that offers it",
    ),
    "flavor.add_toleration": "in {object} add {value} to {field}",
    "flavor.match_node_labels": "make {object} {field} match the pods: they ask for {pods_want}, it has {flavor_has}",
    "queue.cover_resource": "in {object} add {value} to {field}",
    "queue.raise_quota": "in {object} raise the {resource} quota of flavor {flavor} to at least {at_least} ({field})",
    "flavor.create": "create {object}",
    "queue.create_localqueue": ("create {object} in the namespace {namespace}", "create {object}"),
    "queue.create_clusterqueue": "create {object}",
    "converter.window": ("in {file} set `{key}: {value}`", "in {file} set `{key}` below {below}"),
    "converter.results_url": "in {file} set `{key}: {value}`",
    "campaign.resume": "in {file} remove `suspend: true`",
    "campaign.priority": (
        "in {file} set `{key}` to one of {value}",
        "in {file} set `{key}` to a priority class the cluster has",
    ),
    "pipeline.model": "in {file} correct the model {value} or its revision",
    "campaigns.apply": "apply again",
    "warmup.delete_job": "delete the finished warm-up Job",
    "warmup.delete_all_jobs": "delete every warm-up Job",
    "inspect.workload": "look at the Workload",
    "inspect.warmup_logs": "read the warm-up's log",
    "inspect.resource_flavor": "look at the ResourceFlavor",
    "inspect.cluster_queue": "look at the ClusterQueue",
    "inspect.local_queues": "look at the LocalQueues",
    "inspect.queue": "look at the queue",
    "inspect.kueue": "look at Kueue's namespace",
    "inspect.kueue_anywhere": "find Kueue's controller in every namespace",
    "queue.resume_localqueue": "resume the LocalQueue",
    "queue.resume_clusterqueue": "resume the ClusterQueue",
    "kueue.logs": "read Kueue's log",
    "kueue.restart": "restart Kueue's controller",
    "cache.debug_pod": "open a shell on the cache claim",
}
UNKNOWN_STEP = ("{step}: {pairs}", "run the command below")
STEP_JOIN = "; then "


# --- times: the one place a finding's time is said ---------------------------------------------------------


def when(at: datetime | None, now: datetime | None = None) -> str:
    """A finding's moment: ``06:20 UTC`` when it is today's and ``now`` is given, else ``24 Sep 06:20 UTC``.
    A later issue says it in the reader's zone: replace this function only."""
    if at is None:
        return "an unknown time"
    if now is not None:
        return moment(at, now)
    at = at.astimezone(UTC)
    return f"{at.day} {at:%b %H:%M} UTC"


def seconds_words(seconds: int) -> str:
    """A limit as set, not rounded: ``15 min``, ``1 h 30 min``, ``45 s``."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes else []
    parts += [f"{secs} s"] if secs or not parts else []
    return " ".join(parts)


# --- values and templates ---------------------------------------------------------------------------------


def shown(value: Any, now: datetime | None = None) -> str:
    """A value as words show it: times by :func:`when`, lists joined, structures as compact JSON, bounded."""
    if value is None:
        return NONE
    if isinstance(value, datetime):
        return when(value, now)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return bounded(value, VALUE_LIMIT) if value else EMPTY
    if isinstance(value, tuple | list | dict) and not value:
        return NONE
    if isinstance(value, tuple | list) and all(isinstance(item, str) for item in value):
        return bounded(", ".join(value), VALUE_LIMIT)
    try:
        text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    return bounded(text, VALUE_LIMIT)


def fill(templates: str | tuple[str, ...], names: Mapping[str, str]) -> str:
    """The first template whose names are all known, filled in by name; "" when none is."""
    for template in (templates,) if isinstance(templates, str) else templates:
        wanted = {field for _, field, _, _ in string.Formatter().parse(template) if field}
        if wanted <= names.keys():
            return template.format_map(names)
    return ""


def more(count: int) -> str:
    return MORE.format_map({"count": count})


# --- the account ----------------------------------------------------------------------------------------------


def account(finding: Finding, now: datetime | None = None) -> str:
    """Read, ruled out, not read, what to do: the operator's paragraph after the code's own lead."""
    equal = [check for check in finding.ruled_out if check.outcome == EQUAL]
    not_compared = [check for check in finding.ruled_out if check.outcome == NOT_READ]
    differing = [fact for check in finding.ruled_out if check.outcome not in (EQUAL, NOT_READ) for fact in check.facts]
    not_read = [_not_compared(check, now) for check in not_compared]
    not_read += [_not_read_fact(fact) for fact in finding.not_read]
    parts = [
        _listed("read", "facts", [_fact(fact, now) for fact in (*finding.evidence, *differing)]),
        _listed("ruled_out", "checks", [_check(check, now) for check in equal]),
        _listed("not_read", "facts", not_read),
        _listed("fix", "steps", fix_steps(finding.fix, now), join=STEP_JOIN),
    ]
    return " ".join(part for part in parts if part)


def fix_steps(fix: tuple[Command, ...], now: datetime | None = None) -> list[str]:
    """Each step of a fix in words: a change over its pairs, a command by what it does."""
    steps = []
    for step in fix:
        pairs = {key: shown(value, now) for key, value in step.change if value is not None and value != ""}
        said = fill(STEP_WORDS.get(step.code, ()), pairs)
        if not said:
            listed = ", ".join(f"{key} {value}" for key, value in pairs.items())
            said = fill(UNKNOWN_STEP, {"step": step.code, "pairs": listed} if listed else {})
        steps.append(said)
    return steps


def _listed(part: str, name: str, items: list[str], join: str = "; ") -> str:
    items = [item for item in items if item]
    if not items:
        return ""
    if join == STEP_JOIN:  # a step said twice in a row (two flavors looked at) is said once
        items = [item for number, item in enumerate(items) if number == 0 or items[number - 1] != item]
    elif len(items) > FACT_LIMIT:
        items = [*items[:FACT_LIMIT], more(len(items) - FACT_LIMIT)]
    return ACCOUNT[part].format_map({name: join.join(items)})


def _fact(fact: Fact, now, field: bool = True) -> str:
    names = {"object": fact.object, "value": shown(fact.value, now)}
    if field and fact.field:
        names["field"] = fact.field
    return fill(FACT, names)


def _check(check: Check, now) -> str:
    """A check with its facts; the field is left out when every fact has the same one (the check names it)."""
    same_field = len({fact.field for fact in check.facts}) == 1
    facts = ", ".join(_fact(fact, now, field=not same_field) for fact in check.facts)
    return CHECK.format_map({"what": CHECK_WORDS.get(check.what, check.what), "facts": facts or NONE})


def _not_compared(check: Check, now) -> str:
    facts = ", ".join(_fact(fact, now) for fact in check.facts)
    return NOT_COMPARED.format_map({"what": CHECK_WORDS.get(check.what, check.what), "facts": facts or NONE})


def _not_read_fact(fact: Fact) -> str:
    """A fact not read, with why: gone, not readable, not found, or how many more were not read."""
    if isinstance(fact.value, int) and not isinstance(fact.value, bool):
        why = NOT_READ_COUNT.format_map({"count": fact.value})
    else:
        why = NOT_READ_WHY.get(str(fact.value), shown(fact.value))
    names = {"object": fact.object, "why": why}
    if fact.field:
        names["field"] = fact.field
    return fill(NOT_READ_FACT, names)
