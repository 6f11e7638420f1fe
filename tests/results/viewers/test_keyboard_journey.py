"""From the list to a failed volume's fix, by keyboard alone (issue: from a failed volume to its fix):
the list's search finds the volume, its run log, every error in order with wrap, a word found with
"n of m", a failed page in the ALTO viewer, page 5, back to the campaign, and the volume's row there.
No mouse; each step is a few Tabs."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
MOST_TABS = 10  # per step: the most Tab presses a step may take


def tab_to(page, selector: str, backwards: bool = False) -> int:
    """Press Tab (or Shift+Tab) until the focused element matches ``selector``; returns how many presses."""
    for presses in range(1, MOST_TABS + 1):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return presses
    where = page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
    pytest.fail(f"{selector} is not reached within {MOST_TABS} Tabs; focus is on {where}")


def errors_in_order(page) -> list[str]:
    count = int(re.match(r"(\d+) error", page.locator("#log-error-count").inner_text()).group(1))
    said = []
    for _ in range(count + 1):
        page.keyboard.press("Enter")
        said.append(page.locator("#error-status").inner_text())
        assert page.evaluate("document.activeElement.id") == "next-error"
    return said


def test_from_the_list_to_a_failed_page_and_back_by_keyboard(logged_in, scene, live_server):
    page = logged_in
    campaign = scene.scene.campaign_of("verify_missing_pages")
    volume_id = scene.scene.volumes["verify_missing_pages"][0]
    steps = {}

    # The list: the search box is the second skip link; what it finds comes first, with a run log link.
    page.goto(f"{live_server.url}/")
    steps["to Find a campaign or volume"] = tab_to(page, "a.skip[href='#list-q']")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "list-q"
    page.keyboard.type(volume_id)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/\?q="))
    steps["to Skip to what was found"] = tab_to(page, "a.skip[href='#overview-title']")
    page.keyboard.press("Enter")
    steps["to the found volume's run log"] = tab_to(page, "#overview-rows a.hit-log")
    assert volume_id in page.evaluate("document.activeElement.textContent")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/log\?"))

    # Every error in order, and round to the first again.
    steps["to Skip to the errors"] = tab_to(page, "a.skip[href='#next-error']")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "next-error"
    said = errors_in_order(page)
    count = len(said) - 1
    assert count >= 2
    numbers = [int(re.match(rf"Error (\d+) of {count}, line \d+$", s).group(1)) for s in said]
    assert numbers == [*range(1, count + 1), 1]
    lines = [int(s.rsplit(" ", 1)[1]) for s in said[:-1]]
    assert lines == sorted(lines)

    # Find a word in the whole log: "n of m", Enter for the next one.
    steps["to the find field"] = tab_to(page, "#log-q")
    page.keyboard.type("verify failed")
    page.keyboard.press("Enter")
    expect(page.locator("#find-status")).to_have_text(re.compile(r"^From the top of the log: 1 of (\d+), line \d+$"))
    total = int(re.search(r"1 of (\d+)", page.locator("#find-status").inner_text()).group(1))
    assert total >= 2
    page.keyboard.press("Enter")
    expect(page.locator("#find-status")).to_have_text(re.compile(rf"^2 of {total}, line \d+$"))

    # A failed page the log names, in the ALTO viewer.
    steps["to a failed page"] = tab_to(page, "#failed-pages-nav a")
    failed_page = page.evaluate("document.activeElement.textContent")
    assert failed_page == "0012"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/alto\?src=.*0012\.xml"))
    expect(page.locator("h1")).to_contain_text(f"{volume_id} · page 12 of")
    expect(page.locator("#alto-parse-problem")).to_contain_text("Page 12 has no ALTO file")

    # Page 5, through the go-to field.
    steps["to Go to a page"] = tab_to(page, "a.skip[href='#goto-page']")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "goto-page"
    page.keyboard.press("Control+A")
    page.keyboard.type("5")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/alto\?src=.*0005\.xml"))
    expect(page.locator("h1")).to_contain_text(f"{volume_id} · page 5 of")
    expect(page.locator("#page-strip a.current")).to_have_attribute("aria-label", "Page 5")

    # Back to the campaign, and the volume's row there: its filter finds it, its run log is a Tab away.
    steps["to the campaign"] = tab_to(page, "#crumb-campaign")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/campaigns/{scene.scene.where.namespace}/{campaign.name}$"))
    expect(page.locator("h1")).to_have_text(f"Campaign {campaign.name}")
    steps["to Skip to the volumes"] = tab_to(page, "a.skip[href='#volumes-title']")
    page.keyboard.press("Enter")
    steps["to the volume filter"] = tab_to(page, "input[name=q]")
    page.keyboard.type(volume_id)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"[?&]q="))
    expect(page.locator("#volume-rows tr.vol")).to_have_count(1)
    page.focus("input[name=q]")  # where the filter left the person: in the field they typed in
    steps["to the volume's run log link"] = tab_to(page, "#volume-rows a[href^='/log']")
    print("Tabs per step:", steps)
    assert all(presses <= MOST_TABS for presses in steps.values())
