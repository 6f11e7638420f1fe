"""Keeping the status record current: what to write to each part's status ConfigMap.

Decides the data to write, or nothing when nothing changed. A record never shrinks: empty values
never overwrite filled ones, keys are never dropped, ``finishedAt`` never moves back, and stored
failed-volume reasons of the same Job are kept. The first part's record also keeps the campaign's
timeline of finished volumes (``pace``, a few numbers: `models.pace.Timeline.record`), so pace and
stall survive a restart and a reaped Job. The writing itself is :mod:`campaigns.cluster.status_records`.
"""

from __future__ import annotations

from campaigns.domain.projection.readers import as_dict
from campaigns.domain.projection.records import MAX_FAILED_VOLUMES_RECORD, failed_volumes_from_record
from campaigns.models import (
    Campaign,
    failed_volumes_json,
    parse_time,
)
from core.per_object_cache import WhileAlive


def status_record_update(campaign: Campaign, existing_data: dict | None, results_url: str = "") -> dict | None:
    """The data to write to the campaign's status ConfigMap, or None when nothing changed.

    Never shrinks the record: empty values never overwrite filled ones, keys are never dropped,
    ``finishedAt`` never moves back, and stored failed-volume reasons of the same Job are kept.
    A campaign whose Job is gone is never written from here. For split campaigns use
    :func:`status_record_updates`.
    """
    if campaign.job_gone:
        return None
    return merge_status_record(_with_pace(campaign.status_record_data(results_url), campaign), existing_data)


def status_record_updates(
    campaign: Campaign, existing: dict[str, dict], results_url: str = ""
) -> dict[str, dict[str, str]]:
    """ConfigMap name -> data to write, one per part Job that changed (existing: name -> data).

    Worked out once per campaign and records: every reading asks for every campaign, and most are
    the very objects the last reading had (`incremental`), compared with the same records.
    """
    if campaign.job_gone:
        return {}
    base = campaign.results_base(results_url)
    pace = _pace_record(campaign)  # set on the campaign after projection (`domain.timelines`): an input too
    inputs = (base, pace, tuple(existing.get(part.status_record_name) for part in campaign.part_states))
    kept = _remembered.get(id(campaign), campaign)
    if kept is not None and kept[0] == inputs:
        return {name: dict(data) for name, data in kept[1].items()}
    writes = {}
    for position, part in enumerate(campaign.part_states):
        name = part.status_record_name
        desired = part.status_record_data(base)
        if position == 0 and pace:
            desired["pace"] = pace  # the campaign's timeline is kept once, in its first part's record
        merged = merge_status_record(desired, as_dict(existing.get(name)))
        if merged is not None:
            writes[name] = merged
    _remembered.put(id(campaign), campaign, (inputs, writes))
    return {name: dict(data) for name, data in writes.items()}


# id(campaign) -> (what its updates were worked out from, the updates), while the campaign lives. A
# campaign and the records given are never changed once made, so the same inputs give the same updates.
_remembered = WhileAlive(most=4096)


def _pace_record(campaign: Campaign) -> str:
    """The few numbers of the campaign's timeline the status record keeps (``pace``), "" when none."""
    return campaign.pace.timeline.record() if campaign.pace is not None else ""


def _with_pace(data: dict[str, str], campaign: Campaign) -> dict[str, str]:
    pace = _pace_record(campaign)
    return {**data, "pace": pace} if pace else data


def merge_status_record(desired: dict[str, str], existing_data: dict | None) -> dict | None:
    existing = {k: v for k, v in as_dict(existing_data).items() if isinstance(k, str)}
    merged = dict(existing)
    same_job = not existing.get("jobUid") or existing.get("jobUid") == desired.get("jobUid")
    for key, value in desired.items():
        old = existing.get(key)
        if value == "" and old:
            continue
        if key == "finishedAt" and old and same_job:
            old_time, new_time = parse_time(old), parse_time(value)
            if old_time is not None and (new_time is None or new_time < old_time):
                continue
        if key == "failedVolumes":
            value = _merge_failed_volumes(existing, desired)
        merged[key] = value
    if merged == existing:
        return None
    return {k: v if isinstance(v, str) else str(v) for k, v in merged.items()}


def _merge_failed_volumes(existing: dict, desired: dict) -> str:
    new_items = failed_volumes_from_record(desired)
    if existing.get("failedVolumesJobUid") and existing.get("failedVolumesJobUid") != desired.get(
        "failedVolumesJobUid"
    ):
        items = new_items
    else:
        stored = dict(failed_volumes_from_record(existing))
        items = []
        seen = set()
        for vid, reason in new_items:
            items.append((vid, reason or stored.get(vid, "")))
            seen.add(vid)
        for vid, reason in failed_volumes_from_record(existing):
            if vid not in seen:
                items.append((vid, reason))
    return failed_volumes_json(items, MAX_FAILED_VOLUMES_RECORD)
