"""A volume's progress as its ``progress.json`` says (contracts §4), and the status record's failed-volume list."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from campaigns.models.parsing import bounded, non_negative_int, parse_time, utc_iso
from core.quality import VolumeQuality, volume_quality


@dataclass
class Progress:
    """A volume's ``progress.json`` (contracts §4), read by the views through the results proxy."""

    done: int
    total: int
    failed: int = 0
    last_page: str | None = None
    stage: str = ""
    updated_at: datetime | None = None
    age_seconds: float | None = None
    last_error: dict | None = None  # {"page", "error"}
    errors: int = 0
    viewer_published: bool = False
    quality: VolumeQuality | None = None  # predicted page quality, when the pipeline scores pages
    started_at: datetime | None = None  # when the wrapper started the volume (its pace: pages_done over the time since)

    @property
    def fraction(self) -> float:
        return min(1.0, max(0.0, self.done / self.total)) if self.total > 0 else 0.0

    def as_api(self) -> dict:
        return {
            "done": self.done,
            "total": self.total,
            "failed": self.failed,
            "lastPage": self.last_page,
            "stage": self.stage,
            "updatedAt": utc_iso(self.updated_at) or None,
            "ageSeconds": None if self.age_seconds is None else round(self.age_seconds, 1),
            "lastError": self.last_error,
            "errors": self.errors,
            "viewerPublished": self.viewer_published,
            "quality": self.quality.as_api() if self.quality is not None else None,
        }


def progress_from_json(data: Any, now: datetime) -> Progress | None:
    """A :class:`Progress` from a parsed ``progress.json``; None when it holds no progress.

    Best effort and defensive: any missing or odd field gets a neutral value, never an error.
    """
    if not isinstance(data, dict):
        return None
    total = non_negative_int(data.get("pages_total"))
    if total is None:
        return None
    updated = parse_time(data.get("updated_at"))
    age = None
    if updated is not None and now is not None:
        age = max(0.0, (now - updated).total_seconds())
    last_error = data.get("last_error")
    if isinstance(last_error, dict):
        last_error = {
            "page": bounded(str(last_error.get("page") or ""), 16),
            "error": bounded(str(last_error.get("error") or "")),
        }
    else:
        last_error = None
    last_page = data.get("last_page")
    stage = data.get("stage")
    return Progress(
        done=non_negative_int(data.get("pages_done")) or 0,
        total=total,
        failed=non_negative_int(data.get("pages_failed")) or 0,
        last_page=bounded(str(last_page), 16) if isinstance(last_page, (str, int)) else None,
        stage=bounded(stage, 40) if isinstance(stage, str) else "",
        updated_at=updated,
        age_seconds=age,
        last_error=last_error,
        errors=non_negative_int(data.get("errors")) or 0,
        viewer_published=data.get("viewer_published") is True,
        quality=volume_quality(data.get("quality")),
        started_at=parse_time(data.get("started_at")),
    )
