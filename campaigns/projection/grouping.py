"""Which Jobs form one campaign: ``<stem>-part<N>`` with campaign label ``<stem>`` is a part of the
split campaign ``<stem>``; any other Job is a campaign of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from campaigns.models import (
    LABEL_CAMPAIGN,
)
from campaigns.projection.readers import as_str, labels_of, name_of

PART_RE = re.compile(r"^(?P<stem>.+)-part(?P<n>\d{1,6})$")


def campaign_key(job_name: str, campaign_label: str) -> tuple[str, int]:
    """(campaign name, part number) of a Job: ``<stem>-part<N>`` with label ``<stem>`` is a part."""
    match = PART_RE.match(job_name)
    if match and campaign_label and match.group("stem") == campaign_label:
        return campaign_label, int(match.group("n"))
    return job_name, 0


def group_jobs(jobs: Iterable[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[tuple[int, dict]]] = {}
    for job in jobs:
        if not isinstance(job, dict):
            continue
        name = name_of(job)
        if not name:
            continue
        key, part = campaign_key(name, as_str(labels_of(job).get(LABEL_CAMPAIGN)))
        groups.setdefault(key, []).append((part, job))
    return {
        key: [job for _, job in sorted(parts, key=lambda p: (p[0], name_of(p[1])))] for key, parts in groups.items()
    }
