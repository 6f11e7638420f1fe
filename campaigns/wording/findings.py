"""What a finding says to each reader: the archivist's plain sentence and who acts; the operator's
evidence, what was ruled out, what could not be read, and the fix with its commands.

A :class:`~campaigns.models.findings.Finding` is data (a code, names, counts, UTC datetimes); this module is
the one place its code is put into words. Each code's words are in :mod:`campaigns.wording.finding_words`
(``FINDING_WORDS``): the archivist's ``text`` and the operator's ``detail`` lead, lazy templates marked for
translation; here they are filled in, in the reader's language, with the finding's named values, the first
alternative whose names are all known. The operator's paragraph goes on with
:func:`campaigns.wording.evidence.account`: the evidence as read, the checks that came out equal (ruled out),
what could not be read (said as such, never as ruled out) and the fix's steps; the fix's commands are shell
lines with every name filled in.

Sentences are whole templates filled by name, never f-strings or pieces glued together, so that a translator
can order each as the language needs; a count is said with ``ngettext``. Every time is said by
:func:`campaigns.wording.evidence.when` (``core.times``): in the reader's zone, with its abbreviation. The codes
are those of ``campaigns.domain.diagnosis.codes``, written out: the wording imports nothing of the domain
(``tests/campaigns/test_layers.py``), and a test holds the two lists equal.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from django.utils.translation import gettext_lazy, ngettext, pgettext

from campaigns.models import Sentence
from campaigns.models.findings import AUTHOR, NOBODY, OPERATOR, Finding
from campaigns.wording.evidence import LIST_LIMIT, account, fill, more, seconds_words, shown, when
from campaigns.wording.finding_words import (
    FINDING_WORDS,
    ITEM_WORDS,
    LIMIT_WHERE,
    SINCE,
    UNKNOWN_CODE,
    UNNAMED,
)
from campaigns.wording.words import campaign_label

ACTOR_WORDS = {
    NOBODY: gettext_lazy("Nothing to do: it resolves by itself."),
    OPERATOR: gettext_lazy("An operator has to act."),
    AUTHOR: gettext_lazy("The person who wrote the campaign has to act."),
}
UNKNOWN_ACTOR = gettext_lazy("Who has to act is not known.")


# --- the readers' words -----------------------------------------------------------------------------------


def actor_words(actor: str) -> str:
    """Who acts, as a short label for a card."""
    return str(ACTOR_WORDS.get(actor, UNKNOWN_ACTOR))


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
    campaign = subject.campaign or finding.value("job") or finding.value("campaign_job")
    campaign = campaign_label(str(campaign)) if campaign else str(UNNAMED)
    names = {"campaign": campaign, "pipeline": subject.pipeline or str(UNNAMED)}
    if subject.volume:
        names["volume"] = subject.volume
    if finding.since is not None:
        names["since"] = when(finding.since, now)
    for key, value in finding.values:
        if value is not None and value != "":
            names[key] = shown(value, now)
    if "file" in names:  # a path, shown as code (never a word to translate)
        names["file"] = f"`{names['file']}`"
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
    count = finding.value("pods_elsewhere") or 0
    return {"pods_elsewhere": ngettext("{count} pod", "{count} pods", count).format(count=count)}


def _waiting(finding: Finding, now) -> dict[str, str]:
    limit = finding.value("limit_seconds")
    rows = (
        {"pod": pod, "node": node, "since": since, "until": until}
        for pod, _, node, since, until in finding.value("waiting", ())
    )
    count = finding.value("pods") or 0
    names = {
        "volumes": ngettext("{count} volume", "{count} volumes", count).format(count=count),
        "waiting": _items("waiting", rows, now),
    }
    if finding.value("first_gives_up_at") is not None:
        names["gives_up_at"] = when(finding.value("first_gives_up_at"), now)
    if limit is not None:
        names["limit"] = seconds_words(limit)
    names["limit_where"] = str(LIMIT_WHERE.get(finding.value("limit_source"), LIMIT_WHERE["default"]))
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
        names["preempting"] = ngettext("{count} other task", "{count} other tasks", preempting).format(count=preempting)
        names["preempting_workloads"] = ngettext("{count} workload", "{count} workloads", preempting).format(
            count=preempting
        )
    return names


def _exceeds(finding: Finding, now) -> dict[str, str]:
    """The author's sentence needs how many run at once and how many fit; the operator's, that none fits."""
    rows = ({"resource": r, "flavor": f, "request": q, "capacity": c} for _, r, f, q, c in finding.value("limits", ()))
    window, parallelism = finding.value("window"), finding.value("parallelism")
    names = _only_known(limits=_items("limit", rows))
    if window == 0:
        names["fits_said"] = pgettext("how many pods fit in the queue", "not one of them fits")
    elif window:
        # Translators: {fits} is how many of the Job's pods fit in its queue at once.
        names["fits_said"] = ngettext("at most {fits} of them fit", "at most {fits} of them fit", window).format(
            fits=window
        )
    if parallelism is not None:
        names["parallel_pods"] = ngettext("{count} pod", "{count} pods", parallelism).format(count=parallelism)
    if finding.actor == AUTHOR:
        if parallelism:
            names["parallel"] = ngettext("{count} volume", "{count} volumes", parallelism).format(count=parallelism)
        else:
            names["parallel"] = pgettext("how many volumes run at once", "too many volumes")
        if window:
            names["fits"] = str(window)
    return names


def _kueue_pods(finding: Finding, now) -> dict[str, str]:
    """Kueue's controller: how many of its replicas are ready, and each of its pods with its state."""
    ready, replicas = finding.value("ready_replicas"), finding.value("replicas")
    names = {}
    if ready is not None and replicas is not None:
        names["replicas_ready"] = ngettext(
            # Translators: {ready} of the {replicas} replicas a Deployment asks for are ready.
            "{ready} of {replicas} replicas ready",
            "{ready} of {replicas} replicas ready",
            replicas,
        ).format(ready=ready, replicas=replicas)
    rows = (
        {
            "pod": pod,
            "container": container,
            "reason": reason,
            "restarts": ngettext("{count} restart", "{count} restarts", restarts).format(count=restarts),
        }
        for pod, container, reason, restarts, _ in finding.value("pods", ())
    )
    return names | _only_known(kueue_pods=_items("kueue_pod", rows))


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
    if wait:
        names["wait"] = seconds_words(wait)
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
