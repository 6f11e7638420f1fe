"""Projecting a namespace again by what changed: a campaign is projected anew only when something it
read is no longer as it was; every other campaign is the one projected before.

While a campaign is projected, every lookup it makes in the snapshot and its index is written down
with what it found (`_Reads`): its Jobs' pods, records and status records, Workloads, pipeline and
warm-up, and, only when its queue state needed them, the namespace's Workloads, LocalQueues,
ClusterQueues, priority classes or events. Next time the same lookups are made in the new snapshot;
when each finds an equal object (the same one, mostly: the informers replace an object when it
changes and never change one in place), the campaign is reused. So what one campaign shares with
others is tracked as exactly as what is its own, and a lookup added to the projection later is
tracked without anyone listing it here.

Time is the one input that is not looked up: a campaign whose queue state compared `now` with
something (`queue.counts_time`) is projected anew every time.

`project_again(snapshot, now, None)` equals `project(snapshot, now)`; so does every later call
with the previous answer (tests/campaigns/domain/test_incremental_projection.py checks it over random
sequences of changes). Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from campaigns.domain.projection.gone import gone_groups, project_gone
from campaigns.domain.projection.grouping import group_jobs
from campaigns.domain.projection.index import SnapshotIndex, build_index
from campaigns.domain.projection.live import project_live
from campaigns.domain.projection.queue import counts_time
from campaigns.domain.projection.readers import as_list, name_of
from campaigns.models import Campaign, Snapshot

_MISSING = object()  # what a lookup of a key not there found
_WHOLE = object()  # the key of a read of a whole table (iterated, counted)
_UNTRACKED = frozenset({"namespace"})  # the same for every snapshot a projection is given


class _Reads:
    """What one campaign's projection looked up, and what it found: (table, key) -> value."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, Any], Any] = {}

    def snapshot(self, snapshot: Snapshot) -> Snapshot:
        return _RecordedSnapshot(snapshot, self.found)  # type: ignore[return-value]

    def index(self, index: SnapshotIndex) -> SnapshotIndex:
        recorded = object.__new__(SnapshotIndex)
        for each in fields(SnapshotIndex):
            setattr(recorded, each.name, _RecordedTable(each.name, getattr(index, each.name), self.found))
        return recorded

    def unchanged(self, snapshot: Snapshot, index: SnapshotIndex) -> bool:
        """Every lookup finds in this snapshot what it found then (an equal object, usually the same)."""
        for (table, key), then in self.found.items():
            if table == "snapshot":
                now = getattr(snapshot, key)
            elif key is _WHOLE:
                now = getattr(index, table)
            else:
                now = getattr(index, table).get(key, _MISSING)
            if now is not then and now != then:
                return False
        return True


class _RecordedSnapshot:
    """A snapshot that writes down each list read from it."""

    def __init__(self, snapshot: Snapshot, found: dict):
        self._snapshot = snapshot
        self._found = found

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._snapshot, name)
        if name not in _UNTRACKED:
            self._found[("snapshot", name)] = value
        return value


class _RecordedTable:
    """One lookup table of a `SnapshotIndex` that writes down each key looked up and what was there."""

    def __init__(self, name: str, table: dict, found: dict):
        self._name = name
        self._table = table
        self._found = found

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._table.get(key, _MISSING)
        self._found[(self._name, key)] = value
        return default if value is _MISSING else value

    def __contains__(self, key: Any) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def __getitem__(self, key: Any) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def _whole(self) -> dict:
        self._found[(self._name, _WHOLE)] = self._table
        return self._table

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def keys(self):
        return self._whole().keys()

    def values(self):
        return self._whole().values()

    def items(self):
        return self._whole().items()


@dataclass(frozen=True)
class _Entry:
    """One campaign as projected, with what it was projected from."""

    inputs: list  # a live campaign's Jobs, or a gone one's Job names
    reads: _Reads
    campaign: Campaign
    counts_time: bool  # its queue state compared `now` with something: projected anew every time


@dataclass
class Projection:
    """A namespace's campaigns (in `project`'s order) and what each was projected from."""

    namespace: str
    campaigns: list[Campaign] = field(default_factory=list)
    live: dict[str, _Entry] = field(default_factory=dict)
    gone: dict[str, _Entry] = field(default_factory=dict)
    projected: list[str] = field(default_factory=list)  # the campaigns projected anew (the rest were reused)
    index: SnapshotIndex | None = None  # the snapshot's lookups (the next index places unchanged pods from it)

    @property
    def reused(self) -> int:
        return len(self.campaigns) - len(self.projected)


def project_again(snapshot: Snapshot, now: datetime, previous: Projection | None) -> Projection:
    """Every campaign of the snapshot, as `project` gives them, reusing those of `previous` whose
    inputs are as they were."""
    if previous is not None and previous.namespace != snapshot.namespace:
        previous = None
    index = build_index(snapshot, previous.index if previous else None)
    answer = Projection(snapshot.namespace, index=index)
    live_jobs: set[str] = set()
    for name, jobs in group_jobs(as_list(snapshot.jobs)).items():
        live_jobs.update(name_of(job) for job in jobs)
        entry = _kept(previous.live.get(name) if previous else None, jobs, snapshot, index)
        if entry is None:
            reads = _Reads()
            campaign = project_live(reads.snapshot(snapshot), reads.index(index), name, jobs, now)
            entry = _Entry(jobs, reads, campaign, counts_time(campaign.queue))
            answer.projected.append(name)
        answer.live[name] = entry
        answer.campaigns.append(entry.campaign)
    for name, job_names in gone_groups(index, live_jobs).items():
        entry = _kept(previous.gone.get(name) if previous else None, job_names, snapshot, index)
        if entry is None:
            reads = _Reads()
            campaign = project_gone(reads.snapshot(snapshot), reads.index(index), name, job_names)
            entry = _Entry(job_names, reads, campaign, counts_time=False)
            answer.projected.append(name)
        answer.gone[name] = entry
        answer.campaigns.append(entry.campaign)
    return answer


def _kept(entry: _Entry | None, inputs: list, snapshot: Snapshot, index: SnapshotIndex) -> _Entry | None:
    """The entry when nothing its campaign was projected from has changed, else None."""
    if entry is None or entry.counts_time or entry.inputs != inputs:
        return None
    return entry if entry.reads.unchanged(snapshot, index) else None
