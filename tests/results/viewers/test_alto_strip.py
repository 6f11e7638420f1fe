"""The ALTO viewer agrees with the volume's manifest.json (issue 39): every page it counts or records is in the
strip and in "page N of M", even when iiif.json has fewer canvases; failed, skipped and unrecorded pages and
pages without an image are marked on their thumbnails in words (not by colour alone), listed as links above
the strip, and reached by keyboard along it."""

from __future__ import annotations

import json
import re
from urllib.parse import quote, unquote

import pytest
from playwright.sync_api import expect

from devstack.content import alto_xml, iiif_json, image_service, page_layout
from tests.fixtures.session import browser_login

# manifest.json counts 10 pages and records 9 (page 3 failed, page 10 not recorded); iiif.json has canvases
# for 1, 2 and 4-8 (none for the failed page, and page 9's not yet published); ALTO files for 1, 2 and 4-9.
RECORDED = {f"{n:04d}": {"status": "failed" if n == 3 else "ok", "seconds": 1.0} for n in range(1, 10)}
CANVASES = [1, 2, 4, 5, 6, 7, 8]
ALTO_PAGES = [1, 2, 4, 5, 6, 7, 8, 9]


def put_disagreeing_volume(store, store_prefix, results_url, image_base):
    base = f"{store_prefix}p/V9"
    manifest = {"volume": "V9", "pipeline_id": "p", "pages": 10, "pages_ok": 8, "pages_failed": 1, "results": RECORDED}
    store.put(f"{base}/manifest.json", json.dumps(manifest))
    iiif = iiif_json("V9", "p", pages=CANVASES, image_base=image_base, results_url=results_url,
                     namespace=store_prefix.strip("/").split("/")[0])
    store.put(f"{base}/iiif.json", iiif)
    for number in ALTO_PAGES:
        store.put(f"{base}/alto/{number:04d}.xml", alto_xml(page_layout("V9", number)))
    return lambda n: f"{results_url}/{base}/alto/{n:04d}.xml"


@pytest.fixture
def alto(store, store_prefix, settings, images):
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    images.register_volume("V9", pages=10)
    return put_disagreeing_volume(store, store_prefix, "http://testserver/results", images.url)


def strip_of(html: str) -> str:
    return html.split('id="page-strip"')[1].split("</nav>")[0]


def test_the_count_and_the_strip_follow_the_manifest_not_the_canvases(results_client, alto):
    for number in (1, 9):
        html = results_client.get("/alto", {"src": alto(number)}).content.decode()
        assert f"V9 · page {number} of 10" in html
        assert "of 7" not in html and "of 8" not in html and "of 9" not in html
        strip = strip_of(html)
        numbers = [int(n) for n in re.findall(r'id="thumb-(\d+)"', strip)]
        assert numbers == list(range(1, 11))
    html = results_client.get("/alto", {"src": alto(9)}).content.decode()
    assert 'rel="next"' in html  # page 10 is counted, so it is next


def test_failed_unrecorded_and_imageless_pages_are_marked_in_words(results_client, alto, images):
    html = results_client.get("/alto", {"src": alto(1)}).content.decode()
    strip = strip_of(html)
    labels = dict(re.findall(r'aria-label="(Page \d+)(?:: ([^"]*))?"', strip))
    assert labels["Page 3"] == "failed"
    assert labels["Page 9"] == "no image"  # recorded ok, no canvas yet
    assert labels["Page 10"] == "not in manifest.json"
    assert labels["Page 1"] == "" and labels["Page 4"] == ""
    # in words on the thumbnail itself, and the thumbnail of each canvas is the canvas of its own page
    mark = '<span class="thumb-mark" aria-hidden="true"><span class="icon">✕</span> failed'
    assert re.search(r'id="thumb-3">.*?' + re.escape(mark), strip)
    four = re.search(r'id="thumb-4"><img src="([^"]+)"', strip).group(1)
    assert four == image_service(images.url, "V9", 4) + "/full/,96/0/default.jpg"
    marked = html.split('id="strip-marked"')[1].split("</p>")[0]
    for said in ("page 3 (failed)", "page 9 (no image)", "page 10 (not in manifest.json)"):
        assert said in marked


def test_a_page_with_no_alto_file_in_a_volume_without_manifest_is_still_counted(
    results_client, alto, store, store_prefix
):
    store.delete(f"{store_prefix}p/V9/manifest.json")
    html = results_client.get("/alto", {"src": alto(9)}).content.decode()
    assert "V9 · page 9 of 9" in html  # iiif.json has 8 pages' canvases up to page 8, but page 9's ALTO file is there
    html = results_client.get("/alto", {"src": alto(3)}).content.decode()
    assert 'aria-label="Page 3: no ALTO file"' in strip_of(html)


def test_go_to_accepts_every_page_the_manifest_counts(results_client, alto):
    response = results_client.get("/alto", {"src": alto(1), "goto": "10"})
    assert response.status_code == 302 and unquote(response["Location"]).endswith("/alto/0010.xml")
    response = results_client.get("/alto", {"src": alto(1), "goto": "11"}, follow=True)
    assert "There is no page “11”: give a page number, 1 to 10." in response.content.decode()


@pytest.mark.browser
def test_the_marked_pages_are_reached_by_keyboard(page, live_server, store, store_prefix, settings, images,
                                                   session_key_file):
    results = live_server.url + "/results"
    settings.HTRFLOW_RESULTS_URL = results
    images.register_volume("V9", pages=10)
    alto_at = put_disagreeing_volume(store, store_prefix, results, images.url)
    browser_login(page, live_server.url, store.accounts["full"])
    page.goto(f"{live_server.url}/alto?src={quote(alto_at(2), safe='')}")
    current = page.locator("#page-strip a.current")
    current.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#thumb-3")).to_be_focused()
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Page 3: failed"
    expect(page.locator("#thumb-3 .thumb-mark")).to_have_text(re.compile(r"failed"))
    page.keyboard.press("End")
    expect(page.locator("#thumb-10")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"0010\.xml"))
    expect(page.locator("h1")).to_have_text("V9 · page 10 of 10")
    # the list above the strip is on the Tab path: a failed page is one link away
    link = page.locator("#strip-marked a", has_text="page 3 (failed)")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"0003\.xml"))
    expect(page.locator("h1")).to_have_text("V9 · page 3 of 10")
