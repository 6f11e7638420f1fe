"""Causes written in the campaign's own file (contracts §6): paused in git, or a ``priority`` that names a
WorkloadPriorityClass the cluster does not have. The person who wrote the campaign acts on both.

A paused campaign reads as paused from its Workload (``spec.active: false``, or its ``Evicted`` condition
with reason ``Deactivated``): the apply sets it from ``suspend: true``. A missing priority class leaves a
Job and no Workload: the Job's ``kueue.x-k8s.io/priority-class`` label is compared with the cluster's
WorkloadPriorityClasses when those may be read, else an Event that says the class was not found is the
evidence (and the list is said as not read).
"""

from __future__ import annotations

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.commands import APPLY, change
from campaigns.domain.diagnosis.objects import NOT_READABLE, as_str, condition, get_path, labels_of, name_of, ref
from campaigns.models import bounded, parse_time
from campaigns.models.findings import AUTHOR, Fact, Finding, Subject, values
from core.contract import LABEL_CAMPAIGN, LABEL_PRIORITY_CLASS

CLASSES_SHOWN = 20  # priority classes named at most (a cluster has a handful)


def campaign_file(job: dict) -> str:
    """The campaign file the person who wrote it edits: ``campaigns/<campaign>.yaml`` (contracts §1)."""
    return f"campaigns/{as_str(labels_of(job).get(LABEL_CAMPAIGN)) or name_of(job)}.yaml"


def _subject(namespace: str, job: dict) -> Subject:
    return Subject("campaign", namespace, campaign=as_str(labels_of(job).get(LABEL_CAMPAIGN)) or name_of(job))


def paused(namespace: str, job: dict, workload: dict | None) -> Finding | None:
    """``queue.paused`` when the Workload says the campaign was paused by its file; None otherwise."""
    if not workload:
        return None
    workload_ref = ref("Workload", name_of(workload))
    evidence, since = [], None
    if get_path(workload, "spec", "active") is False:
        evidence.append(Fact(workload_ref, "spec.active", False))
    evicted = condition(workload, "Evicted") or {}
    if evicted.get("status") == "True" and as_str(evicted.get("reason")) in ("Deactivated", "InactiveWorkload"):
        evidence.append(Fact(workload_ref, "status.conditions[Evicted].reason", as_str(evicted.get("reason"))))
        since = parse_time(evicted.get("lastTransitionTime"))
    if not evidence:
        return None
    file = campaign_file(job)
    return Finding(
        code=codes.QUEUE_PAUSED,
        subject=_subject(namespace, job),
        actor=AUTHOR,
        values=values(job=name_of(job), workload=name_of(workload), file=file),
        evidence=(Fact(ref("Job", name_of(job)), "spec.suspend", get_path(job, "spec", "suspend")), *evidence),
        fix=(change("campaign.resume", file=file, key="suspend", value=False), APPLY),
        since=since,
        chosen=True,
    )


def missing_priority_class(
    namespace: str, job: dict, priority_classes: list[str] | None, events: list[dict] | None
) -> Finding | None:
    """``queue.no_priority_class`` when the Job's priority class is not one the cluster has."""
    wanted = bounded(as_str(labels_of(job).get(LABEL_PRIORITY_CLASS)), 253)
    if not wanted:
        return None
    label = Fact(ref("Job", name_of(job)), f"metadata.labels[{LABEL_PRIORITY_CLASS}]", wanted)
    known = tuple(sorted(priority_classes or ()))[:CLASSES_SHOWN]
    not_read: tuple[Fact, ...] = ()
    if priority_classes is not None:
        if wanted in priority_classes:
            return None
        said = Fact("WorkloadPriorityClasses", "metadata.name", known)
    else:
        event = _event_saying_missing(events, name_of(job))
        if event is None:
            return None
        said = Fact(ref("Event", name_of(event)), "message", bounded(as_str(event.get("message"))))
        not_read = (Fact("WorkloadPriorityClasses", "metadata.name", NOT_READABLE),)
    file = campaign_file(job)
    return Finding(
        code=codes.QUEUE_NO_PRIORITY_CLASS,
        subject=_subject(namespace, job),
        actor=AUTHOR,
        values=values(
            job=name_of(job), priority_class=wanted, known_classes=None if not_read else known, file=file
        ),
        evidence=(label, said),
        not_read=not_read,
        fix=(change("campaign.priority", file=file, key="priority", value=known or None), APPLY),
    )


def _event_saying_missing(events: list[dict] | None, job_name: str) -> dict | None:
    """An Event about the Job that says its priority class was not found (Kueue's webhook or controller)."""
    for event in events or ():
        if not isinstance(event, dict) or as_str(get_path(event, "involvedObject", "name")) != job_name:
            continue
        message = as_str(event.get("message")).lower()
        if "priority" in message and ("not found" in message or "doesn't exist" in message):
            return event
    return None

