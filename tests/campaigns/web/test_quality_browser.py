"""Predicted quality in Chromium against the devstack scene: a scored campaign shows its mean and worst
pages, each opening the ALTO viewer; a campaign without a quality step says nothing about quality."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from campaigns.cluster import reading
from campaigns.store import progress as progress_module
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser


@pytest.fixture
def logged_in(scene, live_server, page, settings, session_key_file):
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    progress_module.clear_cache()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    yield page
    reading.clear_cache()


def card(page, scene, situation):
    return page.locator(f"article[id='card-htr-batch--{scene.scene.situations[situation]}']")


def test_a_scored_campaign_shows_its_mean_and_worst_pages_linked_to_the_alto_viewer(scene, live_server, logged_in):
    page = logged_in
    page.goto(f"{live_server.url}/?open=htr-batch/{scene.scene.situations['quality_scored']}")
    scored = card(page, scene, "quality_scored").locator("section.quality")
    expect(scored.locator("h3")).to_have_text("Predicted quality")
    expect(scored.locator(".quality-figures")).to_contain_text(
        re.compile(r"^\d\.\d\d \((low|fair|good)\) on average over \d+ scored pages? in \d+ volumes?")
    )
    expect(scored).to_contain_text("A prediction by Riksarkivet/htr-quality-estimator-1, not a measurement")
    worst = scored.locator("a.worst-page")
    expect(worst.first).to_have_attribute("href", re.compile(r"^/alto\?src=.+%2Falto%2F\d{4}\.xml$"))
    label = worst.first.inner_text()
    volume, number = re.match(r"(\S+), page (\d{4})", label).groups()
    worst.first.click()
    page.wait_for_url(re.compile(r"/alto\?"))
    expect(page.locator("h1")).to_contain_text(volume)
    expect(page.locator("h1")).to_contain_text(str(int(number)))
    expect(page.locator(".alto-line").first).to_be_visible()


def test_a_campaign_without_a_quality_step_says_nothing_about_quality(scene, live_server, logged_in):
    page = logged_in
    page.goto(f"{live_server.url}/?open=htr-batch/{scene.scene.situations['quality_unscored']}")
    unscored = card(page, scene, "quality_unscored")
    expect(unscored).to_be_visible()
    expect(unscored.locator("section.quality")).to_have_count(0)
    expect(unscored).not_to_contain_text(re.compile("quality", re.IGNORECASE))
    page.goto(f"{live_server.url}/campaigns/htr-batch/{scene.scene.situations['quality_unscored']}")
    expect(page.locator("#pages-to-check")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text(re.compile("quality", re.IGNORECASE))


def test_the_scored_campaign_page_lists_pages_to_check_lowest_first(scene, live_server, logged_in):
    page = logged_in
    page.goto(f"{live_server.url}/campaigns/htr-batch/{scene.scene.situations['quality_scored']}")
    rows = page.locator("#pages-to-check tbody tr")
    expect(rows.first).to_be_visible()
    scores = [float(text) for text in rows.locator(".score").all_inner_texts()]
    assert scores == sorted(scores) and scores
    expect(rows.first.locator("a")).to_have_attribute("href", re.compile(r"^/alto\?src="))
    expect(page.locator("#volume-rows .row-quality").first).to_contain_text("Predicted quality")
