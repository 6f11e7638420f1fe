"""The campaign feed as a feed reader shows it: one entry per campaign event. Pure (the times the site
had to note itself come from a ``noticed`` function the view passes in).

Events, from the reading the pages use (the same notion of "needs attention" as the list and cards,
``Campaign.in_trouble``, with the list line's own sentence, so whatever makes a campaign need
attention there reaches the feed too):

- a campaign that has not finished and needs attention: one entry per cause (failed volumes, the
  model-cache warm-up, the queue, or anything else the product counts as trouble), saying why;
- a campaign that finished in the last ``FINISHED_DAYS`` days: one entry with how it ended.

An entry's id is a UUID made from the campaign, its Job's uid and the event, so it stays the same
from one fetch to the next and a reader shows it once; a new run of the campaign (a new Job) is a
new entry. Its time is when the event happened where the campaign says (when the first failed
volume stopped, when the queue began to refuse, when the campaign finished), else when the site
first noticed it. The feed shows what is so now: an event that is over leaves the feed, and the
reader keeps what it already fetched.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from campaigns.models import Campaign, Volume
from campaigns.models.findings import NOBODY
from campaigns.presentation.overview import Match, row
from campaigns.wording import feed as words
from campaigns.wording.findings import finding_sentence
from campaigns.wording.queue import queue_sentence
from campaigns.wording.states import HELD_AREAS, WARMUP_AREAS, held_by
from campaigns.wording.warmup import campaign_warmup_sentence
from core.text import escape_unsafe, reveal_invisible

FINISHED_DAYS = 14
MOST_ENTRIES = 100
# The namespace of the entries' UUIDs (uuid5): fixed, so an entry keeps its id across versions and replicas.
ENTRY_IDS = uuid.UUID("6f1c9a3e-6a57-4c55-9b0e-2f1f3c4a8d10")


def feed_text(text: str) -> str:
    """Text as a feed carries it: invisible characters shown as on pages, control characters (which XML
    may not hold at all) as escapes, on one line."""
    return escape_unsafe(reveal_invisible(text or ""))


@dataclass(frozen=True)
class Entry:
    id: str  # urn:uuid:...
    kind: str  # "attention" or "finished"
    label: str
    title: str
    summary: str
    updated: datetime
    url: str
    volume_url: str = ""  # the page of the volume the summary names, if it names one

    @property
    def updated_text(self) -> str:
        return atom_time(self.updated)


def atom_time(moment: datetime) -> str:
    """An RFC 3339 time in UTC, to the second, as Atom's date constructs want it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def feed_id(person: str) -> str:
    """The feed's own id: one per person, the same by session and by token."""
    return f"urn:uuid:{uuid.uuid5(ENTRY_IDS, 'feed/' + person)}"


def _run_of(campaign: Campaign) -> str:
    started = campaign.created_at or campaign.started_at
    return campaign.job_uid or (started.isoformat() if started else "")


def _event(campaign: Campaign, what: str) -> str:
    return f"{campaign.namespace}/{campaign.name}/{_run_of(campaign)}/{what}"


def _causes(campaign: Campaign) -> list[tuple[str, datetime | None, str]]:
    """(cause, when it began if the campaign says, why) of each reason a running campaign needs attention."""
    causes = []
    failed = [v for v in campaign.failures if v.state == "failed"]
    if campaign.counts.failed > 0 or failed:
        times = [v.reason.finished_at for v in failed if v.reason is not None and v.reason.finished_at]
        causes.append(("failed-volumes", min(times) if times else None, words.failed_volumes_why(campaign)))
    warmup = campaign.warmup
    if warmup is not None and (warmup.state == "failed" or warmup.marker_missing):
        when = warmup.reason.finished_at if warmup.reason is not None else None
        causes.append(("warmup", when, words.sentence_or(campaign_warmup_sentence(campaign), words.SOMETHING)))
    queue = campaign.queue
    held = held_by(campaign)
    if held is not None and held.actor != NOBODY and not held.chosen:
        causes.append((held.code, held.since or (queue.since if queue else None), words.sentence_or(
            finding_sentence(held), words.SOMETHING)))
    elif queue is not None and queue.troubled:
        said = queue_sentence(queue, campaign.namespace)
        causes.append((f"queue-{queue.kind}", queue.since, words.sentence_or(said, words.SOMETHING)))
    for finding in campaign.findings:  # the causes found that no line above says, which need a person
        if finding.actor != NOBODY and finding.area not in (*HELD_AREAS, *WARMUP_AREAS):
            causes.append((finding.code, finding.since, words.sentence_or(finding_sentence(finding), words.SOMETHING)))
    if campaign.stalled:
        # Its own time, and its own entry each time it stalls anew (a stall is the cause most likely to
        # come back within one Job).
        since = campaign.pace.stalled_since
        line = row(Match(campaign), "", False).sentence
        causes.append((f"stalled-{int(since.timestamp())}", since, _ended(line) if line else words.SOMETHING))
    if not causes:
        line = row(Match(campaign), "", False).sentence
        causes.append(("other", None, _ended(line) if line else words.SOMETHING))
    return causes


def _first_failed(campaign: Campaign) -> Volume | None:
    """The volume a failed-volumes entry names (words.failed_volumes_why names the same one)."""
    return next((v for v in campaign.failures if v.state == "failed"), None)


def _ended(text: str) -> str:
    return text if text.rstrip().endswith((".", "!", "?", "…")) else text.rstrip() + "."


def _entry(kind: str, event: str, title: str, summary: str, when: datetime, url: str, volume_url: str = "") -> Entry:
    return Entry(
        id=f"urn:uuid:{uuid.uuid5(ENTRY_IDS, event)}",
        kind=kind,
        label=str(words.KIND_LABELS[kind]),
        title=feed_text(str(title)),
        summary=feed_text(str(summary)),
        updated=when,
        url=url,
        volume_url=volume_url,
    )


def entries(
    campaigns: list[Campaign],
    now: datetime,
    url: Callable[[Campaign], str],
    noticed: Callable[[str], float],
    volume_url: Callable[[Campaign, Volume], str] | None = None,
) -> list[Entry]:
    """The feed's entries for these campaigns (those the person may see), newest first, at most
    ``MOST_ENTRIES``. ``noticed(event)`` is when the site first noticed an event (epoch seconds);
    ``volume_url(campaign, volume)`` the page of a volume an entry names (the first failed one)."""

    def when(event: str, known: datetime | None) -> datetime:
        return known if known is not None else datetime.fromtimestamp(noticed(event), UTC)

    found: list[Entry] = []
    for campaign in campaigns:
        if campaign.is_final:
            event = _event(campaign, "finished")
            at = when(event, campaign.finished_at)
            if now - at <= timedelta(days=FINISHED_DAYS):
                line = row(Match(campaign), "", False).sentence
                found.append(_entry("finished", event, words.finished_title(campaign),
                                    words.outcome(campaign, line), at, url(campaign)))
        elif campaign.in_trouble:
            for cause, known, why in _causes(campaign):
                event = _event(campaign, f"attention/{cause}")
                named = _first_failed(campaign) if cause == "failed-volumes" and volume_url else None
                found.append(_entry("attention", event, words.attention_title(campaign), why,
                                    when(event, known), url(campaign), volume_url(campaign, named) if named else ""))
    found.sort(key=lambda entry: (entry.updated, entry.id), reverse=True)
    return found[:MOST_ENTRIES]
