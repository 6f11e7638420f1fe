"""Why a queued or paused campaign is not running (Kueue's view of it), in plain words with operator detail."""

from __future__ import annotations

from typing import NamedTuple

from campaigns.models import QueueState, Sentence, bounded
from campaigns.wording.words import campaign_names, plural
from core.kubectl import kubectl

# How a campaign the person may not see is named in its neighbours' queue sentences (campaigns.cluster.redaction).
SOMEONE_ELSE = "another campaign"


class QueueWords(NamedTuple):
    """A queue kind whose sentence is always the same."""

    text: str
    tone: str
    commands: bool = True  # with the Workload and ClusterQueue lines


QUEUE_WORDS = {
    "no_workload_yet": QueueWords(
        "Just submitted; the queue has not picked it up yet. This normally takes a few seconds.", "idle", False
    ),
    "paused": QueueWords(
        "Its campaign file holds it back with `suspend: true` (paused in git). It does not run until the person who "
        "wrote the campaign removes `suspend: true` from the campaign file and applies again.",
        "idle",
    ),
    "preempted": QueueWords(
        "Pushed aside by a more urgent campaign. It waits in the queue and resumes from finished pages when "
        "capacity frees up; nothing to do.",
        "idle",
    ),
    "not_looked_at": QueueWords("The queue has not looked at it yet; this normally takes a few seconds.", "idle"),
    "admitted": QueueWords("Admitted by the queue.", "ok"),
}
UNKNOWN_QUEUE = QueueWords("The reason it waits is not known; an operator can look at its Workload.", "idle")

# Why Kueue evicted a workload, by the condition's reason.
EVICTED_BECAUSE = {
    "PodsReadyTimeout": "its volumes did not get going in time",
    "InactiveWorkload": "it was deactivated",
    "Deactivated": "it was paused",
    "Preempted": "a more urgent campaign needed the capacity",
    "ClusterQueueStopped": "the queue was stopped",
    "AdmissionCheck": "an admission check withdrew it",
}


def queue_sentence(queue: QueueState, namespace: str = "", job: str = "") -> Sentence:
    """Why a Queued or Paused campaign is not running, in plain words, with operator detail."""
    job = job or queue.job
    writer = _QUEUE_WRITERS.get(queue.kind)
    if writer is not None:
        text, tone, commands = writer(queue, namespace, job)
    else:
        words = QUEUE_WORDS.get(queue.kind, UNKNOWN_QUEUE)
        text, tone = words.text, words.tone
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
    if queue.ahead is None:
        text = "Waiting its turn in the queue."
    elif queue.ahead == 0:
        text = "Waiting its turn in the queue; it is next."
    else:
        text = f"Waiting its turn in the queue: {plural(queue.ahead, 'campaign')} ahead"
        named = _named(queue.ahead_names, queue.hidden_ahead)
        text += f" ({named})." if named else "."
    holders = _named(queue.holders, queue.hidden_holders)
    if holders:
        text += f" The queue's capacity is in use by {holders}."
    text += " Nothing to do: it starts by itself when capacity frees up (an operator could give the queue more room)."
    return text, "idle", _queue_commands(queue, namespace)


def _never_fits(queue, namespace, job):
    return (
        "This campaign can never start as it is: it asks for more at once than its queue can ever give (the figures "
        "are in the detail). It will not fix itself: the person who wrote the campaign has to lower `window` in the "
        "campaign file (or in converter.yaml) and apply again.",
        "bad",
        _queue_commands(queue, namespace),
    )


def _named(job_names: list[str], hidden: int) -> str:
    """Campaigns by name, and those the reader may not see only counted (campaigns.cluster.redaction)."""
    names = campaign_names(job_names) if job_names else ""
    if hidden:
        others = SOMEONE_ELSE if hidden == 1 else f"{hidden} other campaigns"
        names = f"{names} and {others}" if names else others
    return names


def _no_priority_class(queue, namespace, job):
    name = queue.priority_class or "(unnamed)"
    return (
        f"The queue ignores it: its priority `{name}` does not exist on this cluster. It will not fix itself: the "
        "person who wrote the campaign has to choose a priority the cluster has (or leave it out) and apply again.",
        "bad",
        (kubectl("get", "workloadpriorityclasses"), _job_events(namespace, job)),
    )


def _kueue_silent(queue, namespace, job):
    return (
        "The queue has not acted on this campaign for some minutes: Kueue, the queueing system, may not be running. "
        "It starts by itself once Kueue works again; an operator should check whether Kueue is running.",
        "bad",
        (kubectl("get", "pods", namespace="kueue-system"), _job_events(namespace, job)),
    )


def _inadmissible(queue, namespace, job):
    local = kubectl("get", "localqueue", queue.queue_name, namespace=namespace) if queue.queue_name else ""
    commands = tuple(c for c in (local, *_queue_commands(queue, namespace)) if c)
    return (
        "The queue cannot let this campaign in as the queue is set up (what the queue says is in the detail). It "
        "stays queued until an operator fixes the queue.",
        "bad",
        commands,
    )


def _evicted(queue, namespace, job):
    why = EVICTED_BECAUSE.get(queue.reason, "")
    said = f" because {why}" if why else ""
    return (
        f"The queue stopped this campaign{said}. It is queued again and resumes from finished pages when "
        "capacity frees up. Nothing to do unless this keeps happening; then an operator should look at the queue.",
        "warn",
        _queue_commands(queue, namespace),
    )


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
    parts = []
    if queue.workload_name:
        parts.append(f"Workload {queue.workload_name}")
    else:
        parts.append("no Workload")
    if queue.queue_name:
        parts.append(f"LocalQueue {queue.queue_name}")
    if queue.cluster_queue:
        parts.append(f"ClusterQueue {queue.cluster_queue}")
    if queue.priority_class:
        parts.append(f"priority class {queue.priority_class}")
    if queue.reason:
        parts.append(f"reason {queue.reason}")
    for fit in queue.fits:
        parts.append(f"{fit.resource} {fit.requested} of quota {fit.quota or 'none'}")
    if queue.pending_in_queue is not None:
        parts.append(f"{queue.pending_in_queue} pending in the ClusterQueue across all namespaces")
    text = ", ".join(parts)
    if queue.message:
        text += f"; Kueue says: {bounded(queue.message)}"
    return text
