"""The viewers in Chromium against the devstack store and image server."""

import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from devstack.content import alto_variant, alto_xml, big_run_log, iiif_json, manifest_json, page_layout, run_log
from results.viewers import log as log_viewer
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser
START = datetime(2026, 12, 2, 10, tzinfo=UTC)
# Screenshots for a person to look at; outside the work tree so they are never committed.
SCREENSHOTS = Path(os.environ.get("HTRFLOW_SCREENSHOTS", Path(tempfile.gettempdir()) / "htrbrowser-screenshots"))


@pytest.fixture
def site(live_server, store, store_prefix, session_key_file, settings, images, page):
    """A logged-in browser and a volume's files in the store; returns addresses."""
    results = live_server.url + "/results"
    settings.HTRFLOW_RESULTS_URL = results
    base = f"{store_prefix}p/V1"
    store.put(f"{base}.txt", run_log("V1", "p", pages=4, failed_pages=[3], outcome="complete", start=START))
    store.put(f"{base}/manifest.json", manifest_json("V1", "p", pages=4, failed_pages=[3]))
    store.put(f"{base}/iiif.json", iiif_json("V1", "p", pages=4, image_base=images.url))
    for number in (1, 2, 4):
        store.put(f"{base}/alto/{number:04d}.xml", alto_xml(page_layout("V1", number)))
    browser_login(page, live_server.url, store.accounts["full"])
    return {
        "url": live_server.url,
        "base": base,
        "log": f"{results}/{base}.txt",
        "manifest": f"{results}/{base}/manifest.json",
        "alto": f"{results}/{base}/alto/0001.xml",
    }


def log_page(site, **params):
    query = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in {"log": site["log"], **params}.items())
    return f"{site['url']}/log?{query}"


def test_a_failed_run_opens_at_its_failure(page, site, store):
    failed = run_log("V1", "p", pages=40, outcome="permanent", stage="stream", start=START)
    store.put(site["base"] + ".txt", failed)
    page.goto(log_page(site, live="1"))
    failure = page.locator(".log-line.kind-failed").last
    assert "permanent failure in stream" in failure.inner_text()
    view = page.locator("#log-view").bounding_box()
    box = failure.bounding_box()
    assert view["y"] <= box["y"] <= view["y"] + view["height"] - box["height"]
    assert page.locator("#log-status").inner_text() == "failed"
    assert page.locator("#log-live[hx-get]").count() == 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "log-failed.png"))


def http_line(n: int) -> str:
    return f'2026-12-02 10:00:{n:02d},000 INFO httpx: HTTP Request: GET https://img/{n}.jpg "HTTP/1.1 200 OK"\n'


def test_live_mode_waits_for_the_log_then_appends_lines_and_stops_at_the_end(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "POLL_SECONDS", 1)  # the live server runs in this process
    key = site["base"] + ".txt"
    store.delete(key)
    page.goto(log_page(site, live="1"))
    expect(page.locator("#log-status")).to_have_text("waiting for the run log to appear")
    expect(page.locator("#log-waiting")).to_contain_text("Checking again in")
    store.put(key, "2026-12-02 10:00:00,000 INFO htrflow.wrapper: [V1] starting\n" + http_line(1) + http_line(2))
    page.locator("#L3").wait_for(state="attached", timeout=10_000)
    expect(page.locator("#log-status")).to_contain_text("live")
    expect(page.locator("#log-empty")).to_be_hidden()
    store.append(key, http_line(3) + http_line(4))
    store.append(key, "2026-12-02 10:00:05,000 INFO htrflow.wrapper: [V1] page 0001 ok in 6.1s\n")
    page.locator("#L6").wait_for(timeout=10_000)
    # Requests that arrived in two polls are one row, placed where the first of them was.
    runs = page.locator("details.http-fold")
    expect(runs).to_have_count(1)
    expect(runs.locator("summary")).to_have_text("4 HTTP requests · lines 2–5")
    assert "page 0001 ok" in page.locator("#L6").inner_text()
    store.append(key, http_line(6) + "2026-12-02 10:00:08,000 INFO htrflow.wrapper: [V1] page 0002 ok in 2.1s\n")
    page.locator("#L8").wait_for(state="attached", timeout=10_000)
    # A lone request between page lines, arriving later, joins the same row; nothing else is hidden.
    expect(runs).to_have_count(1)
    expect(runs.locator("summary")).to_have_text("5 HTTP requests between lines 2 and 7")
    expect(page.locator("#L7")).to_be_hidden()
    expect(page.locator("#L8")).to_be_visible()
    store.append(
        key,
        "2026-12-02 10:00:09,000 INFO htrflow.wrapper: [V1] COMPLETE 1 pages (1 processed, 0 failed) "
        "in 9.0s, viewer: https://x/iiif.json\n",
    )
    page.locator("#L9").wait_for(timeout=10_000)
    expect(page.locator("#log-status")).to_have_text("finished", timeout=10_000)
    assert page.locator("#log-live[hx-get]").count() == 0
    store.append(key, "2026-12-02 10:00:20,000 INFO after the end\n")
    page.wait_for_timeout(2500)  # two poll intervals and more: nothing may arrive once stopped
    assert page.locator("#L10").count() == 0


def test_http_runs_open_in_place_links_into_them_open_them_and_errors_are_one_click_apart(page, site, store):
    text = (
        "2026-12-02 10:00:00,000 INFO htrflow.wrapper: [V1] stream: 4 pages\n"
        + "".join(http_line(n) for n in range(1, 13))
        + "2026-12-02 10:00:13,000 ERROR htrflow.wrapper: [V1] page 0001 failed\n"
        + 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad page\n'
        + "".join(f"2026-12-02 10:01:{n:02d},000 INFO htrflow.wrapper: [V1] note {n}\n" for n in range(40))
        + "2026-12-02 10:02:00,000 ERROR htrflow.wrapper: [V1] page 0002 failed\n"
        + "".join(f"2026-12-02 10:03:{n:02d},000 INFO htrflow.wrapper: [V1] later {n}\n" for n in range(40))
    )
    store.put(site["base"] + ".txt", text)
    page.goto(log_page(site))
    run = page.locator("details.http-fold")
    expect(run.locator("summary")).to_have_text("12 HTTP requests · lines 2–13")
    expect(page.locator("#log-error-count")).to_have_text("2 errors · first at line 14")
    expect(page.locator("#prev-error")).to_be_visible()
    assert not page.locator("#L5").is_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#log-view").evaluate("el => el.scrollTop = 0")
    page.screenshot(path=str(SCREENSHOTS / "log-http-run-closed.png"))
    run.locator("summary").click()
    expect(page.locator("#L5")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "log-http-run-open.png"))
    y = {n: page.locator(f"#L{n}").bounding_box()["y"] for n in (1, 2, 13, 14)}
    assert y[1] < y[2] < y[13] < y[14], "the requests open where they were written"
    page.click("#prev-error")
    expect(page.locator("#L58")).to_have_class(re.compile(r"\bis-target\b"))
    page.click("#prev-error")
    expect(page.locator("#L14")).to_have_class(re.compile(r"\bis-target\b"))
    expect(page.locator("#L17")).to_contain_text("ValueError: bad page")  # the traceback stays with its error
    page.click("#next-error")
    expect(page.locator("#L58")).to_have_class(re.compile(r"\bis-target\b"))
    page.goto(log_page(site) + "#L7")
    expect(page.locator("#L7")).to_have_class(re.compile(r"\bis-target\b"))
    expect(page.locator("#L7")).to_be_visible()


def test_a_log_too_large_to_number_gets_numbers_once_the_start_is_reached(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "TAIL_BYTES", 4096)
    monkeypatch.setattr(log_viewer, "EARLIER_BYTES", 4096)
    monkeypatch.setattr(log_viewer, "NUMBERING_LIMIT", 8192)
    text = "".join(f"2026-12-02 10:00:00,000 INFO htrflow.wrapper: note {n}\n" for n in range(1, 301))
    store.put(site["base"] + ".txt", text)
    page.goto(log_page(site))
    expect(page.locator("#log-unnumbered")).to_be_visible()
    last = page.locator(".log-line").last
    old_anchor = last.get_attribute("id")
    assert old_anchor.startswith("at") and page.locator("[id^='L']").count() == 0
    for _ in range(6):
        if page.locator("#log-earlier a").count() == 0:
            break
        shown = page.locator(".log-line").count()
        page.click("#log-earlier a")
        expect(page.locator(".log-line")).not_to_have_count(shown)  # the earlier part has arrived
    expect(page.locator("#log-earlier")).to_contain_text("Start of the log.")
    expect(page.locator("#L300")).to_contain_text("note 300")
    expect(page.locator("#L300 .ln")).to_have_text("300")
    expect(page.locator("#log-unnumbered")).to_be_hidden()
    assert page.locator(f"#L300 #{old_anchor}").count() == 1, "a link made before numbers still reaches its line"
    early = text.index("note 20\n") - len("2026-12-02 10:00:00,000 INFO htrflow.wrapper: ")
    page.goto("about:blank")
    page.goto(log_page(site) + f"#at{early}")  # opened afresh: a byte-position link to a line outside the tail
    page.wait_for_url(lambda url: f"at={early}" in url)
    # The part around it starts the log, so its lines have numbers; the link still lands on its line.
    expect(page.locator("#L20")).to_have_class(re.compile(r"\bis-target\b"))
    expect(page.locator("#L20")).to_contain_text("note 20")


def test_search_highlights_and_deep_links_reach_their_line(page, site):
    # The results page is what the find form gives without JavaScript.
    page.goto(log_page(site, q="page 0003"))
    heading = page.locator("#results-title").inner_text()
    assert heading.split()[0].isdigit() and int(heading.split()[0]) >= 1
    assert page.locator(".search-hits mark").first.inner_text().lower() == "page 0003"
    page.locator(".search-hits .ln").first.click()
    number = page.url.rsplit("#L", 1)[1]
    target = page.locator(f"#L{number}")
    expect(target).to_have_class(re.compile(r"\bis-target\b"))
    assert "0003" in target.inner_text()


def test_a_deep_link_outside_the_tail_is_fetched_around_its_line(page, site, store):
    big = big_run_log("V1", "p", start=START)
    store.put(site["base"] + ".txt", big)
    page.goto(log_page(site) + "#L500")
    page.wait_for_url(lambda url: "line=500" in url)
    line = page.locator("#L500")
    line.wait_for()
    assert line.inner_text().split("\n")[0].strip().startswith("500")
    assert big.splitlines()[499][-20:] in line.inner_text()


def test_show_earlier_keeps_the_readers_place(page, site, store):
    store.put(site["base"] + ".txt", big_run_log("V1", "p", start=START))
    page.goto(log_page(site))
    first_shown = page.locator(".log-line:not(.kind-http)").first
    anchor = first_shown.get_attribute("id")
    page.locator("#log-view").evaluate("el => el.scrollTop = 0")
    before = page.locator(f"[id='{anchor}']").bounding_box()["y"]
    page.click("#log-earlier a")
    expect(page.locator(".log-line").first).not_to_have_attribute("id", anchor)
    # The place is put back once htmx has settled the new lines: wait for that, then hold it to 40 px.
    page.wait_for_function(
        "([id, y]) => Math.abs(document.getElementById(id).getBoundingClientRect().y - y) < 40", arg=[anchor, before]
    )
    assert abs(page.locator(f"[id='{anchor}']").bounding_box()["y"] - before) < 40


def test_the_summary_table_opens_a_page_in_the_alto_viewer(page, site):
    page.goto(log_page(site, manifest=site["manifest"]))
    assert "3 ok · 1 failed" in page.locator(".summary-facts").inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "log-summary.png"), full_page=True)
    page.locator("table.pages a", has_text="0002").click()
    page.wait_for_url(lambda url: "/alto?" in url)
    assert "page 2" in page.locator("h1").inner_text()


def test_alto_polygons_are_drawn_over_the_image_at_their_places(page, site):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    image = page.locator("#alto-page-image")
    expect(page.locator("#alto-viewer")).to_have_class(re.compile(r"\bimage-loaded\b"))
    layout = page_layout("V1", 1)
    picture = image.bounding_box()
    scale = picture["width"] / layout.width
    assert picture["height"] == pytest.approx(layout.height * scale, rel=0.01)
    for line in (layout.lines[0], layout.lines[len(layout.lines) // 2], layout.lines[-1]):
        number = layout.lines.index(line) + 1
        # The geometry's own box (Playwright's bounding_box would add the outline's stroke).
        drawn = page.locator(f"#poly-{number}").evaluate(
            "p => { const r = p.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width}; }"
        )
        x, y, w, h = line.box
        assert drawn["x"] == pytest.approx(picture["x"] + x * scale, abs=3)
        assert drawn["y"] == pytest.approx(picture["y"] + y * scale, abs=3)
        assert drawn["width"] == pytest.approx(w * scale, abs=3)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "alto-viewer.png"))


def test_hovering_a_line_lights_it_on_both_sides(page, site):
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    page.locator("#L3").hover()
    assert "active" in page.locator("#poly-3").get_attribute("class")
    page.locator("#poly-5").hover(force=True)
    assert "active" in page.locator("#L5").get_attribute("class")
    assert "active" not in page.locator("#L3").get_attribute("class")
    page.locator("#L5").focus()
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.id") == "L6"
    assert "active" in page.locator("#poly-6").get_attribute("class")


def test_the_keyboard_walks_lines_and_brings_each_outline_into_view(page, site):
    page.set_viewport_size({"width": 1300, "height": 700})
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    last = len(page_layout("V1", 1).lines)
    page.locator("#L1").focus()
    for _ in range(last - 1):
        page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.id") == f"L{last}"
    expect(page.locator(f"#poly-{last}")).to_have_class(re.compile(r"\bactive\b"))
    pane = page.locator("#alto-image").bounding_box()
    shape = page.locator(f"#poly-{last}").bounding_box()
    assert pane["y"] <= shape["y"] and shape["y"] + shape["height"] <= pane["y"] + pane["height"]
    text_pane = page.locator("#alto-text").bounding_box()
    item = page.locator(f"#L{last}").bounding_box()
    assert text_pane["y"] <= item["y"] and item["y"] + item["height"] <= text_pane["y"] + text_pane["height"]
    outline = page.locator(f"#L{last}").evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none", "the focused line shows its focus"
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.id") == f"L{last - 1}"
    expect(page.locator(f"#poly-{last - 1}")).to_have_class(re.compile(r"\bactive\b"))


def test_clicking_brings_the_other_side_into_view_and_zoom_enlarges(page, site):
    page.set_viewport_size({"width": 1300, "height": 700})
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    last = len(page_layout("V1", 1).lines)
    text_pane = page.locator("#alto-text").bounding_box()
    assert page.locator(f"#L{last}").bounding_box()["y"] > text_pane["y"] + text_pane["height"]
    page.locator("#alto-image").evaluate("el => el.scrollTop = el.scrollHeight")
    page.locator(f"#poly-{last}").click(force=True)
    item = page.locator(f"#L{last}").bounding_box()
    assert text_pane["y"] <= item["y"] <= text_pane["y"] + text_pane["height"]
    assert page.evaluate("document.activeElement.id") == f"L{last}"
    page.locator("#alto-image").evaluate("el => el.scrollTop = 0")
    page.locator("#L1").click()
    page.locator(f"#L{last}").click()
    pane = page.locator("#alto-image").bounding_box()
    shape = page.locator(f"#poly-{last}").bounding_box()
    assert pane["y"] <= shape["y"] <= pane["y"] + pane["height"]
    width = page.locator("#alto-svg").bounding_box()["width"]
    page.click("#zoom-in")
    assert page.locator("#alto-svg").bounding_box()["width"] == pytest.approx(width * 1.25, rel=0.02)


def test_an_alto_deep_link_and_the_low_confidence_filter(page, site):
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}#L4")
    expect(page.locator("#poly-4")).to_have_class(re.compile(r"\bactive\b"))
    page.check("#alto-low-only")
    low = page.locator(".alto-line.conf-low")
    others = page.locator(".alto-line:not(.conf-low)")
    assert others.count() > 0 and not others.first.is_visible()
    if low.count():
        assert low.first.is_visible()


def test_an_image_that_will_not_load_gets_a_sentence(page, site, store):
    store.put(site["base"] + "/iiif.json", iiif_json("V1", "p", pages=4, image_base="http://127.0.0.1:9"))
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    page.locator("#alto-image-failed").wait_for(state="visible", timeout=10_000)
    assert page.locator(".alto-line").count() == len(page_layout("V1", 1).lines)


def test_hostile_text_in_alto_and_logs_stays_text(page, site, store):
    store.put(site["base"] + "/alto/0001.xml", alto_variant(page_layout("V1", 1), "hostile"))
    store.put(
        site["base"] + ".txt", "2026-12-02 10:00:00 ERROR <img src=x onerror=alert(1)><script>alert(2)</script>\n"
    )
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    assert page.locator(".alto-line", has_text="<script>alert(1)</script>").count() >= 1
    page.goto(log_page(site))
    assert "<script>alert(2)</script>" in page.locator("#L1").inner_text()
    assert dialogs == [] and page.locator("#log-view img").count() == 0


def test_a_refused_address_shows_its_sentence(page, site):
    page.goto(f"{site['url']}/log?log={quote(site['url'] + '/results-evil/x.txt', safe='')}")
    assert "not under the results base" in page.locator("#viewer-problem").inner_text()
    page.goto(f"{site['url']}/alto?src={quote('https://evil.example/results/a/b.xml', safe='')}")
    assert "points at evil.example" in page.locator("#viewer-problem").inner_text()


def test_without_errors_the_error_buttons_are_hidden_and_a_link_opens_an_interleaved_request(page, site, store):
    text = "".join(
        http_line(n) + f"2026-12-02 10:01:{n:02d},000 INFO htrflow.wrapper: [V1] page {n:04d} ok in 2.0s\n"
        for n in range(1, 6)
    )
    store.put(site["base"] + ".txt", text)
    page.goto(log_page(site) + "#L5")
    expect(page.locator("#log-error-count")).to_have_text("No errors in the lines shown")
    expect(page.locator("#prev-error")).to_be_hidden()
    expect(page.locator("#next-error")).to_be_hidden()
    fold = page.locator("details.http-fold")
    expect(fold.locator("summary")).to_have_text("5 HTTP requests between lines 1 and 9")
    expect(fold).to_have_attribute("open", "")  # the link named a folded line, so its row opened
    expect(page.locator("#L3")).to_be_visible()
    page.goto(log_page(site))
    expect(page.locator("#L3")).to_be_hidden()
    expect(page.locator("#L4")).to_be_visible()
    y = {n: page.locator(f"#L{n}").bounding_box()["y"] for n in (2, 4, 6)}
    assert y[2] < y[4] < y[6], "only the requests are hidden; the page lines stay in order"


def test_the_alto_page_on_a_phone_ends_where_its_content_ends(page, site):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site['url']}/alto?src={quote(site['alto'], safe='')}")
    expect(page.locator("#alto-text .alto-line").first).to_be_visible()
    page_height = page.evaluate("document.documentElement.scrollHeight")
    content_end = page.evaluate("document.querySelector('.alto-extra').getBoundingClientRect().bottom + scrollY")
    assert page_height - content_end < 120, "nothing below the downloads may take space"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "alto-390.png"), full_page=True)


def note_line(n: int) -> str:
    return f"2026-12-02 10:01:{n:02d},000 INFO htrflow.wrapper: [V1] note {n}\n"


def test_requests_read_later_join_the_row_of_the_stretch_they_continue(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "POLL_SECONDS", 1)
    monkeypatch.setattr(log_viewer, "TAIL_BYTES", 1024)
    monkeypatch.setattr(log_viewer, "EARLIER_BYTES", 1024)
    key = site["base"] + ".txt"
    store.put(key, "".join(http_line(n) if n % 2 else note_line(n) for n in range(1, 31)))
    page.goto(log_page(site, live="1"))
    rows = page.locator("details.http-fold")
    expect(rows).to_have_count(1)
    while page.locator("#log-earlier a").count():
        shown = page.locator(".log-line").count()
        page.click("#log-earlier a")
        expect(page.locator(".log-line")).not_to_have_count(shown)
        expect(rows).to_have_count(1)  # earlier requests take the row; the one shown goes
    expect(rows.locator("summary")).to_have_text("15 HTTP requests between lines 1 and 29")
    y = {n: page.locator(f"#L{n}").bounding_box()["y"] for n in (2, 30)}
    assert rows.bounding_box()["y"] < y[2] < y[30], "the row is where the first request was"
    store.append(key, http_line(31) + note_line(32))
    page.locator("#L32").wait_for(state="attached", timeout=10_000)
    expect(rows).to_have_count(1)
    expect(rows.locator("summary")).to_have_text("16 HTTP requests between lines 1 and 31")


def test_a_second_request_brings_a_row_before_the_lone_one_already_shown(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "POLL_SECONDS", 1)
    key = site["base"] + ".txt"
    store.put(key, note_line(1) + http_line(2) + note_line(3))
    page.goto(log_page(site, live="1"))
    expect(page.locator("#L2")).to_be_visible()
    expect(page.locator("details.http-fold")).to_have_count(0)
    store.append(key, http_line(4) + note_line(5))
    page.locator("#L5").wait_for(state="attached", timeout=10_000)
    row = page.locator("details.http-fold")
    expect(row.locator("summary")).to_have_text("2 HTTP requests · lines 2 and 4")
    expect(page.locator("#L2")).to_be_hidden()
    assert page.locator("#L1").bounding_box()["y"] < row.bounding_box()["y"] < page.locator("#L3").bounding_box()["y"]


def test_a_live_log_says_so_when_this_site_does_not_answer_and_goes_on_when_it_does(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "POLL_SECONDS", 1)  # the live server runs in this process
    store.put(site["base"] + ".txt", "2026-12-02 10:00:00,000 INFO htrflow.wrapper: [V1] starting\n")  # still running
    page.route("**/log/more**", lambda route: route.abort())
    page.goto(log_page(site, live="1"))
    note = page.locator(".poll-trouble-note")
    expect(note).to_contain_text("This site did not answer", timeout=10_000)
    expect(note).to_have_attribute("role", "status")
    expect(note).to_have_count(1)
    page.unroute("**/log/more**")
    page.evaluate("document.getElementById('log-live').removeAttribute('data-backoff-until')")  # skip the 10 s wait
    page.locator("#log-live").dispatch_event("poll-now")
    expect(note).to_have_count(0, timeout=10_000)
