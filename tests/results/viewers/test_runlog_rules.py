"""The run log's rules at their edges: what cleaning shows of each control character, which forms of time,
level and the wrapper's own lines (contracts §4) are read, how far into a line it is classified, where
tracebacks go, finding lines in bytes, the pages a log names, and how many results are kept."""

from __future__ import annotations

import pytest
from django.conf import settings

from results.formats import runlog

STAMP = "2026-12-02 10:00:00,000"


def kinds(text: str) -> list[tuple[str, int]]:
    groups = runlog.group_lines(runlog.split_lines(text.encode(), 0, 1))
    return [(group.kind, len(group.lines)) for group in groups]


# --- cleaning ---------------------------------------------------------------------------------------------


def test_each_control_character_is_shown_as_its_symbol_and_tab_and_text_are_kept():
    raw = "\x00|\x08|\t|\x0b|\x0c|\x1f|\x7f|\x80|\x9f|\xa0|é"
    assert runlog.clean(raw) == "\u2400|\u2408|\t|\u240b|\u240c|\u241f|\ufffd|\ufffd|\ufffd|\xa0|é"


def test_a_carriage_return_keeps_the_last_text_it_left_visible_spaces_included():
    assert runlog.clean("downloading 10 %\rdownloading 100 %") == "downloading 100 %"
    assert runlog.clean("page one done\r\r") == "page one done"
    assert runlog.clean("\r") == ""


@pytest.mark.parametrize(
    "coded",
    [
        "\x1b[1;31mred\x1b[0m",  # CSI with parameters
        "\x1b[?25lred",  # private mode
        "\x1b[ qred",  # an intermediate byte
        "\x9b31mred",  # the 8-bit CSI
        "\x1b]0;a title\x07red",  # OSC ended by BEL
        "\x1b]8;;https://x\x1b\\red",  # OSC ended by ESC \
        "\x1bMred",  # a two-byte code
        "\x1b_red",  # the last two-byte code
    ],
)
def test_every_kind_of_terminal_code_is_dropped(coded):
    assert runlog.clean(coded) == "red"


def test_search_and_find_see_through_an_8_bit_code():
    data = b"one\n\xc2\x9b31mpa\xc2\x9b0mge 7\n"
    assert runlog.search(data, "page 7").count == 1
    assert runlog.find(data, "page 7").lines == [(2, 4, 1)]


# --- time and level --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "time", "level", "message"),
    [
        ("2026-01-01T10:00:00.123456789+01:00 WARNING a", "2026-01-01T10:00:00.123456789+01:00", "WARNING", "a"),
        ("2026-01-01T10:00:00Z WARN b", "2026-01-01T10:00:00Z", "WARNING", "b"),
        ("2026-01-01 10:00:00,5-0330 DEBUG c", "2026-01-01 10:00:00,5-0330", "DEBUG", "c"),
        ("[2026-01-01 10:00:00] [INFO] - d", "2026-01-01 10:00:00", "INFO", "d"),
        ("2026-01-01 10:00:00 | FATAL | e", "2026-01-01 10:00:00", "FATAL", "e"),
        ("2026-01-01 10:00:00 WARNINGS f", "2026-01-01 10:00:00", None, "WARNINGS f"),
        ("WARNING:htrflow:g", None, "WARNING", "htrflow:g"),
        ("WARN:h", None, "WARNING", "h"),
        ("CRITICAL:i", None, "CRITICAL", "i"),
        ("warning:j", None, None, "warning:j"),
    ],
)
def test_each_form_of_time_and_level_is_read(text, time, level, message):
    assert runlog.classify(text)[:3] == (time, level, message)


@pytest.mark.parametrize(
    ("level", "kind"),
    [("DEBUG", "plain"), ("INFO", "plain"), ("WARN", "warning"), ("ERROR", "error"), ("FATAL", "error")],
)
def test_each_level_makes_its_kind(level, kind):
    assert runlog.classify(f"{STAMP} {level} x")[3] == kind


# --- the wrapper's own lines (contracts §4) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[V1] COMPLETE 3 pages (3 processed, 0 failed) in 12.5s, viewer: https://x", "finished"),
        ("[V1] COMPLETE 3 pages (3 processed, 0 failed) in 12.5s", "plain"),
        (f"{STAMP} INFO the COMPLETE works of Strindberg", "plain"),
        ("[V1] COMPLETE 3 pages in 12.5s, viewer: https://x", "plain"),
        ("[" + "V" * 200 + "] resume: 1 done, 2 to process", "resume"),
        ("[" + "V" * 201 + "] resume: 1 done, 2 to process", "plain"),
        ("[] resume: 1 done, 2 to process", "plain"),
        ("[V1] resume: 123456789012 done, 2 to process", "resume"),
        ("[V1] resume: 1234567890123 done, 2 to process", "plain"),
        (f"permanent failure in {'p' * 60}: boom", "failed"),
        (f"permanent failure in {'p' * 61}: boom", "plain"),
        ("permanent failure in Setup: boom", "plain"),
        ("impermanent failure in setup: boom", "plain"),
        (f"transient failure in {'t' * 60}: boom", "retry"),
        (f"transient failure in {'t' * 61}: boom", "plain"),
        ("transient failure in postprocess on the last attempt: boom", "failed"),
        (f"{STAMP} INFO httpx: HTTP Request: GET x", "http"),
        (f"{STAMP} INFO httpx: HTTP Request GET x", "plain"),
    ],
)
def test_the_wrapper_lines_are_read_only_in_their_own_form(text, kind):
    assert runlog.classify(text)[3] == kind


def test_a_completed_or_failed_run_ends_the_log_and_a_retry_or_a_word_does_not():
    assert runlog.end_of_run("[V] COMPLETE 1 pages (1 processed, 0 failed) in 1s, viewer: x") == "finished"
    assert runlog.end_of_run("permanent failure in load: no model") == "failed"
    assert runlog.end_of_run("transient failure in load: no model") is None
    assert runlog.end_of_run("the job is COMPLETE now") is None


def test_a_line_is_classified_by_its_first_4096_characters():
    for phrase, kind in (("transient failure in stream: ", "retry"), ("permanent failure in stream: ", "failed")):
        within = "y" * (4096 - len(phrase) - 1) + " " + phrase + "the rest"
        assert runlog.classify(within)[3] == kind
        assert runlog.classify("y" + within)[3] == "plain"
    phrase = "permanent failure in stream: "
    assert runlog.end_of_run("y" * (4096 - len(phrase) - 1) + " " + phrase + "boom") == "failed"
    assert runlog.end_of_run("y" * (4096 - len(phrase)) + " " + phrase + "boom") is None


@pytest.mark.parametrize(
    "text",
    [
        f"{STAMP} INFO htrflow: loading checkpoint from /models/a",
        f"{STAMP} INFO htrflow: loaded the weights",
        f"{STAMP} INFO htrflow: loads processor",
        f"{STAMP} INFO htrflow: load tokenizer",
        f"{STAMP} INFO htrflow: {'x' * 60} loading a tokenizer",
        f"{STAMP} INFO htrflow: model ready",
        f"{STAMP} INFO htrflow: models loaded",
        f"{STAMP} INFO htrflow: AutoModel.from_pretrained(x)",
        f"{STAMP} INFO htrflow: reading model.safetensors",
        f"{STAMP} INFO htrflow: warm-up pass",
        f"{STAMP} INFO htrflow: warmup pass",
        f"{STAMP} INFO transformers.modeling_utils: something",
        f"{STAMP} INFO torch.cuda: something",
        f"{STAMP} INFO htrflow.models: something",
        "ultralytics: something",
    ],
)
def test_every_form_of_model_loading_line_is_told_apart(text):
    assert runlog.classify(text)[3] == "model"


@pytest.mark.parametrize(
    "text",
    [
        f"{STAMP} INFO htrflow: loading {'x' * 61} tokenizer",
        f"{STAMP} INFO htrflow: loading pages: the model",
        f"{STAMP} INFO htrflow: the modeller is ready",
        f"{STAMP} INFO htrflow.modelsx: something",
    ],
)
def test_lines_that_only_resemble_model_loading_are_plain(text):
    assert runlog.classify(text)[3] == "plain"


# --- tracebacks -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("above", ["permanent failure in load: boom", "transient failure in load: boom"])
def test_a_traceback_joins_the_wrapper_failure_or_retry_above_it(above):
    body = "Traceback (most recent call last):\n  File 'x', line 1\n    f()\n     ^^^\nKeyError: 'a'\n"
    assert kinds(above + "\n" + body) == [(runlog.classify(above)[3], 6)]


def test_a_traceback_with_no_error_above_it_is_an_error_of_its_own():
    groups = runlog.group_lines(runlog.split_lines(b"Traceback (most recent call last):\nValueError: x\n", 0, 1))
    assert [(g.kind, [ln.text for ln in g.lines]) for g in groups] == [
        ("error", ["Traceback (most recent call last):", "ValueError: x"])
    ]


def test_chained_tracebacks_and_every_kind_of_exception_line_stay_with_the_error():
    text = (
        f"{STAMP} ERROR boom\n"
        "Traceback (most recent call last):\n"
        "\tFile 'x', line 1\n"
        "KeyboardInterrupt\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "  ^^^^  \n"
        "^^^^\n"
        "SystemExit: 2\n"
        "The above exception was the direct cause of the following exception:\n"
        "numpy.RankWarning: w\n"
        "requests.exceptions.ConnectionError: refused\n"
        "next line\n"
    )
    assert kinds(text) == [("error", 4), ("plain", 1), ("error", 7), ("plain", 1)]


def test_a_logging_line_ends_a_traceback_whatever_it_says():
    text = "Traceback (most recent call last):\n  File 'x'\n" + f"{STAMP} INFO   indented\nINFO:  x\n"
    assert kinds(text) == [("error", 2), ("plain", 1), ("plain", 1)]


# --- byte places -----------------------------------------------------------------------------------------


def test_a_ranged_read_without_a_line_end_holds_no_whole_line():
    assert runlog.cut_at_line_start(b"no line end", 10) == (b"", 21)
    assert runlog.cut_at_line_start(b"\nnext\n", 10) == (b"next\n", 11)


@pytest.mark.parametrize(("data", "count"), [(b"", 0), (b"a", 1), (b"\n", 1), (b"a\n", 1), (b"a\nb", 2), (b"a\n\n", 2)])
def test_lines_are_counted_with_a_last_one_that_lacks_its_line_end(data, count):
    assert runlog.lines_in(data) == count


def test_where_the_last_lines_start():
    data = b"a\nbb\nccc\n"
    assert runlog.last_lines_start(data, 1) == 5
    assert runlog.last_lines_start(data, 2) == 2
    assert runlog.last_lines_start(data, 3) == runlog.last_lines_start(data, 9) == 0
    assert runlog.last_lines_start(data, 0) == 9
    assert runlog.last_lines_start(data, 1, end=5) == 2
    assert runlog.last_lines_start(data, 0, end=5) == 5
    assert runlog.last_lines_start(b"a\n\n", 1) == 2


def test_where_the_first_lines_end():
    data = b"\nbb\nccc\n"
    assert runlog.first_lines_end(data, 1) == 1
    assert runlog.first_lines_end(data, 2) == 4
    assert runlog.first_lines_end(data, 2, start=1) == 8
    assert runlog.first_lines_end(data, 0, start=4) == 4
    assert runlog.first_lines_end(data, 9) == 8


def test_where_a_line_starts_near_and_far():
    data = b"a\nbb\nccc"
    assert [runlog.line_start(data, i) for i in range(5)] == [0, 2, 5, 8, 8]
    long = b"x\n" * 5_000  # more than one chunk of newlines
    assert runlog.line_start(long, 3_000) == 6_000
    assert runlog.line_start(long, 5_000) == runlog.line_start(long, 6_000) == 10_000


def test_a_line_near_the_start_is_found_without_counting_the_whole_log():
    counted: list[tuple] = []

    class Counting(bytes):
        def count(self, *args):
            counted.append(args)
            return super().count(*args)

    data = Counting(b"x\n" * 100_000)
    assert runlog.line_start(data, 10) == 20
    assert counted and all(len(args) == 3 and args[2] - args[1] <= 4096 for args in counted)


# --- pages a log names ----------------------------------------------------------------------------------


def test_failed_and_missing_pages_are_found_where_a_line_names_them():
    text = "page 0012 failed; page 012 failed; missing=[0031,\t0044, 12] failed=[123456789, 0101] missing=[x]"
    mentions = runlog.page_mentions(text)
    assert [page for _s, _e, page in mentions] == ["0012", "0031", "0044", "123456789", "0101"]
    assert all(text[start:end] == page for start, end, page in mentions)


def test_a_number_of_ten_digits_in_a_page_list_is_no_page():
    mentions = runlog.page_mentions("failed=[1234567890, 0012, 123456789]")
    assert [page for _s, _e, page in mentions] == ["0012", "123456789"]


def test_failed_pages_come_from_error_lines_once_each_shortest_first():
    data = (
        b"2026-12-02 10:00:00,000 ERROR w: missing=[00013, 0012, 0012]\n"
        b"permanent failure in verify: failed=[0099]\n"
        b"2026-12-02 10:00:00,000 WARNING w: page 0055 failed\n"
        b"transient failure in stream: page 0066 failed\n"
    )
    lines = runlog.split_lines(data, 0, 1)
    assert runlog.failed_page_ids(lines) == ["0012", "0099", "00013"]
    assert runlog.failed_page_ids(lines, limit=2) == ["0012", "0099"]


def test_at_most_200_failed_pages_are_listed():
    listing = ", ".join(f"{n:04d}" for n in range(1, 202))
    lines = runlog.split_lines(f"{STAMP} ERROR w: failed=[{listing}]\n".encode(), 0, 1)
    assert runlog.failed_page_ids(lines) == [f"{n:04d}" for n in range(1, 201)]


# --- search and find -----------------------------------------------------------------------------------


def test_search_keeps_500_lines_and_counts_them_all():
    data = b"hit\n" * 501
    result = runlog.search(data, "HIT")
    assert (result.count, len(result.lines), result.truncated) == (501, 500, True)
    assert result.lines[-1][0].number == 500 and result.lines[-1][0].offset == 499 * 4


def test_search_with_exactly_500_matching_lines_lists_them_all_and_leaves_none_out():
    result = runlog.search(b"hit\n" * 500 + b"miss\n", "hit")
    assert (result.count, len(result.lines), result.truncated) == (500, 500, False)


def test_search_marks_100_matches_in_a_line():
    result = runlog.search(b"ab" * 150 + b"\n", "b")
    assert result.count == 150 and sum(1 for _text, hit in result.lines[0][1] if hit) == 100


def test_search_reads_bytes_that_are_not_utf8_as_replaced():
    result = runlog.search(b"one\nok \xff page\n", "page")
    line, pieces = result.lines[0]
    assert (line.number, line.offset, line.text) == (2, 4, "ok \ufffd page")
    assert pieces == [("ok \ufffd ", False), ("page", True)]


def test_find_gives_each_line_its_number_offset_and_matches():
    data = "Beta\n\nalpha beta bETA\nno\nbeta é beta\n".encode()
    result = runlog.find(data, " beta ")
    assert (result.count, result.lines, result.truncated) == (5, [(1, 0, 1), (3, 6, 2), (5, 25, 2)], False)
    assert runlog.find(data, "é").lines == [(5, 25, 1)]
    assert runlog.find(b"ok \xff page\n", "\ufffd page").count == 1


def test_search_for_nothing_finds_nothing_and_says_what_was_asked():
    assert runlog.search(b"a\nb\n", " \t ") == runlog.SearchResult(" \t ", 0, [], False)


def test_find_nothing_is_nothing_and_a_split_match_is_found():
    assert runlog.find(b"a\nb\n", "  ") == runlog.FindResult(0, [], False)
    assert runlog.find(b"x\npa\x1b[31mge\n", "page") == runlog.FindResult(1, [(2, 2, 1)], False)


def test_find_keeps_5000_lines_and_counts_every_match():
    result = runlog.find(b"hit hit\n" * 5_001, "hit")
    assert (result.count, len(result.lines), result.truncated) == (10_002, 5_000, True)
    assert result.lines[-1] == (5_000, 4_999 * 8, 2)
    exactly = runlog.find(b"hit\n" * 5_000 + b"miss\n", "hit")
    assert (exactly.count, len(exactly.lines), exactly.truncated) == (5_000, 5_000, False)


# --- the fold row ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "first", "last", "label"),
    [
        (1, 5, 5, "1 HTTP request · lines 5–5"),
        (3, 5, 7, "3 HTTP requests · lines 5–7"),
        (1, None, None, "1 HTTP request"),
        (4, None, 9, "4 HTTP requests"),
        (2, 5, 9, "2 HTTP requests · lines 5 and 9"),
        (3, 5, 9, "3 HTTP requests between lines 5 and 9"),
    ],
)
def test_the_fold_row_names_what_it_hides(count, first, last, label):
    assert runlog.fold_label(count, first, last) == label


def test_every_form_of_the_fold_row_is_looked_up_in_the_catalog_by_its_words(monkeypatch):
    """Some forms are never shown in English (the singular of "between lines"), yet a translation is found by
    them: each one asked for is in the Swedish catalog (read from its source, which every copy of the tree has)."""
    asked = []

    def recording(real):
        def ask(message, *args):
            asked.append(message)
            return real(message, *args)

        return ask

    monkeypatch.setattr(runlog, "gettext", recording(runlog.gettext))
    monkeypatch.setattr(runlog, "ngettext", recording(runlog.ngettext))
    for count, first, last in ((3, 5, 7), (2, 5, 9), (3, 5, 9), (3, None, None)):
        runlog.fold_label(count, first, last)
    catalog = (settings.BASE_DIR / "locale" / "sv" / "LC_MESSAGES" / "django.po").read_text()
    assert len(asked) == 4 and [m for m in asked if f'msgid "{m}"' not in catalog] == []
