"""The run log by keyboard: errors in order with wrap, find with "n of m" over the whole log, one tab stop
for the lines, failed pages linked, copy buttons, and no polling from a hidden tab."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from devstack.content import alto_xml, iiif_json, page_layout
from results.viewers import log as log_viewer
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser
ERROR_LINES = (20, 90, 160, 356, 420)


@pytest.fixture
def site(live_server, store, store_prefix, session_key_file, settings, images, page):
    """A volume's run log and pages at the keys the wrapper writes: ``<ns>/status/logs/<p>/<v>.txt``
    and ``<ns>/<p>/<v>/...``, with a pipeline id no other test uses."""
    results = live_server.url + "/results"
    settings.HTRFLOW_RESULTS_URL = results
    namespace, pipeline = store_prefix.strip("/").split("/")
    log_key = f"{namespace}/status/logs/{pipeline}/V1.txt"
    base = f"{namespace}/{pipeline}/V1"
    store.put(f"{base}/iiif.json", iiif_json("V1", pipeline, pages=4, image_base=images.url))
    for number in (1, 2, 4):
        store.put(f"{base}/alto/{number:04d}.xml", alto_xml(page_layout("V1", number)))
    browser_login(page, live_server.url, store.accounts["full"])
    return {"url": live_server.url, "log_key": log_key, "log": f"{results}/{log_key}", "base": base}


def log_page(site, **params):
    query = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in {"log": site["log"], **params}.items())
    return f"{site['url']}/log?{query}"


def line(n: int, text: str, level: str = "INFO") -> str:
    return f"2026-12-02 10:{n // 60 % 60:02d}:{n % 60:02d},000 {level} htrflow.wrapper: [V1] {text}\n"


def five_error_log() -> str:
    rows = []
    for n in range(1, 481):
        if n in ERROR_LINES:
            rows.append(line(n, f"page {n:04d} failed: bad scan", "ERROR"))
        elif n % 50 == 0:
            rows.append(line(n, f"page {n:04d} ok, parish register"))
        else:
            rows.append(line(n, f"note {n}"))
    return "".join(rows)


def focused_id(page) -> str:
    return page.evaluate("document.activeElement.id")


def test_next_error_walks_every_error_in_order_wraps_and_keeps_focus_on_the_button(page, site, store):
    store.put(site["log_key"], five_error_log())
    page.goto(log_page(site))
    expect(page.locator("#log-error-count")).to_contain_text("5 errors")
    page.focus("#next-error")
    seen = []
    for _ in range(6):
        page.keyboard.press("Enter")
        status = page.locator("#error-status").inner_text()
        seen.append(status)
        assert focused_id(page) == "next-error"
    assert seen == [f"Error {i + 1} of 5, line {n}" for i, n in enumerate(ERROR_LINES)] + ["Error 1 of 5, line 20"]
    expect(page.locator("#L20")).to_have_class(re.compile(r"\bis-target\b"))
    assert page.locator("#error-status").get_attribute("role") == "status"
    page.focus("#prev-error")
    page.keyboard.press("Enter")
    expect(page.locator("#error-status")).to_have_text("Error 5 of 5, line 420")
    assert focused_id(page) == "prev-error"
    # The line jumped to is the log body's one tab stop: Tab lands on it, arrows move on.
    box = page.locator("#L420").bounding_box()
    view = page.locator("#log-view").bounding_box()
    assert view["y"] <= box["y"] <= view["y"] + view["height"]
    assert page.locator("#log-view .ln[tabindex='0']").count() == 1
    assert page.locator("#log-view .ln[tabindex='-1']").count() >= 479


def test_the_log_body_is_one_tab_stop_and_arrow_keys_move_through_its_lines(page, site, store):
    store.put(site["log_key"], five_error_log())
    page.goto(log_page(site))
    page.focus("#toggle-http" if page.locator("#toggle-http").is_visible() else "#next-error")
    tabs = 0
    while not page.evaluate("document.activeElement.classList.contains('ln')") and tabs < 20:
        page.keyboard.press("Tab")
        tabs += 1
    assert page.evaluate("document.activeElement.closest('.log-line').id") == "L480"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.closest('.log-line').id") == "L478"
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.closest('.log-line').id") == "L1"
    page.keyboard.press("Tab")
    assert page.evaluate("!document.getElementById('log-view').contains(document.activeElement)")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.closest('.log-line').id") == "L1", "the stop stays where it was left"


def test_find_counts_every_match_marks_them_and_steps_with_enter_and_shift_enter(page, site, store):
    store.put(site["log_key"], five_error_log())
    page.goto(log_page(site))
    page.fill("#log-q", "parish register")
    page.press("#log-q", "Enter")
    expect(page.locator("#find-status")).to_have_text(re.compile(r"^From the top of the log: 1 of 9, line 50$"))
    expect(page.locator("#L50 mark.find-hit.current")).to_have_text("parish register")
    assert page.locator("mark.find-hit").count() == 9
    page.press("#log-q", "Enter")
    expect(page.locator("#find-status")).to_have_text("2 of 9, line 100")
    page.press("#log-q", "Shift+Enter")
    page.press("#log-q", "Shift+Enter")
    expect(page.locator("#find-status")).to_have_text("Before the first match: on to the last. 9 of 9, line 450")
    assert focused_id(page) == "log-q"
    page.fill("#log-q", "no such words")
    page.press("#log-q", "Enter")
    expect(page.locator("#find-status")).to_have_text("No match in the whole log")


def test_find_reaches_matches_outside_the_loaded_part_of_the_log(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "TAIL_BYTES", 4096)  # only the last lines are loaded
    store.put(site["log_key"], five_error_log())
    page.goto(log_page(site))
    assert page.locator("#L50").count() == 0
    page.fill("#log-q", "parish register")
    page.press("#log-q", "Enter")
    # The first match is not loaded: the page opens around it and goes on finding there.
    page.wait_for_url(re.compile(r"line=50"))
    expect(page.locator("#find-status")).to_have_text("1 of 9, line 50")
    expect(page.locator("#L50 mark.find-hit.current")).to_be_visible()
    page.press("#log-q", "Enter")
    expect(page.locator("#find-status")).to_have_text("2 of 9, line 100")


def test_failed_pages_named_by_the_log_open_in_the_page_viewer(page, site, store):
    store.put(site["log_key"], five_error_log())
    page.goto(log_page(site))
    nav = page.locator("#failed-pages-nav")
    expect(nav.locator("a")).to_have_text(["0020", "0090", "0160", "0356", "0420"])
    assert page.locator("#L90 a.page-link").get_attribute("tabindex") == "-1"
    nav.locator("a", has_text="0090").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/alto\?src=.*alto%2F0090\.xml"))


def test_a_hidden_tab_makes_no_log_requests_and_polls_again_when_shown(page, site, store, monkeypatch):
    monkeypatch.setattr(log_viewer, "POLL_SECONDS", 1)
    store.put(site["log_key"], line(1, "starting"))
    page.add_init_script(
        "Object.defineProperty(document, 'visibilityState', {get: () => window.__hidden ? 'hidden' : 'visible'});"
    )
    page.goto(log_page(site, live="1"))
    polls = []
    page.on("request", lambda request: polls.append(request.url) if "/log/more" in request.url else None)
    with page.expect_request(re.compile(r"/log/more"), timeout=10_000):
        pass  # it polls while shown
    page.evaluate("window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(300)  # a request already on its way may still finish
    polls.clear()
    page.wait_for_timeout(3500)  # three poll intervals and more
    assert polls == []
    with page.expect_request(re.compile(r"/log/more"), timeout=10_000):
        page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")


def test_copy_buttons_copy_without_a_mouse_and_say_copied(page, site, store):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    store.put(site["log_key"], five_error_log())
    page.goto(log_page(site))
    page.focus("#operator-facts > summary")
    page.keyboard.press("Enter")
    button = page.locator("#operator-facts button[aria-label='Copy the volume id']")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#operator-facts .copy-status").first).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "V1"
