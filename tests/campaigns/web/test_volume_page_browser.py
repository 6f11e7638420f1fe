"""The volume page in a browser (issue 38, item 1): reached from the campaign page's row by keyboard, a
failed page in its strip opened in the ALTO viewer by keyboard, and no WCAG 2.2 AA violation (axe) on a
failed, a done and a running volume's page."""

from __future__ import annotations

import re

import pytest

from tests.results.viewers.test_keyboard_journey import tab_to
from tests.test_accessibility import violations_of

pytestmark = pytest.mark.browser
NS = "htr-batch"
PARISH = "parish-records-1870"


def ids(scene, *indexes: int) -> list[str]:
    volumes = scene.scene.campaigns[PARISH].volumes
    return [volumes[i].id for i in indexes]


def skip_to_volumes(page):
    tab_to(page, "a.skip[href='#volumes-title']")
    page.keyboard.press("Enter")


def test_from_the_row_to_the_volume_page_and_a_failed_page_by_keyboard(logged_in, scene, live_server):
    page = logged_in
    (with_failed_page,) = ids(scene, 3)
    page.goto(f"{live_server.url}/campaigns/{NS}/{PARISH}?q={with_failed_page}")
    skip_to_volumes(page)
    for _ in range(40):  # past the filter form to the row's link
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", f"#vpage-of-{with_failed_page}"):
            break
    else:
        pytest.fail("the row's volume link is not reached by Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/volumes/{with_failed_page}$"))
    assert with_failed_page in page.locator("h1").inner_text()
    tab_to(page, "a.skip[href='#volume-pages-title']")
    page.keyboard.press("Enter")
    failed = page.locator(".page-tile.page-failed a").first
    failed_id = failed.get_attribute("id")
    assert failed.get_attribute("aria-label").endswith(": failed")
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == failed_id:
            break
    else:
        pytest.fail("the failed page's tile is not reached by Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/alto\?src="))


@pytest.mark.parametrize("index", [18, 3, 25])
def test_axe_finds_no_violation_on_the_volume_page(logged_in, scene, live_server, index):
    page = logged_in
    (volume,) = ids(scene, index)
    page.goto(f"{live_server.url}/campaigns/{NS}/{PARISH}/volumes/{volume}")
    page.locator("#volume-ops summary").click()  # the operator's lines are checked too
    assert violations_of(page) == []
