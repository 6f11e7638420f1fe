"""The campaign pages in Chromium against the devstack scene: what a person sees and what moves by itself."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from campaigns import kube as kube_module
from campaigns import views
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser


@pytest.fixture
def campaigns_page(scene, live_server, page, settings, session_key_file):
    """A logged-in browser on the campaign list, with snapshots short enough to see the simulator move."""
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    kube_module.clear_cache()
    views.clear_projections()
    from django.core.cache import cache

    cache.clear()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    page.goto(live_server.url + "/")
    yield page
    kube_module.clear_cache()


def card(page, scene, situation):
    name = scene.scene.situations[situation]
    return page.locator(f"article[id='card-htr-batch--{name}']")


def test_the_list_shows_a_card_for_every_campaign_situation(scene, campaigns_page):
    for situation in ("running_mixed", "queued_turn", "succeeded", "warmup_failed", "job_gone", "paused_after_some"):
        expect(card(campaigns_page, scene, situation)).to_be_visible()
    expect(campaigns_page.locator("h1")).to_have_text("Campaigns")


def test_a_failed_volume_row_carries_its_sentence_and_run_log_link(scene, campaigns_page):
    parish = card(campaigns_page, scene, "permanent_setup")
    rows = parish.locator("li.problem")
    expect(rows.first).to_be_visible()
    first = rows.first
    expect(first.locator(".vol-sentence")).not_to_be_empty()
    link = first.locator("a.log-link")
    expect(link).to_have_attribute("href", re.compile(r"^/log\?log=.+%2Fstatus%2Flogs%2F"))


def test_queued_campaigns_say_why_they_wait(scene, campaigns_page):
    never_fits = card(campaigns_page, scene, "queued_never_fits")
    expect(never_fits.locator(".chip.phase")).to_contain_text("Queued")
    expect(never_fits).to_contain_text("window")
    waiting = card(campaigns_page, scene, "queued_turn")
    expect(waiting.locator(".chip.phase")).to_contain_text("Queued")
    expect(waiting.locator("p.reason").first).not_to_be_empty()


def test_a_failed_warm_up_shows_its_chip(scene, campaigns_page):
    failed = card(campaigns_page, scene, "warmup_failed")
    expect(failed.locator(".chip.warmup")).to_contain_text("Warm-up failed")
    expect(failed.locator(".warmup-reason")).not_to_be_empty()


def test_progress_advances_without_a_reload_while_the_simulator_runs(scene, campaigns_page):
    running = card(campaigns_page, scene, "long_running")
    bar = running.locator(".active-list progress").first
    expect(bar).to_be_visible()
    before = bar.get_attribute("value")
    campaigns_page.evaluate("window.__notReloaded = true")
    for _ in range(3):
        scene.simulator.step()
    expect(running.locator(".active-list progress").first).not_to_have_attribute("value", before, timeout=20_000)
    assert campaigns_page.evaluate("window.__notReloaded") is True


def test_running_cards_poll_finished_ones_do_not_and_open_details_stay_open(scene, campaigns_page):
    finished = card(campaigns_page, scene, "succeeded")
    expect(finished).to_be_visible()
    assert finished.get_attribute("hx-trigger") is None
    running = card(campaigns_page, scene, "running_mixed")
    assert "every" in (running.get_attribute("hx-trigger") or "")
    details = running.locator("details.ops")
    details.locator("summary").click()
    expect(details).to_contain_text("kubectl -n htr-batch get job")
    polled = []
    campaigns_page.on("request", lambda request: polled.append(request.url) if "/card" in request.url else None)
    campaigns_page.wait_for_timeout(6_000)  # one poll period and a bit: running cards ask, finished ones do not
    assert not [url for url in polled if f"/{scene.scene.situations['succeeded']}/card" in url]
    assert [url for url in polled if f"/{scene.scene.situations['running_mixed']}/card" in url]
    expect(card(campaigns_page, scene, "running_mixed").locator("details.ops")).to_have_attribute("open", "")


def test_with_the_cluster_api_failing_the_page_shows_the_banner_within_the_timeout(
    scene, campaigns_page, live_server, settings
):
    settings.HTRFLOW_KUBE_TIMEOUT = 1.0
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0
    scene.kube.inject_fault(r".*", delay=30)
    campaigns_page.goto(live_server.url + "/", timeout=10_000)
    expect(campaigns_page.locator(".banner.warn")).to_contain_text("Could not reach the cluster since")
    expect(card(campaigns_page, scene, "running_mixed")).to_be_visible()
    scene.kube.clear_faults()


def test_with_javascript_off_the_pages_still_work_through_links(
    scene, live_server, browser, session_key_file, settings
):
    settings.HTRFLOW_WRITE_STATUS = False
    kube_module.clear_cache()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        browser_login(page, live_server.url, scene.store.accounts["full"])
        page.goto(live_server.url + "/")
        running = card(page, scene, "running_mixed")
        expect(running).to_be_visible()
        running.locator("h2 a").click()
        name = scene.scene.situations["running_mixed"]
        page.wait_for_url(re.compile(rf"/campaigns/htr-batch/{name}$"))
        expect(page.locator("table.volume-table")).to_be_visible()
        page.select_option("select[name=state]", "failed")
        page.click("form.filters button[type=submit]")
        page.wait_for_url(re.compile(r"state=failed"))
        states = page.locator("tbody .state").all_inner_texts()
        assert states and set(states) == {"failed"}
    finally:
        context.close()
