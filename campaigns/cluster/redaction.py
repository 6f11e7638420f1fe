"""A campaign as shown to a person who may not see every campaign of its namespace.

The reading is projected once for everyone, so a queued campaign's queue names the campaigns that
hold the queue's capacity and those ahead of it, whoever they belong to. For a person who may not
see one of them, that name is left out of the queue's lists and only counted (the words then say
"another campaign"), and Kueue's own message (which may name other workloads) is dropped. The
counts stay: a number names nobody.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from campaigns.models import Campaign
from campaigns.models.findings import Finding
from campaigns.wording.words import campaign_label


def job_names(campaigns: list[Campaign]) -> set[str]:
    """The Job names (and campaign names) of these campaigns."""
    names = set()
    for campaign in campaigns:
        names.add(campaign.name)
        names.update(part.job for part in campaign.part_states)
    return names


def shown(campaigns: list[Campaign], seen_jobs: set[str]) -> list[Campaign]:
    """The campaigns with every queue name outside ``seen_jobs`` left out and counted (copies; the
    reading's own objects are shared by everyone and stay as they are)."""
    mark = hashlib.sha256("\n".join(sorted(seen_jobs)).encode()).hexdigest()[:16]
    return [_shown(campaign, seen_jobs, mark) for campaign in campaigns]


def _shown(campaign: Campaign, seen_jobs: set[str], mark: str) -> Campaign:
    queue = campaign.queue
    if queue is None:
        return campaign
    hidden_holders = _hidden(queue.holders, seen_jobs)
    hidden_ahead = _hidden(queue.ahead_names, seen_jobs)
    if not hidden_holders and not hidden_ahead and not queue.message:
        return campaign
    redacted_queue = replace(
        queue,
        holders=[name for name in queue.holders if name in seen_jobs],
        ahead_names=[name for name in queue.ahead_names if name in seen_jobs],
        hidden_holders=queue.hidden_holders + hidden_holders,
        hidden_ahead=queue.hidden_ahead + hidden_ahead,
        message="",
    )
    copy = replace(campaign, queue=redacted_queue, findings=[_without_kueue_words(f) for f in campaign.findings])
    copy.shown_as = mark
    copy.shown_from = campaign  # the reading's own campaign, which outlives the request's copy
    return copy


WITHHELD = "withheld"  # a fact left out for this reader (campaigns.wording.evidence words it)


def _without_kueue_words(finding: Finding) -> Finding:
    """A queue finding without Kueue's own message (in its evidence and values), which may name other
    workloads; what the product parsed from it (a flavor, a taint, a resource) stays."""
    if finding.area != "queue":
        return finding
    messages = [fact for fact in finding.evidence if fact.field.endswith(".message")]
    if not messages:
        return finding
    evidence = tuple(fact for fact in finding.evidence if fact not in messages)
    values = tuple((name, value) for name, value in finding.values if name != "message")
    withheld = tuple(replace(fact, value=WITHHELD) for fact in messages)
    return replace(finding, evidence=evidence, values=values, not_read=finding.not_read + withheld)


def _hidden(job_names: list[str], seen_jobs: set[str]) -> int:
    """How many campaigns (a split campaign's parts counted once) these names hold that the person may not see."""
    return len({campaign_label(name) for name in job_names if name not in seen_jobs})
