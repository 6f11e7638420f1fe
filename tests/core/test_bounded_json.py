"""core.bounded_json: JSON is parsed only within a size and a depth, both checked before parsing."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from core.bounded_json import JsonTooDeep, JsonTooLarge, JsonTooMany, loads, nesting_depth, value_count


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('"[[[{{{"', 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('{"a": "[[[[", "b": [1, {"c": "\\"]]]"}]}', 3),  # brackets and an escaped quote inside strings
        ('["\\\\", ["x"]]', 2),  # an escaped backslash ends just before the closing quote
        ("[[[]]][[]]", 3),
        ('[["never closed ]]]]]]', 2),  # a parser reads the rest as the string, and so does the count
        ('[["\\"[\\"[\\', 2),  # never closed, with escaped quotes, ending in a backslash
        ("]]]", 0),
    ],
)
def test_the_depth_counts_brackets_outside_strings(text, depth):
    assert nesting_depth(text) == depth


def test_text_nested_16_000_deep_is_refused_before_the_parser_can_recurse():
    with pytest.raises(RecursionError):
        json.loads("[" * 16_000 + "]" * 16_000)  # what happened before
    for text in ("[" * 16_000, '{"a":' * 16_000, "[" * 16_000 + "]" * 16_000):
        with pytest.raises(JsonTooDeep) as refused:
            loads(text, max_bytes=100_000, max_depth=8)
        assert isinstance(refused.value, ValueError)


def test_text_at_the_limits_is_parsed_and_past_them_refused():
    nested = "[" * 8 + "]" * 8
    assert loads(nested, max_bytes=16, max_depth=8) == [[[[[[[[]]]]]]]]
    with pytest.raises(JsonTooDeep):
        loads(nested, max_bytes=16, max_depth=7)
    with pytest.raises(JsonTooLarge) as refused:
        loads(nested.encode() + b" ", max_bytes=16, max_depth=8)
    assert (refused.value.size, refused.value.limit) == (17, 16)


def test_bytes_are_read_as_json_reads_them_and_text_that_is_not_json_is_a_value_error():
    assert loads('{"name": "Åsa"}'.encode("utf-16"), max_bytes=100) == {"name": "Åsa"}
    for bad in (b"\xff\xfe\xfd", b"not json", b'{"a": "open', b"[1, 2"):
        with pytest.raises(ValueError):
            loads(bad, max_bytes=100)


@pytest.mark.parametrize("end", ['"', "", "\\"])
def test_the_scan_of_a_string_of_escapes_keeps_no_more_than_a_few_copies_of_it(end):
    # Half a million escaped quotes in one string: a regular expression that may backtrack keeps
    # state for each (it peaked at 62 MB for this 1 MB); the scan stays within a few copies of the text.
    text = "[" + '"' + '\\"' * 500_000 + end
    tracemalloc.start()
    try:
        assert nesting_depth(text) == 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(text)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("1", 1),
        ("[]", 2),  # at least as many as are built: the count is an upper bound
        ("[1,2,3]", 4),
        ('{"a":1,"b":2}', 5),
        ('["a,b:[{", {"c": []}]', 6),  # marks inside strings are not counted
    ],
)
def test_the_value_count_counts_marks_outside_strings(text, values):
    assert value_count(text) == values
    assert value_count(text) >= _built(json.loads(text))


def _built(value) -> int:
    if isinstance(value, dict):
        return 1 + sum(1 + _built(item) for item in value.values())
    if isinstance(value, list):
        return 1 + sum(_built(item) for item in value)
    return 1


def test_text_of_more_values_than_allowed_is_refused_before_parsing():
    assert loads("[1,2,3]", max_bytes=100, max_values=4) == [1, 2, 3]
    with pytest.raises(JsonTooMany) as refused:
        loads("[1,2,3,4]", max_bytes=100, max_values=4)
    assert (refused.value.count, refused.value.limit) == (5, 4) and isinstance(refused.value, ValueError)


@pytest.mark.parametrize("piece", ["{},", '"",', '"a",1,', "[[]],"])
def test_the_scans_of_millions_of_small_values_keep_no_piece_of_each(piece):
    # 8 MB of tiny values: a regular expression's substitution kept a list of every piece between its
    # matches (200 MiB for ``{},``); the scans go a window at a time, within a few copies of the text.
    text = "[" + piece * (8_000_000 // len(piece)) + "1]"
    tracemalloc.start()
    try:
        assert nesting_depth(text) == (3 if piece == "[[]]," else 2 if piece == "{}," else 1)
        assert value_count(text) > 1_000_000
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(text)
