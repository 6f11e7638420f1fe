"""A file of the wrong kind gets one true sentence and a heading with its name (issue 39): a run log opened as
ALTO, an image opened as ALTO or as a run log, an empty ALTO file and one cut off while it was written. No
second cause (the image server, a missing canvas) is said unless it was looked at."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from devstack.content import alto_xml, page_layout
from results.formats import kinds
from tests.fixtures.session import browser_login

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 4


@pytest.fixture
def files(store, store_prefix, settings, volume):
    """The viewers' shared volume (V1), with wrong files beside it."""
    base = volume["base"]
    store.put(f"{base}/alto/0002.xml", JPEG, "image/jpeg")
    store.put(f"{base}/alto/0004.xml", b"", "application/xml")
    whole = alto_xml(page_layout("V1", 4))
    store.put(f"{base}/alto/0005.xml", whole[: len(whole) // 2], "application/xml")
    store.put(f"{base}/picture.txt", PNG, "text/plain")
    url = "http://testserver/results/"
    return {**volume, "jpeg": url + f"{base}/alto/0002.xml", "empty": url + f"{base}/alto/0004.xml",
            "cut": url + f"{base}/alto/0005.xml", "png_log": url + f"{base}/picture.txt"}


def visible_banners(html: str) -> list[str]:
    shown = re.findall(r'<p class="banner[^"]*"(?![^>]*hidden)[^>]*>(.*?)</p>', html, re.S)
    return [re.sub(r"<[^>]+>", "", b).strip() for b in shown]


def test_a_run_log_opened_as_alto_is_named_and_said_once(results_client, files):
    response = results_client.get("/alto", {"src": files["log"]})
    html = response.content.decode()
    assert response.status_code == 200
    assert re.search(r"<h1>ALTO page · V1\.txt</h1>", html)
    said = visible_banners(html)
    assert said == ["V1.txt is a run log, not an ALTO file: open it in the run log viewer. Open it as a run log"]
    assert "image" not in " ".join(said)
    assert 'id="alto-open-as-log"' in html
    assert not re.search(r">Run log of\s*<", html)  # the volume's run log link names the volume


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        ("jpeg", "0002.xml is an image (JPEG), not an ALTO file, so there is no text to show."),
        ("empty", "0004.xml is empty: it holds no bytes, so there is no page to show."),
    ],
)
def test_an_image_or_an_empty_file_opened_as_alto_gets_its_one_sentence(results_client, files, name, sentence):
    html = results_client.get("/alto", {"src": files[name]}).content.decode()
    said = visible_banners(html)
    assert said[0] == sentence
    assert not any("image cannot be shown" in s or "did not load" in s for s in said)
    assert "V1 · page" in html  # the heading names the volume and the page


def test_an_alto_file_cut_off_is_said_so(results_client, files):
    html = results_client.get("/alto", {"src": files["cut"]}).content.decode()
    said = visible_banners(html)
    assert re.match(r"0005\.xml stops in the middle of its XML, after [\d.]+\xa0KB: the file is incomplete", said[0])
    assert not any("well-formed" in s for s in said)


def test_an_image_opened_as_a_run_log_is_named_and_said_once(results_client, files):
    response = results_client.get("/log", {"log": files["png_log"]})
    html = response.content.decode()
    assert response.status_code == 422
    assert "<h1>Run log · picture.txt</h1>" in html
    assert "picture.txt is an image (PNG), not a run log, so there are no lines to show." in html
    assert html.count('class="banner') == 1


def test_the_kinds_come_from_the_bytes():
    assert kinds.kind_of(b"") == kinds.EMPTY
    assert kinds.kind_of(JPEG) == kinds.IMAGE and kinds.image_format(JPEG) == "JPEG"
    assert kinds.kind_of(b"2026-09-24 08:00:01 INFO started\n2026-09-24 08:00:02 INFO go\n") == kinds.RUN_LOG
    assert kinds.kind_of(b"[V1] resume: 3 done, 1 to process\n") == kinds.RUN_LOG
    assert kinds.kind_of(b"[1, 2]") == kinds.JSON
    assert kinds.kind_of(b'\xef\xbb\xbf<?xml version="1.0"?><alto/>') == kinds.XML
    assert kinds.cut_off_xml(b"<alto><Page>") and not kinds.cut_off_xml(b"<alto></Page>")
    assert not kinds.cut_off_xml(b"<alto/>")


@pytest.mark.browser
def test_a_run_log_opened_as_alto_offers_the_log_viewer(page, live_server, store, store_prefix, settings,
                                                         session_key_file):
    results = live_server.url + "/results"
    settings.HTRFLOW_RESULTS_URL = results
    key = f"{store_prefix}p/V7.txt"
    store.put(key, "2026-09-24 08:00:01 INFO started\n2026-09-24 08:00:02 INFO done\n", "text/plain")
    browser_login(page, live_server.url, store.accounts["full"])
    page.goto(f"{live_server.url}/alto?src={quote(results + '/' + key, safe='')}")
    expect(page.locator("h1")).to_have_text("ALTO page · V7.txt")
    page.locator("#alto-open-as-log").click()
    page.wait_for_url(re.compile(r"/log\?"))
    expect(page.locator(".log-line")).to_have_count(2)
