"""What a finding says to each reader: the archivist's plain sentence and who acts; the operator's
evidence, what was ruled out, what could not be read, and the fix with its commands.

A :class:`~campaigns.models.findings.Finding` is data (a code, names, counts, UTC datetimes); this module is
the one place its code is put into words. ``FINDING_WORDS`` holds, per code, the archivist's ``text`` (what is
wrong in plain words, no Kubernetes words, and who acts: nobody, an operator, or the person who wrote the
campaign) and the operator's ``detail`` lead, each a literal ``str.format`` template over named values. A code
may give alternatives: the first whose names are all known is used (a time not read, a count of zero). The
operator's paragraph goes on with :func:`campaigns.wording.evidence.account`: the evidence as read, the checks
that came out equal (ruled out), what could not be read (said as such, never as ruled out) and the fix's steps;
the fix's commands are shell lines with every name filled in.

Sentences are literal templates filled by name, never f-strings, so that each can be marked for translation.
Every time is said by :func:`campaigns.wording.evidence.when`, the one place to change when times are said in
the reader's zone. The codes are those of ``campaigns.domain.diagnosis.codes``, written out: the wording imports
nothing of the domain (``tests/campaigns/test_layers.py``), and a test holds the two lists equal.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from campaigns.models import Sentence
from campaigns.models.findings import AUTHOR, NOBODY, OPERATOR, Finding
from campaigns.wording.evidence import LIST_LIMIT, account, fill, more, seconds_words, shown, when
from campaigns.wording.words import campaign_label, plural

ACTOR_WORDS = {
    NOBODY: "Nothing to do: it resolves by itself.",
    OPERATOR: "An operator has to act.",
    AUTHOR: "The person who wrote the campaign has to act.",
}
UNKNOWN_ACTOR = "Who has to act is not known."


@dataclass(frozen=True)
class FindingWords:
    """One code's words: templates over the finding's named values, alternatives first to last."""

    text: str | tuple[str, ...]  # the archivist's sentence, saying who acts
    detail: str | tuple[str, ...] = ()  # the operator's lead: the values that name the cause
    waiting: bool = False  # it waits for something that frees up: a warning, not a fault, when someone may act


# --- each code's words ------------------------------------------------------------------------------------

_QUEUE_SAYS = "Kueue says: {queue_kind} {queue_name} {queue_state} (the Workload {workload})."

FINDING_WORDS = {
    "warmup.placement_differs": FindingWords(
        "The model cache for {pipeline} was filled by a warm-up that runs with other machine settings than campaign "
        "{campaign}, and the campaign's volumes did not find it. An operator has to give both the same settings and "
        "fill the cache again.",
        "The warm-up Job {warmup_job} and the campaign Job {campaign_job} differ in where their pods may run: "
        "{differences}.",
    ),
    "cache.other_claim": FindingWords(
        "The model cache for {pipeline} was filled on another disk than the one campaign {campaign} reads, so its "
        "volumes did not find it. An operator has to make both use the same disk and fill the cache again.",
        "The warm-up Job {warmup_job} mounts the claim {warmup_claim} as its cache; the campaign Job {campaign_job} "
        "mounts {campaign_claim}.",
    ),
    "cache.other_directory": FindingWords(
        "The model cache for {pipeline} was filled in another folder than the one campaign {campaign} reads, so its "
        "volumes did not find it. An operator has to fill the cache again for this campaign.",
        "The warm-up Job {warmup_job} fills {warmup_directory} on the cache claim; the campaign Job {campaign_job} "
        "reads {campaign_directory}.",
    ),
    "cache.rwo_other_node": FindingWords(
        "The model cache for {pipeline} is on a disk that only one machine can use, and the volumes of campaign "
        "{campaign} ran on another machine than the one that filled it. An operator has to move the cache to a disk "
        "that all machines can share.",
        "The claim {claim} is {access_modes}: the warm-up pod ran on {warmup_node}, and {pods_elsewhere} of "
        "{campaign_job} that gave up ran on {other_nodes}.",
    ),
    "cache.replaced": FindingWords(
        "The disk of the model cache for {pipeline} was replaced at {claim_created}, after the cache was filled at "
        "{warmup_completed}, so what was filled is not on it. An operator has to fill the cache again.",
        "The claim {claim} was created at {claim_created}; the warm-up Job {warmup_job} completed earlier, at "
        "{warmup_completed}.",
    ),
    "warmup.marker_missing": FindingWords(
        "The model cache for {pipeline} was filled, yet the volumes of campaign {campaign} did not find it, and "
        "nothing this site compared explains why. An operator has to look into it and fill the cache again.",
        "The pods of {campaign_job} did not find {marker} on the claim {claim} after the warm-up Job {warmup_job} "
        "completed; each cause this site checks came out equal or could not be read.",
    ),
    "warmup.waiting": FindingWords(
        (
            "Campaign {campaign} has {volumes} waiting for the model cache to be filled; if it is not filled by "
            "{gives_up_at}, the first of them gives up. Nothing to do: they start by themselves once it is.",
            "Campaign {campaign} has {volumes} waiting for the model cache to be filled, each for at most {limit}. "
            "Nothing to do: they start by themselves once it is.",
        ),
        "Each pod of {job} waits at most {limit} ({limit_where}): {waiting}.",
        waiting=True,
    ),
    "warmup.failed": FindingWords(
        (
            "The model cache for {pipeline} could not be filled: the model {model} was not found where the pipeline "
            "says it is. Its volumes cannot start{gives_up} until the person who wrote the pipeline corrects the "
            "model's name or revision and it is applied again.",
            "The model cache for {pipeline} could not be filled, perhaps because of a passing fault{passing}. Its "
            "volumes cannot start{gives_up} until an operator applies again, which tries once more.",
            "The model cache for {pipeline} could not be filled. Its volumes cannot start{gives_up} until an "
            "operator finds the cause in the warm-up's log, fixes it and applies again.",
        ),
        (
            "The warm-up Job {warmup_job} failed ({job_reason}); its pod {pod} exited with code {exit_code}: "
            "{error}.",
            "The warm-up Job {warmup_job} failed ({job_reason}): {error}.",
            "The warm-up Job {warmup_job} failed ({job_reason}); no pod of it said why.",
        ),
    ),
    "queue.paused": FindingWords(
        "Campaign {campaign} is paused in its campaign file, so it does not run. To let it run, the person who wrote "
        "the campaign removes `suspend: true` from {file} and applies again.",
        (
            "The Workload {workload} is inactive (its spec.active is false, or Kueue evicted it as deactivated); "
            "the apply sets it from `suspend: true` in {file}.",
        ),
    ),
    "queue.no_priority_class": FindingWords(
        (
            "Campaign {campaign} cannot start: its priority {priority_class} does not exist on this cluster, which "
            "has {known_classes}. The person who wrote the campaign has to choose one of those in {file} and apply "
            "again.",
            "Campaign {campaign} cannot start: its priority {priority_class} does not exist on this cluster. The "
            "person who wrote the campaign has to choose a priority the cluster has in {file} and apply again.",
        ),
        (
            "The Job {job} asks for the WorkloadPriorityClass {priority_class}, which the cluster does not have "
            "(it has {known_classes}), so Kueue makes no Workload for it.",
            "The Job {job} asks for the WorkloadPriorityClass {priority_class}; an Event says it was not found, so "
            "Kueue makes no Workload for it.",
        ),
    ),
    "queue.untolerated_taint": FindingWords(
        "Campaign {campaign} cannot start: the machines its queue would give it are set aside for other work, and "
        "the campaign is not allowed on them. An operator has to allow it there.",
        "No flavor admits the pods of {job}: {taints}; the Job's tolerations are in the evidence.",
    ),
    "queue.node_affinity": FindingWords(
        "Campaign {campaign} cannot start: it asks for a kind of machine its queue does not have. An operator has to "
        "make the two agree.",
        (
            "No flavor admits the pods of {job}: {mismatches}.",
            "The flavors {affinity_flavors} do not match the node affinity of the pods of {job}.",
        ),
    ),
    "queue.no_matching_flavor": FindingWords(
        "Campaign {campaign} cannot start: none of the kinds of machine its queue offers fits it. An operator has to "
        "act.",
        (
            "No flavor admits the pods of {job}: {no_flavor}.",
            "Kueue found no flavor for the pods of {job}; its message, in the evidence, is in no format known here.",
        ),
    ),
    "queue.resource_unavailable": FindingWords(
        "Campaign {campaign} cannot start: it asks for a kind of resource its queue does not offer at all. An "
        "operator has to add it to the queue.",
        (
            "The pods of {job} request {resources}, which the ClusterQueue {cluster_queue} does not offer.",
            "The pods of {job} request {resources}, which their ClusterQueue does not offer.",
        ),
    ),
    "queue.flavor_not_found": FindingWords(
        "Campaign {campaign} cannot start: its queue names a kind of machine that is not set up. An operator has to "
        "set it up.",
        (
            "Kueue found no ResourceFlavor {missing_flavors} for the ClusterQueue {cluster_queue}.",
            "Kueue found no ResourceFlavor {missing_flavors}.",
        ),
    ),
    "queue.waiting_for_quota": FindingWords(
        (
            "Campaign {campaign} waits its turn: its queue is full, and {preempting} with a lower priority must stop "
            "first to make room for it. Nothing to do: it starts by itself.",
            "Campaign {campaign} waits its turn: its queue's capacity is in use by other work. Nothing to do: it "
            "starts by itself when capacity frees up.",
        ),
        (
            "Not enough unused quota: {shortfalls}; Kueue is preempting {preempting_workloads} to make room.",
            "Not enough unused quota: {shortfalls}.",
            "Kueue waits for quota to free up (reason {reason}).",
        ),
        waiting=True,
    ),
    "queue.exceeds_max_quota": FindingWords(
        (
            "Campaign {campaign} can never start as written: it runs {parallel} volumes at once, and its queue has "
            "room for {fits} at most. The person who wrote the campaign has to lower `window` to {fits}.",
            "Campaign {campaign} can never start as written: it runs {parallel} volumes at once, more than its queue "
            "can ever hold. The person who wrote the campaign has to lower `window`.",
            "Campaign {campaign} can never start: one of its volumes alone needs more than its queue can ever give. "
            "An operator has to give the queue more room.",
        ),
        (
            "The Job {job} runs {parallelism} pods at once and asks {limits}; {fits_said}.",
            "The Job {job} runs {parallelism} pods at once and asks {limits}.",
            "The Job {job} asks more than its ClusterQueue can ever give (reason {reason}).",
        ),
    ),
    "queue.borrowing_limit_reached": FindingWords(
        "Campaign {campaign} waits: its queue may borrow no more room from other queues. It starts when its own "
        "queue has room, or sooner if an operator raises that limit.",
        (
            "The ClusterQueue {cluster_queue} has reached its borrowing limit (reason {reason}).",
            "Kueue's reason is {reason}.",
        ),
        waiting=True,
    ),
    "queue.pending_evaluation": FindingWords(
        "The queue has not looked at campaign {campaign} yet. Nothing to do: it resolves by itself.",
        "Kueue has not evaluated the Workload {workload} yet (reason {reason}).",
        waiting=True,
    ),
    "queue.waiting_for_pods_ready": FindingWords(
        "Campaign {campaign} waits until the campaigns started before it are running. Nothing to do: it starts by "
        "itself.",
        "Kueue admits nothing more until the pods of admitted workloads are ready (reason {reason}); the Workload "
        "{workload} waits.",
        waiting=True,
    ),
    "queue.misconfigured": FindingWords(
        "Campaign {campaign} cannot start: its queue is set up wrongly. An operator has to fix the queue.",
        "Kueue says the Workload {workload} or its queue is misconfigured (reason {reason}); its message is in the "
        "evidence.",
    ),
    "queue.suspended": FindingWords(
        "The queue holds campaign {campaign} back and does not start it. An operator has to find out why and "
        "release it.",
        (
            "Kueue holds the Workload {workload} back (reason {reason}); its LocalQueue is {queue}, its ClusterQueue "
            "{cluster_queue}.",
            "Kueue holds the Workload {workload} back (reason {reason}).",
        ),
    ),
    "queue.local_queue_missing": FindingWords(
        "Campaign {campaign} cannot start: the queue `{queue_name}` it is sent to does not exist. An operator has to "
        "create it.",
        _QUEUE_SAYS,
    ),
    "queue.local_queue_inactive": FindingWords(
        "Campaign {campaign} cannot start: the queue `{queue_name}` it is sent to is not active. An operator has to "
        "act.",
        _QUEUE_SAYS,
    ),
    "queue.local_queue_stopped": FindingWords(
        "Campaign {campaign} cannot start: the queue `{queue_name}` it is sent to was stopped. An operator has to "
        "start the queue again.",
        _QUEUE_SAYS,
    ),
    "queue.cluster_queue_missing": FindingWords(
        "Campaign {campaign} cannot start: the shared queue `{queue_name}` behind its queue does not exist. An "
        "operator has to create it.",
        _QUEUE_SAYS,
    ),
    "queue.cluster_queue_inactive": FindingWords(
        "Campaign {campaign} cannot start: the shared queue `{queue_name}` behind its queue is not active. An "
        "operator has to act.",
        _QUEUE_SAYS,
    ),
    "queue.cluster_queue_stopped": FindingWords(
        "Campaign {campaign} cannot start: the shared queue `{queue_name}` behind its queue was stopped. An operator "
        "has to start the shared queue again.",
        _QUEUE_SAYS,
    ),
    "queue.kueue_says": FindingWords(
        "Campaign {campaign} has not been let in by its queue, for a reason this site does not recognise. An "
        "operator has to look at it.",
        (
            "Kueue's reason is {reason}, with a message in no format known here (in the evidence).",
            "Kueue gives no reason this site knows; its message is in the evidence.",
        ),
    ),
    "kueue.down": FindingWords(
        (
            "The queueing system has not been running since {since}, so no waiting campaign can start. An operator "
            "has to get it running again.",
            "The queueing system is not running, so no waiting campaign can start. An operator has to get it running "
            "again.",
        ),
        (
            "Kueue's controller {deployment} in {kueue_namespace} has {ready_replicas} of {replicas} replicas ready; "
            "{kueue_pods}.",
            "Kueue's controller {deployment} in {kueue_namespace} has {ready_replicas} of {replicas} replicas ready.",
            "Kueue's controller {deployment} in {kueue_namespace} has no ready pod: {kueue_pods}.",
            "Kueue's controller {deployment} in {kueue_namespace} is not ready.",
        ),
    ),
    "kueue.missing": FindingWords(
        "The queueing system was not found where this site looks for it, so no waiting campaign can start. An "
        "operator has to act.",
        "The namespace {kueue_namespace} holds no Deployment {deployment}; its Deployments: {deployments}.",
    ),
    "results.other_address": FindingWords(
        "Campaign {campaign} publishes its results under {campaign_address}, not under this site's {site_address}, "
        "so this site cannot open its run logs and transcriptions. An operator has to make it publish here.",
        "The Job {job} sets {env} to {campaign_address}; this site's results address is {site_address}.",
    ),
    "model.not_in_cache": FindingWords(
        (
            "Volume {volume} of campaign {campaign} stopped: the model {one_model} is not in the model cache. Trying "
            "again will not help until an operator fills the cache again.",
            "Volume {volume} of campaign {campaign} stopped: a model of the pipeline {pipeline} is not in the model "
            "cache. Trying again will not help until an operator fills the cache again.",
            "A volume of campaign {campaign} stopped: the model {one_model} is not in the model cache. Trying again "
            "will not help until an operator fills the cache again.",
            "A volume of campaign {campaign} stopped: a model of the pipeline {pipeline} is not in the model cache. "
            "Trying again will not help until an operator fills the cache again.",
        ),
        "The pod {pod} says model files are not in the offline cache (models: {models}). Retries cannot help until "
        "the warm-up Job {warmup_job} fills the cache again.",
    ),
}
UNKNOWN_CODE = FindingWords("A problem was found that this site has no words for yet.")
SINCE = "Since {since}."
GIVES_UP = " (each waits for it {wait} and then gives up)"

# The pieces a detail lead is made of (each item of a list value, in the operator's words).
ITEM_WORDS = {
    "difference": "{field}: {warmup} in the warm-up, {campaign} in the campaign",
    "waiting": (
        "{pod} on {node} since {since}, gives up at {until}",
        "{pod} since {since}, gives up at {until}",
        "{pod}",
    ),
    "taint": "flavor {flavor} taints its nodes {taint}",
    "mismatch": (
        "flavor {flavor} labels its nodes {has}, the pods ask for {wants}",
        "flavor {flavor} has no label for {wants}",
    ),
    "resources": "the ClusterQueue offers no {resources}",
    "missing_flavors": "no ResourceFlavor {missing_flavors} exists",
    "shortfall": "{needed} more {resource} in flavor {flavor}",
    "limit": "{request} of {resource} in flavor {flavor}, where the queue can give at most {capacity}",
    "kueue_pod": ("pod {pod} ({container}) {reason} after {restarts}", "pod {pod} {reason} after {restarts}"),
    "model": ("{model} at revision {revision}", "{model}"),
    "fits": "at most {fits} of them fit",
    "none_fits": "not one of them fits",
    "too_many": "too many",
    "other_task": "other task",
}
LIMIT_WHERE = {
    "command": "read from its warm-up wait command",
    "args": "read from its warm-up wait arguments",
    "env": "read from its warm-up wait environment",
    "message": "read from a pod's exit message",
    "default": "no limit was found in the Job: the default",
}


# --- the readers' words -----------------------------------------------------------------------------------


def actor_words(actor: str) -> str:
    """Who acts, as a short label for a card."""
    return ACTOR_WORDS.get(actor, UNKNOWN_ACTOR)


def finding_sentence(finding: Finding, now: datetime | None = None) -> Sentence:
    """The archivist's sentence, the operator's paragraph and the fix's commands for one finding."""
    words = FINDING_WORDS.get(finding.code, UNKNOWN_CODE)
    names = finding_names(finding, now)
    text = fill(words.text, names) if words is not UNKNOWN_CODE else ""
    text = text or " ".join((fill(UNKNOWN_CODE.text, names), actor_words(finding.actor)))
    lead = (fill(words.detail, names), fill(SINCE, names), account(finding, now))
    return Sentence(
        text,
        detail=" ".join(part for part in lead if part),
        commands=tuple(shlex.join(step.argv) for step in finding.fix if step.argv),
        tone=tone(finding),
    )


def tone(finding: Finding) -> str:
    """Nobody acts, or someone chose it: idle. Someone acts: bad, or a warning while it waits for what frees
    up by itself."""
    if finding.actor == NOBODY or finding.chosen:
        return "idle"
    return "warn" if FINDING_WORDS.get(finding.code, UNKNOWN_CODE).waiting else "bad"


# --- names: each value as the words show it ----------------------------------------------------------------


def finding_names(finding: Finding, now: datetime | None = None) -> dict[str, str]:
    """Every name a template of this finding may use: the subject's, its values, and the code's own."""
    subject = finding.subject
    campaign = subject.campaign or finding.value("job") or finding.value("campaign_job") or "(unnamed)"
    names = {"campaign": campaign_label(str(campaign)), "pipeline": subject.pipeline or "(unnamed)"}
    if subject.volume:
        names["volume"] = subject.volume
    if finding.since is not None:
        names["since"] = when(finding.since, now)
    for key, value in finding.values:
        if value is not None and value != "":
            names[key] = shown(value, now)
    derive = _DERIVED.get(finding.code)
    if derive is not None:
        names.update(derive(finding, now))
    return names


def _items(kind: str, rows: Iterable[Mapping[str, Any]], now: datetime | None = None) -> str:
    """List items of one kind, each filled in, the first LIST_LIMIT named and the rest counted."""
    rows = list(rows)
    texts = []
    for row in rows[:LIST_LIMIT]:
        known = {key: shown(value, now) for key, value in row.items() if value is not None and value != ""}
        texts.append(fill(ITEM_WORDS[kind], known))
    if len(rows) > LIST_LIMIT:
        texts.append(more(len(rows) - LIST_LIMIT))
    return "; ".join(text for text in texts if text)


def _only_known(**names: str) -> dict[str, str]:
    return {key: value for key, value in names.items() if value}


def _differences(finding: Finding, now) -> dict[str, str]:
    rows = ({"field": f, "warmup": w, "campaign": c} for f, w, c in finding.value("differences", ()))
    return _only_known(differences=_items("difference", rows))


def _rwo(finding: Finding, now) -> dict[str, str]:
    return {"pods_elsewhere": plural(finding.value("pods_elsewhere") or 0, "pod")}


def _waiting(finding: Finding, now) -> dict[str, str]:
    limit = finding.value("limit_seconds")
    rows = (
        {"pod": pod, "node": node, "since": since, "until": until}
        for pod, _, node, since, until in finding.value("waiting", ())
    )
    names = {"volumes": plural(finding.value("pods") or 0, "volume"), "waiting": _items("waiting", rows, now)}
    if finding.value("first_gives_up_at") is not None:
        names["gives_up_at"] = when(finding.value("first_gives_up_at"), now)
    if limit is not None:
        names["limit"] = seconds_words(limit)
    names["limit_where"] = LIMIT_WHERE.get(finding.value("limit_source"), LIMIT_WHERE["default"])
    return names


def _taints(finding: Finding, now=None) -> dict[str, str]:
    rows = ({"flavor": flavor, "taint": taint} for _, flavor, taint in finding.value("taints", ()))
    return _only_known(taints=_items("taint", rows))


def _mismatches(finding: Finding, now=None) -> dict[str, str]:
    rows = ({"flavor": f, "wants": w, "has": h} for f, w, h in finding.value("mismatches", ()))
    return _only_known(mismatches=_items("mismatch", rows))


def _no_flavor(finding: Finding, now) -> dict[str, str]:
    parts = [_taints(finding).get("taints", ""), _mismatches(finding).get("mismatches", "")]
    for key in ("resources", "missing_flavors"):
        if finding.value(key):
            parts.append(fill(ITEM_WORDS[key], {key: shown(finding.value(key))}))
    return _only_known(no_flavor="; ".join(part for part in parts if part))


def _quota(finding: Finding, now) -> dict[str, str]:
    rows = ({"needed": n, "resource": r, "flavor": f} for _, r, f, n in finding.value("shortfalls", ()))
    preempting = finding.value("preempting")
    names = _only_known(shortfalls=_items("shortfall", rows))
    if preempting:
        names["preempting"] = plural(preempting, ITEM_WORDS["other_task"])
        names["preempting_workloads"] = plural(preempting, "workload")
    return names


def _exceeds(finding: Finding, now) -> dict[str, str]:
    """The author's sentence needs how many run at once and how many fit; the operator's, that none fits."""
    rows = ({"resource": r, "flavor": f, "request": q, "capacity": c} for _, r, f, q, c in finding.value("limits", ()))
    window, parallelism = finding.value("window"), finding.value("parallelism")
    names = _only_known(limits=_items("limit", rows))
    if window == 0:
        names["fits_said"] = ITEM_WORDS["none_fits"]
    elif window:
        names["fits_said"] = ITEM_WORDS["fits"].format_map({"fits": window})
    if finding.actor == AUTHOR:
        names["parallel"] = str(parallelism) if parallelism else ITEM_WORDS["too_many"]
        if window:
            names["fits"] = str(window)
    return names


def _kueue_pods(finding: Finding, now) -> dict[str, str]:
    rows = (
        {"pod": pod, "container": container, "reason": reason, "restarts": plural(restarts, "restart")}
        for pod, container, reason, restarts, _ in finding.value("pods", ())
    )
    return _only_known(kueue_pods=_items("kueue_pod", rows))


def _models(finding: Finding, now) -> dict[str, str]:
    """The model by name only when the error named one model: otherwise the pipeline's models are all listed."""
    models = finding.value("models", ())
    rows = ({"model": model, "revision": revision} for _, model, revision in models)
    names = _only_known(models=_items("model", rows))
    if len(models) == 1 and models[0][1]:
        names["one_model"] = shown(models[0][1])
    return names


def _warmup_failed(finding: Finding, now) -> dict[str, str]:
    """The archivist's sentence by what the error says (the finding's ``kind``): a model not found names the
    model (a value only that kind has); a passing fault is chosen by the empty name ``passing``."""
    names = {"passing": ""} if finding.value("kind") == "passing" else {}
    wait = finding.value("wait_seconds")
    names["gives_up"] = fill(GIVES_UP, {"wait": seconds_words(wait)}) if wait else ""
    return names


_DERIVED: dict[str, Callable[[Finding, datetime | None], dict[str, str]]] = {
    "warmup.placement_differs": _differences,
    "cache.rwo_other_node": _rwo,
    "warmup.waiting": _waiting,
    "warmup.failed": _warmup_failed,
    "queue.untolerated_taint": _taints,
    "queue.node_affinity": _mismatches,
    "queue.no_matching_flavor": _no_flavor,
    "queue.waiting_for_quota": _quota,
    "queue.exceeds_max_quota": _exceeds,
    "kueue.down": _kueue_pods,
    "model.not_in_cache": _models,
}
