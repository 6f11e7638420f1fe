"""Reading plain JSON dicts defensively: any field may be missing or of an unexpected type, and these
answer an empty dict, list or string (or None at the end of a path) instead of failing.

Below every reader of API objects (the projection's readers and the diagnosis's share them). This
module imports nothing of the project.
"""

from __future__ import annotations

from typing import Any


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def get_path(obj: Any, *path: str) -> Any:
    """``obj[path[0]][path[1]]…``, or None where a step is not a dict."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj
