"""The order of the campaigns list: running first, then in trouble, then finished (newest first),
then queued and paused. A failed campaign counts as in trouble for a while after it finished.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from campaigns.models import (
    FINAL_PHASES,
    QUEUED,
    RUNNING,
    UNKNOWN,
    Campaign,
)

# Failed campaigns count as "in trouble" (sorted up) for this long after they finished.
RECENT_TROUBLE = timedelta(hours=48)


def sort_campaigns(campaigns: Iterable[Campaign], now: datetime | None = None) -> list[Campaign]:
    """Running first, then in trouble, then finished (newest first), then queued and paused."""
    now = now or datetime.now(UTC)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)

    def key(campaign: Campaign):
        newest = campaign.finished_at or campaign.started_at or campaign.created_at or epoch
        created = campaign.created_at or epoch
        if campaign.phase == RUNNING:
            return (0, 0 if campaign.in_trouble else 1, -newest.timestamp(), campaign.name)
        if _troubled_now(campaign, now):
            return (1, 0, -newest.timestamp(), campaign.name)
        if campaign.phase in FINAL_PHASES or campaign.phase == UNKNOWN:
            return (2, 0, -newest.timestamp(), campaign.name)
        return (3, 0 if campaign.phase == QUEUED else 1, created.timestamp(), campaign.name)

    return sorted(campaigns, key=key)


def _troubled_now(campaign: Campaign, now: datetime) -> bool:
    if not campaign.in_trouble:
        return False
    if campaign.phase in FINAL_PHASES:
        if campaign.job_gone:
            return False
        return campaign.finished_at is None or now - campaign.finished_at <= RECENT_TROUBLE
    return True
