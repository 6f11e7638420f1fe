"""What a campaign's ConfigMaps say: the campaign record's annotations and the status record's stored
failed volumes.

A reason kept in a status record is only its text, so its failure class is decided from that text
alone; the list of failed volumes is bounded and read defensively.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from campaigns.domain.projection.readers import annotations_of, as_list, as_str
from campaigns.domain.projection.reasons import classify_text
from campaigns.models import RecordInfo, VolumeReason, bounded
from core.contract import (
    ANNOTATION_APPLIED_AT,
    ANNOTATION_APPLIED_BY,
    ANNOTATION_COMMIT,
    ANNOTATION_IMAGE_DIGEST,
    ANNOTATION_JOB_UID,
)

MAX_FAILED_VOLUMES_RECORD = 50


_PAGE_ERROR_RE = re.compile(r"^page \d{1,6}:")


def record_reason(text: str, final: bool) -> VolumeReason:
    """A reason kept in a status record: its text only; a page's error was written while processing pages."""
    kind = classify_text(text)
    if kind == "transient" and final:
        kind = "transient_final"
    stage = "stream" if _PAGE_ERROR_RE.match(text or "") else None
    return VolumeReason(stage=stage, error=bounded(text), kind=kind, source="record")


def read_record_info(record: dict) -> RecordInfo:
    annotations = annotations_of(record)
    return RecordInfo(
        commit=bounded(annotations.get(ANNOTATION_COMMIT), 80),
        applied_by=bounded(annotations.get(ANNOTATION_APPLIED_BY), 200),
        applied_at=bounded(annotations.get(ANNOTATION_APPLIED_AT), 40),
        image_digest=bounded(annotations.get(ANNOTATION_IMAGE_DIGEST), 300),
        job_uid=bounded(annotations.get(ANNOTATION_JOB_UID), 80),
    )


def failed_volumes_from_record(data: dict) -> list[tuple[str, str]]:
    raw = data.get("failedVolumes")
    return list(_failed_volumes(raw)) if isinstance(raw, str) else []


@lru_cache(maxsize=512)
def _failed_volumes(raw: str) -> tuple[tuple[str, str], ...]:
    """Read once per text: every status record is compared with its campaign at each reading."""
    if not raw.strip() or len(raw) > 1_000_000:
        return ()
    try:
        items = json.loads(raw)
    except (ValueError, RecursionError):
        return ()
    found = []
    for item in as_list(items)[:MAX_FAILED_VOLUMES_RECORD]:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
            found.append((bounded(item["id"], 80), bounded(as_str(item.get("reason")))))
    return tuple(found)
