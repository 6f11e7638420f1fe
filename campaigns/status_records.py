"""Keeping each campaign's status ConfigMap current, so a campaign outlives its Job's TTL.

Contracts §1: only the status ConfigMap `campaign-<job>-status` is written, only when something
changed, and never shrinking it (what to write is the projection's `status_record_update`). Writes
happen at most once per snapshot (by the first request that projects all of it),
stop at the first failure so a slow API costs one timeout, and are logged rather than shown.
`settings.HTRFLOW_WRITE_STATUS = False` turns this off for accounts that may not write.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from campaigns import kube
from campaigns.models import LABEL_CAMPAIGN, LABEL_KIND, LABEL_MANAGED_BY, LABEL_PIPELINE

log = logging.getLogger(__name__)


_written: dict[str, object] = {}  # namespace -> read_at of the last snapshot written from
_written_lock = threading.Lock()


def _first_time_for(reading: kube.Reading) -> bool:
    """True once per snapshot: the first caller with a whole projection of it does the writing."""
    with _written_lock:
        if _written.get(reading.namespace) == reading.snapshot.read_at:
            return False
        _written[reading.namespace] = reading.snapshot.read_at
        return True


def forget() -> None:
    """Tests: write again for snapshots already seen."""
    with _written_lock:
        _written.clear()


def keep_current(reading: kube.Reading, campaigns) -> int:
    """Write what changed for the campaigns of one snapshot, once per snapshot; returns the writes made."""
    if not settings.HTRFLOW_WRITE_STATUS or reading.unreachable_since is not None:
        return 0
    if not _first_time_for(reading):
        return 0
    from campaigns.projection import status_record_updates

    existing = {}
    for item in reading.snapshot.status_records or []:
        name = (item.get("metadata") or {}).get("name")
        if name:
            existing[name] = item
    written = 0
    for campaign in campaigns:
        if campaign.job_gone:
            continue
        try:
            data_by_name = {name: (item.get("data") or {}) for name, item in existing.items()}
            updates = status_record_updates(campaign, data_by_name, settings.HTRFLOW_RESULTS_URL)
        except Exception:  # a projection bug must never cost the page
            log.exception("could not work out the status record of %s/%s", reading.namespace, campaign.name)
            continue
        for name, data in updates.items():
            try:
                _write(reading.namespace, name, campaign, existing.get(name), data)
            except kube.ClusterUnavailable as trouble:
                log.warning("status record %s/%s not written: %s", reading.namespace, name, trouble.sentence)
                return written
            written += 1
    return written


def _write(namespace: str, name: str, campaign, current: dict | None, data: dict) -> None:
    if current is not None:
        kube.patch_config_map(namespace, name, {"data": data})
        return
    labels = {LABEL_MANAGED_BY: "converter", LABEL_KIND: "status"}
    if campaign.campaign:
        labels[LABEL_CAMPAIGN] = campaign.campaign
    if campaign.pipeline:
        labels[LABEL_PIPELINE] = campaign.pipeline
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "data": data,
    }
    kube.create_config_map(namespace, body)
