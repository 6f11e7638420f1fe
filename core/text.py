"""Characters that hide, reorder or break text, and how each kind of output shows them. Pure.

Text from the cluster, the store and requests can hold characters a reader never sees:

- invisible formatting characters: bidirectional marks, embeddings, overrides and isolates make text
  read in another order than it is written ("C00\\u202egpj.exe" reads as "C00exe.jpg"); zero-width ones
  and Unicode tag characters hide inside words;
- control characters (C0, DEL, C1) and the line and paragraph separators U+2028/U+2029, which can start
  what looks like a new line of a log;
- lone surrogates and the noncharacters U+FFFE/U+FFFF, which are not text at all.

Pages show invisible characters as ``⟨U+202E⟩`` (``reveal_invisible``; ``reveal_invisible_in_html`` in
a page's text and its attributes, where an address has them percent-encoded instead). Log lines and the values of
files the site writes hold all of them as backslash escapes (``escape_unsafe``, the syntax of a Python
string and of a YAML double-quoted scalar), JSON as ``\\u202e`` (``escape_unsafe_json``). This module
imports nothing of the project, so that any part of it may use these rules.
"""

from __future__ import annotations

import re

INVISIBLE = "\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f"
CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
NOT_TEXT = "\ud800-\udfff\ufffe\uffff"

_INVISIBLE = re.compile(f"[{INVISIBLE}]")
_UNSAFE = re.compile(f"[{CONTROLS}{INVISIBLE}{NOT_TEXT}]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def reveal_invisible(text: str) -> str:
    """``text`` with each invisible formatting character shown as ``⟨U+202E⟩``, for pages: nothing can
    reorder or hide part of what a person reads."""
    return _INVISIBLE.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", text)


_TAG = re.compile(r"(<[^>]*>)")
_QUOTED = re.compile(r"(\"[^\"]*\"|'[^']*')")
# An attribute value that is an address (a link, a form's field holding a results address): its invisible
# characters are percent-encoded, which an address reads back as the same characters.
_ADDRESS = re.compile(r"^(?:/|https?://|\?|#)", re.IGNORECASE)


def percent_encode_invisible(address: str) -> str:
    """``address`` with each invisible character written as its UTF-8 percent-encoding (``%E2%80%AE``)."""
    return _INVISIBLE.sub(lambda m: "".join(f"%{byte:02X}" for byte in m.group().encode()), address)


def _inert_value(quoted: str) -> str:
    value = quoted[1:-1]
    if not _INVISIBLE.search(value):
        return quoted
    inert = percent_encode_invisible(value) if _ADDRESS.match(value) else reveal_invisible(value)
    return quoted[0] + inert + quoted[-1]


def _inert_tag(tag: str) -> str:
    """A tag with no raw invisible character: an address keeps its meaning percent-encoded, any other value
    (a tooltip, a label, an id) is marked as its text would be."""
    if not _INVISIBLE.search(tag):
        return tag
    pieces = _QUOTED.split(tag)
    return "".join(_inert_value(piece) if index % 2 else reveal_invisible(piece) for index, piece in enumerate(pieces))


def reveal_invisible_in_html(html: str) -> str:
    """No raw invisible character anywhere in an HTML fragment: ``reveal_invisible`` on its text and on its
    attribute values (a ``title`` tooltip, an ``aria-label`` read aloud, an ``alt``), so nothing a person
    reads or hears can be reordered; an address (a link, a form field holding one) has them percent-encoded
    instead, so it still names the same file and a form sends back an address that reads as what it was
    given."""
    if not _INVISIBLE.search(html):
        return html
    parts = _TAG.split(html)
    return "".join(_inert_tag(part) if index % 2 else reveal_invisible(part) for index, part in enumerate(parts))


def _backslash_escape(character: str) -> str:
    code = ord(character)
    if character in _SHORT:
        return _SHORT[character]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def escape_unsafe(text: str) -> str:
    """``text`` on one line with no invisible character: each control, separator, invisible or non-text
    character becomes an escape (``\\n``, ``\\x7f``, ``\\u202E``, ``\\U000E0041``). Backslashes are left
    as they are, so this is for what people read (log lines, comments); a YAML or Python string value
    must escape its backslashes and quotes first."""
    return _UNSAFE.sub(lambda m: _backslash_escape(m.group()), text)


def _json_escape(character: str) -> str:
    code = ord(character)
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def escape_unsafe_json(dumped: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters ``escape_unsafe`` escapes
    written as ``\\u`` escapes too: the same value, on one line by any reader's count (json.dumps leaves
    DEL, C1 controls and U+2028/U+2029 raw). Such characters occur only inside JSON strings."""
    return _UNSAFE.sub(lambda m: _json_escape(m.group()), dumped)
