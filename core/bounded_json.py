"""JSON parsed only within a size and a nesting depth, both checked before the parser runs. Pure.

Python's ``json.loads`` recurses once per nested array or object: text of a few kilobytes
(``[[[[…`` 16 000 deep) raises ``RecursionError``, which no ``except ValueError`` catches, so a
request body or a file in the bucket could turn any answer into a 500. ``loads`` refuses such text
first, with a cheap scan that counts brackets outside strings (regular expressions, no parsing), and
raises ``JsonTooLarge`` or ``JsonTooDeep``. Both are ``ValueError``s, so a caller that already treats
unparseable JSON as "not JSON" goes on doing so.

This module imports nothing of the project, so any part of it may use it.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate

# Deep enough for any document the site reads (a IIIF manifest nests about ten levels), far below
# where the parser's recursion could fail.
DEFAULT_MAX_DEPTH = 64

# A whole string, escapes included, or one never closed (then it runs to the end, as a parser reads it;
# a backslash at the very end too). Every quantifier is possessive: a string is matched in one pass that
# keeps no backtracking state, and no match can fail and be tried again from a quote inside it.
_STRING = re.compile(r'"[^"\\]*+(?:\\.?[^"\\]*+)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
# Each bracket as a signed byte: +1 opens, -1 (0xff) closes.
_STEPS = str.maketrans({"[": "\x01", "{": "\x01", "]": "\xff", "}": "\xff"})


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


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text``, counting brackets outside strings only.

    Strings are removed first (a string never closed runs to the end, as a parser reads it), then
    everything but brackets; the depth is the highest running count of those. Brackets that do not
    match are counted as they come: the parser refuses them. Two regular-expression passes and one
    over the brackets, so the cost is linear in the text whatever it holds.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    steps = array("b", brackets.translate(_STEPS).encode("latin-1"))
    return max(0, max(accumulate(steps), default=0))


def loads(data: str | bytes, *, max_bytes: int, max_depth: int = DEFAULT_MAX_DEPTH):
    """``json.loads(data)``, but only when ``data`` is at most ``max_bytes`` long and nests at most
    ``max_depth`` deep. Raises ``JsonTooLarge``, ``JsonTooDeep`` or, as ``json.loads`` does,
    another ``ValueError`` (``UnicodeDecodeError`` included) for text that is not JSON."""
    if len(data) > max_bytes:
        raise JsonTooLarge(len(data), max_bytes)
    text = data if isinstance(data, str) else data.decode(json.detect_encoding(data), "surrogatepass")
    if nesting_depth(text) > max_depth:
        raise JsonTooDeep(max_depth)
    return json.loads(text)
