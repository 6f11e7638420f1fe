"""Pace, forecast and stall of a campaign, from what the board observed of it over time. Pure.

`observe` adds one look at a campaign's finished count to its `Timeline` (a point only when the
count moved, compacted to at most `MAX_POINTS` covering the last hour and the anchor before it), so
what is kept per campaign does not grow with its volumes or with time. `campaign_pace` reads a
timeline at a moment: volumes per hour over the last hour and since start, a forecast as a range
(or why it is too early to say), and whether the campaign has stalled: pods running, no volume
finished for `stall_after` (the setting, or several usual volume times with a floor).

The forecast assumes the current parallelism and volumes the size of those finished so far; its
range narrows as more volumes finish (`UNCERTAINTY`), is never in the past, and takes both paces
into account when they disagree. Its ends are rounded here, once, to 5 minutes: every reader (the
card's sentence, the chart, the feed, the API) says the same times. Queued campaigns get no turn
estimate: Kueue's queue position does not say how long the campaigns ahead hold their quota, and
guessing would be false precision.

`timeline_record` / `timeline_from_record` are the few numbers the status record keeps (``pace``).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from campaigns.models.pace import (
    FEW_FINISHED,
    LAST_HOUR,
    NO_PACE,
    NOT_STARTED,
    NOTHING_LEFT,
    RECENT,
    SINCE_START,
    TOO_SOON,
    CampaignPace,
    Forecast,
    Pace,
    PageEvidence,
    Point,
    Timeline,
    TooEarly,
)

__all__ = [
    "CampaignPace",
    "Forecast",
    "Pace",
    "PageEvidence",
    "Point",
    "Timeline",
    "TooEarly",
    "campaign_pace",
    "forecast",
    "measure",
    "observe",
    "stall_after",
    "timeline_from_record",
    "timeline_record",
    "with_pages",
]

WINDOW = timedelta(hours=1)  # the "last hour" of the recent pace
MIN_RECENT = timedelta(minutes=10)  # a recent window shorter than this is no pace
MAX_POINTS = 14  # points a timeline keeps (the anchor, the last hour, and the newest)
MIN_FINISHED = 3  # volumes finished before a forecast is made
MIN_ELAPSED = timedelta(minutes=10)  # time since start before a forecast is made
UNCERTAINTY = (0.1, 0.6)  # the range's half-width, relative: at least, at most (1/sqrt(finished) between)
STALL_VOLUME_TIMES = 4  # a campaign stalls after this many usual volume times without a finish
STALL_FLOOR = timedelta(minutes=20)  # ... and never before this
STALL_NOTHING_YET = timedelta(minutes=60)  # ... before any volume finished (no usual time known)
RECORD_MOST = 2000  # characters of a stored timeline read at most


# --- the timeline ---------------------------------------------------------------------------------


def observe(
    timeline: Timeline | None, at: datetime, finished: int, job_uid: str = "", started_at: datetime | None = None
) -> Timeline:
    """The timeline after one more look at the campaign: `finished` volumes at `at`.

    A new Job uid, or a count that went down (a Job made anew), starts afresh from this look.
    Looks older than the newest point are ignored.
    """
    finished = max(0, int(finished))
    if timeline is None or (job_uid and timeline.job_uid and job_uid != timeline.job_uid):
        return Timeline(job_uid, started_at, (Point(at, finished),), at)
    start = started_at or timeline.started_at
    points = timeline.points
    if (points and at < points[-1].at) or (timeline.seen_at is not None and at < timeline.seen_at):
        return timeline
    if points and finished < points[-1].finished:
        return Timeline(job_uid or timeline.job_uid, start, (Point(at, finished),), at)
    if not points or finished != points[-1].finished:
        points = _compact((*points, Point(at, finished)), at)
    return Timeline(job_uid or timeline.job_uid, start, points, at)


def _compact(points: tuple[Point, ...], now: datetime) -> tuple[Point, ...]:
    """Drop points before the last hour's anchor, then the closest-spaced ones until `MAX_POINTS`."""
    cut = now - WINDOW
    older = [i for i, p in enumerate(points) if p.at <= cut]
    kept = list(points[older[-1] :] if older else points)
    while len(kept) > MAX_POINTS:
        gaps = [(kept[i].at - kept[i - 1].at, i) for i in range(2, len(kept) - 1)]
        del kept[min(gaps)[1]]
    return tuple(kept)


# --- pace, forecast, stall ------------------------------------------------------------------------


def measure(timeline: Timeline, now: datetime, parallelism: int) -> Pace:
    """Volumes per hour since start and over the last hour (or the part of it observed)."""
    finished = timeline.finished
    since_start = None
    if timeline.started_at is not None and now > timeline.started_at:
        hours = (now - timeline.started_at).total_seconds() / 3600
        since_start = finished / hours
    recent, seconds = _recent(timeline, now)
    usual = None
    moved = timeline.moved_at
    if finished > 0 and parallelism > 0 and timeline.started_at is not None and moved is not None:
        # Up to the last finish, not to now: a campaign that stopped moving keeps the volume time it had.
        usual = parallelism * max(0.0, (moved - timeline.started_at).total_seconds()) / finished or None
    return Pace(since_start=since_start, recent=recent, recent_seconds=seconds, volume_seconds=usual)


def _recent(timeline: Timeline, now: datetime) -> tuple[float | None, float]:
    """Volumes per hour from the newest point at or before an hour ago (else the first point) to now."""
    if not timeline.points:
        return None, 0.0
    window_start = now - WINDOW
    if timeline.started_at is not None and timeline.started_at >= window_start:
        return None, 0.0  # started within the hour: the since-start pace is the recent one
    before = [p for p in timeline.points if p.at <= window_start]
    then = before[-1] if before else timeline.points[0]
    seconds = (now - then.at).total_seconds()
    if seconds < MIN_RECENT.total_seconds():
        return None, 0.0
    return (timeline.finished - then.finished) * 3600 / seconds, seconds


def forecast(
    pace: Pace, finished: int, total: int, now: datetime, parallelism: int, started_at: datetime | None
) -> Forecast | TooEarly:
    """When the remaining volumes may be finished, as a range; or why it is too early to say."""
    remaining = max(0, total - finished)
    if started_at is None:
        return TooEarly(NOT_STARTED, finished)
    if remaining == 0:
        return TooEarly(NOTHING_LEFT, finished)
    if finished < MIN_FINISHED:
        return TooEarly(FEW_FINISHED, finished)
    if now - started_at < MIN_ELAPSED:
        return TooEarly(TOO_SOON, finished)
    rates = [r for r in (pace.recent, pace.since_start) if r and r > 0]
    if not rates:
        return TooEarly(NO_PACE, finished)
    if pace.recent and pace.recent > 0:
        basis = LAST_HOUR if pace.recent_seconds >= WINDOW.total_seconds() else RECENT
        per_hour = pace.recent
    else:
        basis, per_hour = SINCE_START, rates[0]
    spread = min(UNCERTAINTY[1], max(UNCERTAINTY[0], 1 / math.sqrt(finished)))
    hours = [remaining / r for r in rates]
    low = min(hours) * (1 - spread)
    high = max(hours) * (1 + spread)
    if pace.volume_seconds and remaining <= max(parallelism, 1):
        # The last volumes run side by side: they need about one volume's time, whatever the rate.
        high = max(high, pace.volume_seconds / 3600)
    return Forecast(
        earliest=_five_minutes_up(now + timedelta(hours=low)),
        latest=_five_minutes_up(now + timedelta(hours=high)),
        basis=basis,
        per_hour=per_hour,
        remaining=remaining,
        parallelism=parallelism,
    )


def _five_minutes_up(at: datetime) -> datetime:
    """The forecast's ends, rounded once, here, up to 5 minutes (never sooner than the pace says, never in the
    past): the card's headline and the chart read the very same times, so they cannot differ by minutes."""
    floor = at.replace(minute=at.minute - at.minute % 5, second=0, microsecond=0)
    return floor if floor == at else floor + timedelta(minutes=5)


def stall_after(pace: Pace, finished: int, setting_minutes: float | None) -> timedelta:
    """How long pods may run with no volume finished before the campaign counts as stalled."""
    if setting_minutes is not None and setting_minutes > 0:
        return timedelta(minutes=setting_minutes)
    if finished <= 0 or not pace.volume_seconds:
        return STALL_NOTHING_YET
    return max(STALL_FLOOR, timedelta(seconds=STALL_VOLUME_TIMES * pace.volume_seconds))


def campaign_pace(
    timeline: Timeline,
    now: datetime,
    *,
    total: int,
    running_pods: int,
    parallelism: int,
    running: bool,
    stall_minutes: float | None = None,
    waiting_pods: int = 0,
) -> CampaignPace:
    """Everything a campaign's card, chart, feed and API say about its pace, at `now`."""
    finished = timeline.finished
    pace = measure(timeline, now, parallelism or running_pods)
    answer = forecast(pace, finished, total, now, parallelism or running_pods, timeline.started_at)
    after = stall_after(pace, finished, stall_minutes)
    since = None
    moved = timeline.moved_at
    if running and running_pods > 0 and moved is not None and now - moved >= after:
        since = moved
    return CampaignPace(
        timeline=timeline,
        pace=pace,
        forecast=answer if isinstance(answer, Forecast) and running and since is None else None,
        too_early=answer if isinstance(answer, TooEarly) else None,
        running_pods=running_pods if running else 0,
        waiting_pods=min(waiting_pods, running_pods) if running else 0,
        stall_after_seconds=after.total_seconds(),
        stalled_since=since,
    )


def with_pages(view: CampaignPace, evidence: PageEvidence | None) -> CampaignPace:
    """The campaign's pace with the pages a person's progress read shows (a card's, not the board's)."""
    if evidence is None or evidence.pages_per_hour is None:
        return view
    return replace(view, pace=replace(view.pace, pages_per_hour=evidence.pages_per_hour))


# --- the status record's few numbers --------------------------------------------------------------


def timeline_record(timeline: Timeline | None) -> str:
    """The status record's ``pace`` (`Timeline.record`)."""
    return "" if timeline is None else timeline.record()


def timeline_from_record(text: object, job_uid: str = "") -> Timeline | None:
    """A timeline kept in a status record, or None when there is none, it is unreadable, or of another Job."""
    if not isinstance(text, str) or not text or len(text) > RECORD_MOST:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("v") != 1 or not isinstance(data.get("points"), list):
        return None
    uid = data.get("uid") if isinstance(data.get("uid"), str) else ""
    if job_uid and uid and uid != job_uid:
        return None
    points = []
    for item in data["points"][:MAX_POINTS]:
        if isinstance(item, list) and len(item) == 2 and all(_whole(x) for x in item):
            at = _time(item[0])
            if at is not None and (not points or at >= points[-1].at) and item[1] >= 0:
                points.append(Point(at, item[1]))
    if not points:
        return None
    start = _time(data.get("start")) if _whole(data.get("start")) else None
    return Timeline(uid or job_uid, start, tuple(points), points[-1].at)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**11


def _time(value: object) -> datetime | None:
    if not _whole(value):
        return None
    return datetime.fromtimestamp(value, UTC)
