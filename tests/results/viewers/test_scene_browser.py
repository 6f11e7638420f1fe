"""The viewers reached the way people reach them: from a campaign card, on the demo scene, while it moves."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from campaigns.cluster import reading
from devstack import content_json as cj
from devstack import scene_store
from devstack.scene_model import DONE, FAILED, RUNNING
from results.viewers import log as log_viewer
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser


@pytest.fixture
def logged_in(scene, live_server, page, settings, session_key_file, monkeypatch):
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    monkeypatch.setattr(log_viewer, "POLL_SECONDS", 1)  # the live server runs in this process
    reading.clear_cache()
    cache.clear()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    yield page
    reading.clear_cache()


def test_a_cards_failed_volume_opens_its_run_log_at_the_failure(scene, logged_in, live_server):
    page = logged_in
    campaign = scene.scene.campaign_of("permanent_setup")
    volume_id = scene.scene.volumes["permanent_setup"][0]
    page.goto(live_server.url + "/")
    row = page.locator(f"article[id='card-htr-batch--{campaign.name}'] li.problem", has_text=volume_id)
    expect(row.first).to_be_visible()
    row.first.locator("a.log-link").click()
    page.wait_for_url(re.compile(r"/log\?"))
    failure = page.locator(".log-line.kind-failed").last
    expect(failure).to_contain_text("permanent failure in setup")
    view = page.locator("#log-view").bounding_box()
    box = failure.bounding_box()
    assert view["y"] <= box["y"] and box["y"] + box["height"] <= view["y"] + view["height"]
    expect(page.locator("#log-status")).to_have_text("failed")
    assert page.locator("#log-live[hx-get]").count() == 0


def test_live_mode_follows_the_simulator_until_the_volume_completes(moving_scene, logged_in, live_server):
    """On a stack of its own: the simulator's steps finish volumes other tests expect still running."""
    page, scene = logged_in, moving_scene
    reading.clear_cache()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    campaign = scene.scene.campaign_of("finishing_soon")
    volume = next(v for v in campaign.volumes if v.state == RUNNING)
    key = scene_store.log_key(scene.scene.where, campaign, volume)
    address = f"{scene.results_url}/{key}"
    page.goto(f"{live_server.url}/log?log={quote(address, safe='')}&live=1")
    expect(page.locator("#log-status")).to_contain_text("live")
    lines = page.locator(".log-line")
    seen = lines.count()
    grew = False
    for _ in range(40):
        if volume.state in (DONE, FAILED):
            break
        scene.simulator.step()
        lines.nth(seen).wait_for(state="attached", timeout=10_000)  # a line beyond those seen arrived
        grew = True
        seen = lines.count()
    assert grew and volume.state == DONE
    expect(page.locator("#log-status")).to_have_text("finished", timeout=10_000)
    expect(page.locator(".log-line.kind-finished")).to_have_count(1)
    assert page.locator("#log-live[hx-get]").count() == 0


def test_a_finished_volumes_summary_opens_its_pages_over_their_images(scene, logged_in, live_server):
    page = logged_in
    campaign = scene.scene.campaign_of("succeeded")
    volume = next(v for v in campaign.volumes if v.state == DONE and not v.old_log_key)
    where = scene.scene.where
    log = f"{scene.results_url}/{scene_store.log_key(where, campaign, volume)}"
    manifest = f"{scene.results_url}/{cj.manifest_key(where.namespace, campaign.pipeline.id, volume.id)}"
    page.goto(f"{live_server.url}/log?log={quote(log, safe='')}&manifest={quote(manifest, safe='')}")
    expect(page.locator(".summary-facts")).to_contain_text(volume.id)
    page.locator("table.pages tr.page-ok a").first.click()
    page.wait_for_url(re.compile(r"/alto\?"))
    expect(page.locator("#alto-viewer")).to_have_class(re.compile(r"\bimage-loaded\b"))
    assert page.locator(".alto-poly").count() == page.locator(".alto-line").count() > 0
    page.click("#alto-next")
    expect(page.locator("h1")).to_contain_text("page 2")
