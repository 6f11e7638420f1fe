"""The campaign's state chip: its phase in words, with the reason it is in that phase."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.models import FAILED, PARTIALLY_FAILED, PAUSED, QUEUED, RUNNING, SUCCEEDED, Campaign, Sentence, bounded
from campaigns.models.findings import NOBODY, Finding
from campaigns.wording.findings import finding_sentence
from campaigns.wording.queue import queue_sentence
from campaigns.wording.words import QUOTE_LIMIT


def campaign_sentence(campaign: Campaign) -> Sentence:
    """The state chip's sentence: the phase with its reason."""
    if campaign.phase == RUNNING:
        return _running(campaign)
    if campaign.phase in (SUCCEEDED, PARTIALLY_FAILED, FAILED):
        return _ended(campaign)
    if campaign.phase in (QUEUED, PAUSED):
        return _held(campaign)
    if campaign.job_gone and not campaign.stored_phase:
        return Sentence(
            _(
                "There is no Job for this campaign, only its volume list: the Job was removed, or it has not been "
                "created yet (an apply holds a campaign back while another one on the same pipeline still runs any "
                "of its volumes). If it does not appear, an operator should apply the campaigns again."
            ),
            detail=job_detail(campaign),
            tone="idle",
        )
    if campaign.job_gone:
        return Sentence(
            _(
                "Its Job has been removed and the last recorded state was not final, so how it ended is not known. "
                "The run logs of its volumes tell more."
            ),
            detail=job_detail(campaign),
            tone="idle",
        )
    return Sentence(_("The state of this campaign is not known."), detail=job_detail(campaign), tone="idle")


def _ended(campaign: Campaign) -> Sentence:
    """A finished campaign: how it ended, and that its card is kept from records once its Job is gone."""
    counts = campaign.counts
    if campaign.phase == SUCCEEDED:
        text = ngettext("Finished: {total} volume done.", "Finished: all {total} volumes done.", counts.total).format(
            total=counts.total
        )
        tone = "ok"
    elif campaign.phase == PARTIALLY_FAILED:
        text = ngettext(
            # Translators: {done} of {total} volumes done, {failed} of them failed for good.
            "Finished with problems: {done} of {total} volume done, {failed} failed for good. Nothing will run those "
            "again in this campaign: fix their causes and add them to a new campaign.",
            "Finished with problems: {done} of {total} volumes done, {failed} failed for good. Nothing will run "
            "those again in this campaign: fix their causes and add them to a new campaign.",
            counts.total,
        ).format(done=counts.done, total=counts.total, failed=counts.failed)
        tone = "bad"
    else:
        if not campaign.failures and campaign.job_message:
            # Translators: {message} is how Kubernetes ended the Job, quoted as it is (DeadlineExceeded: …).
            why = _("Kubernetes ended the Job with: {message}").format(
                message=bounded(campaign.job_message, QUOTE_LIMIT)
            )
        else:
            why = _("see the problems below")
        text = ngettext(
            # Translators: {done} of {total} volumes were done; {why} says where the cause is ("see the problems
            # below").
            "Failed: the campaign stopped with {done} of {total} volume done. Nothing will run the rest in this "
            "campaign: fix the cause ({why}) and add the volumes to a new campaign.",
            "Failed: the campaign stopped with {done} of {total} volumes done. Nothing will run the rest in this "
            "campaign: fix the cause ({why}) and add the volumes to a new campaign.",
            counts.total,
        ).format(done=counts.done, total=counts.total, why=why)
        tone = "bad"
    if campaign.job_gone:
        text = " ".join((text, _("Its Job has been removed; this card is kept from the campaign's records.")))
    return Sentence(text, detail=job_detail(campaign), tone=tone)


def _running(campaign: Campaign) -> Sentence:
    counts = campaign.counts
    figures = {"done": counts.done, "total": counts.total, "processing": counts.processing, "waiting": counts.waiting}
    if counts.waiting:
        text = ngettext(
            # Translators: {done} of {total} volumes done, {processing} being processed, {waiting} waiting for the
            # model cache.
            "Running: {done} of {total} volume done, {processing} being processed, {waiting} waiting for the model "
            "cache.",
            "Running: {done} of {total} volumes done, {processing} being processed, {waiting} waiting for the model "
            "cache.",
            counts.total,
        ).format(**figures)
    else:
        text = ngettext(
            # Translators: {done} of {total} volumes done, {processing} being processed now.
            "Running: {done} of {total} volume done, {processing} being processed.",
            "Running: {done} of {total} volumes done, {processing} being processed.",
            counts.total,
        ).format(**figures)
    said = [text]
    if counts.failed:
        said.append(
            ngettext(
                "{count} volume failed for good; see the problems below.",
                "{count} volumes failed for good; see the problems below.",
                counts.failed,
            ).format(count=counts.failed)
        )
    tone = "warn" if counts.failed else "info"
    if campaign.warmup is not None and campaign.warmup.state == "failed":
        said.append(_("The model cache is not ready, so volumes cannot start; see the warm-up."))
        tone = "bad"
    return Sentence(" ".join(said), detail=job_detail(campaign), tone=tone)


def _held(campaign: Campaign) -> Sentence:
    """A queued or paused campaign: its queue's sentence when the queue said why."""
    found = held_by(campaign)
    inner = finding_sentence(found) if found is not None else None
    if inner is None and campaign.queue is not None:
        inner = queue_sentence(campaign.queue, campaign.namespace)
    if inner is not None:
        text = " ".join((_held_state(campaign), inner.text))
        return Sentence(text, detail=inner.detail, commands=inner.commands, tone=inner.tone)
    return Sentence(_held_state(campaign, waiting=True), detail=job_detail(campaign), tone="idle")


def _held_state(campaign: Campaign, waiting: bool = False) -> str:
    """``Queued.``, ``Paused after 3 of 12 volumes.``; ``waiting``: with no reason from the queue, that it waits
    for the queue (``Queued: waiting for the queue to admit it.``)."""
    counts = campaign.counts
    if campaign.phase == QUEUED:
        return _("Queued: waiting for the queue to admit it.") if waiting else _("Queued.")
    if counts.done or counts.failed:
        if waiting:
            said = ngettext(
                # Translators: {done} of {total} volumes finished before the campaign was paused.
                "Paused after {done} of {total} volume: waiting for the queue to admit it.",
                "Paused after {done} of {total} volumes: waiting for the queue to admit it.",
                counts.total,
            )
        else:
            said = ngettext(
                # Translators: {done} of {total} volumes finished before the campaign was paused.
                "Paused after {done} of {total} volume.",
                "Paused after {done} of {total} volumes.",
                counts.total,
            )
        return said.format(done=counts.done, total=counts.total)
    if waiting:
        return _("Paused before any volume finished: waiting for the queue to admit it.")
    return _("Paused before any volume finished.")


# Findings that say why a queued or paused campaign does not run (its state chip words them).
HELD_AREAS = ("queue", "kueue")
# Findings the warm-up chip words, and the card's note on volumes waiting for the cache.
WARMUP_AREAS = ("warmup", "cache")


def held_by(campaign: Campaign) -> Finding | None:
    """The finding that says why the queue holds the campaign back and that a person has to act on, if the
    product found one. A campaign that only waits its turn (nobody acts) keeps the queue's own sentence,
    which says how many wait ahead and who holds the capacity."""
    return next((f for f in campaign.findings if f.area in HELD_AREAS and f.actor != NOBODY), None)


def job_detail(campaign: Campaign) -> str:
    """The operator's detail of a campaign: its Jobs, Workload, queues and the Job's own condition."""
    parts = []
    if campaign.parts:  # Kubernetes object kinds and names, kept as they are
        parts.append(("Jobs " if len(campaign.parts) > 1 else "Job ") + ", ".join(campaign.parts))
    if campaign.workload_name:
        parts.append(f"Workload {campaign.workload_name}")
    if campaign.queue_name:
        parts.append(f"LocalQueue {campaign.queue_name}")
    if campaign.cluster_queue_name:
        parts.append(f"ClusterQueue {campaign.cluster_queue_name}")
    text = ", ".join(parts)
    if campaign.job_message:
        # Translators: {detail} lists the campaign's Kubernetes objects; {message} is the Job's own condition, quoted.
        text = _("{detail}; Job condition: {message}").format(detail=text, message=bounded(campaign.job_message))
    return text
