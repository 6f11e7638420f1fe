"""Keeping each campaign's status ConfigMap current, so a campaign outlives its Job's TTL.

Contracts §1: only the status ConfigMap `campaign-<job>-status` is written, only when something
changed, and never shrinking it (what to write is the projection's `status_record_update`). Writes
happen at most once per snapshot refresh (only the request that read the snapshot fresh writes),
stop at the first failure so a slow API costs one timeout, and are logged rather than shown.
`settings.HTRFLOW_WRITE_STATUS = False` turns this off for accounts that may not write.
"""

from __future__ import annotations

import logging

from django.conf import settings

from campaigns import kube
from campaigns.models import LABEL_CAMPAIGN, LABEL_KIND, LABEL_MANAGED_BY, LABEL_PIPELINE

log = logging.getLogger(__name__)


def status_record_name(job_name: str) -> str:
    return f"campaign-{job_name}-status"


def keep_current(reading: kube.Reading, campaigns) -> int:
    """Write what changed for the campaigns of one freshly read snapshot; returns the writes made."""
    if not settings.HTRFLOW_WRITE_STATUS or not reading.fresh:
        return 0
    from campaigns.projection import status_record_update

    existing = {(item.get("metadata") or {}).get("name"): item for item in reading.snapshot.status_records or []}
    written = 0
    for campaign in campaigns:
        if campaign.job_gone or campaign.is_split or not campaign.job_uid:
            continue
        name = status_record_name(campaign.name)
        current = existing.get(name)
        try:
            update = status_record_update(campaign, (current or {}).get("data") if current else None)
        except Exception:  # a projection bug must never cost the page
            log.exception("could not work out the status record of %s/%s", reading.namespace, campaign.name)
            continue
        if not update:
            continue
        try:
            _write(reading.namespace, name, campaign, current, update)
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
