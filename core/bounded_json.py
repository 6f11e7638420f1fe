"""JSON parsed only within a size and a nesting depth, both checked before the parser runs. Pure.

Python's ``json.loads`` recurses once per nested array or object: text of a few kilobytes
(``[[[[…`` 16 000 deep) raises ``RecursionError``, which no ``except ValueError`` catches, so a
request body or a file in the bucket could turn any answer into a 500. ``loads`` refuses such text
first, with a cheap scan that counts brackets outside strings (byte-level passes, no parsing), and
raises ``JsonTooLarge`` or ``JsonTooDeep``; given ``max_values``, it also counts the values the text
would build, the same way, and raises ``JsonTooMany``. All are ``ValueError``s, so a caller that
already treats unparseable JSON as "not JSON" goes on doing so.

This module imports nothing of the project, so any part of it may use it.
"""

from __future__ import annotations

import json
from array import array
from itertools import accumulate

# Deep enough for any document the site reads (a IIIF manifest nests about ten levels), far below
# where the parser's recursion could fail.
DEFAULT_MAX_DEPTH = 64

# The text is scanned a window at a time: every step is a C-level pass over bytes, and what it builds
# is bounded by the window, whatever the text holds (a regular expression's substitution keeps a list
# of every piece: 8 MB of ``{},{},…`` made 200 MiB of them).
WINDOW = 256 * 1024
# Each bracket as a signed byte (+1 opens, -1 = 0xff closes); every other byte is left out.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKET = bytes(sorted(set(range(256)) - set(b"[]{}")))


class JsonTooLarge(ValueError):
    """The text is longer than ``limit`` (bytes, or characters for ``str``); it was not parsed."""

    def __init__(self, size: int, limit: int):
        self.size, self.limit = size, limit
        super().__init__(f"JSON of {size} bytes is over the limit of {limit}")


class JsonTooDeep(ValueError):
    """Arrays and objects nest deeper than ``limit``; the text was not parsed."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"JSON nests deeper than {limit} levels")


class JsonTooMany(ValueError):
    """The text holds more than ``limit`` values (``value_count``); it was not parsed."""

    def __init__(self, count: int, limit: int):
        self.count, self.limit = count, limit
        super().__init__(f"JSON of {count} values is over the limit of {limit}")


def _outside_strings(text: str):
    """The bytes of ``text`` outside its strings, a window at a time. Escaped backslashes and quotes
    are blanked first, so every quote left opens or closes a string, as a parser reads them (a string
    never closed runs to the end; where a backslash stands outside a string, the parser stops there)."""
    data = text.encode("utf-8", "surrogatepass").replace(b"\\\\", b"__").replace(b'\\"', b"__")
    inside = False
    for start in range(0, len(data), WINDOW):
        parts = data[start : start + WINDOW].split(b'"')
        yield b"".join(parts[1 if inside else 0 :: 2])
        inside ^= len(parts) % 2 == 0


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text``, counting brackets outside strings only: the highest
    running count of those. Brackets that do not match are counted as they come: the parser refuses
    them. Linear in the text whatever it holds, and within a few copies of it."""
    depth = deepest = 0
    for outside in _outside_strings(text):
        steps = array("b", outside.translate(_STEPS, _NOT_BRACKET))
        deepest = max(deepest, max(accumulate(steps, initial=depth)))
        depth += sum(steps)
    return deepest


def value_count(text: str) -> int:
    """At least as many as the values and keys parsing ``text`` would build (arrays, objects, keys,
    strings, numbers, literals): one for the first value, and one more for each ``,``, ``:``, ``[`` and
    ``{`` outside strings. What parsing costs grows with this count, not with the bytes: 6 MB of
    ``[{},{},…]`` is 2 million objects and 140 MiB. Linear, and within a few copies of the text."""
    return 1 + sum(outside.count(mark) for outside in _outside_strings(text) for mark in b",:[{")


def loads(data: str | bytes, *, max_bytes: int, max_depth: int = DEFAULT_MAX_DEPTH, max_values: int | None = None):
    """``json.loads(data)``, but only when ``data`` is at most ``max_bytes`` long, nests at most
    ``max_depth`` deep and (when ``max_values`` is given) holds at most that many values. Raises
    ``JsonTooLarge``, ``JsonTooDeep``, ``JsonTooMany`` or, as ``json.loads`` does, another
    ``ValueError`` (``UnicodeDecodeError`` included) for text that is not JSON."""
    if len(data) > max_bytes:
        raise JsonTooLarge(len(data), max_bytes)
    text = data if isinstance(data, str) else data.decode(json.detect_encoding(data), "surrogatepass")
    if nesting_depth(text) > max_depth:
        raise JsonTooDeep(max_depth)
    if max_values is not None:
        count = value_count(text)
        if count > max_values:
            raise JsonTooMany(count, max_values)
    return json.loads(text)
