"""The projection's entry points: every campaign of a snapshot's namespace (live ones from their
Jobs, gone ones from their records), or the one campaign asked for by name.
"""

from __future__ import annotations

from datetime import datetime

from campaigns.domain.projection.gone import gone_groups, project_gone
from campaigns.domain.projection.grouping import group_jobs
from campaigns.domain.projection.index import build_index
from campaigns.domain.projection.live import project_live
from campaigns.domain.projection.readers import as_list, name_of
from campaigns.models import (
    Campaign,
    Snapshot,
)


def project(snapshot: Snapshot, now: datetime) -> list[Campaign]:
    """Every campaign of the snapshot's namespace: live ones from their Jobs, gone ones from records."""
    index = build_index(snapshot)
    campaigns = []
    live_jobs: set[str] = set()
    for name, jobs in group_jobs(as_list(snapshot.jobs)).items():
        live_jobs.update(name_of(job) for job in jobs)
        campaigns.append(project_live(snapshot, index, name, jobs, now))
    for name, job_names in gone_groups(index, live_jobs).items():
        campaigns.append(project_gone(snapshot, index, name, job_names))
    return campaigns


def project_one(snapshot: Snapshot, name: str, now: datetime) -> Campaign | None:
    """The campaign called ``name`` (a Job name, the stem of a split campaign or one of its parts, or a
    campaign whose Job is gone), or None."""
    index = build_index(snapshot)
    groups = group_jobs(as_list(snapshot.jobs))
    if name in groups:
        return project_live(snapshot, index, name, groups[name], now)
    for key, jobs in groups.items():  # a part's Job name shows the whole split campaign
        if any(name_of(job) == name for job in jobs):
            return project_live(snapshot, index, key, jobs, now)
    live_jobs = {name_of(job) for jobs in groups.values() for job in jobs}
    gone = gone_groups(index, live_jobs)
    if name in gone:
        return project_gone(snapshot, index, name, gone[name])
    return None
