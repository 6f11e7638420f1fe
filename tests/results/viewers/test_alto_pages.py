"""The ALTO viewer as a way through a volume: its title, page N of M with a go-to field and a strip of
page thumbnails, links back to the volume's run log and manifest, failed pages that still show their image,
confidence told by more than colour, a visible zoom level and one tab stop for the text lines."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest
from playwright.sync_api import expect

from devstack.content import alto_xml, iiif_json, page_layout
from tests.fixtures.session import browser_login


def put_volume(store, store_prefix, results_url, image_base):
    namespace, pipeline = store_prefix.strip("/").split("/")
    base = f"{namespace}/{pipeline}/V1"
    store.put(f"{base}/iiif.json", iiif_json("V1", pipeline, pages=4, image_base=image_base))
    for number in (1, 2, 4):  # page 3 failed: it has no ALTO file
        store.put(f"{base}/alto/{number:04d}.xml", alto_xml(page_layout("V1", number)))
    return {"base": base, "pipeline": pipeline, "alto": lambda n: f"{results_url}/{base}/alto/{n:04d}.xml"}


@pytest.fixture
def volume(store, store_prefix, settings, images):
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    return put_volume(store, store_prefix, "http://testserver/results", images.url)


def test_the_title_names_the_volume_and_the_page_once(results_client, volume):
    html = results_client.get("/alto", {"src": volume["alto"](1)}).content.decode()
    assert "<title>V1, page 1 of 4 · htrbrowser</title>" in html
    assert "Page page" not in html


def test_the_page_strip_has_a_small_picture_per_page_from_the_image_service(results_client, volume, images):
    html = results_client.get("/alto", {"src": volume["alto"](2)}).content.decode()
    strip = html.split('id="page-strip"')[1].split("</nav>")[0]
    pictures = re.findall(r'<img src="([^"]+)" alt="" loading="lazy"', strip)
    assert len(pictures) == 4
    assert all(p.startswith(images.url) and p.endswith("/full/,96/0/default.jpg") for p in pictures)
    current = re.findall(r'<a href="([^"]+)" class="thumb current" tabindex="0" aria-current="page"', strip)
    assert len(current) == 1 and "0002.xml" in unquote(current[0])
    assert strip.count('tabindex="-1"') == 3


def test_go_to_page_opens_that_page_and_a_page_out_of_range_is_a_sentence(results_client, volume):
    response = results_client.get("/alto", {"src": volume["alto"](1), "goto": "4"})
    assert response.status_code == 302 and unquote(response["Location"]).endswith("/alto/0004.xml")
    response = results_client.get("/alto", {"src": volume["alto"](1), "goto": "9"}, follow=True)
    html = response.content.decode()
    assert "There is no page “9”: give a page number, 1 to 4." in html
    assert 'aria-invalid="true"' in html
    response = results_client.get("/alto", {"src": volume["alto"](1), "goto": "<b>"}, follow=True)
    assert "That is not a page number: give a page number, 1 to 4." in response.content.decode()
    assert "&lt;b&gt;" not in response.content.decode()


HOSTILE = "Your session expired. Log in again at https://evil.example/login"


@pytest.mark.parametrize(
    "query",
    [
        {"goto_problem": HOSTILE},
        {"goto_problem": "out_of_range", "asked": HOSTILE},
        {"goto_problem": "not_a_number", "asked": HOSTILE},
    ],
)
def test_the_page_never_shows_text_from_its_own_address(results_client, volume, query):
    html = results_client.get("/alto", {"src": volume["alto"](1), **query}).content.decode()
    assert "evil.example" not in html and "session expired" not in html
    if query["goto_problem"] == HOSTILE:  # an unknown code shows nothing
        assert 'id="goto-problem"' not in html and 'aria-invalid="true"' not in html
    else:  # a known code is worded by the page itself, without the text it came with
        assert 'id="goto-problem"' in html


def test_the_go_to_redirect_carries_a_code_and_a_number_not_a_sentence(results_client, volume):
    response = results_client.get("/alto", {"src": volume["alto"](1), "goto": "12"})
    query = parse_qs(urlsplit(response["Location"]).query)
    assert query["goto_problem"] == ["out_of_range"] and query["asked"] == ["12"]
    assert all(" " not in value for values in query.values() for value in values)


def test_a_failed_page_without_alto_still_shows_its_image_and_the_way_on(results_client, volume):
    response = results_client.get("/alto", {"src": volume["alto"](3)})
    assert response.status_code == 404
    html = response.content.decode()
    assert "Page 3 has no ALTO file" in html
    assert '<figure class="alto-missing-image"><img src="http' in html
    assert 'id="page-strip"' in html and 'id="goto-page"' in html
    assert 'id="alto-prev"' in html and 'id="alto-next"' in html


def test_the_page_links_to_the_volumes_run_log_and_manifests(results_client, volume):
    html = results_client.get("/alto", {"src": volume["alto"](1)}).content.decode()
    links = html.split('id="alto-links"')[1].split("</p>")[0]
    log_key = f"htr-batch/status/logs/{volume['pipeline']}/V1.txt"
    assert "/log?log=" + quote(f"http://testserver/results/{log_key}", safe="") in links.replace("&amp;", "&")
    assert f"http://testserver/results/{volume['base']}/iiif.json" in links
    assert f"http://testserver/results/{volume['base']}/manifest.json" in links


# --- in Chromium -----------------------------------------------------------------------------------


@pytest.fixture
def in_browser(live_server, store, store_prefix, session_key_file, settings, images, page):
    results = live_server.url + "/results"
    settings.HTRFLOW_RESULTS_URL = results
    found = put_volume(store, store_prefix, results, images.url)
    browser_login(page, live_server.url, store.accounts["full"])
    return {**found, "open": lambda n: page.goto(f"{live_server.url}/alto?src={quote(found['alto'](n), safe='')}")}


@pytest.mark.browser
def test_confidence_bands_differ_by_outline_style_with_deuteranopia_emulated(page, in_browser):
    in_browser["open"](1)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "deuteranopia"})
    styles = page.evaluate(
        """() => ['high', 'mid', 'low'].map(band => {
            const poly = document.querySelector('.alto-poly.conf-' + band);
            const line = document.querySelector('.alto-line.conf-' + band);
            return {band, dash: getComputedStyle(poly).strokeDasharray, fill: getComputedStyle(poly).fill,
                    bar: getComputedStyle(line).borderLeftStyle};
        })"""
    )
    assert len({s["dash"] for s in styles}) == 3, styles
    assert len({s["bar"] for s in styles}) == 3, styles
    assert "url(" in next(s["fill"] for s in styles if s["band"] == "low")
    # The percentage stands beside every scored line, without hovering.
    first = page.locator(".alto-line").first
    expect(first.locator(".conf-number")).to_be_visible()
    assert re.fullmatch(r"\d{1,3}%", first.locator(".conf-number").inner_text())
    assert first.locator(".conf-number").evaluate("el => getComputedStyle(el).opacity") == "1"
    legend = page.locator(".conf-legend .swatch")
    assert len(set(legend.evaluate_all("els => els.map(e => getComputedStyle(e).borderTopStyle)"))) == 4


@pytest.mark.browser
def test_zoom_shows_its_level(page, in_browser):
    in_browser["open"](1)
    expect(page.locator("#zoom-level")).to_have_text("Zoom 100%")
    page.focus("#zoom-in")
    page.keyboard.press("Enter")
    expect(page.locator("#zoom-level")).to_have_text("Zoom 125%")
    page.focus("#zoom-fit")
    page.keyboard.press("Enter")
    expect(page.locator("#zoom-level")).to_have_text("Zoom 100% (fit)")


@pytest.mark.browser
def test_the_text_lines_and_the_page_strip_are_one_tab_stop_each(page, in_browser):
    in_browser["open"](2)
    assert page.locator(".alto-line[tabindex='0']").count() == 1
    page.locator(".alto-line").first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.id") == "L3"
    assert page.locator(".alto-line[tabindex='0']").count() == 1
    page.keyboard.press("Tab")
    assert not page.evaluate("document.activeElement.classList.contains('alto-line')")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "L3"
    strip = page.locator("#page-strip a.current")
    strip.focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Page 3"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"0003\.xml"))
    expect(page.locator("#alto-parse-problem")).to_contain_text("Page 3 has no ALTO file")
