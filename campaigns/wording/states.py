"""The campaign's state chip: its phase in words, with the reason it is in that phase."""

from __future__ import annotations

from campaigns.models import FAILED, PARTIALLY_FAILED, PAUSED, QUEUED, RUNNING, SUCCEEDED, Campaign, Sentence, bounded
from campaigns.models.findings import NOBODY, Finding
from campaigns.wording.findings import finding_sentence
from campaigns.wording.queue import queue_sentence
from campaigns.wording.words import QUOTE_LIMIT, plural


def campaign_sentence(campaign: Campaign) -> Sentence:
    """The state chip's sentence: the phase with its reason."""
    counts = campaign.counts
    gone = " Its Job has been removed; this card is kept from the campaign's records." if campaign.job_gone else ""
    if campaign.phase == RUNNING:
        return _running(campaign)
    if campaign.phase == SUCCEEDED:
        return Sentence(f"Finished: all {counts.total} volumes done.{gone}", detail=job_detail(campaign), tone="ok")
    if campaign.phase == PARTIALLY_FAILED:
        return Sentence(
            f"Finished with problems: {counts.done} of {counts.total} volumes done, {counts.failed} failed for good. "
            f"Nothing will run those again in this campaign: fix their causes and add them to a new campaign.{gone}",
            detail=job_detail(campaign),
            tone="bad",
        )
    if campaign.phase == FAILED:
        why = "see the problems below"
        if not campaign.failures and campaign.job_message:
            why = f"Kubernetes ended the Job with: {bounded(campaign.job_message, QUOTE_LIMIT)}"
        return Sentence(
            f"Failed: the campaign stopped with {counts.done} of {counts.total} volumes done. Nothing will run the "
            f"rest in this campaign: fix the cause ({why}) and add the volumes to a new campaign.{gone}",
            detail=job_detail(campaign),
            tone="bad",
        )
    if campaign.phase in (QUEUED, PAUSED):
        return _held(campaign)
    if campaign.job_gone and not campaign.stored_phase:
        return Sentence(
            "There is no Job for this campaign, only its volume list: the Job was removed, or it has not been created "
            "yet (an apply holds a campaign back while another one on the same pipeline still runs any of its "
            "volumes). If it does not appear, an operator should apply the campaigns again.",
            detail=job_detail(campaign),
            tone="idle",
        )
    if campaign.job_gone:
        return Sentence(
            "Its Job has been removed and the last recorded state was not final, so how it ended is not known. "
            "The run logs of its volumes tell more.",
            detail=job_detail(campaign),
            tone="idle",
        )
    return Sentence("The state of this campaign is not known.", detail=job_detail(campaign), tone="idle")


def _running(campaign: Campaign) -> Sentence:
    counts = campaign.counts
    text = f"Running: {counts.done} of {counts.total} volumes done, {counts.processing} being processed"
    if counts.waiting:
        text += f", {counts.waiting} waiting for the model cache"
    text += "."
    if counts.failed:
        text += f" {plural(counts.failed, 'volume')} failed for good; see the problems below."
    tone = "warn" if counts.failed else "info"
    if campaign.warmup is not None and campaign.warmup.state == "failed":
        text += " The model cache is not ready, so volumes cannot start; see the warm-up."
        tone = "bad"
    return Sentence(text, detail=job_detail(campaign), tone=tone)


def _held(campaign: Campaign) -> Sentence:
    """A queued or paused campaign: its queue's sentence when the queue said why."""
    counts = campaign.counts
    if campaign.phase == QUEUED:
        prefix = "Queued"
    elif counts.done or counts.failed:
        prefix = f"Paused after {counts.done} of {counts.total} volumes"
    else:
        prefix = "Paused before any volume finished"
    found = held_by(campaign)
    if found is not None:
        inner = finding_sentence(found)
        return Sentence(f"{prefix}. {inner.text}", detail=inner.detail, commands=inner.commands, tone=inner.tone)
    if campaign.queue is not None:
        inner = queue_sentence(campaign.queue, campaign.namespace)
        return Sentence(f"{prefix}. {inner.text}", detail=inner.detail, commands=inner.commands, tone=inner.tone)
    return Sentence(f"{prefix}: waiting for the queue to admit it.", detail=job_detail(campaign), tone="idle")


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
    if campaign.parts:
        parts.append(("Jobs " if len(campaign.parts) > 1 else "Job ") + ", ".join(campaign.parts))
    if campaign.workload_name:
        parts.append(f"Workload {campaign.workload_name}")
    if campaign.queue_name:
        parts.append(f"LocalQueue {campaign.queue_name}")
    if campaign.cluster_queue_name:
        parts.append(f"ClusterQueue {campaign.cluster_queue_name}")
    text = ", ".join(parts)
    if campaign.job_message:
        text += f"; Job condition: {bounded(campaign.job_message)}"
    return text
