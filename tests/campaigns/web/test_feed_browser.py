"""The Feed page in Chromium on the demo scene: reached from the site's navigation, its address made,
copied and revoked by keyboard alone, announced to screen readers, and free of axe violations; the
address it gives works in a reader without cookies until it is replaced or turned off."""

from __future__ import annotations

import urllib.error
import urllib.request

import feedparser
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from campaigns.cluster import reading
from results.accounts import feeds
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def fetched(address: str) -> tuple[int, bytes]:
    """What a feed reader gets: no cookies, a timeout."""
    try:
        with urllib.request.urlopen(address, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def violations(page) -> list[str]:
    found = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_22_AA}, "resultTypes": ["violations"]})
    return [f"{v['id']}: {v['help']}" for v in found.response["violations"]]


def press(page, selector: str) -> None:
    page.locator(selector).focus()
    page.keyboard.press("Enter")


def test_a_person_makes_copies_and_revokes_their_feed_address_by_keyboard(scene, live_server, page, settings,
                                                                            session_key_file):
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    feeds.clear_cache()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    browser_login(page, live_server.url, scene.store.accounts["full"], next_path="/feed?done=off")
    press(page, "#nav-feed")  # the site's navigation has it on every page
    page.wait_for_url(f"{live_server.url}/feed")
    expect(page.locator("#feed-none")).to_be_visible()
    assert violations(page) == []

    press(page, "#feed-new")
    expect(page.locator("#feed-done[role=status]")).to_contain_text("A new feed address was made")
    address = page.locator("#feed-address").inner_text()
    assert address.startswith(f"{live_server.url}/feed/token.atom?token=")
    press(page, "#feed-address-copy")
    expect(page.locator("#feed-address-copy + .copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == address
    assert violations(page) == []

    status, body = fetched(address)
    feed = feedparser.parse(body)
    assert status == 200 and feed.bozo == 0 and feed.version == "atom10"
    assert any(entry.title.endswith("needs attention") for entry in feed.entries)

    press(page, "#feed-new")
    expect(page.locator("#feed-done")).to_contain_text("Any address you had before no longer works")
    newer = page.locator("#feed-address").inner_text()
    assert newer != address
    assert fetched(address)[0] == 410
    assert fetched(newer)[0] == 200

    press(page, "#feed-off")
    expect(page.locator("#feed-done")).to_contain_text("Your feed address was turned off")
    expect(page.locator("#feed-none")).to_be_visible()
    status, body = fetched(newer)
    assert status == 410 and body.decode().startswith("This feed address was turned off or replaced")
    press(page, "#feed-new")  # the page with an address, at a phone's width and in the dark scheme too
    expect(page.locator("#feed-done")).to_contain_text("A new feed address was made")
    page.wait_for_load_state("load")
    for width, scheme in ((390, "light"), (390, "dark"), (1400, "dark")):
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)
        assert violations(page) == [], (width, scheme)
