"""The one progress read of a request that shows cards, and the cards built from it.

The cards themselves (campaigns.presentation.cards) read nothing: a view asks the store here, once
per request for every card it shows, and hands the cards the report.
"""

from __future__ import annotations

from campaigns.cluster.reading import served_namespaces
from campaigns.models import Campaign
from campaigns.presentation.cards import Card, CardReads, build_card
from campaigns.store import progress

DONE_ROWS_READS = 12  # done volumes' progress read per campaign page, for their failed pages


def read_cards_progress(
    request, plans: list[CardReads], now, extra_keys: list[str] = (), shown_done: list[str] = ()
) -> progress.ProgressReport:
    """One bounded, parallel read for a whole request: running volumes first, then a few done ones.

    Done volumes' progress is final and cached for an hour, so adding up their pages costs a few
    reads per request until all are cached; running volumes always come first under the cap.
    ``shown_done``: done volumes whose rows a page shows (read first among the done ones, a few more).
    """
    keys = [*extra_keys, *(v.progress_key for plan in plans for v in plan.active)]
    done_keys = [*shown_done, *(v.progress_key for plan in plans for v in plan.done)]
    if not keys and not done_keys:
        return progress.ProgressReport()
    extra_limit = DONE_ROWS_READS if shown_done else progress.EXTRA_READS_PER_REQUEST
    return progress.read_progress(request, keys, now, extra_keys=done_keys, extra_limit=extra_limit)


def several_namespaces() -> bool:
    """Whether cards name their namespace: only where the site shows more than one."""
    return len(served_namespaces()) > 1


def build_cards(request, campaigns: list[Campaign], now, stale: bool) -> list[Card]:
    """Cards for campaigns, with every progress read of the request done at once."""
    plans = [CardReads.of(c) for c in campaigns]
    report = read_cards_progress(request, plans, now)
    several = several_namespaces()
    return [build_card(c, plan, report, now, several, stale) for c, plan in zip(campaigns, plans, strict=True)]
