"""Which Jobs form one campaign: ``<stem>-part<N>`` with campaign label ``<stem>`` is a part of the
split campaign ``<stem>``; any other Job is a campaign of its own (the rule: ``core.contract.campaign_key``).
"""

from __future__ import annotations

from collections.abc import Iterable

from campaigns.domain.projection.readers import as_str, labels_of, name_of
from core.contract import LABEL_CAMPAIGN, campaign_key


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
