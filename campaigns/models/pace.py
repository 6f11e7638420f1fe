"""The shape of a campaign's pace, forecast and stall: plain values, no I/O, no logic beyond reading.

The board watches each campaign's finished volumes over time and keeps a small :class:`Timeline`
(`campaigns.domain.pace` makes, compacts and reads it); every reading it hangs a
:class:`CampaignPace` on the campaign (``Campaign.pace``), which the card's sentence, the chart, the
feed and the read API all read. Everything here is about the cluster's view: volumes finished
(done or failed for good) as the Jobs' index sets say. Pages appear only where a person's own
progress read brings them (``PageEvidence``), never in what the board keeps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

# Why a forecast cannot be made yet (`TooEarly.reason`).
NOT_STARTED = "not_started"  # the campaign has no start time yet
FEW_FINISHED = "few_finished"  # fewer than `pace.MIN_FINISHED` volumes finished
TOO_SOON = "too_soon"  # started less than `pace.MIN_ELAPSED` ago
NO_PACE = "no_pace"  # nothing finished within the windows a pace is taken over
NOTHING_LEFT = "nothing_left"  # every volume has finished; the Job is closing
# What a forecast's pace was measured over (`Forecast.basis`).
LAST_HOUR = "last_hour"
SINCE_START = "since_start"
RECENT = "recent"  # less than an hour observed (the app started within the hour): `Pace.recent_seconds`


@dataclass(frozen=True)
class Point:
    """One observation: at `at`, `finished` volumes were finished (done plus failed for good)."""

    at: datetime
    finished: int
    pages: int | None = None  # pages finished by then, where known (the board never knows them)


@dataclass(frozen=True)
class Timeline:
    """What the board saw of one campaign's finished volumes, compacted to a few points.

    ``points`` are oldest first; a point is added only when the finished count changes (or on the
    first observation), so the last point's time is when the count last moved, or when it was first
    seen (never earlier than true). Points older than an hour are dropped but one (the anchor the
    last hour's pace is measured from); at most `pace.MAX_POINTS` are kept. ``job_uid`` ties it to
    one Job: a re-created Job starts a new timeline. It is what the status record keeps (key
    ``pace``), so a restart or a reaped Job keeps it; ``seen_at`` (the newest look) is not kept.
    """

    job_uid: str = ""
    started_at: datetime | None = None  # the campaign's start (the Jobs' earliest startTime)
    points: tuple[Point, ...] = ()
    seen_at: datetime | None = None

    @property
    def finished(self) -> int:
        return self.points[-1].finished if self.points else 0

    def record(self) -> str:
        """The status record's ``pace``: compact JSON of the Job uid, the start and the kept points
        (seconds since the epoch); "" when nothing was seen. Read back by `domain.pace.timeline_from_record`."""
        if not self.points:
            return ""
        start = None if self.started_at is None else int(self.started_at.timestamp())
        points = [[int(p.at.timestamp()), p.finished] for p in self.points]
        return json.dumps({"v": 1, "uid": self.job_uid, "start": start, "points": points}, separators=(",", ":"))

    @property
    def moved_at(self) -> datetime | None:
        """When the finished count was last seen to move (or first seen); the start before anything finished."""
        if self.points and self.points[-1].finished > 0:
            return self.points[-1].at
        return self.started_at or (self.points[-1].at if self.points else None)


@dataclass(frozen=True)
class Pace:
    """Volumes finished per hour, over the last hour (or what was observed of it) and since start."""

    since_start: float | None = None  # volumes per hour from the start to now
    recent: float | None = None  # volumes per hour since the point an hour back, or the first one (`recent_seconds`)
    recent_seconds: float = 0.0  # how long the recent window is (3600 once an hour was observed)
    volume_seconds: float | None = None  # one volume's usual time: parallelism x time to the last finish / finished
    pages_per_hour: float | None = None  # where a progress read knows it (`with_pages`)

    def as_api(self) -> dict:
        return {
            "volumesPerHourSinceStart": _round(self.since_start),
            "volumesPerHourRecent": _round(self.recent),
            "recentSeconds": round(self.recent_seconds),
            "volumeSeconds": _round(self.volume_seconds),
            "pagesPerHour": _round(self.pages_per_hour),
        }


@dataclass(frozen=True)
class Forecast:
    """When the campaign may finish: a range, and what it rests on."""

    earliest: datetime
    latest: datetime
    basis: str  # LAST_HOUR, RECENT or SINCE_START: which pace the middle of the range follows
    per_hour: float  # that pace, volumes per hour
    remaining: int  # volumes not finished
    parallelism: int  # the parallelism it assumes stays as it is

    def as_api(self) -> dict:
        return {
            "earliest": _iso(self.earliest),
            "latest": _iso(self.latest),
            "basis": {
                "pace": self.basis,
                "volumesPerHour": _round(self.per_hour),
                "remainingVolumes": self.remaining,
                "assumes": ["current parallelism", "volumes the size of those finished so far"],
                "parallelism": self.parallelism,
            },
        }


@dataclass(frozen=True)
class TooEarly:
    """No forecast, and why (one of the reasons above), with the finished count it was made at."""

    reason: str
    finished: int = 0


@dataclass(frozen=True)
class CampaignPace:
    """What `Campaign.pace` holds for a campaign the board watched (None for those it never saw run).

    ``stalled_since`` is set when pods run but no volume finished for ``stall_after`` or longer: it is
    the moment since which nothing finished (the last change, or the start). The cluster alone decides
    it; a card adds the pages a person's progress read shows (`PageEvidence`).
    """

    timeline: Timeline = field(default_factory=Timeline)
    pace: Pace = field(default_factory=Pace)
    forecast: Forecast | None = None
    too_early: TooEarly | None = None
    running_pods: int = 0
    waiting_pods: int = 0  # of the running ones, those still waiting for the model cache (warmup-wait)
    stall_after_seconds: float | None = None  # the threshold used (setting, or from the pace)
    stalled_since: datetime | None = None

    @property
    def stalled(self) -> bool:
        return self.stalled_since is not None

    def series(self) -> list[Point]:
        """The observed points for a chart: the start at 0, then the kept points, then now's count."""
        points = list(self.timeline.points)
        start = self.timeline.started_at
        if start is not None and (not points or points[0].at > start):
            points.insert(0, Point(start, 0))
        seen = self.timeline.seen_at
        if seen is not None and points and seen > points[-1].at:
            points.append(Point(seen, points[-1].finished, points[-1].pages))
        return points


@dataclass(frozen=True)
class PageEvidence:
    """What a person's progress read shows of a campaign's running volumes (the card adds it)."""

    last_written_at: datetime | None = None  # newest progress.json update of a running volume
    last_volume: str = ""  # the volume that wrote it
    pages_per_hour: float | None = None  # running volumes' pages per second, added up, per hour


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
