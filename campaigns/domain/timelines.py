"""Each campaign's timeline of finished volumes, kept across a namespace's readings. Pure: no I/O, no clock.

The projection sees one moment; pace needs several. The board keeps one `Timelines` per namespace
and, after each projection, calls `hang_on`: every campaign's finished count is added to its
timeline (`pace.observe`, a point only when it moved), and `Campaign.pace` is set from it. A
campaign seen for the first time by this process starts from what its status record kept (key
``pace``, the first part's record), so a restart or a reaped Job keeps the history; the record is
read once per campaign and process, never per reading. What is kept per campaign is a few points,
and a reading costs one look per campaign, whatever its number of volumes.

`Campaign.pace` is set in place: a campaign the projection reused is the same object in the
previous reading, which is no longer served once the new one is published. A campaign that is not
running (finished, queued, paused, gone) keeps the pace it was given while its timeline stays, measured
up to its finish (or its last move), so the many finished campaigns of an archive cost nothing per reading.
"""

from __future__ import annotations

from datetime import datetime

from campaigns.domain.pace import campaign_pace, observe, timeline_from_record
from campaigns.models import RUNNING, Campaign
from campaigns.models.pace import Timeline


class Timelines:
    """The timelines of one namespace's campaigns, by campaign name."""

    def __init__(self) -> None:
        self.kept: dict[str, Timeline | None] = {}  # None: seen, with nothing to keep yet (queued, say)

    def hang_on(
        self, campaigns: list[Campaign], status_records: list[dict], now: datetime, stall_minutes: float | None
    ) -> None:
        """Observe every campaign at `now` and set its `pace`; forget campaigns no longer there."""
        stored: dict[str, dict] | None = None
        kept: dict[str, Timeline | None] = {}
        for campaign in campaigns:
            if campaign.name in self.kept:
                timeline = self.kept[campaign.name]
            else:  # first seen by this process: from its record, once
                if stored is None:
                    stored = _records_by_name(status_records)
                timeline = _restored(campaign, stored)
            running = campaign.phase == RUNNING and not campaign.suspended
            timeline = kept[campaign.name] = _observed(campaign, timeline, now, running)
            if timeline is None:
                campaign.pace = None
                continue
            if not running and campaign.pace is not None and campaign.pace.timeline is timeline:
                continue  # nothing moves and no clock counts: the pace it was given stands
            campaign.pace = campaign_pace(
                timeline,
                now if running else (campaign.finished_at or timeline.moved_at or now),
                total=campaign.counts.total,
                running_pods=campaign.counts.active,
                waiting_pods=campaign.counts.waiting,
                parallelism=campaign.parallelism,
                running=running,
                stall_minutes=stall_minutes,
            )
        self.kept = kept


def _observed(campaign: Campaign, timeline: Timeline | None, now: datetime, running: bool) -> Timeline | None:
    """The timeline after looking at the campaign now: only campaigns with a live Job that started move it;
    one that is not running keeps the very timeline it had while its count stays (its pace is kept too)."""
    if campaign.job_gone or campaign.started_at is None:
        return timeline
    finished = campaign.counts.done + campaign.counts.failed
    if not running and timeline is not None and timeline.finished == finished and timeline.job_uid == campaign.job_uid:
        return timeline
    return observe(timeline, now, finished, campaign.job_uid, campaign.started_at)


def _restored(campaign: Campaign, stored: dict[str, dict]) -> Timeline | None:
    first = campaign.parts[0] if campaign.parts else campaign.name
    data = stored.get(f"campaign-{first}-status") or {}
    return timeline_from_record(data.get("pace"), "" if campaign.job_gone else campaign.job_uid)


def _records_by_name(status_records: list[dict]) -> dict[str, dict]:
    found = {}
    for item in status_records or []:
        if not isinstance(item, dict):
            continue
        metadata = item.get("metadata")
        data = item.get("data")
        if isinstance(metadata, dict) and isinstance(metadata.get("name"), str) and isinstance(data, dict):
            found[metadata["name"]] = data
    return found
