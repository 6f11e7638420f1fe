"""No raw bidirectional or zero-width control in any attribute of any page of the demo's journey (issue 39):
login, the list, a campaign, a failed volume's run log, an ALTO page and the feed page, each also asked with a
search holding such characters, so the pages echo them into fields, labels and tooltips. Read in the browser:
every attribute of every element, the head's included, as the DOM holds it (character references decoded)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.core.cache import cache

from campaigns.cluster import reading
from results.accounts import feeds
from tests.fixtures.attributes import RAW_IN_DOM
from tests.fixtures.session import browser_login
from tests.test_journey_languages import journey

pytestmark = pytest.mark.browser

# "report<RLO>gpj.exe" and an isolate, a mark and a zero-width space: what a search may carry into a page.
HOSTILE = "report\u202egpj.exe\u2066x\u200e\u200b"


@pytest.fixture
def page(browser, scene, live_server, settings, session_key_file):
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    feeds.clear_cache()
    cache.clear()
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()
        reading.clear_cache()


def test_no_page_of_the_journey_holds_a_raw_invisible_character_in_an_attribute(page, scene, live_server):
    base = live_server.url
    page.goto(f"{base}/login")
    assert page.evaluate(RAW_IN_DOM) == [], "the login page"
    browser_login(page, base, scene.store.accounts["full"])
    walked = 0
    for name, address in journey(scene, base):
        joiner = "&" if "?" in address else "?"
        for url in (address, f"{address}{joiner}q={quote(HOSTILE)}"):
            response = page.goto(url)
            assert response is not None and response.status < 500, url
            found = page.evaluate(RAW_IN_DOM)
            assert found == [], f"{name} ({url}): {found}"
            walked += 1
    assert walked == 10
    # The search really echoed the characters (marked) into the last page's field: the walk looked at them.
    page.goto(f"{base}/?q={quote(HOSTILE)}")
    assert "⟨U+202E⟩" in (page.locator("#list-q").input_value())
