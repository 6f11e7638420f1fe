"""The viewers' pages through Django's client, reading the store double with a person's session."""

import re
from datetime import UTC, datetime

import pytest

from devstack.content import alto_variant, big_run_log, page_layout
from results.store import reader as reader_module
from results.viewers import alto as alto_viewer
from results.viewers import log as log_viewer
from tests.fixtures.session import login_as

START = datetime(2026, 12, 2, 10, tzinfo=UTC)


def test_the_log_opens_with_its_lines_numbered_and_grouped(results_client, volume):
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert 'id="L1"' in page and "HTTP requests" in page
    assert "COMPLETE 4 pages" in page and ">finished<" in page


def test_control_codes_and_markup_in_a_log_are_inert(results_client, store, volume):
    store.put(volume["base"] + ".txt", "2026-12-02 10:00:00 INFO \x1b[31m<script>alert(1)</script>\x1b[0m\x00\n")
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page and "\x1b" not in page and "\x00" not in page


def test_the_summary_comes_from_the_manifest_with_a_pages_table(results_client, volume):
    page = results_client.get("/log", {"log": volume["log"], "manifest": volume["manifest"]}).content.decode()
    assert "3 ok · 1 failed · 0 skipped" in page
    assert "/alto?src=http%3A%2F%2Ftestserver%2Fresults%2F" in page and "0001.xml" in page


def test_search_counts_matches_in_the_whole_log(results_client, volume):
    page = results_client.get("/log", {"log": volume["log"], "q": "page 0002"}).content.decode()
    expected = volume["text"].count("page 0002")
    assert f"{expected} match" in page and "<mark>page 0002</mark>" in page


def test_a_refused_address_says_why_and_how_to_fix_it(results_client, volume):
    response = results_client.get("/log", {"log": "http://testserver/results-evil/x.txt"})
    assert response.status_code == 400
    assert "not under the results base" in response.content.decode()
    assert "resultsUrl" in response.content.decode()


def test_a_missing_log_has_its_own_sentence_and_offers_to_wait_for_it(results_client, volume):
    response = results_client.get("/log", {"log": volume["log"].replace("V1.txt", "nope.txt")})
    assert response.status_code == 404 and "no run log at this address" in response.content.decode()
    follow = re.search(r'<a href="([^"]+)" id="viewer-follow">', response.content.decode())
    assert follow and "live=1" in follow.group(1) and "nope.txt" in follow.group(1)


def test_an_account_that_may_not_read_gets_told(client, store, session_key_file, volume):
    login_as(client, store.accounts["outsider"])
    response = client.get("/log", {"log": volume["log"]})
    page = response.content.decode()
    assert response.status_code == 403 and "may not read this volume&#x27;s results" in page
    assert "namespace" not in page  # the account may read the namespace, only not this volume
    fix = re.search(r'<p class="viewer-fix">(.*?)</p>', page, re.S)
    assert fix and "policy for this account denies" in fix.group(1) and "V1.txt" in fix.group(1)
    alto = client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert "may not read this volume&#x27;s results" in alto and "policy for this account denies" in alto


@pytest.fixture
def bytes_read(monkeypatch):
    """How many bytes each read of the store returned, in order."""
    read = []
    original = reader_module.ResultsReader.get

    def counting(self, key, **kwargs):
        blob = original(self, key, **kwargs)
        read.append(len(blob.body))
        return blob

    monkeypatch.setattr(reader_module.ResultsReader, "get", counting)
    return read


def test_a_large_log_opens_at_its_tail_reading_only_part_of_it(results_client, store, volume, bytes_read):
    big = big_run_log("V1", "p", start=START)
    store.put(volume["base"] + ".txt", big)
    read = bytes_read
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert len(big.encode()) > 4_000_000
    assert sum(read) <= 256 * 1024
    assert big.rstrip("\n").rsplit("\n", 1)[-1][-30:].replace("'", "&#x27;") in page
    assert "Show earlier lines" in page


def test_show_earlier_returns_the_lines_just_above(results_client, volume):
    text = volume["text"].encode()
    before = text.index(b"\n", len(text) // 2) + 1
    fragment = results_client.get("/log/earlier", {"log": volume["log"], "before": before}).content.decode()
    assert "afterbegin:#log-lines" in fragment and "Start of the log." in fragment


def test_live_polling_appends_and_stops_at_the_end(results_client, store, volume):
    first = "2026-12-02 10:00:00,000 INFO htrflow.wrapper: starting\n"
    store.put(volume["base"] + ".txt", first)
    page = results_client.get("/log", {"log": volume["log"], "live": "1"}).content.decode()
    assert 'hx-trigger="every 3s, poll-now"' in page
    second = "2026-12-02 10:00:05,000 INFO htrflow.wrapper: page 0001 ok\n"
    store.append(volume["base"] + ".txt", second)
    more = results_client.get("/log/more", {"log": volume["log"], "after": len(first), "line": 2})
    assert more.status_code == 200 and 'id="L2"' in more.content.decode() and "page 0001 ok" in more.content.decode()
    store.append(volume["base"] + ".txt", "permanent failure in load: no model — fix the pipeline\n")
    done = results_client.get("/log/more", {"log": volume["log"], "after": len(first) + len(second), "line": 3})
    assert done.status_code == 286 and ">failed<" in done.content.decode()


def test_the_alto_page_draws_polygons_and_text(results_client, volume):
    page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    layout = page_layout("V1", 1)
    first = layout.lines[0]
    points = " ".join(f"{x},{y}" for x, y in first.polygon)
    assert f'points="{points}"' in page
    assert 'href="https://iiif.arkiv.example.se/iiif/V1/1/full/' in page
    assert 'id="L1"' in page and "Next page" in page


def test_hostile_alto_text_is_shown_as_text(results_client, store, volume):
    store.put(volume["base"] + "/alto/0001.xml", alto_variant(page_layout("V1", 1), "hostile"))
    page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page


def test_malformed_alto_gets_a_sentence_and_the_raw_xml(results_client, store, volume):
    store.put(volume["base"] + "/alto/0001.xml", b"<alto><Layout>")
    response = results_client.get("/alto", {"src": volume["alto"]})
    html = response.content.decode()
    # The bytes are the start of well-formed XML that ends too soon: said so, once (issue 39).
    assert response.status_code == 200 and "0001.xml stops in the middle of its XML" in html
    assert "not well-formed XML" not in html and "&lt;alto&gt;&lt;Layout&gt;" in html


def test_the_plain_text_downloads(results_client, volume):
    response = results_client.get("/alto/text", {"src": volume["alto"]})
    assert response["Content-Disposition"].startswith("attachment")
    assert page_layout("V1", 1).lines[0].text in response.content.decode()


def test_without_a_session_the_viewer_sends_people_to_log_in(client, volume, session_key_file):
    response = client.get("/log", {"log": volume["log"]})
    assert response.status_code == 302 and response["Location"].startswith("/login?next=/log")


def test_an_empty_log_says_so(results_client, store, volume):
    store.put(volume["base"] + ".txt", b"")
    response = results_client.get("/log", {"log": volume["log"], "live": "1"})
    assert response.status_code == 200 and "The log is empty so far." in response.content.decode()


def test_earlier_parts_open_as_a_page_without_javascript(results_client, store, volume):
    big = big_run_log("V1", "p", start=START)
    store.put(volume["base"] + ".txt", big)
    tail = results_client.get("/log", {"log": volume["log"]}).content.decode()
    earlier = re.search(r'href="(/log\?log=[^"]+&amp;before=(\d+))"', tail)
    assert earlier, "the tail of a big log links to the part before it"
    page = results_client.get(earlier.group(1).replace("&amp;", "&")).content.decode()
    before = int(earlier.group(2))
    last_line_before = big.encode()[:before].rstrip(b"\n").rsplit(b"\n", 1)[-1].decode()
    assert last_line_before[-25:] in page and "earlier part of the log" in page


def test_a_deep_link_by_number_shows_the_line_with_context(results_client, store, volume):
    big = big_run_log("V1", "p", start=START)
    store.put(volume["base"] + ".txt", big)
    page = results_client.get("/log", {"log": volume["log"], "line": 1234}).content.decode()
    assert 'id="L1234"' in page and 'id="L1134"' in page and 'id="L1133"' not in page


def failing_reader(monkeypatch, outcome):
    def fail(self, key, **kwargs):
        raise reader_module.StoreError(outcome)

    monkeypatch.setattr(reader_module.ResultsReader, "get", fail)
    monkeypatch.setattr(reader_module.ResultsReader, "head", fail)


@pytest.mark.parametrize(
    "outcome, status, words",
    [
        (reader_module.Outcome.UNREACHABLE, 502, "could not be reached"),
        (reader_module.Outcome.TIMEOUT, 504, "did not answer in time"),
        (reader_module.Outcome.FORBIDDEN, 403, "may not read this volume&#x27;s results"),
    ],
)
def test_each_store_failure_has_its_own_sentence(results_client, volume, monkeypatch, outcome, status, words):
    failing_reader(monkeypatch, outcome)
    response = results_client.get("/log", {"log": volume["log"]})
    assert response.status_code == status and words in response.content.decode()


def test_a_session_the_store_ended_sends_the_person_to_log_in_and_back(results_client, volume, monkeypatch):
    failing_reader(monkeypatch, reader_module.Outcome.SESSION_ENDED)
    response = results_client.get("/alto", {"src": volume["alto"]})
    assert response.status_code == 302 and response["Location"].startswith("/login?next=/alto%3Fsrc")
    poll = results_client.get(
        "/log/more",
        {"log": volume["log"], "after": 10},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/log?log=x&live=1",
    )
    assert poll.status_code == 401 and poll["HX-Redirect"] == "/login?next=/log%3Flog%3Dx%26live%3D1"


def test_polling_backs_off_then_stops_with_a_sentence(results_client, volume, monkeypatch):
    failing_reader(monkeypatch, reader_module.Outcome.UNREACHABLE)
    first = results_client.get("/log/more", {"log": volume["log"], "after": 10})
    assert first.status_code == 200 and 'hx-trigger="every 6s, poll-now"' in first.content.decode()
    assert "fails=1" in first.content.decode() and "Trying again in 6 s" in first.content.decode()
    last = results_client.get("/log/more", {"log": volume["log"], "after": 10, "fails": 4})
    assert last.status_code == 286 and "Stopped following the log" in last.content.decode()
    assert "hx-get" not in last.content.decode()


def test_a_page_with_no_lines_and_lines_off_the_page_are_explained(results_client, store, volume):
    layout = page_layout("V1", 1)
    store.put(volume["base"] + "/alto/0001.xml", alto_variant(layout, "empty"))
    assert "no text lines" in results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    store.put(volume["base"] + "/alto/0001.xml", alto_variant(layout, "outside"))
    page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert "outside the page" in page and 'class="alto-poly' in page


def test_a_missing_iiif_manifest_still_shows_the_text(results_client, store, volume):
    store.delete(volume["base"] + "/iiif.json")
    page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert "no iiif.json for this volume" in page and 'id="L1"' in page and "<image" not in page


def test_search_within_a_page_marks_and_counts(results_client, volume):
    word = page_layout("V1", 1).lines[1].words[0].text
    page = results_client.get("/alto", {"src": volume["alto"], "q": word}).content.decode()
    assert f"<mark>{word}</mark>" in page and re.search(r"\d+ match", page)


def test_a_line_still_being_written_waits_for_its_end(results_client, store, volume):
    store.put(volume["base"] + ".txt", "2026-12-02 10:00:00,000 INFO one\n2026-12-02 10:00:01,000 INFO tw")
    page = results_client.get("/log", {"log": volume["log"], "live": "1"}).content.decode()
    assert 'id="L1"' in page and 'id="L2"' not in page
    assert "after=33" in page and 'hx-trigger="every 3s, poll-now"' in page


def http_line(n: int) -> str:
    return f'2026-12-02 10:00:{n:02d},000 INFO httpx: HTTP Request: GET https://img/{n}.jpg "HTTP/1.1 200 OK"\n'


def page_line(n: int, level: str = "INFO") -> str:
    return f"2026-12-02 10:01:{n:02d},000 {level} htrflow.wrapper: [V1] page {n:04d} ok in 6.1s\n"


def fold_rows(page: str) -> list[str]:
    row = r'<details class="http-fold"><summary class="http-summary"><span class="http-label">(.*?)</span>'
    return re.findall(row, page)


def test_http_requests_between_ordinary_lines_fold_into_one_row_where_the_first_was(results_client, store, volume):
    text = (
        "2026-12-02 10:00:00,000 INFO htrflow.wrapper: [V1] stream: 4 pages\n"
        + "".join(http_line(n) for n in range(1, 6))
        + page_line(7)
        + http_line(10)
        + page_line(9)
        + http_line(12)
        + page_line(11)
    )
    store.put(volume["base"] + ".txt", text)
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert fold_rows(page) == ["7 HTTP requests between lines 2 and 10"], "lone requests between page lines fold too"
    everywhere = [int(n) for n in re.findall(r'class="log-line[^"]*" id="L(\d+)"', page)]
    assert everywhere == list(range(1, 12)), "every line keeps its place and number, folded or not"
    assert page.index('id="L1"') < page.index("7 HTTP requests") < page.index('id="L2"')
    assert page.count('class="log-stretch"') == 1, "ordinary lines and requests are one stretch"


def test_http_requests_never_fold_across_a_warning_or_an_error(results_client, store, volume):
    text = (
        http_line(1)
        + http_line(2)
        + page_line(3, "WARNING")
        + http_line(4)
        + page_line(5)
        + http_line(6)
        + page_line(7, "ERROR")
        + http_line(8)
        + page_line(9)
    )
    store.put(volume["base"] + ".txt", text)
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert fold_rows(page) == ["2 HTTP requests · lines 1–2", "2 HTTP requests · lines 4 and 6"]
    warning, error = page.index('id="L3"'), page.index('id="L7"')
    assert page.index("lines 1–2") < warning < page.index("lines 4 and 6") < error
    assert re.search(r'<div class="log-group group-http"><div class="log-line kind-http" id="L8"', page)


def test_live_mode_waits_for_a_log_that_has_not_appeared_yet(results_client, store, volume):
    key = volume["base"] + "-new.txt"
    address = volume["log"].replace("V1.txt", "V1-new.txt")
    page = results_client.get("/log", {"log": address, "live": "1"})
    body = page.content.decode()
    assert page.status_code == 200 and "waiting for the run log to appear" in body
    assert "/log/more?" in body and "line=1" in body and 'id="log-empty"' in body
    waits = []
    for number in range(1, 12):
        poll = results_client.get("/log/more", {"log": address, "after": 0, "line": 1, "waits": number - 1})
        assert poll.status_code == 200, "waiting never gives up like an error does"
        waits.append(int(re.search(r'hx-trigger="every (\d+)s, poll-now"', poll.content.decode()).group(1)))
        assert f"waits={number}" in poll.content.decode()
    assert waits == sorted(waits) and waits[0] < waits[-1] == log_viewer.WAIT_MAX_SECONDS
    store.put(key, "2026-12-02 10:00:00,000 INFO htrflow.wrapper: [V1] starting\n")
    poll = results_client.get("/log/more", {"log": address, "after": 0, "line": 1, "waits": 11})
    body = poll.content.decode()
    assert poll.status_code == 200 and 'id="L1"' in body and "[V1] starting" in body
    assert '<p id="log-empty" hx-swap-oob="true" hidden>' in body and "waits=" not in body


def test_a_log_too_large_to_number_says_why_and_links_by_byte_position(results_client, store, volume, bytes_read):
    big = big_run_log("V1", "p", start=START)
    store.put(volume["base"] + ".txt", big)
    tail = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert 'id="log-unnumbered"' in tail and "counts lines only in logs up to 1.0" in tail
    assert 'id="L' not in tail
    offset = int(re.findall(r'class="log-line[^"]*" id="at(\d+)"', tail)[-50])
    bytes_read.clear()
    around = results_client.get("/log", {"log": volume["log"], "at": offset}).content.decode()
    assert f'id="at{offset}"' in around and sum(bytes_read) <= 256 * 1024
    wanted = big.encode()[offset:].split(b"\n", 1)[0].decode()
    assert wanted[-30:].replace("'", "&#x27;").replace('"', "&quot;") in around


def test_a_small_logs_tail_is_counted_from_the_start(results_client, store, volume, monkeypatch):
    monkeypatch.setattr(log_viewer, "TAIL_BYTES", 4096)
    text = "".join(f"2026-12-02 10:00:00,000 INFO line {n}\n" for n in range(1, 2001))
    store.put(volume["base"] + ".txt", text)
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert re.search(r'id="L2000">.*?>line 2000<', page)
    assert 'id="L1"' not in page and 'id="log-unnumbered"' not in page
    earlier = re.search(r'hx-get="(/log/earlier\?[^"]+)"', page).group(1).replace("&amp;", "&")
    assert "first=" in earlier
    fragment = results_client.get(earlier).content.decode()
    numbers = [int(n) for n in re.findall(r'id="L(\d+)"', fragment)]
    first_shown = min(int(n) for n in re.findall(r'id="L(\d+)"', page))
    assert numbers and numbers[-1] == first_shown - 1 and numbers == list(range(numbers[0], first_shown))
    assert f"line {numbers[0]}\n" in text and f">line {numbers[0]}<" in fragment


@pytest.mark.parametrize(
    "path, param",
    [("/log", "log"), ("/log/more", "log"), ("/log/earlier", "log"), ("/alto", "src"), ("/alto/text", "src")],
)
def test_every_viewer_address_is_refused_outside_the_base(results_client, volume, path, param):
    response = results_client.get(path, {param: "http://testserver/results/../secret/x.txt", "before": 10})
    assert response.status_code == 400 and "resultsUrl" in response.content.decode()


def test_a_byte_position_past_the_end_opens_the_end(results_client, volume):
    response = results_client.get("/log", {"log": volume["log"], "at": 10**8})
    assert response.status_code == 302 and "at=" not in response["Location"] and "V1.txt" in response["Location"]


def test_a_deep_link_past_the_last_line_says_so_and_shows_the_end(results_client, volume):
    total = volume["text"].count("\n")
    page = results_client.get("/log", {"log": volume["log"], "line": total + 50}).content.decode()
    assert f"The log has {total} lines, so line {total + 50} does not exist" in page
    assert f'id="L{total}"' in page and f'id="L{total + 1}"' not in page


def test_alto_with_an_unknown_encoding_gets_a_sentence_on_both_views(results_client, store, volume):
    store.put(volume["base"] + "/alto/0001.xml", b'<?xml version="1.0" encoding="bogus-enc"?><alto/>')
    page = results_client.get("/alto", {"src": volume["alto"]})
    assert page.status_code == 200 and "not well-formed XML" in page.content.decode()
    text = results_client.get("/alto/text", {"src": volume["alto"]})
    assert text.status_code == 422 and "not well-formed XML" in text.content.decode()


def _too_deep(reader_class, monkeypatch):
    """Make ``get_json`` raise RecursionError, as the standard json module does on deeply nested input."""

    def deep(self, key, **kwargs):
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    monkeypatch.setattr(reader_class, "get_json", deep)


@pytest.mark.parametrize("reader_raises_recursion", [False, True])
def test_deeply_nested_json_gets_the_unreadable_json_sentences(
    results_client, store, volume, monkeypatch, reader_raises_recursion
):
    nested = "[" * 100_000 + "]" * 100_000
    store.put(volume["base"] + "/iiif.json", nested)
    store.put(volume["base"] + "/manifest.json", nested)
    if reader_raises_recursion:  # whatever the reader does with such input, the views stay up
        _too_deep(reader_module.ResultsReader, monkeypatch)
    # The reader refuses such text before parsing it, and says so; a parser that still recursed is caught too.
    iiif_words = "iiif.json is not readable JSON" if reader_raises_recursion else "iiif.json holds more than"
    manifest_words = "manifest.json is not readable JSON" if reader_raises_recursion else "manifest.json holds more"
    alto_page = results_client.get("/alto", {"src": volume["alto"]})
    assert alto_page.status_code == 200 and iiif_words in alto_page.content.decode()
    log_page = results_client.get("/log", {"log": volume["log"], "manifest": volume["manifest"]})
    assert log_page.status_code == 200 and manifest_words in log_page.content.decode()


def test_bidi_overrides_are_shown_as_symbols_on_the_log_and_alto_pages(results_client, store, volume):
    store.put(volume["base"] + ".txt", "2026-12-02 10:00:00 INFO evil \u202etxt.exe\n")
    log_page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert "\u202e" not in log_page and "evil ⟨U+202E⟩txt.exe" in log_page
    store.put(
        volume["base"] + "/alto/0001.xml",
        '<alto><Layout><Page WIDTH="10" HEIGHT="10"><PrintSpace><TextBlock><TextLine HPOS="1" VPOS="1" WIDTH="2" '
        'HEIGHT="2"><String CONTENT="fi&#x2067;le"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>',
    )
    alto_page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert "\u2067" not in alto_page and "fi⟨U+2067⟩le" in alto_page


def test_extreme_coordinates_give_a_bounded_viewbox_and_lines_outside(results_client, store, volume):
    store.put(
        volume["base"] + "/alto/0001.xml",
        '<alto><Layout><Page WIDTH="100" HEIGHT="100"><PrintSpace><TextBlock><TextLine><Shape><Polygon '
        'POINTS="1e308,1 2,1e308 -1e308,3"/></Shape><String CONTENT="far"/></TextLine></TextBlock></PrintSpace>'
        "</Page></Layout></alto>",
    )
    page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    viewbox = re.search(r'viewBox="([^"]*)"', page).group(1)
    assert all(len(number.lstrip("-")) <= 8 for number in viewbox.split()) and "inf" not in viewbox
    assert "outside the page" in page


def test_a_page_with_very_many_lines_draws_only_the_first_ones_and_says_so(results_client, store, volume, monkeypatch):
    monkeypatch.setattr(alto_viewer, "DRAWN_LINES_MAX", 4)
    line = '<TextLine HPOS="1" VPOS="1" WIDTH="2" HEIGHT="2"><String CONTENT="w"/></TextLine>'
    store.put(
        volume["base"] + "/alto/0001.xml",
        '<alto><Layout><Page WIDTH="10" HEIGHT="10"><PrintSpace><TextBlock>'
        + line * 9
        + "</TextBlock></PrintSpace></Page></Layout></alto>",
    )
    page = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert page.count("<polygon ") == 4
    assert "This page has 9 text lines; only the first 4 are drawn and listed here, 5 more are not." in page


def error_bar(page: str) -> str:
    return re.search(r'<span id="log-error-count">(.*?)</span>', page, re.S).group(1)


def test_the_toolbar_says_how_many_errors_and_links_the_first(results_client, store, volume):
    store.put(volume["base"] + ".txt", page_line(1) + page_line(2, "ERROR") + page_line(3))
    one = error_bar(results_client.get("/log", {"log": volume["log"]}).content.decode())
    assert re.sub(r"<[^>]+>", "", one) == "1 error · line 2" and 'href="#L2"' in one
    store.put(volume["base"] + ".txt", page_line(1) + page_line(2, "ERROR") + page_line(3, "ERROR"))
    several = error_bar(results_client.get("/log", {"log": volume["log"]}).content.decode())
    assert re.sub(r"<[^>]+>", "", several) == "2 errors · first at line 2" and 'href="#L2"' in several
    store.put(volume["base"] + ".txt", page_line(1))
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert error_bar(page) == "No errors in the lines shown" and "Errors:" not in page


def test_a_search_of_a_live_log_keeps_its_status_and_says_it_covers_the_log_as_of_now(results_client, store, volume):
    store.put(volume["base"] + ".txt", page_line(1) + page_line(2))
    page = results_client.get("/log", {"log": volume["log"], "live": "1", "q": "page 0002"}).content.decode()
    status = re.search(r'<span id="log-status" class="log-status status-live">(.*?)</span>', page)
    assert status and re.fullmatch(r"live · log written \d+ s ago", status.group(1))
    assert 'id="search-as-of"' in page and '<input type="hidden" name="live" value="1">' in page
    store.put(volume["base"] + ".txt", volume["text"])
    ended = results_client.get("/log", {"log": volume["log"], "live": "1", "q": "page"}).content.decode()
    assert 'class="log-status status-finished">finished<' in ended and 'id="search-as-of"' not in ended
