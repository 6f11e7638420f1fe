"""The run log viewer's work is bounded by what it shows (issue 34): every answer shows at most
``ROWS_PER_VIEW`` lines, "show earlier" reaches the lines beyond them, and the work of drawing a view
grows with its lines, never with their square. Bounded by counting (rows, attribute reads), never by time."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from results.formats import runlog
from results.viewers import log as log_viewer

HTTP = '2026-12-02 10:00:00,000 INFO httpx: HTTP Request: GET https://img/{n}.jpg "HTTP/1.1 200 OK"'
ROW = re.compile(r'class="log-line[^"]*" id="(L\d+|at\d+)"')
EARLIER_PAGE = r'<div id="log-earlier" class="log-earlier"><a class="button" href="([^"]+)"'  # without script


def short_lines(count: int) -> bytes:
    """The issue's log: one-character lines, 64 000 of them in a 128 KiB tail."""
    return b"x\n" * count


def mixed_lines(count: int) -> bytes:
    """Short lines with an HTTP request line every fifth: one quiet stretch whose requests fold."""
    rows = (HTTP.format(n=n) if n % 5 == 0 else "x" for n in range(1, count + 1))
    return "".join(row + "\n" for row in rows).encode()


def rows_of(page: str) -> list[str]:
    return ROW.findall(page)


def numbers_of(page: str) -> list[int]:
    return [int(anchor[1:]) for anchor in rows_of(page) if anchor.startswith("L")]


def link(page: str, pattern: str) -> str:
    return re.search(pattern, page).group(1).replace("&amp;", "&")


@pytest.fixture
def attribute_reads(monkeypatch):
    """How often the page's work reads an attribute of a group, a line or a stretch (the template's
    lookups included): a walk over the groups at every group shows here as the square of the lines."""
    counted = Counter()
    for kind in (runlog.LogGroup, runlog.LogLine, runlog.LogStretch):

        def counting(self, name, kind=kind):
            counted[kind.__name__] += 1
            return object.__getattribute__(self, name)

        monkeypatch.setattr(kind, "__getattribute__", counting)
    return counted


# --- the work grows with the lines shown ----------------------------------------------------------


@pytest.mark.parametrize("make", [short_lines, mixed_lines])
def test_a_log_view_reads_its_groups_and_lines_in_proportion_to_the_lines(
    results_client, store, volume, attribute_reads, monkeypatch, make
):
    monkeypatch.setattr(log_viewer, "ROWS_PER_VIEW", 10**6)  # above both sizes: the cap hides nothing
    counts = {}
    for size in (250, 4000):
        store.put(volume["base"] + ".txt", make(size))
        attribute_reads.clear()
        page = results_client.get("/log", {"log": volume["log"]}).content.decode()
        assert len(rows_of(page)) == size
        counts[size] = sum(attribute_reads.values())
    assert counts[250] > 250, "the counter sees the page's reads"
    assert counts[4000] <= 16 * counts[250] * 1.05, f"16 times the lines cost {counts[4000] / counts[250]:.1f} times"


def test_a_stretch_works_out_its_fold_once_however_often_the_page_asks(attribute_reads):
    def asked_at_every_group(size: int) -> int:
        lines = runlog.split_lines(mixed_lines(size), 0, 1)
        attribute_reads.clear()
        for stretch in runlog.stretches(runlog.group_lines(lines)):
            for _group in stretch.groups:
                assert stretch.fold_at == 4  # asked group by group, as the template asks
        return sum(attribute_reads.values())

    (stretch,) = runlog.stretches(runlog.group_lines(runlog.split_lines(mixed_lines(10), 0, 1)))
    assert stretch.fold_at == 4 and stretch.fold_label == "2 HTTP requests · lines 5 and 10"
    small, large = asked_at_every_group(100), asked_at_every_group(1600)
    assert large <= 16 * small * 1.05


# --- at most ROWS_PER_VIEW rows, and the rest one step away ---------------------------------------


def test_the_tail_of_64000_short_lines_shows_the_newest_rows_and_links_to_the_earlier_ones(
    results_client, store, volume
):
    cap = log_viewer.ROWS_PER_VIEW
    store.put(volume["base"] + ".txt", short_lines(64_000))
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    assert numbers_of(page) == list(range(64_001 - cap, 64_001)), "the newest rows, numbered"
    assert len(rows_of(page)) == cap and "Show earlier lines" in page
    fragment = results_client.get(link(page, r'hx-get="(/log/earlier\?[^"]+)"')).content.decode()
    assert numbers_of(fragment) == list(range(64_001 - 2 * cap, 64_001 - cap)), "the rows just above"
    without_script = results_client.get(link(page, EARLIER_PAGE)).content.decode()
    assert numbers_of(without_script) == list(range(64_001 - 2 * cap, 64_001 - cap))


def test_show_earlier_step_by_step_reaches_every_line_once(results_client, store, volume, monkeypatch):
    monkeypatch.setattr(log_viewer, "ROWS_PER_VIEW", 300)
    store.put(volume["base"] + ".txt", mixed_lines(1000))
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    seen = numbers_of(page)
    answer = page
    while "Start of the log." not in answer:
        answer = results_client.get(link(answer, r'hx-get="(/log/earlier\?[^"]+)"')).content.decode()
        assert 0 < len(rows_of(answer)) <= 300
        seen = numbers_of(answer) + seen
    assert seen == list(range(1, 1001))


def test_a_page_without_script_steps_back_a_whole_view_at_a_time(results_client, store, volume, monkeypatch):
    monkeypatch.setattr(log_viewer, "ROWS_PER_VIEW", 300)
    store.put(volume["base"] + ".txt", short_lines(1000))
    page = results_client.get("/log", {"log": volume["log"]}).content.decode()
    seen = set(numbers_of(page))
    for _ in range(10):
        if "Show earlier lines" not in page:
            break
        page = results_client.get(link(page, EARLIER_PAGE)).content.decode()
        assert 0 < len(rows_of(page)) <= 300
        seen.update(numbers_of(page))
    assert "Start of the log." in page and seen == set(range(1, 1001))


@pytest.mark.parametrize("line, first, last", [(1, 1, 2000), (30_000, 29_900, 31_899), (64_000, 63_900, 64_000)])
def test_a_link_to_a_line_shows_it_within_the_cap(results_client, store, volume, line, first, last):
    store.put(volume["base"] + ".txt", short_lines(64_000))
    page = results_client.get("/log", {"log": volume["log"], "line": line}).content.decode()
    assert numbers_of(page) == list(range(first, last + 1)) and f'data-deep-line="{line}"' in page


@pytest.mark.parametrize("line, first, last", [(30_000, 29_900, 31_899), (63_990, 62_001, 64_000)])
def test_a_link_to_a_byte_position_shows_its_line_within_the_cap(results_client, store, volume, line, first, last):
    store.put(volume["base"] + ".txt", short_lines(64_000))
    offset = 2 * (line - 1) + 1  # inside the line: its newline
    page = results_client.get("/log", {"log": volume["log"], "at": offset}).content.decode()
    # A part that does not start the log has no numbers: its rows are named by their byte positions.
    assert rows_of(page) == [f"at{2 * (n - 1)}" for n in range(first, last + 1)]
    assert f'data-focus="at{2 * (line - 1)}"' in page and "Show earlier lines" in page


def test_a_byte_position_near_the_start_keeps_the_numbers_of_the_rows_it_shows(results_client, store, volume):
    store.put(volume["base"] + ".txt", short_lines(3000))
    page = results_client.get("/log", {"log": volume["log"], "at": 2 * 2499}).content.decode()
    assert numbers_of(page) == list(range(1001, 3001)) and 'data-focus="L2500"' in page


def test_a_live_poll_far_behind_brings_the_cap_and_the_rest_next_time(results_client, store, volume):
    cap = log_viewer.ROWS_PER_VIEW
    store.put(volume["base"] + ".txt", short_lines(5000))
    poll = results_client.get("/log/more", {"log": volume["log"], "after": 0, "line": 1}).content.decode()
    assert numbers_of(poll) == list(range(1, cap + 1))
    again = results_client.get(link(poll, r'hx-get="(/log/more\?[^"]+)"')).content.decode()
    assert numbers_of(again) == list(range(cap + 1, 2 * cap + 1))


def test_search_still_covers_the_whole_log(results_client, store, volume):
    store.put(volume["base"] + ".txt", short_lines(10_000) + b"needle\n")
    page = results_client.get("/log", {"log": volume["log"], "q": "needle"}).content.decode()
    assert "1 match" in page and "line=10001" in page


# --- finding lines in bytes -------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"a\n", b"a", b"a\n\nb\n", b"a\nbb\n\nccc", b"\n\n\n", b"x\n" * 9000])
def test_line_positions_agree_with_the_lines_split_lines_makes(data):
    starts = [line.offset for line in runlog.split_lines(data, 0, 1)]
    total = len(starts)

    def start_of(index: int) -> int:  # where line ``index`` starts; the end past the last line
        return starts[index] if index < total else len(data)

    assert runlog.lines_in(data) == total
    for count in range(total + 2) if total < 10 else (0, 1, 2000, total, total + 1):
        assert runlog.last_lines_start(data, count) == start_of(max(0, total - count))
        assert runlog.first_lines_end(data, count) == start_of(count)
    for index in range(total + 1) if total < 10 else (0, 1, 2048, 4500, total - 1, total):
        assert runlog.line_start(data, index) == start_of(index)
