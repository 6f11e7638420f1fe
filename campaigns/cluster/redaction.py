"""A campaign as shown to a person who may not see every campaign of its namespace.

The reading is projected once for everyone, so a queued campaign's queue names the campaigns that
hold the queue's capacity and those ahead of it, whoever they belong to. For a person who may not
see one of them, that name is replaced by "another campaign" in the sentences, left out of the
lists the read API gives, and Kueue's own message (which may name other workloads) is dropped.
The counts stay: a number names nobody.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from campaigns.models import Campaign, Sentence
from campaigns.wording.queue import SOMEONE_ELSE
from campaigns.wording.words import campaign_label


def job_names(campaigns: list[Campaign]) -> set[str]:
    """The Job names (and campaign names) of these campaigns."""
    names = set()
    for campaign in campaigns:
        names.add(campaign.name)
        names.update(part.job for part in campaign.part_states)
    return names


def shown(campaigns: list[Campaign], seen_jobs: set[str]) -> list[Campaign]:
    """The campaigns with every queue name outside ``seen_jobs`` replaced (copies; the reading's own
    objects are shared by everyone and stay as they are)."""
    mark = hashlib.sha256("\n".join(sorted(seen_jobs)).encode()).hexdigest()[:16]
    return [_shown(campaign, seen_jobs, mark) for campaign in campaigns]


def _shown(campaign: Campaign, seen_jobs: set[str], mark: str) -> Campaign:
    queue = campaign.queue
    if queue is None:
        return campaign
    hidden = [name for name in (*queue.holders, *queue.ahead_names) if name not in seen_jobs]
    if not hidden and not queue.message:
        return campaign
    labels = sorted({campaign_label(name) for name in hidden} | set(hidden), key=len, reverse=True)
    redacted_queue = replace(
        queue,
        holders=[name for name in queue.holders if name in seen_jobs],
        ahead_names=[name for name in queue.ahead_names if name in seen_jobs],
        message="",
        sentence=_without(queue.sentence, labels),
    )
    copy = replace(campaign, queue=redacted_queue, sentence=_without(campaign.sentence, labels))
    copy.shown_as = mark
    copy.shown_from = campaign  # the reading's own campaign, which outlives the request's copy
    return copy


def _without(sentence: Sentence | None, labels: list[str]) -> Sentence | None:
    if sentence is None:
        return None

    def scrub(text: str) -> str:
        for label in labels:
            text = text.replace(label, SOMEONE_ELSE)
        return text

    return replace(
        sentence,
        text=scrub(sentence.text),
        detail=scrub(sentence.detail),
        commands=tuple(scrub(command) for command in sentence.commands),
    )

