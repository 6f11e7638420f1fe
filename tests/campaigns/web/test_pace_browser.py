"""A stalled campaign in Chromium against the devstack scene: its card turns to "needs attention" once the
stall time passes, with the sentence naming what moves and what does not, and what to check first.

The scene's `stalled` campaign has two pods running, no volume finished and no page written since a few
minutes after its start (over an hour ago). The page is first seen with a stall time far away; then the
stall time is set just past the campaign's age, and the card turns by itself, without a reload.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from campaigns.cluster import board, reading
from campaigns.presentation import cards
from campaigns.store import progress as progress_module
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser

TURNS_AFTER_MINUTES = 0.1  # the stall time is set to the campaign's age plus this, once the page shows it calm

# A time of another day than the page's now carries its day ("6 Dec 23:16 UTC"): just after midnight the
# scene's times are yesterday's.
ANOTHER_DAY = r"(?:\d{1,2} [A-Z][a-z]{2} )?"


@pytest.fixture
def stalled_page(scene, live_server, page, settings, session_key_file, monkeypatch):
    """A logged-in browser; the board projects again every second, as it does when the simulator moves."""
    monkeypatch.setattr(cards, "POLL_SECONDS", 2)
    monkeypatch.setattr(board, "REPROJECT_SECONDS", 1.0)
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    settings.HTRFLOW_STALL_MINUTES = 10_000  # calm while the page is first seen
    reading.clear_cache()
    progress_module.clear_cache()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    yield page, scene.scene.campaign_of("stalled")
    reading.clear_cache()


def test_a_stalled_campaign_turns_to_needs_attention_with_what_moves_and_what_to_check(
    stalled_page, live_server, settings
):
    page, stalled = stalled_page
    page.goto(f"{live_server.url}/?open=htr-batch/{stalled.name}")
    card = page.locator(f"article[id='card-htr-batch--{stalled.name}']")
    expect(card).to_be_visible()
    pace = card.locator(".reason.pace")
    expect(pace).to_have_text("Too early to say when it will finish: no volume finished so far.")
    expect(card.locator(".chip.attention")).to_have_count(0)

    # The stall time is set just past the campaign's age: it stalls a few seconds from now, and the
    # open page turns by itself (the board's next reading, then the list's poll).
    age = (datetime.now(UTC) - stalled.started).total_seconds() / 60
    settings.HTRFLOW_STALL_MINUTES = age + TURNS_AFTER_MINUTES
    expect(card.locator(".chip.attention")).to_contain_text("Needs attention", timeout=90_000)
    newest = max(stalled.volumes[:2], key=lambda v: v.updated_at)
    expect(pace).to_have_class(re.compile(r"\bstalled\b"))
    expect(pace).to_contain_text(
        re.compile(
            r"^Stalled: 2 pods running, no volume finished for \d[^:]* and no page for \d[^:]*: "
            rf"the last page was finished at {ANOTHER_DAY}{newest.updated_at:%H:%M} UTC by {newest.id}, "
            r"which has written none since\. Its run log says why\.$"
        )
    )
    row = page.locator(f"li[id='row-htr-batch--{stalled.name}']")
    expect(row.locator(".row-sentence")).to_have_text(
        re.compile(rf"^Stalled: no volume finished since {ANOTHER_DAY}{stalled.started:%H:%M} UTC while 2 pods run\.$")
    )
    expect(page.locator("#state-attention")).to_be_visible()
