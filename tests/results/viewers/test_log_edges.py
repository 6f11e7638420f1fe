"""Lines read after the page opened join the stretch at the page's edge on the server: a live poll's
new lines the last stretch, "show earlier"'s lines the first, with the "N HTTP requests" row where it
belongs and the label the joined stretch has."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from results.formats import runlog
from results.viewers.log_edges import Edge, appended, prepended

PLAIN = "2026-12-02 10:00:{n:02d},000 INFO htrflow.wrapper: [V1] note {n}\n"
HTTP = '2026-12-02 10:00:{n:02d},000 INFO httpx: HTTP Request: GET https://img/{n}.jpg "HTTP/1.1 200 OK"\n'
WARNING = "2026-12-02 10:00:{n:02d},000 WARNING htrflow.wrapper: [V1] slow {n}\n"


def log(*kinds: str) -> bytes:
    """One line per letter: p plain, h an HTTP request, w a warning; numbered from 1."""
    rows = {"p": PLAIN, "h": HTTP, "w": WARNING}
    return "".join(rows[kind].format(n=n) for n, kind in enumerate(kinds, start=1)).encode()


def stretches_of(data: bytes, start: int = 0, first: int | None = 1):
    return runlog.stretches(runlog.group_lines(runlog.split_lines(data, start, first)))


def cut(data: bytes, lines: int) -> int:
    """The byte where line ``lines + 1`` starts."""
    return len(b"".join(data.splitlines(keepends=True)[:lines]))


def test_an_edge_goes_into_an_address_and_back_and_nonsense_is_no_edge():
    edge = Edge("s120", 3, "L7", 7, 12)
    assert Edge.parse(edge.param) == edge
    assert Edge.parse(Edge("s0", 2, "at99").param) == Edge("s0", 2, "at99")
    for nonsense in ("", "s1", "x1~0~~~", 's1~0~L1"~~', "s1~0~~~~", "s1~a~~~"):
        assert Edge.parse(nonsense) is None


def test_a_warning_or_an_error_at_the_edge_joins_nothing():
    data = log("p", "h", "w")
    assert Edge.of(stretches_of(data)[-1]) is None
    assert Edge.of(stretches_of(data)[0]) == Edge("s0", 1, "L2", 2, 2)


def test_requests_in_two_polls_become_one_row_where_the_first_was():
    data = log("p", "h", "h", "h", "h", "p", "h", "p")
    page, more = cut(data, 3), cut(data, 6)
    edge = Edge.of(stretches_of(data[:page])[-1])
    assert edge == Edge("s0", 2, "L2", 2, 3)
    join, rest, last = appended(edge, stretches_of(data[page:more], page, 4))
    assert rest == [] and join.target == "s0" and join.relabel and join.fold_at is None
    assert join.label == "4 HTTP requests · lines 2–5" and last == Edge("s0", 4, "L2", 2, 5)
    join, rest, last = appended(last, stretches_of(data[more:], more, 7))
    assert join.label == "5 HTTP requests between lines 2 and 7" and join.relabel and last.http == 5


def test_a_second_request_puts_the_row_before_the_first_one_already_shown():
    data = log("p", "h", "p", "h", "p")
    page = cut(data, 3)
    join, _rest, _last = appended(Edge.of(stretches_of(data[:page])[-1]), stretches_of(data[page:], page, 4))
    assert join.row_before == "L2" and not join.relabel and join.fold_at is None
    assert join.label == "2 HTTP requests · lines 2 and 4"


def test_requests_new_to_a_stretch_bring_their_row_and_lone_ones_none():
    data = log("p", "h", "h", "p")
    join, _rest, _last = appended(Edge("s0"), stretches_of(data[cut(data, 1) :], cut(data, 1), 2))
    assert join.fold_at == 0 and join.label == "2 HTTP requests · lines 2–3"
    join, _rest, last = appended(Edge("s0"), stretches_of(data[cut(data, 2) : cut(data, 3)], cut(data, 2), 3))
    assert join.label == "" and join.fold_at is None and last == Edge("s0", 1, "L3", 3, 3)


def test_a_warning_ends_the_join_and_the_new_last_stretch_is_the_edge():
    data = log("p", "h", "w", "h", "p")
    start = cut(data, 1)
    join, rest, last = appended(Edge("s0"), stretches_of(data[start:], start, 2))
    assert [line.number for group in join.groups for line in group.lines] == [2]
    assert [s.quiet for s in rest] == [False, True]
    assert last == Edge(f"s{cut(data, 3)}", 1, "L4", 4, 4)


def test_no_new_lines_keep_the_edge_and_no_edge_joins_nothing():
    edge = Edge("s0", 2, "L2", 2, 3)
    assert appended(edge, []) == (None, [], edge)
    stretches = stretches_of(log("p", "h"))
    join, rest, _last = appended(None, stretches)
    assert join is None and rest == stretches


def test_earlier_requests_take_the_row_and_the_one_shown_goes():
    data = log("p", "h", "h", "p", "h", "h", "p")
    page = cut(data, 3)
    first = Edge.of(stretches_of(data[page:], page, 4)[0])
    assert first == Edge(f"s{page}", 2, "L5", 5, 6)
    join, rest, new_first = prepended(first, stretches_of(data[:page]))
    assert rest == [] and join.target == f"s{page}" and join.drop_row and join.fold_at == 1
    assert join.label == "4 HTTP requests between lines 2 and 6" and new_first == Edge(f"s{page}", 4, "L2", 2, 6)


def test_earlier_lines_without_requests_leave_the_row_as_it_is():
    data = log("p", "p", "h", "h")
    page = cut(data, 2)
    first = Edge.of(stretches_of(data[page:], page, 3)[0])
    join, _rest, new_first = prepended(first, stretches_of(data[:page]))
    assert not join.drop_row and join.fold_at is None and join.label == ""
    assert new_first == first


def edges_on(page: str) -> dict:
    """The page's top and bottom edges, as its hidden inputs hold them for the next request."""
    box = re.search(r'<div id="log-edges" hidden[^>]*>(.*?)</div>', page).group(1)
    return dict(re.findall(r'<input type="hidden" name="(top|bottom)" value="([^"]*)">', box))


def test_a_poll_answer_joins_the_pages_last_stretch_and_says_its_new_edges(results_client, store, volume):
    store.put(volume["base"] + ".txt", log("p", "h", "h"))
    page = results_client.get("/log", {"log": volume["log"], "live": "1"}).content.decode()
    poll = re.search(r'hx-get="(/log/more\?[^"]+)"', page).group(1).replace("&amp;", "&")
    assert 'hx-include="#log-edges"' in page
    assert edges_on(page) == {"top": "s0~2~L2~2~3", "bottom": "s0~2~L2~2~3"}
    store.put(volume["base"] + ".txt", log("p", "h", "h", "h", "p"))
    more = results_client.get(poll + "&" + urlencode(edges_on(page))).content.decode()
    assert '<div hx-swap-oob="beforeend:#s0">' in more and 'id="L4"' in more and 'id="L5"' in more
    assert 'hx-swap-oob="innerHTML:#s0 > details.http-fold .http-label">3 HTTP requests · lines 2–4<' in more
    assert "beforeend:#log-lines" not in more and "<details" not in more
    assert edges_on(more) == {"top": "s0~3~L2~2~4", "bottom": "s0~3~L2~2~4"}, "one stretch: both edges change"


def test_show_earlier_joins_the_pages_first_stretch(results_client, store, volume):
    data = log(*("p" * 10))
    store.put(volume["base"] + ".txt", data)
    before = cut(data, 5)
    top = f"s{before}~0~~~"
    answer = results_client.get(
        "/log/earlier", {"log": volume["log"], "before": before, "first": 6, "top": top, "bottom": "s9~0~~~"}
    ).content.decode()
    assert f'<div hx-swap-oob="afterbegin:#s{before}">' in answer and 'id="L1"' in answer
    assert "afterbegin:#log-lines" not in answer and "Start of the log." in answer
    assert edges_on(answer) == {"top": top, "bottom": "s9~0~~~"}
