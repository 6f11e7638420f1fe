"""Small defensive readers of Kubernetes objects as plain dicts.

Any field may be missing or of an unexpected type: these helpers answer an empty dict, list or
string (or a default number) instead of failing. Conditions are looked up by ``type``, never by
position; this module also decides what counts as a Job's success or failure condition, and holds
the few time helpers (newest first, earliest, latest) the rest of the projection shares.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from campaigns.models import (
    parse_time,
)
from core.plain import as_dict, as_list, as_str, get_path  # noqa: F401 - read through this module too


def as_int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    # isdecimal, one sign at most: int() refuses "--5" and "²", which lstrip("-") and isdigit() let through.
    if isinstance(value, str) and value.strip().removeprefix("-").isdecimal() and len(value.strip()) < 12:
        return int(value.strip())
    return default


def metadata_of(obj: Any) -> dict:
    return as_dict(get_path(obj, "metadata"))


def name_of(obj: Any) -> str:
    return as_str(metadata_of(obj).get("name"))


def labels_of(obj: Any) -> dict:
    return as_dict(metadata_of(obj).get("labels"))


def annotations_of(obj: Any) -> dict:
    return as_dict(metadata_of(obj).get("annotations"))


def created_time(obj: Any) -> datetime | None:
    return parse_time(metadata_of(obj).get("creationTimestamp"))


def condition(obj: Any, kind: str) -> dict | None:
    """The status condition of the given type (never by position), or None."""
    for cond in as_list(get_path(obj, "status", "conditions")):
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def condition_true(obj: Any, kind: str) -> bool:
    cond = condition(obj, kind)
    return cond is not None and cond.get("status") == "True"


# A Job's end: Complete / Failed, or the conditions Kubernetes 1.31+ sets just before them.
SUCCESS_CONDITIONS = ("Complete", "SuccessCriteriaMet")


FAILURE_CONDITIONS = ("Failed", "FailureTarget")


def any_condition_true(obj: Any, kinds: tuple[str, ...]) -> bool:
    return any(condition_true(obj, kind) for kind in kinds)


def true_failure_condition(job: dict) -> dict | None:
    """The Job's Failed (or FailureTarget) condition when it is true."""
    for kind in FAILURE_CONDITIONS:
        cond = condition(job, kind)
        if cond is not None and cond.get("status") == "True":
            return cond
    return None


def newest_first(objects: Iterable[dict]) -> list[dict]:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return sorted(objects, key=lambda o: created_time(o) or epoch, reverse=True)


def earliest(values: Iterable[datetime | None]) -> datetime | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def latest(values: Iterable[datetime | None]) -> datetime | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None
