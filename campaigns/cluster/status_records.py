"""Keeping each campaign's status ConfigMap current, so a campaign outlives its Job's TTL.

Contracts §1: only the status ConfigMap `campaign-<job>-status` is written, only when something
changed, and never shrinking it (what to write is the projection's `status_record_updates`).
With several replicas and workers it is written safely:

- **one writer**: only the process holding the namespace's Lease writes (`campaigns.cluster.status_lease`);
- **no lost or backward writes**: a patch carries the `resourceVersion` of the record it was worked
  out from; a 409 means the record changed, so it is read again and the write worked out anew, never
  forced. A write whose counts or phase are behind what the record already holds for the same Job
  (a snapshot older than the record) is dropped;
- **only our records**: a record is merged only when it carries this site's provenance (annotation
  `htrflow.riksarkivet.se/written-by: htrbrowser` and `.../job-uid` matching its `jobUid`). Anything
  else by that name (another tool's, or one planted with the live Job's uid) is left alone, logged
  once, and reported by `foreign_records` for the page to show.

Writes happen at most once per snapshot per process, stop at the first failure so a slow API costs
one timeout, and are logged rather than shown. `settings.HTRFLOW_WRITE_STATUS = False` turns this off.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from campaigns.cluster import kube, status_lease, writes
from campaigns.domain.projection import status_record_updates
from core import metrics
from core.contract import (
    ANNOTATION_JOB_UID,
    ANNOTATION_WRITTEN_BY,
    LABEL_CAMPAIGN,
    LABEL_KIND,
    LABEL_MANAGED_BY,
    LABEL_PIPELINE,
)

log = logging.getLogger(__name__)

WRITER = "htrbrowser"
ATTEMPTS = 3  # conflicts in a row before giving up until the next snapshot
FINAL_RECORD_PHASES = {"Succeeded", "PartiallyFailed", "Failed"}
COUNTS = ("volumesDone", "volumesFailed")

_written: dict[str, object] = {}  # namespace -> read_at of the last snapshot written from
_foreign: dict[tuple[str, str], str] = {}  # (namespace, record name) -> uid of the foreign record
_lock = threading.Lock()


def _first_time_for(reading: kube.Reading) -> bool:
    """True once per snapshot: the first caller with a whole projection of it does the writing."""
    with _lock:
        if _written.get(reading.namespace) == reading.snapshot.read_at:
            return False
        _written[reading.namespace] = reading.snapshot.read_at
        return True


def forget() -> None:
    """Tests: write again for snapshots already seen, and forget foreign records and the Lease."""
    with _lock:
        _written.clear()
        _foreign.clear()
    status_lease.forget()


def foreign_records(namespace: str) -> set[str]:
    """Names of status records in `namespace` this site found but did not write, so leaves alone."""
    with _lock:
        return {name for (ns, name) in _foreign if ns == namespace}


def is_ours(record: dict) -> bool:
    """A record this site wrote: our provenance annotations, consistent with the record's own data."""
    annotations = (record.get("metadata") or {}).get("annotations") or {}
    uid = annotations.get(ANNOTATION_JOB_UID)
    return annotations.get(ANNOTATION_WRITTEN_BY) == WRITER and bool(uid) and uid == (record.get("data") or {}).get(
        "jobUid"
    )


def keep_current(reading: kube.Reading, campaigns) -> int:
    """Write what changed for the campaigns of one snapshot, once per snapshot; returns the writes made."""
    if not settings.HTRFLOW_WRITE_STATUS or reading.unreachable_since is not None:
        return 0
    if not _first_time_for(reading):
        return 0
    existing = {}
    for item in reading.snapshot.status_records or []:
        name = (item.get("metadata") or {}).get("name")
        if name:
            existing[name] = item
    planned = [(campaign, name) for campaign in campaigns for name in _changed(reading, campaign, existing)]
    if not planned:
        return 0
    try:
        if not status_lease.hold(reading.namespace):
            metrics.status_write("not_writer")
            return 0
    except kube.ClusterUnavailable as trouble:
        metrics.status_write("failed")
        log.warning("status records of %s not written: the writer Lease: %s", reading.namespace, trouble.sentence)
        return 0
    written = 0
    for campaign, name in planned:
        try:
            written += _write(reading.namespace, name, campaign, existing.get(name))
        except kube.ClusterUnavailable as trouble:
            metrics.status_write("failed")
            log.warning("status record %s/%s not written: %s", reading.namespace, name, trouble.sentence)
            return written
    return written


def _changed(reading: kube.Reading, campaign, existing: dict) -> list[str]:
    """Names of the campaign's status records that the snapshot says need writing."""
    if campaign.job_gone:
        return []

    try:
        data_by_name = {name: (item.get("data") or {}) for name, item in existing.items()}
        return list(status_record_updates(campaign, data_by_name, settings.HTRFLOW_RESULTS_URL))
    except Exception:  # a projection bug must never cost the page
        log.exception("could not work out the status record of %s/%s", reading.namespace, campaign.name)
        return []


def _write(namespace: str, name: str, campaign, current: dict | None) -> int:
    """Bring one record up to date from `current` (as read); 1 when a write was made."""
    for _attempt in range(ATTEMPTS):
        try:
            if current is None:
                writes.create_config_map_once(namespace, _new_record(namespace, name, campaign))
                metrics.status_write("created")
                return 1
            if not is_ours(current):
                _report_foreign(namespace, name, current)
                return 0
            data = _update_for(campaign, name, current)
            if data is None:
                return 0
            version = (current.get("metadata") or {}).get("resourceVersion") or ""
            patch = {"metadata": {"annotations": {ANNOTATION_JOB_UID: data.get("jobUid", "")}}, "data": data}
            writes.patch_config_map_at(namespace, name, patch, version)
            metrics.status_write("updated")
            return 1
        except writes.Conflict:
            # Changed since it was read: never overwrite. The watch brings the newer record, and the
            # next reading works the update out anew from it.
            metrics.status_write("conflict")
            return 0
    return 0


def _update_for(campaign, name: str, current: dict) -> dict | None:
    """The data to patch into `current`, or None when nothing changed or this view is older than it."""
    stored = current.get("data") or {}
    data = status_record_updates(campaign, {name: stored}, settings.HTRFLOW_RESULTS_URL).get(name)
    if data is None:
        return None
    if _behind(data, stored):
        metrics.status_write("stale")
        return None
    return data


def _behind(data: dict, stored: dict) -> bool:
    """True when `data` would move the record backwards for the same Job: fewer done or failed, or
    a finished record made unfinished (a process whose snapshot is older than the record)."""
    if not stored.get("jobUid") or stored.get("jobUid") != data.get("jobUid"):
        return False
    for key in COUNTS:
        if _number(data.get(key)) < _number(stored.get(key)):
            return True
    return stored.get("phase") in FINAL_RECORD_PHASES and data.get("phase") not in FINAL_RECORD_PHASES


def _number(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _report_foreign(namespace: str, name: str, record: dict) -> None:
    uid = (record.get("metadata") or {}).get("uid") or ""
    with _lock:
        first = _foreign.get((namespace, name)) != uid
        _foreign[(namespace, name)] = uid
    metrics.status_write("foreign")
    if first:
        log.warning(
            "status record %s/%s was not written by this site (no htrbrowser provenance); it is left alone",
            namespace,
            name,
            extra={"namespace": namespace, "record": name, "record_uid": uid},
        )


def _new_record(namespace: str, name: str, campaign) -> dict:
    data = status_record_updates(campaign, {}, settings.HTRFLOW_RESULTS_URL)[name]
    labels = {LABEL_MANAGED_BY: "converter", LABEL_KIND: "status"}
    if campaign.campaign:
        labels[LABEL_CAMPAIGN] = campaign.campaign
    if campaign.pipeline:
        labels[LABEL_PIPELINE] = campaign.pipeline
    annotations = {ANNOTATION_WRITTEN_BY: WRITER, ANNOTATION_JOB_UID: data.get("jobUid", "")}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels, "annotations": annotations},
        "data": data,
    }
