"""Reading run logs: cleaning, classifying, grouping, end of run, search."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from results.formats import runlog

LOG = b"""2026-12-02 10:00:00,001 INFO htrflow.wrapper: [C0074512] resume: 2 done, 2 to process
2026-12-02 10:00:01,002 INFO htrflow.models: loading model Riksarkivet/trocr-base-handwritten-hist-swe-2
2026-12-02 10:00:02,003 INFO httpx: HTTP Request: GET https://iiif.example/a "HTTP/1.1 200 OK"
2026-12-02 10:00:02,004 INFO httpx: HTTP Request: GET https://iiif.example/b "HTTP/1.1 200 OK"
2026-12-02 10:00:02,005 INFO httpx: HTTP Request: GET https://iiif.example/c "HTTP/1.1 200 OK"
2026-12-02 10:00:03,006 WARNING htrflow.pipeline: page 0003 is very dark
2026-12-02 10:00:04,007 ERROR htrflow.wrapper: page 0003 failed
Traceback (most recent call last):
  File "/app/wrapper.py", line 10, in run
    fetch(url)
RuntimeError: image fetch failed: HTTP 404
2026-12-02 10:00:05,008 INFO htrflow.wrapper: [C0074512] COMPLETE 4 pages (2 processed, 1 failed) in 61.3s, viewer: https://x/iiif.json
"""


def lines():
    return runlog.split_lines(LOG, 0, 1)


def test_lines_are_numbered_and_carry_their_byte_offsets():
    parsed = lines()
    assert [line.number for line in parsed] == list(range(1, 13))
    assert LOG[parsed[3].offset :].startswith(b"2026-12-02 10:00:02,004")
    assert parsed[3].anchor == "L4"


def test_time_and_level_are_read_from_logging_lines():
    line = lines()[5]
    assert (line.time, line.level, line.kind) == ("2026-12-02 10:00:03,006", "WARNING", "warning")
    assert line.message == "htrflow.pipeline: page 0003 is very dark"


@pytest.mark.parametrize(
    "text, kind",
    [
        ("2026-01-01T10:00:00Z [INFO] httpx: HTTP Request: GET x", "http"),
        ("INFO:httpx:HTTP Request: POST https://x", "http"),
        ("2026-01-01 10:00:00 INFO loading model foo", "model"),
        ("2026-01-01 10:00:00 ERROR boom", "error"),
        ("2026-01-01 10:00:00 CRITICAL boom", "error"),
        ("[V1] resume: 0 done, 12 to process", "resume"),
        ("[V1] COMPLETE 3 pages (3 processed, 0 failed) in 12.5s, viewer: https://x", "finished"),
        ("permanent failure in setup: manifest HTTP 404 — check the manifest URL", "failed"),
        ("transient failure in stream on the last attempt: timeout", "failed"),
        ("transient failure in stream: timeout", "retry"),
        ("2026-01-01 10:00:00,1 INFO htrflow.models: Loading yolo model R/y-1 from /data/models", "model"),
        ("2026-01-01 10:00:00,1 INFO ultralytics: YOLOv9c summary (fused): 384 layers", "model"),
        ("2026-01-01 10:00:00,1 INFO htrflow.wrapper: [V] load: models ready on cuda:0 in 12.8s", "model"),
        ("just words", "plain"),
    ],
)
def test_lines_are_classified_by_kind(text, kind):
    assert runlog.classify(text)[3] == kind


def test_http_noise_collapses_and_an_error_keeps_its_traceback():
    groups = runlog.group_lines(lines())
    kinds = [(group.kind, len(group.lines)) for group in groups]
    assert kinds == [("resume", 1), ("model", 1), ("http", 3), ("warning", 1), ("error", 5), ("finished", 1)]
    assert groups[4].lines[-1].text == "RuntimeError: image fetch failed: HTTP 404"


def test_quiet_lines_make_one_stretch_whose_http_lines_fold_and_other_lines_end_it():
    stretches = runlog.stretches(runlog.group_lines(lines()))
    assert [(s.quiet, [g.kind for g in s.groups]) for s in stretches] == [
        (True, ["resume", "model", "http"]),
        (False, ["warning"]),
        (False, ["error"]),
        (False, ["finished"]),
    ]
    first = stretches[0]
    assert first.folds and first.fold_at == 2 and first.fold_label.startswith("3 HTTP requests · lines ")
    request = b'2026-01-01 10:00:00,1 INFO httpx: HTTP Request: GET https://x "HTTP/1.1 200 OK"\n'
    lone = runlog.split_lines(request, 0, 1)
    (single,) = runlog.stretches(runlog.group_lines(lone))
    assert not single.folds and single.fold_at is None


def test_model_loading_lines_stay_together():
    text = (
        b"2026-01-01 10:00:00,1 INFO htrflow.models: Loading yolo model a from /data/models\n"
        b"2026-01-01 10:00:01,1 INFO ultralytics: YOLOv9c summary (fused): 384 layers\n"
        b"2026-01-01 10:00:02,1 INFO htrflow.wrapper: [V] stream: 4 pages\n"
    )
    groups = runlog.group_lines(runlog.split_lines(text, 0, 1))
    assert [(g.kind, len(g.lines)) for g in groups] == [("model", 2), ("plain", 1)]


@pytest.mark.parametrize(
    "last_line, state",
    [
        (b"[V] COMPLETE 2 pages (2 processed, 0 failed) in 3.0s, viewer: https://x\n", "finished"),
        (b"2026-01-01 10:00:00 ERROR permanent failure in load: no model \xe2\x80\x94 fix the pipeline\n", "failed"),
        (b"transient failure in stream on the last attempt: timeout\n", "failed"),
        (b"transient failure in stream: timeout\n", None),
        (b"2026-01-01 10:00:00 INFO still going\n", None),
    ],
)
def test_the_end_of_a_run_is_recognised(last_line, state):
    assert runlog.log_end_state(runlog.split_lines(b"start\n" + last_line, 0, 1)) == state


def test_ansi_codes_and_controls_never_survive():
    cleaned = runlog.clean("\x1b[31mred\x1b[0m \x1b]0;title\x07bell\x07 nul\x00 esc\x1b done")
    assert "\x1b" not in cleaned and "\x00" not in cleaned and "\x07" not in cleaned
    assert cleaned.startswith("red bell")
    assert runlog.clean("10%\r50%\r100%") == "100%"


def test_a_ranged_read_is_cut_at_a_line_start():
    data = b"tail of a line\nsecond\nthird\n"
    assert runlog.cut_at_line_start(data, 100) == (b"second\nthird\n", 115)
    assert runlog.cut_at_line_start(data, 0) == (data, 0)


def test_only_complete_lines_are_appended_unless_the_run_ended():
    assert runlog.complete_lines(b"one\ntwo\npart") == b"one\ntwo\n"
    ended = b"x\n[V] COMPLETE 1 pages (1 processed, 0 failed) in 1.0s, viewer: https://x"
    assert runlog.complete_lines(ended) == ended


def test_search_counts_and_highlights_every_match():
    result = runlog.search(LOG, "http")
    assert result.count == 14  # httpx, HTTP Request, https, HTTP/1.1 on 3 lines; HTTP 404; the viewer's https
    line, pieces = result.lines[0]
    assert line.number == 3
    assert [text for text, hit in pieces if hit] == ["http", "HTTP", "http", "HTTP"]
    assert "".join(text for text, _ in pieces) == line.text


def test_search_for_nothing_finds_nothing():
    assert runlog.search(LOG, "  ").count == 0


def test_invalid_utf8_is_replaced_not_raised():
    assert runlog.split_lines(b"ok \xff\xfe end\n", 0, 1)[0].text == "ok \ufffd\ufffd end"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.integers(min_value=0, max_value=10_000))
def test_any_bytes_make_clean_lines_and_never_raise(data, offset):
    lines = runlog.split_lines(data, offset, 1)
    for group in runlog.group_lines(lines):
        assert group.lines
    for line in lines:
        assert not any(ord(c) < 32 and c != "\t" for c in line.text)
        assert "\x1b" not in line.text and "\x7f" not in line.text
    assert [line.number for line in lines] == list(range(1, len(lines) + 1))


def test_search_matches_words_that_colour_codes_split():
    result = runlog.search(b"one\n2026-12-02 10:00:00 ERROR pa\x1b[31mge 0007\x1b[0m failed\nthree\n", "page 0007")
    assert result.count == 1 and result.lines[0][0].number == 2 and result.lines[0][0].level == "ERROR"


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \x1b[31m\r\x00é", max_size=30), max_size=20),
    st.text(alphabet="ab é", min_size=1, max_size=3),
)
def test_search_finds_what_the_displayed_lines_contain(texts, needle):
    data = "\n".join(texts).encode()
    result = runlog.search(data, needle)
    shown = runlog.split_lines(data, 0, 1)
    wanted = needle.strip().lower()
    if not wanted:
        assert result.count == 0
        return
    expected = [line for line in shown if wanted in line.text.lower()]
    assert [line.number for line, _ in result.lines] == [line.number for line in expected]
    assert [line.offset for line, _ in result.lines] == [line.offset for line in expected]


class _RecordingPattern:
    """Stands in for a compiled regex and records the length of every string it is asked to scan."""

    def __init__(self, pattern, seen: list[int]):
        self._pattern, self._seen = pattern, seen

    def __getattr__(self, name):
        method = getattr(self._pattern, name)

        def scan(string, *args, **kwargs):
            self._seen.append(len(string))
            return method(string, *args, **kwargs)

        return scan if name in ("search", "match", "fullmatch", "finditer", "findall") else method


@pytest.fixture
def regex_scans(monkeypatch):
    """Lengths of the strings runlog's classifying regexes scan (cleaning is one linear pass, not counted)."""
    seen: list[int] = []
    for name in ("_LOGGING_LINE", "_LEVEL_FIRST", "_FINISHED", "_FAILED_FOR_GOOD", "_RETRY", "_RESUME", "_HTTP"):
        monkeypatch.setattr(runlog, name, _RecordingPattern(getattr(runlog, name), seen))
    for name in ("_MODEL", "_TRACEBACK_START", "_TRACEBACK_BODY"):
        monkeypatch.setattr(runlog, name, _RecordingPattern(getattr(runlog, name), seen))
    return seen


HOSTILE_LINES = [
    b"[" * 131_000,
    b"[" * 131_000 + b"] COMPLETE 1 pages (1 processed, 0 failed) in 1s, viewer: ",
    b"[x] resume: " + b"[" * 131_000,
    b"transient failure in " + b"a" * 131_000,
    b"Traceback (most recent call last):\n " + b"^" * 131_000 + b"x",
]


@pytest.mark.parametrize("hostile", HOSTILE_LINES)
def test_a_hostile_long_line_is_classified_by_its_head_only(hostile, regex_scans):
    lines = runlog.split_lines(hostile + b"\n", 0, 1)
    assert regex_scans and max(regex_scans) <= runlog.CLASSIFY_CHARS
    assert len(lines[-1].text) == len(hostile.split(b"\n")[-1])  # the whole line is still shown
    assert runlog.end_of_run(hostile.decode()) is None


def test_the_wrapper_patterns_are_bounded_and_exclude_nested_brackets():
    for pattern in (runlog._FINISHED, runlog._RESUME):
        assert r"[^\[\]\n]{1,200}" in pattern.pattern
    for pattern in (runlog._FINISHED, runlog._FAILED_FOR_GOOD, runlog._RETRY, runlog._RESUME):
        assert "+" not in pattern.pattern and "*" not in pattern.pattern


def test_a_long_line_keeps_its_kind_and_its_whole_message():
    tail = " x" * 20_000
    finished = "[V1] COMPLETE 3 pages (3 processed, 0 failed) in 12.5s, viewer: https://x" + tail
    assert runlog.classify(finished)[3] == "finished"
    time, level, message, kind = runlog.classify("2026-01-01 10:00:00 ERROR boom" + tail)
    assert (level, kind) == ("ERROR", "error") and message == "boom" + tail


def test_a_line_with_very_many_matches_counts_them_all_but_marks_only_the_first():
    result = runlog.search(b"ab" * 50_000 + b"\n", "b")
    line, pieces = result.lines[0]
    assert result.count == 50_000
    assert sum(1 for _, hit in pieces if hit) == runlog.MARKS_PER_LINE
    assert "".join(text for text, _ in pieces) == line.text


@pytest.mark.parametrize("invisible", ["\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200f", "\ufeff"])
def test_bidi_and_zero_width_characters_are_shown_as_symbols(invisible):
    line = runlog.split_lines(f"2026-01-01 10:00:00 INFO ab{invisible}cd\n".encode(), 0, 1)[0]
    assert invisible not in line.text and f"ab⟨U+{ord(invisible):04X}⟩cd" in line.text


def test_search_finds_the_symbol_a_hidden_character_is_shown_as():
    result = runlog.search("one\nx\u202ey\n".encode(), "U+202E")
    assert result.count == 1 and result.lines[0][0].number == 2
