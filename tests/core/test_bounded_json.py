"""core.bounded_json: JSON is parsed only within a size and a depth, both checked before parsing."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from core.bounded_json import JsonTooDeep, JsonTooLarge, loads, nesting_depth


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
