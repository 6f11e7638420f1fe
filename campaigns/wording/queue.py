"""Why a queued or paused campaign is not running (Kueue's view of it), in plain words with operator detail."""

from __future__ import annotations

from typing import NamedTuple

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy

from campaigns.models import QueueState, Sentence, bounded
from campaigns.wording.words import campaign_names
from core.kubectl import kubectl

# How a campaign the person may not see is named in its neighbours' queue sentences (campaigns.cluster.redaction).
SOMEONE_ELSE = gettext_lazy("another campaign")


class QueueWords(NamedTuple):
    """A queue kind whose sentence is always the same."""

    text: str | Promise  # a lazy sentence, said in the reader's language when worded
    tone: str
    commands: bool = True  # with the Workload and ClusterQueue lines


QUEUE_WORDS = {
    "no_workload_yet": QueueWords(
        gettext_lazy("Just submitted; the queue has not picked it up yet. This normally takes a few seconds."),
        "idle",
        False,
    ),
    "paused": QueueWords(
        gettext_lazy(
            # Translators: `suspend: true` is a line of the campaign file, kept as it is (shown as code).
            "Its campaign file holds it back with `suspend: true` (paused in git). It does not run until the person "
            "who wrote the campaign removes `suspend: true` from the campaign file and applies again."
        ),
        "idle",
    ),
    "preempted": QueueWords(
        gettext_lazy(
            "Pushed aside by a more urgent campaign. It waits in the queue and resumes from finished pages when "
            "capacity frees up; nothing to do."
        ),
        "idle",
    ),
    "not_looked_at": QueueWords(
        gettext_lazy("The queue has not looked at it yet; this normally takes a few seconds."), "idle"
    ),
    "admitted": QueueWords(gettext_lazy("Admitted by the queue."), "ok"),
}
UNKNOWN_QUEUE = QueueWords(
    gettext_lazy("The reason it waits is not known; an operator can look at its Workload."), "idle"
)

# Why Kueue evicted a workload, by the condition's reason: the end of "The queue stopped this campaign because …".
EVICTED_BECAUSE = {
    "PodsReadyTimeout": pgettext_lazy("queue stopped it because", "its volumes did not get going in time"),
    "InactiveWorkload": pgettext_lazy("queue stopped it because", "it was deactivated"),
    "Deactivated": pgettext_lazy("queue stopped it because", "it was paused"),
    "Preempted": pgettext_lazy("queue stopped it because", "a more urgent campaign needed the capacity"),
    "ClusterQueueStopped": pgettext_lazy("queue stopped it because", "the queue was stopped"),
    "AdmissionCheck": pgettext_lazy("queue stopped it because", "an admission check withdrew it"),
}


def queue_sentence(queue: QueueState, namespace: str = "", job: str = "") -> Sentence:
    """Why a Queued or Paused campaign is not running, in plain words, with operator detail."""
    job = job or queue.job
    writer = _QUEUE_WRITERS.get(queue.kind)
    if writer is not None:
        text, tone, commands = writer(queue, namespace, job)
    else:
        words = QUEUE_WORDS.get(queue.kind, UNKNOWN_QUEUE)
        text, tone = str(words.text), words.tone
        commands = _queue_commands(queue, namespace) if words.commands else ()
    return Sentence(text, detail=_queue_detail(queue), commands=commands, tone=tone)


def _queue_commands(queue: QueueState, namespace: str) -> tuple[str, ...]:
    commands = []
    if queue.workload_name:
        commands.append(kubectl("describe", "workload", queue.workload_name, namespace=namespace))
    if queue.cluster_queue:
        commands.append(kubectl("get", "clusterqueue", queue.cluster_queue, "-o", "yaml"))
    return tuple(commands)


def _job_events(namespace: str, job: str) -> str:
    if job:
        return kubectl("get", "events", "--field-selector", f"involvedObject.name={job}", namespace=namespace)
    return kubectl("get", "events", "--sort-by=.lastTimestamp", namespace=namespace)


def _waiting(queue, namespace, job):
    said = [_waiting_turn(queue.ahead, _named(queue.ahead_names, queue.hidden_ahead))]
    holders = _named(queue.holders, queue.hidden_holders)
    if holders:
        # Translators: {holders} names the campaigns that use the queue's capacity ("census-1880 and 2 other
        # campaigns").
        said.append(_("The queue's capacity is in use by {holders}.").format(holders=holders))
    said.append(
        _("Nothing to do: it starts by itself when capacity frees up (an operator could give the queue more room).")
    )
    return " ".join(said), "idle", _queue_commands(queue, namespace)


def _waiting_turn(ahead: int | None, named: str) -> str:
    """``Waiting its turn in the queue: 2 campaigns ahead (census-1880, land-1820).``"""
    if ahead is None:
        return _("Waiting its turn in the queue.")
    if ahead == 0:
        return _("Waiting its turn in the queue; it is next.")
    if not named:
        return ngettext(
            "Waiting its turn in the queue: {count} campaign ahead.",
            "Waiting its turn in the queue: {count} campaigns ahead.",
            ahead,
        ).format(count=ahead)
    return ngettext(
        # Translators: {names} names the campaigns ahead in the queue ("census-1880 and another campaign").
        "Waiting its turn in the queue: {count} campaign ahead ({names}).",
        "Waiting its turn in the queue: {count} campaigns ahead ({names}).",
        ahead,
    ).format(count=ahead, names=named)


def _never_fits(queue, namespace, job):
    return (
        _(
            # Translators: `window` is a setting of the campaign file and converter.yaml a file's name, kept as
            # they are.
            "This campaign can never start as it is: it asks for more at once than its queue can ever give (the "
            "figures are in the detail). It will not fix itself: the person who wrote the campaign has to lower "
            "`window` in the campaign file (or in converter.yaml) and apply again."
        ),
        "bad",
        _queue_commands(queue, namespace),
    )


def _named(job_names: list[str], hidden: int) -> str:
    """Campaigns by name, and those the reader may not see only counted (campaigns.cluster.redaction)."""
    names = campaign_names(job_names) if job_names else ""
    if not hidden:
        return names
    if hidden == 1:
        others = str(SOMEONE_ELSE)
    else:
        # Translators: campaigns in the queue the reader may not see, only counted (always more than one here).
        others = ngettext("{count} other campaign", "{count} other campaigns", hidden).format(count=hidden)
    # Translators: {names} are campaigns by name ("census-1880, land-1820"); {others} those only counted
    # ("another campaign", "3 other campaigns").
    return _("{names} and {others}").format(names=names, others=others) if names else others


def _no_priority_class(queue, namespace, job):
    name = queue.priority_class or _("(unnamed)")
    return (
        _(
            # Translators: {name} is the priority class the campaign file names (htr-urgent), shown as code.
            "The queue ignores it: its priority `{name}` does not exist on this cluster. It will not fix itself: the "
            "person who wrote the campaign has to choose a priority the cluster has (or leave it out) and apply "
            "again."
        ).format(name=name),
        "bad",
        (kubectl("get", "workloadpriorityclasses"), _job_events(namespace, job)),
    )


def _kueue_silent(queue, namespace, job):
    return (
        _(
            "The queue has not acted on this campaign for some minutes: Kueue, the queueing system, may not be "
            "running. It starts by itself once Kueue works again; an operator should check whether Kueue is running."
        ),
        "bad",
        (kubectl("get", "pods", namespace="kueue-system"), _job_events(namespace, job)),
    )


def _inadmissible(queue, namespace, job):
    local = kubectl("get", "localqueue", queue.queue_name, namespace=namespace) if queue.queue_name else ""
    commands = tuple(c for c in (local, *_queue_commands(queue, namespace)) if c)
    return (
        _(
            "The queue cannot let this campaign in as the queue is set up (what the queue says is in the detail). "
            "It stays queued until an operator fixes the queue."
        ),
        "bad",
        commands,
    )


def _evicted(queue, namespace, job):
    why = EVICTED_BECAUSE.get(queue.reason)
    if why is None:
        stopped = _("The queue stopped this campaign.")
    else:
        # Translators: {why} ends the sentence as a clause after "because" ("a more urgent campaign needed the
        # capacity").
        stopped = _("The queue stopped this campaign because {why}.").format(why=why)
    then = _(
        "It is queued again and resumes from finished pages when capacity frees up. Nothing to do unless this "
        "keeps happening; then an operator should look at the queue."
    )
    return " ".join((stopped, then)), "warn", _queue_commands(queue, namespace)


# Kinds whose sentence depends on what the queue says: each gives (text, tone, kubectl lines).
_QUEUE_WRITERS = {
    "waiting": _waiting,
    "never_fits": _never_fits,
    "no_workload_priority_class": _no_priority_class,
    "kueue_silent": _kueue_silent,
    "inadmissible": _inadmissible,
    "evicted": _evicted,
}


def _queue_detail(queue: QueueState) -> str:
    """The operator's detail: the Kubernetes objects by kind and name (kept as they are), the words around them
    in the reader's language."""
    parts = []
    if queue.workload_name:
        parts.append(f"Workload {queue.workload_name}")
    else:
        # Translators: Workload is a Kubernetes object kind (Kueue's), kept as it is.
        parts.append(_("no Workload"))
    if queue.queue_name:
        parts.append(f"LocalQueue {queue.queue_name}")
    if queue.cluster_queue:
        parts.append(f"ClusterQueue {queue.cluster_queue}")
    if queue.priority_class:
        # Translators: {name} is a WorkloadPriorityClass's name (htr-urgent).
        parts.append(_("priority class {name}").format(name=queue.priority_class))
    if queue.reason:
        # Translators: {reason} is the reason Kueue gives, a code (Preempted).
        parts.append(_("reason {reason}").format(reason=queue.reason))
    for fit in queue.fits:
        parts.append(
            # Translators: what a campaign asks of one resource against its queue's quota: {resource} (nvidia.com/gpu)
            # {requested} (8) of quota {quota} (4).
            _("{resource} {requested} of quota {quota}").format(
                resource=fit.resource, requested=fit.requested, quota=fit.quota or pgettext("no quota", "none")
            )
        )
    if queue.pending_in_queue is not None:
        parts.append(
            ngettext(
                # Translators: ClusterQueue is a Kubernetes object kind (Kueue's), kept as it is.
                "{count} pending in the ClusterQueue across all namespaces",
                "{count} pending in the ClusterQueue across all namespaces",
                queue.pending_in_queue,
            ).format(count=queue.pending_in_queue)
        )
    text = ", ".join(parts)
    if queue.message:
        # Translators: {detail} is the operator's detail above; {message} what Kueue says, quoted as it is.
        text = _("{detail}; Kueue says: {message}").format(detail=text, message=bounded(queue.message))
    return text
