"""Values read from the cluster's and the store's objects, made safe to keep: text bounded in length,
times parsed to aware datetimes, counts that are never negative."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

TEXT_LIMIT = 3500


def bounded(text: Any, limit: int = TEXT_LIMIT) -> str:
    """Text cut to ``limit`` characters (with an ellipsis), from anything."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    text = text.strip()
    if len(text) > limit:
        return text[: max(0, limit - 1)].rstrip() + "…"
    return text


def parse_time(value: Any) -> datetime | None:
    """An aware datetime from an ISO 8601 / RFC 3339 string, or None."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def utc_iso(value: datetime | None) -> str:
    """``2026-09-24T06:10:41Z``, or "" for no time: how the read API and the status records write times."""
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def non_negative_int(value: Any) -> int | None:
    """A count from JSON (an int, a whole float, digits), never below 0; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value and abs(value) < 1e12:
        return max(0, int(value))
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
