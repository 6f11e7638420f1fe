"""The operator's account of a finding: each value as read, the checks that came out equal, what could not be
read, and the steps of its fix; and how a value, a time and a limit are said in any finding's words.

Whatever the code, the account reads the same: ``Read:`` each object, field and value; ``Ruled out`` only the
checks made whose two sides agree; ``Not read:`` what could not be read and why (gone, not readable, not
found), never counted as ruled out; ``What to do:`` each step, a change to a file or object worded here over
its pairs, a command said by what it does (the command itself is a shell line beside it). The words of each
finding code are in :mod:`campaigns.wording.findings`; these are the parts every code shares.

Every sentence and phrase here is marked for translation: the tables hold lazy templates, said in the active
language when a finding is put into words; patterns of names alone (``{object} = {value}``) are not marked.
Every time is said by :func:`when`, through ``core.times``: in the reader's zone, with its abbreviation.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from campaigns.models import bounded
from campaigns.models.findings import EQUAL, NOT_READ, Check, Command, Fact, Finding
from campaigns.wording.words import in_units
from core.times import moment

VALUE_LIMIT = 1000  # one value in the operator's paragraph at most
LIST_LIMIT = 20  # pods or items named one by one; the rest are counted
FACT_LIMIT = 40  # facts named one by one in one part of the account

# A template: a sentence marked for translation (lazy, said when filled in) or a pattern of names alone.
Template = str | Promise
Templates = Template | tuple[Template, ...]

NONE = pgettext_lazy("a value read: nothing is set", "none")
EMPTY = pgettext_lazy("a value read: an empty text", "empty")
YES = pgettext_lazy("a value read: true", "yes")
NO = pgettext_lazy("a value read: false", "no")

# The account: its parts, in this order.
ACCOUNT = {
    # Translators: {facts} is a list of facts read from the cluster, each "object field = value", joined by "; ".
    "read": gettext_lazy("Read: {facts}."),
    # Translators: {checks} is a list of comparisons whose two sides were equal, joined by "; ".
    "ruled_out": gettext_lazy("Ruled out (compared, and equal): {checks}."),
    # Translators: {facts} is a list of what could not be read, each with why, joined by "; ".
    "not_read": gettext_lazy("Not read: {facts}."),
    # Translators: {steps} is the steps of the fix, joined by "; then ".
    "fix": gettext_lazy("What to do: {steps}."),
}
# Patterns of names alone, nothing to translate: an object (Job/x), its field (spec.parallelism), its value.
FACT = ("{object} {field} = {value}", "{object} = {value}")
CHECK = "{what} ({facts})"
# Translators: {what} is what a check compares (the cache claim); {facts} the values it read, "object = value".
NOT_COMPARED = gettext_lazy("{what}, not compared ({facts})")
NOT_READ_FACT = ("{object} {field} ({why})", "{object} ({why})")
# Why something was not read: said in brackets after the object and field.
NOT_READ_WHY = {
    "gone": pgettext_lazy("why a fact was not read", "no longer there"),
    "not_readable": pgettext_lazy("why a fact was not read", "this site may not read it"),
    "absent": pgettext_lazy("why a fact was not read", "not found"),
    "withheld": pgettext_lazy(
        "why a fact was not read", "not shown to you: it may name campaigns your account may not see"
    ),
}
# What a check compared, named in "Ruled out (compared, and equal): ..." and "Not read: ..., not compared".
CHECK_WORDS = {
    "claimName": pgettext_lazy("a check that was made", "the cache claim"),
    "subPath": pgettext_lazy("a check that was made", "the cache directory"),
    "accessModes": pgettext_lazy("a check that was made", "a cache only one node can mount"),
    "nodeName": pgettext_lazy("a check that was made", "the warm-up on another node"),
    "claimCreated": pgettext_lazy("a check that was made", "a cache claim newer than the warm-up"),
    "kueue_running": pgettext_lazy("a check that was made", "Kueue's controller down"),
}

# Each step of a fix: a change to a file or object over its pairs, or what a command does. Each follows "What to
# do:" or "; then ", so it starts in lower case. {object} is a Kubernetes object (ResourceFlavor/gpu-h100),
# {field} a field of it (spec.tolerations), {value} the value to set; {file} a campaign file (converter.yaml),
# {key} a setting in it (window). Names, fields, values and what stands between backticks stay as they are.
STEP_WORDS = {
    "warmup.match_placement": pgettext_lazy("a step of a fix", "give {object} the campaign's {field} ({value})"),
    "warmup.match_claim": pgettext_lazy(
        "a step of a fix", "make {object} mount the campaign's claim {value} ({field})"
    ),
    "cache.read_write_many": (
        pgettext_lazy(
            "a step of a fix",
            # Translators: {storage_class} is a storage class's name (local-path).
            "replace {object} (storage class {storage_class}) by a claim whose {field} is {value}, of a storage class "
            "that offers it",
        ),
        pgettext_lazy(
            "a step of a fix", "replace {object} by a claim whose {field} is {value}, of a storage class that offers it"
        ),
    ),
    "flavor.add_toleration": pgettext_lazy("a step of a fix", "in {object} add {value} to {field}"),
    "flavor.match_node_labels": pgettext_lazy(
        "a step of a fix",
        # Translators: {pods_want} and {flavor_has} are node labels (gpu=a100).
        "make {object} {field} match the pods: they ask for {pods_want}, it has {flavor_has}",
    ),
    "queue.cover_resource": pgettext_lazy("a step of a fix", "in {object} add {value} to {field}"),
    "queue.raise_quota": pgettext_lazy(
        "a step of a fix",
        # Translators: {resource} is a resource's name (nvidia.com/gpu), {flavor} a ResourceFlavor's name, {at_least}
        # an amount (8Gi).
        "in {object} raise the {resource} quota of flavor {flavor} to at least {at_least} ({field})",
    ),
    "flavor.create": pgettext_lazy("a step of a fix", "create {object}"),
    "queue.create_localqueue": (
        pgettext_lazy("a step of a fix", "create {object} in the namespace {namespace}"),
        pgettext_lazy("a step of a fix", "create {object}"),
    ),
    "queue.create_clusterqueue": pgettext_lazy("a step of a fix", "create {object}"),
    "converter.window": (
        pgettext_lazy("a step of a fix", "in {file} set `{key}: {value}`"),
        # Translators: {below} is a number the setting {key} must be lower than.
        pgettext_lazy("a step of a fix", "in {file} set `{key}` below {below}"),
    ),
    "converter.results_url": pgettext_lazy("a step of a fix", "in {file} set `{key}: {value}`"),
    "campaign.resume": pgettext_lazy("a step of a fix", "in {file} remove `suspend: true`"),
    "campaign.priority": (
        # Translators: {value} is a list of priority class names, separated by commas.
        pgettext_lazy("a step of a fix", "in {file} set `{key}` to one of {value}"),
        pgettext_lazy("a step of a fix", "in {file} set `{key}` to a priority class the cluster has"),
    ),
    # Translators: {file} is a pipeline's file (pipelines/swe-lines-v3.yaml), {value} a model's name.
    "pipeline.model": pgettext_lazy("a step of a fix", "in {file} correct the model {value} or its revision"),
    "campaigns.apply": pgettext_lazy("a step of a fix", "apply again"),
    "warmup.delete_job": pgettext_lazy("a step of a fix", "delete the finished warm-up Job"),
    "warmup.delete_all_jobs": pgettext_lazy("a step of a fix", "delete every warm-up Job"),
    "inspect.workload": pgettext_lazy("a step of a fix", "look at the Workload"),
    "inspect.warmup_logs": pgettext_lazy("a step of a fix", "read the warm-up's log"),
    "inspect.resource_flavor": pgettext_lazy("a step of a fix", "look at the ResourceFlavor"),
    "inspect.cluster_queue": pgettext_lazy("a step of a fix", "look at the ClusterQueue"),
    "inspect.local_queues": pgettext_lazy("a step of a fix", "look at the LocalQueues"),
    "inspect.queue": pgettext_lazy("a step of a fix", "look at the queue"),
    "inspect.kueue": pgettext_lazy("a step of a fix", "look at Kueue's namespace"),
    "inspect.kueue_anywhere": pgettext_lazy("a step of a fix", "find Kueue's controller in every namespace"),
    "queue.resume_localqueue": pgettext_lazy("a step of a fix", "resume the LocalQueue"),
    "queue.resume_clusterqueue": pgettext_lazy("a step of a fix", "resume the ClusterQueue"),
    "kueue.logs": pgettext_lazy("a step of a fix", "read Kueue's log"),
    "kueue.restart": pgettext_lazy("a step of a fix", "restart Kueue's controller"),
    "cache.debug_pod": pgettext_lazy("a step of a fix", "open a shell on the cache claim"),
}
UNKNOWN_STEP = (
    "{step}: {pairs}",  # a step's code and its pairs, as they are
    pgettext_lazy("a step of a fix", "run the command below"),
)
# Translators: what stands between two steps of a fix: "What to do: apply again; then read Kueue's log."
STEP_JOIN = pgettext_lazy("between two steps of a fix", "; then ")


# --- times: the one place a finding's time is said ---------------------------------------------------------


def when(at: datetime | None, now: datetime | None = None) -> str:
    """A finding's moment in the reader's zone (``core.times.moment``): ``06:20 CET`` when it is today's and
    ``now`` is given, else ``24 Sep 06:20 CET``; an unknown time said so."""
    return moment(at, now)


def seconds_words(seconds: int) -> str:
    """A limit as set, not rounded: ``15 min``, ``1 h 30 min``, ``45 s``."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    parts = [in_units(hours, "h")] if hours else []
    parts += [in_units(minutes, "min")] if minutes else []
    parts += [in_units(secs, "s")] if secs or not parts else []
    return " ".join(parts)


# --- values and templates ---------------------------------------------------------------------------------


def shown(value: Any, now: datetime | None = None) -> str:
    """A value as words show it: times by :func:`when`, lists joined, structures as compact JSON, bounded."""
    if value is None:
        return str(NONE)
    if isinstance(value, datetime):
        return when(value, now)
    if isinstance(value, bool):
        return str(YES if value else NO)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return bounded(value, VALUE_LIMIT) if value else str(EMPTY)
    if isinstance(value, tuple | list | dict) and not value:
        return str(NONE)
    if isinstance(value, tuple | list) and all(isinstance(item, str) for item in value):
        return bounded(", ".join(value), VALUE_LIMIT)
    try:
        text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    return bounded(text, VALUE_LIMIT)


def fill(templates: Templates, names: Mapping[str, str]) -> str:
    """The first template whose names are all known, said in the active language and filled in by name; ""
    when none is."""
    for template in (templates,) if isinstance(templates, Template) else templates:
        template = str(template)
        wanted = {field for _, field, _, _ in string.Formatter().parse(template) if field}
        if wanted <= names.keys():
            return template.format_map(names)
    return ""


def more(count: int) -> str:
    """The rest of a list, counted: ``and 80 more``."""
    # Translators: the end of a list cut short; {count} is how many items were left out.
    return ngettext("and {count} more", "and {count} more", count).format(count=count)


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
        _listed("fix", "steps", fix_steps(finding.fix, now), steps=True),
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


def _listed(part: str, name: str, items: list[str], steps: bool = False) -> str:
    items = [item for item in items if item]
    if not items:
        return ""
    if steps:  # a step said twice in a row (two flavors looked at) is said once
        items = [item for number, item in enumerate(items) if number == 0 or items[number - 1] != item]
    elif len(items) > FACT_LIMIT:
        items = [*items[:FACT_LIMIT], more(len(items) - FACT_LIMIT)]
    join = str(STEP_JOIN) if steps else "; "
    return str(ACCOUNT[part]).format_map({name: join.join(items)})


def _fact(fact: Fact, now, field: bool = True) -> str:
    names = {"object": fact.object, "value": shown(fact.value, now)}
    if field and fact.field:
        names["field"] = fact.field
    return fill(FACT, names)


def _check(check: Check, now) -> str:
    """A check with its facts; the field is left out when every fact has the same one (the check names it)."""
    same_field = len({fact.field for fact in check.facts}) == 1
    facts = ", ".join(_fact(fact, now, field=not same_field) for fact in check.facts)
    return CHECK.format_map({"what": str(CHECK_WORDS.get(check.what, check.what)), "facts": facts or str(NONE)})


def _not_compared(check: Check, now) -> str:
    facts = ", ".join(_fact(fact, now) for fact in check.facts)
    return str(NOT_COMPARED).format_map(
        {"what": str(CHECK_WORDS.get(check.what, check.what)), "facts": facts or str(NONE)}
    )


def _not_read_fact(fact: Fact) -> str:
    """A fact not read, with why: gone, not readable, not found, or how many more were not read."""
    if isinstance(fact.value, int) and not isinstance(fact.value, bool):
        # Translators: said in brackets after the objects a list stopped at: how many more were not read.
        why = ngettext("{count} more not read", "{count} more not read", fact.value).format(count=fact.value)
    else:
        why = str(NOT_READ_WHY.get(str(fact.value), shown(fact.value)))
    names = {"object": fact.object, "why": why}
    if fact.field:
        names["field"] = fact.field
    return fill(NOT_READ_FACT, names)
