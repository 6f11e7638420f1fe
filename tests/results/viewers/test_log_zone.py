"""The run log says which zone its own lines' times are in (UTC, as the run wrote them) and which the page's
other times are in (the reader's); the browser tells the site its zone on the first page it opens."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from devstack.content import iiif_json, manifest_json, run_log
from tests.fixtures.session import browser_login

START = datetime(2026, 12, 2, 10, tzinfo=UTC)
NOTE = "The times on the log&#x27;s lines are UTC, as the run wrote them; this page&#x27;s other times are in {zone}."


def test_the_log_names_the_zone_of_its_lines_and_of_the_page(results_client, volume):
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert NOTE.format(zone="UTC") in page  # the tests' site default
    results_client.cookies["tz"] = "America/New_York"
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert NOTE.format(zone="America/New_York") in page
    assert page.index('id="log-zone"') < page.index('id="log-view"'), "said above the lines"


@pytest.mark.browser
def test_a_browser_in_new_york_is_read_new_york_times_from_its_second_page(
    browser, live_server, store, store_prefix, session_key_file, settings
):
    results = live_server.url + "/results"
    settings.HTRFLOW_RESULTS_URL = results
    base = f"{store_prefix}p/V1"
    store.put(f"{base}.txt", run_log("V1", "p", pages=2, outcome="complete", start=START))
    store.put(f"{base}/manifest.json", manifest_json("V1", "p", pages=2))
    store.put(f"{base}/iiif.json", iiif_json("V1", "p", pages=2, results_url=results, namespace=store.namespace))
    context = browser.new_context(timezone_id="America/New_York")
    try:
        page = context.new_page()
        browser_login(page, live_server.url, store.accounts["full"])  # the login page tells the zone
        assert {"name": "tz", "value": "America/New_York"}.items() <= next(
            cookie for cookie in context.cookies() if cookie["name"] == "tz"
        ).items()
        page.goto(f"{live_server.url}/log?log={quote(f'{results}/{base}.txt', safe='')}")
        expect(page.locator("#log-zone")).to_contain_text("this page's other times are in America/New_York.")
    finally:
        context.close()
