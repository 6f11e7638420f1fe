"""The campaign pages in Chromium against the devstack scene: what a person sees and what moves by itself."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from campaigns.cluster import reading
from campaigns.presentation import cards, overview
from campaigns.store import progress as progress_module
from tests.campaigns.cluster.test_kube import campaign_job, campaign_pod, campaign_record, workload
from tests.fixtures.kube import settled
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser


@pytest.fixture
def campaigns_page(scene, live_server, page, settings, session_key_file, monkeypatch):
    """A logged-in browser on the campaign list, with snapshots and card polls short enough to see the
    simulator move without long waits."""
    yield from list_page(scene, live_server, page, settings, monkeypatch)


@pytest.fixture
def moving_page(moving_scene, live_server, page, settings, session_key_file, monkeypatch):
    """The same on a stack of the test's own, for a test that steps the simulator."""
    yield from list_page(moving_scene, live_server, page, settings, monkeypatch)


def list_page(scene, live_server, page, settings, monkeypatch):
    monkeypatch.setattr(cards, "POLL_SECONDS", 2)
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    progress_module.clear_cache()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    page.goto(live_server.url + "/")
    yield page
    reading.clear_cache()


def card(page, scene, situation, name=None):
    name = name or scene.scene.situations[situation]
    return page.locator(f"article[id='card-htr-batch--{name}']")


def open_cards(page, base_url, scene, *situations):
    """The list with these campaigns' full cards opened (calm campaigns are one line otherwise)."""
    query = "&".join(f"open=htr-batch/{scene.scene.situations[s]}" for s in situations)
    page.goto(f"{base_url}/?{query}")


def add_running(scene, prefix, volume_ids):
    """A campaign of its own for one test, its first volume done and its second running: name and Job."""
    name = prefix + uuid.uuid4().hex[:6]
    uid = str(uuid.uuid4())
    job = campaign_job(name, uid, volumes=len(volume_ids), completed="0", active=1)
    for obj in (job, campaign_record(name, volume_ids), workload(name, uid), campaign_pod(name, 1)):
        scene.kube.put(obj)
    return name, job


def remove_campaign(scene, name):
    for kind, obj_name in (("Job", name), ("ConfigMap", f"campaign-{name}")):
        scene.kube.delete("batch/v1" if kind == "Job" else "v1", kind, "htr-batch", obj_name)


def test_the_list_shows_every_situation_with_failed_volume_rows_and_warm_up_chips(scene, campaigns_page, live_server):
    """One page load for what the list shows at rest (each check is separate from the moving ones)."""
    shown = ("running_mixed", "queued_turn", "succeeded", "warmup_failed", "job_gone", "paused_after_some")
    open_cards(campaigns_page, live_server.url, scene, *shown, "permanent_setup", "warmup_pending")
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


def test_queued_campaigns_say_why_they_wait(scene, campaigns_page, live_server):
    shown = ("queued_never_fits", "queued_turn", "queued_missing_priority", "paused_before_start")
    open_cards(campaigns_page, live_server.url, scene, *shown)
    never_fits = card(campaigns_page, scene, "queued_never_fits")
    expect(never_fits.locator(".chip.phase")).to_contain_text("Queued")
    expect(never_fits).to_contain_text("window")
    expect(never_fits.locator(".reason code").first).to_have_text("window")  # what its author has to lower
    waiting = card(campaigns_page, scene, "queued_turn")
    expect(waiting.locator(".chip.phase")).to_contain_text("Queued")
    expect(waiting.locator("p.reason").first).to_contain_text(re.compile(r"Waiting its turn|It is next|ahead"))
    no_class = card(campaigns_page, scene, "queued_missing_priority")
    expect(no_class.locator("p.reason").first).to_contain_text("does not exist on this cluster")
    paused = card(campaigns_page, scene, "paused_before_start")
    expect(paused.locator("p.reason").first).to_contain_text("suspend: true")
    for queued in (never_fits, no_class, paused):
        details = queued.locator("details.ops")
        details.locator("summary").click()
        expect(details.locator("ul.commands")).to_contain_text("kubectl")


def test_a_cards_kubectl_line_copies_by_keyboard_and_says_copied(scene, campaigns_page, live_server):
    campaigns_page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_cards(campaigns_page, live_server.url, scene, "queued_never_fits")
    details = card(campaigns_page, scene, "queued_never_fits").locator("details.ops")
    details.locator("summary").focus()
    campaigns_page.keyboard.press("Enter")
    first_line = details.locator("ul.commands li").filter(has=campaigns_page.locator("code", has_text="kubectl ")).first
    button = first_line.locator("button.copy-button")
    expect(button).to_be_visible()
    button.focus()
    campaigns_page.keyboard.press("Enter")
    expect(first_line.locator(".copy-status")).to_have_text("Copied")
    copied = campaigns_page.evaluate("navigator.clipboard.readText()")
    assert copied == first_line.locator("code").inner_text() and copied.startswith("kubectl ")


def test_progress_advances_without_a_reload_while_the_simulator_runs(moving_scene, moving_page, live_server):
    open_cards(moving_page, live_server.url, moving_scene, "long_running")
    running = card(moving_page, moving_scene, "long_running")
    bar = running.locator(".active-list progress").first
    expect(bar).to_be_visible()
    before = bar.get_attribute("value")
    moving_page.evaluate("window.__notReloaded = true")
    for _ in range(3):
        moving_scene.simulator.step()
    expect(running.locator(".active-list progress").first).not_to_have_attribute("value", before, timeout=20_000)
    assert moving_page.evaluate("window.__notReloaded") is True


def test_the_page_polls_once_for_all_it_shows_and_open_details_stay_open(scene, campaigns_page, live_server):
    name, job = add_running(scene, "ends-while-watched-", ["E1", "E2"])
    requests = []
    campaigns_page.on("request", lambda r: requests.append(r.url) if "/card" in r.url or "/changes" in r.url else None)
    running_name = scene.scene.situations["running_mixed"]
    campaigns_page.goto(f"{live_server.url}/?open=htr-batch/{running_name}")
    row = campaigns_page.locator(f"li[id='row-htr-batch--{name}']")
    expect(row).to_contain_text("Running", timeout=10_000)
    details = card(campaigns_page, scene, "running_mixed").locator("details.ops")
    details.locator("summary").click()
    expect(details).to_contain_text("kubectl -n htr-batch get job")
    job["status"] = {**job["status"], "completedIndexes": "0-1", "active": 0, "completionTime": "2026-09-24T09:00:00Z"}
    job["status"]["conditions"] = [{"type": "Complete", "status": "True"}]
    scene.kube.put(job)
    expect(row.locator(".row-state")).to_contain_text("Succeeded", timeout=20_000)
    assert not [url for url in requests if "/card" in url]  # no card polls its own: one poll for the page
    assert len({url.split("?")[0] for url in requests}) == 1
    expect(card(campaigns_page, scene, "running_mixed").locator("details.ops")).to_have_attribute("open", "")
    remove_campaign(scene, name)


def test_a_campaign_gone_from_the_cluster_is_said_gone_in_its_line_by_the_next_poll(scene, campaigns_page, live_server):
    """The poll names only campaigns the person may see now; the line of one gone is found by its key."""
    name, _job = add_running(scene, "leaves-while-watched-", ["G1", "G2"])
    settled()
    campaigns_page.goto(f"{live_server.url}/?q={name}")
    expect(campaigns_page.locator(f"li[id='row-htr-batch--{name}']")).to_contain_text("Running", timeout=10_000)
    remove_campaign(scene, name)
    gone = campaigns_page.locator(f"#overview-rows > li.row-gone[data-key='{overview.short_key('htr-batch/' + name)}']")
    expect(gone).to_contain_text("This campaign is no longer in the cluster.", timeout=20_000)
    expect(campaigns_page.locator(f"li[id='row-htr-batch--{name}']")).to_have_count(0)
    expect(campaigns_page.locator("#overview-rows > li")).to_have_count(1)


def test_a_campaign_pages_volume_table_moves_on_with_its_card_and_keeps_focus(scene, campaigns_page, live_server):
    name, job = add_running(scene, "table-follows-", ["F1", "F2", "F3"])
    settled()
    polls = []
    campaigns_page.on("request", lambda r: polls.append(r.url) if "/card" in r.url else None)
    campaigns_page.goto(f"{live_server.url}/campaigns/htr-batch/{name}")
    row = campaigns_page.locator("tr[id='vol-F2']")
    expect(row.locator(".state")).to_have_text("active")
    link = campaigns_page.locator("a[id='log-of-F2']")
    link.focus()
    job["status"] = {**job["status"], "completedIndexes": "0-1", "active": 1}
    scene.kube.put(job)
    expect(row.locator(".state")).to_have_text("done", timeout=20_000)
    figures = card(campaigns_page, scene, None, name=name).locator(".meter .figures").first
    expect(figures).to_contain_text("2 of 3 done")
    assert campaigns_page.evaluate("document.activeElement.id") == "log-of-F2"  # focus kept across the swap
    assert polls and all("rows=1" in url for url in polls)  # one poll for the card and its rows
    remove_campaign(scene, name)


def test_rows_loaded_with_load_more_stay_through_the_campaign_pages_polls(scene, campaigns_page, live_server):
    ids = [f"M{i:04d}" for i in range(450)]
    name, _job = add_running(scene, "many-rows-", ids)
    settled()
    campaigns_page.goto(f"{live_server.url}/campaigns/htr-batch/{name}")
    rows = campaigns_page.locator("#volume-rows tr.vol")
    expect(rows).to_have_count(200)
    campaigns_page.locator("#volume-rows-more").focus()
    campaigns_page.keyboard.press("Enter")
    expect(rows).to_have_count(400)
    with campaigns_page.expect_response(lambda r: "rows=1" in r.url, timeout=20_000) as polled:
        pass
    assert "rows_shown=400" in polled.value.url  # the poll asks for every row the page shows
    campaigns_page.wait_for_timeout(300)  # its answer swapped in
    expect(rows).to_have_count(400)
    expect(campaigns_page.locator("#volume-rows-more")).to_have_attribute(
        "href", f"/campaigns/htr-batch/{name}?offset=400"
    )
    remove_campaign(scene, name)


def test_the_filters_and_the_search_find_campaigns_and_volumes(scene, campaigns_page, live_server):
    queued = scene.scene.situations["queued_turn"]
    campaigns_page.locator("#state-queued").click()
    campaigns_page.wait_for_url(re.compile(r"state=queued"))
    states = campaigns_page.locator("#overview-rows .row-state").all_inner_texts()
    assert states and all("Queued" in text for text in states)
    expect(campaigns_page.locator(f"li[id='row-htr-batch--{queued}']")).to_be_visible()
    campaigns_page.goto(live_server.url + "/")
    running = scene.scene.situations["running_mixed"]
    campaigns_page.goto(f"{live_server.url}/campaigns/htr-batch/{running}")
    volume = campaigns_page.locator("table.volume-table th.vol-id").nth(3).inner_text().strip()
    campaigns_page.goto(live_server.url + "/")
    campaigns_page.fill("#list-q", volume.lower())
    campaigns_page.press("#list-q", "Enter")
    campaigns_page.wait_for_url(re.compile(r"q="))
    hit = campaigns_page.locator(f"li[id='row-htr-batch--{running}'] .row-hits a.mono", has_text=volume)
    expect(hit).to_be_visible()
    hit.click()
    campaigns_page.wait_for_url(re.compile(rf"/campaigns/htr-batch/{running}/volumes/"))  # the volume's own page
    expect(campaigns_page.locator("h1")).to_contain_text(volume)


def test_a_screen_reader_hears_once_when_a_campaign_newly_needs_attention(scene, campaigns_page, live_server):
    name, job = add_running(scene, "turns-bad-", ["T1", "T2", "T3"])
    campaigns_page.goto(live_server.url + "/")
    expect(campaigns_page.locator(f"li[id='row-htr-batch--{name}']")).to_be_visible(timeout=10_000)
    link = campaigns_page.locator(f"#row-htr-batch--{name}-link")
    link.focus()
    region = campaigns_page.locator("#list-announce")
    expect(region).to_have_attribute("aria-live", "polite")
    campaigns_page.evaluate(
        "window.__announced = []; new MutationObserver(() => window.__announced.push("
        "document.getElementById('list-announce').textContent.trim())).observe("
        "document.getElementById('list-announce'), {childList: true, subtree: true, characterData: true})"
    )
    job["status"] = {**job["status"], "failedIndexes": "2"}
    scene.kube.put(job)
    expect(region).to_have_text(f"{name} now needs attention: 1 volume failed.", timeout=20_000)
    campaigns_page.wait_for_timeout(4_500)  # two more polls: nothing new to say
    said = [text for text in campaigns_page.evaluate("window.__announced") if text]
    assert said == [f"{name} now needs attention: 1 volume failed."]
    assert campaigns_page.evaluate("document.activeElement.id") == f"row-htr-batch--{name}-link"  # focus kept
    assert campaigns_page.title().startswith("(")  # the tab's title counts campaigns that need attention
    remove_campaign(scene, name)


@pytest.mark.parametrize("fault", [{"delay": 30}, {"status": 503}], ids=["slow", "failing"])
def test_with_the_cluster_api_slow_or_failing_the_page_shows_the_banner_within_the_timeout(
    scene, campaigns_page, live_server, settings, fault
):
    settings.HTRFLOW_KUBE_TIMEOUT = 1.0
    scene.kube.inject_fault(r".*", **fault)
    scene.kube.drop_watches()
    try:
        response = campaigns_page.goto(live_server.url + "/", timeout=10_000)
        assert response.status == 200
        name = scene.scene.situations["running_mixed"]
        expect(campaigns_page.locator(f"li[id='row-htr-batch--{name}']")).to_be_visible()
        campaigns_page.wait_for_timeout(2_500)  # the watches notice within a timeout or two
        campaigns_page.goto(live_server.url + "/", timeout=10_000)
        expect(campaigns_page.locator(".banner.warn")).to_contain_text(
            re.compile("The cluster has been (too slow to answer|answering with errors) since")
        )
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
    campaigns_page.wait_for_timeout(600)  # the watches bring them within a moment
    try:
        # Opened on the list: other tests on this worker's scene may have put more campaigns in trouble
        # than the list shows full cards for.
        for path in (f"/?open=htr-batch/{name}", f"/campaigns/htr-batch/{name}"):
            campaigns_page.goto(live_server.url + path)
            hostile = campaigns_page.locator(f"article[id='card-htr-batch--{name}']")
            # The archivist's sentence is plain words; the error as the pod gave it is the operator's, as text.
            expect(hostile.locator("li.problem .vol-sentence")).to_contain_text("stopped for good")
            detail = hostile.locator(".ops p.finding-detail", has_text="Volume ")
            expect(detail).to_contain_text("<script>window.__xss=2</script>")
            assert len(hostile.locator("li.problem .vol-sentence").inner_text()) < 1000
            assert campaigns_page.evaluate("window.__xss") is None
        expect(campaigns_page.locator("table.volume-table")).to_contain_text("<img src=x")
        campaigns_page.goto(live_server.url + "/")
        expect(campaigns_page.locator(f"li[id='row-htr-batch--{name}-bare']")).to_be_visible()
    finally:
        for obj in objects:
            meta = obj["metadata"]
            scene.kube.delete(obj["apiVersion"], obj["kind"], "htr-batch", meta["name"])


def test_with_javascript_off_the_pages_still_work_through_links(
    scene, live_server, browser, session_key_file, settings
):
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        browser_login(page, live_server.url, scene.store.accounts["full"])
        page.goto(live_server.url + "/")
        name = scene.scene.situations["running_mixed"]
        running = page.locator(f"li[id='row-htr-batch--{name}']")
        expect(running).to_be_visible()
        running.locator("a.row-name").click()
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


def test_pod_lines_name_their_volume_and_copy_buttons_look_like_buttons(scene, campaigns_page, live_server):
    """Issue 39: under Operator details each pod's kubectl line says which volume (index and id) it is about,
    and every id and command has a copy button drawn as a button (an edge, a surface, a pointer)."""
    open_cards(campaigns_page, live_server.url, scene, "partially_failed")
    details = card(campaigns_page, scene, "partially_failed").locator("details.ops")
    details.locator("summary").click()
    pod_lines = details.locator("ul.commands li").filter(has=campaigns_page.locator(".command-for"))
    expect(pod_lines.first).to_be_visible()
    for item in pod_lines.all():
        said = item.locator(".command-for").inner_text()
        index, volume = re.match(r"Volume (\d+) · (\S+):", said).groups()
        assert item.locator("code").inner_text().startswith("kubectl ")
        assert item.locator("button.copy-button").count() == 1
        campaign = scene.scene.campaign_of("partially_failed")
        assert campaign.volumes[int(index)].id == volume
    uid = details.locator("dt", has_text=re.compile("uid", re.I)).locator("xpath=..").locator("button.copy-button")
    expect(uid).to_have_count(1)
    style = uid.evaluate(
        "b => { const s = getComputedStyle(b);"
        " return [s.borderTopStyle, s.borderTopWidth, s.cursor, s.backgroundColor]; }"
    )
    assert style[0] == "solid" and style[1] != "0px" and style[2] == "pointer" and style[3] != "rgba(0, 0, 0, 0)"
