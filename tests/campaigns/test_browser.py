"""The campaign pages in Chromium against the devstack scene: what a person sees and what moves by itself."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from campaigns import cards
from campaigns import kube as kube_module
from campaigns import progress as progress_module
from tests.campaigns.test_kube import campaign_job, campaign_pod, campaign_record, workload
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser


@pytest.fixture
def campaigns_page(scene, live_server, page, settings, session_key_file, monkeypatch):
    """A logged-in browser on the campaign list, with snapshots and card polls short enough to see the
    simulator move without long waits."""
    monkeypatch.setattr(cards, "POLL_SECONDS", 2)
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    kube_module.clear_cache()
    progress_module.clear_cache()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    page.goto(live_server.url + "/")
    yield page
    kube_module.clear_cache()


def card(page, scene, situation):
    name = scene.scene.situations[situation]
    return page.locator(f"article[id='card-htr-batch--{name}']")


def test_the_list_shows_every_situation_with_failed_volume_rows_and_warm_up_chips(scene, campaigns_page):
    """One page load for what the list shows at rest (each check is separate from the moving ones)."""
    for situation in ("running_mixed", "queued_turn", "succeeded", "warmup_failed", "job_gone", "paused_after_some"):
        expect(card(campaigns_page, scene, situation)).to_be_visible()
    expect(campaigns_page.locator("h1")).to_have_text("Campaigns")
    # a failed volume: its sentence and its run log link on the same row
    first = card(campaigns_page, scene, "permanent_setup").locator("li.problem").first
    expect(first.locator(".vol-sentence")).not_to_be_empty()
    expect(first.locator("a.log-link")).to_have_attribute("href", re.compile(r"^/log\?log=.+%2Fstatus%2Flogs%2F"))
    # the volumes bar names failed volumes in words beside the stacked bar
    expect(card(campaigns_page, scene, "running_mixed").locator(".meter .figures").first).to_contain_text("failed")
    # warm-up chips: failed with its message, pending or running, none once the cache is ready
    failed = card(campaigns_page, scene, "warmup_failed")
    expect(failed.locator(".chip.warmup")).to_contain_text("Warm-up failed")
    expect(failed.locator(".warmup-reason")).not_to_be_empty()
    pending = card(campaigns_page, scene, "warmup_pending")
    expect(pending.locator(".chip.warmup")).to_contain_text(re.compile(r"Warm-up (pending|running)"))
    expect(card(campaigns_page, scene, "succeeded").locator(".chip.warmup")).to_have_count(0)


def test_queued_campaigns_say_why_they_wait(scene, campaigns_page):
    never_fits = card(campaigns_page, scene, "queued_never_fits")
    expect(never_fits.locator(".chip.phase")).to_contain_text("Queued")
    expect(never_fits).to_contain_text("window")
    expect(never_fits.locator(".reason code")).to_have_text("window")
    waiting = card(campaigns_page, scene, "queued_turn")
    expect(waiting.locator(".chip.phase")).to_contain_text("Queued")
    expect(waiting.locator("p.reason").first).to_contain_text(re.compile(r"Waiting its turn|It is next|ahead"))
    no_class = card(campaigns_page, scene, "queued_missing_priority")
    expect(no_class.locator("p.reason").first).to_contain_text("priority class that does not exist")
    paused = card(campaigns_page, scene, "paused_before_start")
    expect(paused.locator("p.reason").first).to_contain_text("suspend: true")
    for queued in (never_fits, no_class, paused):
        details = queued.locator("details.ops")
        details.locator("summary").click()
        expect(details.locator("pre.commands")).to_contain_text("kubectl")


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


def test_running_cards_poll_finished_ones_do_not_and_open_details_stay_open(scene, campaigns_page, live_server):
    name = "ends-while-watched-" + uuid.uuid4().hex[:6]
    uid = str(uuid.uuid4())
    job = campaign_job(name, uid, volumes=2, completed="0", active=1)
    for obj in (job, campaign_record(name, ["E1", "E2"]), workload(name, uid), campaign_pod(name, 1)):
        scene.kube.put(obj)
    campaigns_page.wait_for_timeout(600)  # past the age of the snapshot read before these objects
    campaigns_page.goto(live_server.url + "/")
    ending = campaigns_page.locator(f"article[id='card-htr-batch--{name}']")
    assert "every" in (ending.get_attribute("hx-trigger") or "")
    stops = []
    campaigns_page.on("response", lambda r: stops.append(r.url) if r.status == 286 and name in r.url else None)
    job["status"] = {**job["status"], "completedIndexes": "0-1", "active": 0, "completionTime": "2026-09-24T09:00:00Z"}
    job["status"]["conditions"] = [{"type": "Complete", "status": "True"}]
    scene.kube.put(job)
    scene.kube.delete("v1", "Pod", "htr-batch", campaign_pod(name, 1)["metadata"]["name"])
    campaigns_page.wait_for_timeout(600)  # past the snapshot's age, then ask at once rather than at the next poll
    campaigns_page.evaluate(f"htmx.trigger(document.getElementById('card-htr-batch--{name}'), 'poll-now')")
    finished = card(campaigns_page, scene, "succeeded")
    expect(finished).to_be_visible()
    # A finished card polls only until its done volumes' final page counts have been read once.
    expect(finished).not_to_have_attribute("hx-trigger", re.compile("every"), timeout=20_000)
    running = card(campaigns_page, scene, "running_mixed")
    assert "every" in (running.get_attribute("hx-trigger") or "")
    details = running.locator("details.ops")
    details.locator("summary").click()
    expect(details).to_contain_text("kubectl -n htr-batch get job")
    polled = []
    campaigns_page.on("request", lambda request: polled.append(request.url) if "/card" in request.url else None)
    campaigns_page.wait_for_timeout(2_600)  # one poll period and a bit: running cards ask, finished ones do not
    assert not [url for url in polled if f"/{scene.scene.situations['succeeded']}/card" in url]
    assert [url for url in polled if f"/{scene.scene.situations['running_mixed']}/card" in url]
    expect(card(campaigns_page, scene, "running_mixed").locator("details.ops")).to_have_attribute("open", "")
    # the campaign that ended meanwhile: its last poll said stop (286) and the card no longer polls
    expect(ending.locator(".chip.phase")).to_contain_text("Succeeded")
    assert ending.get_attribute("hx-trigger") is None and stops
    for kind, obj_name in (("Job", name), ("ConfigMap", f"campaign-{name}")):
        scene.kube.delete("batch/v1" if kind == "Job" else "v1", kind, "htr-batch", obj_name)


@pytest.mark.parametrize("fault", [{"delay": 30}, {"status": 503}], ids=["slow", "failing"])
def test_with_the_cluster_api_slow_or_failing_the_page_shows_the_banner_within_the_timeout(
    scene, campaigns_page, live_server, settings, fault
):
    settings.HTRFLOW_KUBE_TIMEOUT = 1.0
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0
    scene.kube.inject_fault(r".*", **fault)
    try:
        response = campaigns_page.goto(live_server.url + "/", timeout=10_000)
        assert response.status == 200
        expect(campaigns_page.locator(".banner.warn")).to_contain_text("Could not reach the cluster since")
        expect(card(campaigns_page, scene, "running_mixed")).to_be_visible()
    finally:
        scene.kube.clear_faults()


HOSTILE_ID = "x<img"  # not a valid volume id: shown as an unreadable line, escaped
HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


def test_bad_input_is_answered_in_words_and_hostile_text_stays_text(scene, campaigns_page, live_server):
    for path, status in (("/campaigns/htr-batch/no-such-campaign", 404), ("/campaigns/htr-batch/Not_A_Name", 404)):
        response = campaigns_page.goto(live_server.url + path)
        assert response.status == status
        expect(campaigns_page.locator("h1")).to_have_text("No such campaign")
    name = "hostile-" + uuid.uuid4().hex[:6]
    uid = str(uuid.uuid4())
    record = campaign_record(name, ["C1", "C2"])
    record["data"]["volumes.txt"] = f"{HOSTILE}\thttps://x.example/m\nC2\thttps://x.example/m2\n"
    pod = campaign_pod(name, 1, phase="Failed")
    error = HOSTILE + " and more" * 3000
    message = json.dumps({"stage": "stream", "permanent": True, "error": error})
    pod["status"]["containerStatuses"] = [
        {"name": "wrapper", "state": {"terminated": {"exitCode": 13, "reason": "Error", "message": message}}}
    ]
    bare = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name + "-bare",
            "namespace": "htr-batch",
            "labels": {"app": "htrflow-batch", "htrflow.riksarkivet.se/managed-by": "converter"},
        },
    }
    objects = [campaign_job(name, uid, volumes=2, failed="1"), record, pod, bare]
    for obj in objects:
        scene.kube.put(obj)
    campaigns_page.wait_for_timeout(600)  # past the age of the snapshot read before these objects
    try:
        for path in ("/", f"/campaigns/htr-batch/{name}"):
            campaigns_page.goto(live_server.url + path)
            hostile = campaigns_page.locator(f"article[id='card-htr-batch--{name}']")
            expect(hostile.locator("li.problem .vol-sentence")).to_contain_text("<script>window.__xss=2</script>")
            assert len(hostile.locator("li.problem .vol-sentence").inner_text()) < 1000
            assert campaigns_page.evaluate("window.__xss") is None
        expect(campaigns_page.locator("table.volume-table")).to_contain_text("<img src=x")
        campaigns_page.goto(live_server.url + "/")
        expect(campaigns_page.locator(f"article[id='card-htr-batch--{name}-bare']")).to_be_visible()
    finally:
        for obj in objects:
            meta = obj["metadata"]
            scene.kube.delete(obj["apiVersion"], obj["kind"], "htr-batch", meta["name"])


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


def test_at_390_px_nothing_but_code_needs_sideways_scrolling(scene, campaigns_page, live_server):
    campaigns_page.set_viewport_size({"width": 390, "height": 844})
    name = scene.scene.situations["running_mixed"]
    for path in ("/", f"/campaigns/htr-batch/{name}"):
        campaigns_page.goto(live_server.url + path)
        widest = campaigns_page.evaluate("document.documentElement.scrollWidth")
        assert widest <= 390, f"{path} is {widest} px wide"
    what = campaigns_page.locator("table.volume-table tr.vol td.what").first
    expect(what).to_be_visible()
    assert what.bounding_box()["width"] > 250  # what happened gets the row's whole width, not a sliver
