"""Index range strings of Indexed Jobs: ``completedIndexes`` / ``failedIndexes`` like ``0-3,5,7-9``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# A Job holds at most 10 000 volumes (contracts §1); anything past this is not a real index.
MAX_INDEX = 100_000


def parse_ranges(text: Any, limit: int = MAX_INDEX) -> set[int]:
    """The set of indexes a range string names; malformed pieces are skipped, never raised on.

    Indexes at or above ``limit`` are dropped, so a hostile ``0-999999999`` costs nothing.
    """
    if not isinstance(text, str) or not text.strip():
        return set()
    indexes: set[int] = set()
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        first, sep, last = piece.partition("-")
        if not _is_index(first) or (sep and not _is_index(last)):
            continue
        start = int(first)
        end = int(last) if sep else start
        if end < start:
            continue
        indexes.update(range(min(start, limit), min(end + 1, limit)))
    return indexes


def format_ranges(indexes: Iterable[int]) -> str:
    """The compact range string for a set of indexes: ``{0,1,2,3,5}`` -> ``0-3,5``."""
    ordered = sorted(set(indexes))
    pieces: list[str] = []
    start = prev = None
    for index in ordered:
        if start is None:
            start = prev = index
        elif index == prev + 1:
            prev = index
        else:
            pieces.append(_piece(start, prev))
            start = prev = index
    if start is not None:
        pieces.append(_piece(start, prev))
    return ",".join(pieces)


def _piece(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"


def _is_index(text: str) -> bool:
    text = text.strip()
    return text.isascii() and text.isdigit() and len(text) <= 9
