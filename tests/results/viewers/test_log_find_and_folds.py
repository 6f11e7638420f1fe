"""The run log viewer's folds hold exactly the lines they name, and its find bar searches the whole log from
the top or from the line in view (as the bar says), wraps, and says where it is in its live region (issue 39)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from results.formats import runlog
from tests.results.viewers.test_browser import http_line, log_page, site  # noqa: F401 - the browser fixture

pytestmark = pytest.mark.browser


def note(n: int, text: str = "note") -> str:
    return f"2026-12-02 10:01:{n % 60:02d},000 INFO htrflow.wrapper: [V1] {text} {n}\n"


def test_a_fold_names_only_the_lines_it_hides():
    assert runlog.fold_label(3, 6, 8) == "3 HTTP requests · lines 6–8"
    assert runlog.fold_label(2, 6, 8) == "2 HTTP requests · lines 6 and 8"
    assert runlog.fold_label(3, 6, 30) == "3 HTTP requests between lines 6 and 30"


def test_the_fold_row_and_the_lines_it_hides_agree(page, site, store):  # noqa: F811 - the fixture
    text = "".join(note(n) for n in range(1, 6)) + http_line(6) + note(7, "plain") + http_line(8) + note(9)
    store.put(site["base"] + ".txt", text)
    page.goto(log_page(site))
    expect(page.locator("details.http-fold summary")).to_have_text("2 HTTP requests · lines 6 and 8")
    assert not page.locator("#L6").is_visible() and not page.locator("#L8").is_visible()
    assert page.locator("#L7").is_visible()  # not in the fold, and the fold does not say it is


def test_find_starts_from_the_top_wraps_and_says_where_it_is(page, site, store):  # noqa: F811 - the fixture
    # 16 matches, and the run fails at the end, so the page opens at the failure, below all of them.
    lines = "".join(note(n, "needle" if n % 4 == 0 else "hay") for n in range(1, 65))
    failure = "2026-12-02 10:05:00,000 ERROR htrflow.wrapper: [V1] permanent failure in stream: boom — stop\n"
    store.put(site["base"] + ".txt", lines + failure)
    page.goto(log_page(site))
    status = page.locator("#find-status")
    assert status.get_attribute("aria-live") == "polite"
    expect(page.locator("#find-from")).to_have_value("top")
    page.locator("#log-q").fill("needle")
    page.keyboard.press("Enter")
    expect(status).to_have_text("From the top of the log: 1 of 16, line 4")
    page.locator("#find-prev").click()
    expect(status).to_have_text("Before the first match: on to the last. 16 of 16, line 64")
    page.locator("#find-next").click()
    expect(status).to_have_text("Past the last match: back to the first. 1 of 16, line 4")
    page.locator("#find-next").click()
    expect(status).to_have_text("2 of 16, line 8")


def test_find_can_start_from_the_line_in_view(page, site, store):  # noqa: F811 - the fixture
    lines = "".join(note(n, "needle" if n % 4 == 0 else "hay") for n in range(1, 200))
    store.put(site["base"] + ".txt", lines)
    page.goto(log_page(site) + "#L101")
    page.locator("#L101").scroll_into_view_if_needed()
    page.locator("#log-view").evaluate("el => { el.scrollTop = document.getElementById('L101').offsetTop; }")
    page.locator("#find-from").select_option("view")
    page.locator("#log-q").fill("needle")
    page.keyboard.press("Enter")
    said = page.locator("#find-status")
    pattern = re.compile(r"^From line (\d+), the first line in view: (\d+) of 49, line (\d+)$")
    expect(said).to_have_text(pattern)
    first_in_view, index, line = map(int, pattern.match(said.inner_text()).groups())
    assert line >= first_in_view and line - first_in_view < 4 and line == index * 4
    assert first_in_view > 50  # the view, not the top
