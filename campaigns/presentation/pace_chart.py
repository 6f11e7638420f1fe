"""The pace chart: a campaign's finished volumes over time, with the forecast as a band. Pure, no I/O.

`draw` takes plain inputs (points of a cumulative count over time, the total, an optional forecast
range, now) and gives a `PaceChart`: server-rendered SVG markup and the same in words (a sentence,
and on the campaign page a small table), so nothing of it needs JavaScript. The words themselves are
`campaigns.wording.pace`'s; this module picks what they are said of (the points, the band as drawn,
where it is cut). `layout` is the geometry alone, in the SVG's own units, so tests can check where
things are drawn. `chart_for` is the adapter from a campaign's `pace` (models/pace.py) to those inputs.

Two sizes: a sparkline for a card (no text inside it; its sentence sits under it) and a larger chart
for the campaign page, with the times on its edges and a dot where volumes were seen to finish. Times are said
by core.times, in the reader's zone; the table's machine-readable times stay UTC (the template's ``utc_iso``).
Both keep their proportions (one viewBox, scaled to the width), so they fit a 390 px screen.

How it reads without colour: the finished line is solid, the forecast band is hatched and edged with
dashes, and the words say which is which. The SVG is `role="img"`, named by its own title and
described by the sentence beside it; every shape inside it is decoration for that description.

Markup is built only here, from numbers this module formats and text it escapes (`_esc`, the wording's
included): no string from the cluster reaches the markup unescaped, and ids are reduced to safe characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from campaigns.models import RUNNING, Campaign
from campaigns.wording.pace import (
    CHART_EARLIEST,
    CHART_LATEST,
    CHART_NOW,
    chart_edges,
    chart_point,
    chart_sentence,
    chart_title,
)
from campaigns.wording.words import number
from core.times import moment

HORIZON = 3  # the chart shows at most this many times the observed span after now (the band goes on)
LABEL_CHAR = 8.8  # about how wide one character of a label is at most (16 units, narrow screens)


@dataclass(frozen=True)
class Frame:
    """A chart's size: its viewBox and the plot box inside it, in SVG units (y grows downwards)."""

    width: float
    height: float
    left: float
    right: float
    top: float
    bottom: float


SMALL = Frame(width=300, height=56, left=3, right=297, top=4, bottom=52)
LARGE = Frame(width=420, height=200, left=8, right=412, top=26, bottom=168)


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str  # start | middle | end


@dataclass(frozen=True)
class Layout:
    """Where everything is drawn, in the frame's units; times and counts as drawn."""

    frame: Frame
    line: tuple[tuple[float, float], ...]  # the finished count over time, oldest first
    band: tuple[tuple[float, float], ...]  # the forecast's polygon (empty without a forecast)
    band_cut: bool  # the band goes on past the right edge
    now_x: float
    total_y: float  # the line of the total (the top of the plot)
    marks: tuple[tuple[float, float], ...]  # where volumes were seen to finish
    start: datetime
    end: datetime  # the time at the right edge


@dataclass(frozen=True)
class Row:
    """One line of the chart's table: a moment, the count then, and what it is."""

    at: datetime
    time: str
    count: str
    what: str


@dataclass(frozen=True)
class PaceChart:
    chart_id: str
    large: bool
    svg: SafeString  # "" when there is nothing to draw
    sentence: str
    rows: tuple[Row, ...] = ()
    unit: str = "volumes"
    has_band: bool = False
    marks: int = 0  # dots where volumes were seen to finish

    @property
    def words_id(self) -> str:
        return f"{self.chart_id}-words"


# --- geometry -------------------------------------------------------------------------------------


def _clean(series: Sequence[tuple[datetime, int]]) -> list[tuple[datetime, int]]:
    """Oldest first, counts never below 0; several points at one moment keep the last."""
    points: dict[datetime, int] = {}
    for at, count in sorted(series, key=lambda p: p[0]):
        points[at] = max(0, int(count))
    return sorted(points.items())


def ahead(band: tuple[datetime, datetime] | None, now: datetime) -> tuple[datetime, datetime] | None:
    """The part of a forecast range from now on; None when it is all past (never drawn as forecast)."""
    if band is None or band[1] <= now:
        return None
    return max(band[0], now), band[1]


def _span(points: list[tuple[datetime, int]], now: datetime, band: tuple[datetime, datetime] | None):
    """The times at the left and right edges, and the band as drawn (never before now), or None."""
    start = points[0][0]
    last = max(now, points[-1][0])
    band = ahead(band, last)
    end = last
    if band is not None:
        end = band[1]
        observed = last - start
        if observed > timedelta(0):
            end = min(end, last + HORIZON * observed)
        if end <= last:
            end = last + timedelta(minutes=1)
    if end <= start:
        start = end - timedelta(minutes=1)
    return start, end, band


def layout(
    series: Sequence[tuple[datetime, int]],
    total: int,
    now: datetime,
    band: tuple[datetime, datetime] | None = None,
    marks: Sequence[datetime] = (),
    frame: Frame = SMALL,
) -> Layout | None:
    """The chart's geometry; None for an empty series. The band starts at now (or the newest point)."""
    points = _clean(series)
    if not points:
        return None
    start, end, band = _span(points, now, band)
    top = max(total, points[-1][1], max(c for _, c in points), 1)
    seconds = (end - start).total_seconds()

    def x(at: datetime) -> float:
        share = (at - start).total_seconds() / seconds
        return frame.left + min(1.0, max(0.0, share)) * (frame.right - frame.left)

    def y(count: int) -> float:
        return frame.bottom - min(1.0, count / top) * (frame.bottom - frame.top)

    last_at = max(now, points[-1][0])
    line = [(x(at), y(count)) for at, count in points]
    if last_at > points[-1][0]:
        line.append((x(last_at), y(points[-1][1])))  # nothing finished since the newest point
    polygon: tuple[tuple[float, float], ...] = ()
    cut = False
    finished = points[-1][1]
    if band is not None and finished < top:
        polygon, cut = _band(band, last_at, finished, top, start, seconds, frame)
    seen = [(x(at), y(_count_at(points, at))) for at in marks if start <= at <= last_at]
    return Layout(frame, tuple(line), polygon, cut, x(last_at), frame.top, tuple(seen), start, end)


def _band(band, now_at, finished, top, start, seconds, frame: Frame):
    """The forecast's triangle: from the newest count now, up to the total at the earliest and the
    latest finish; cut at the right edge when it reaches past it."""

    def raw_x(at: datetime) -> float:
        return frame.left + (at - start).total_seconds() / seconds * (frame.right - frame.left)

    height = frame.bottom - frame.top
    corners = [
        (raw_x(now_at), frame.bottom - finished / top * height),
        (raw_x(band[0]), frame.top),
        (raw_x(band[1]), frame.top),
    ]
    clipped = _clip_right(corners, frame.right)
    cut = any(px > frame.right + 1e-9 for px, _ in corners)
    return tuple((min(px, frame.right), py) for px, py in clipped), cut


def _clip_right(polygon: list[tuple[float, float]], edge: float) -> list[tuple[float, float]]:
    """The part of a polygon at or left of x = edge (one step of Sutherland-Hodgman)."""
    kept = []
    for i, (px, py) in enumerate(polygon):
        qx, qy = polygon[i - 1]
        inside, was_inside = px <= edge, qx <= edge
        if inside != was_inside:
            share = (edge - qx) / (px - qx)
            kept.append((edge, qy + share * (py - qy)))
        if inside:
            kept.append((px, py))
    return kept


def _count_at(points: list[tuple[datetime, int]], at: datetime) -> int:
    before = [count for when, count in points if when <= at]
    return before[-1] if before else points[0][1]


# --- words (said by campaigns.wording.pace; here only what they are said of) -----------------------


def sentence(
    series: Sequence[tuple[datetime, int]],
    total: int,
    now: datetime,
    band: tuple[datetime, datetime] | None,
    unit: str = "volumes",
    stalled_since: datetime | None = None,
    cut_at: datetime | None = None,
) -> str:
    """What the picture shows, in words."""
    points = _clean(series)
    if not points:
        return str(chart_sentence(unit, total, None, None, now))
    drawn = ahead(band, max(points[-1][0], now))
    return str(chart_sentence(
        unit, total, points[0], points[-1], now, band=drawn, stalled_since=stalled_since, cut_at=cut_at
    ))


def rows(
    series: Sequence[tuple[datetime, int]],
    now: datetime,
    band: tuple[datetime, datetime] | None,
    total: int,
    marks: Sequence[datetime] = (),
) -> tuple[Row, ...]:
    """The chart as a table: each point, now, and the forecast's two ends."""
    points = _clean(series)
    if not points:
        return ()
    marked = set(marks)
    found = []
    previous = None
    for at, count in points:
        found.append(Row(at, moment(at, now), number(count), str(chart_point(count, previous, at in marked))))
        previous = count
    last_at, last = points[-1]
    if now > last_at:
        found.append(Row(now, moment(now, now), number(last), str(CHART_NOW)))
    band = ahead(band, max(last_at, now))
    if band is not None and last < total:
        found.append(Row(band[0], moment(band[0], now), number(total), str(CHART_EARLIEST)))
        found.append(Row(band[1], moment(band[1], now), number(total), str(CHART_LATEST)))
    return tuple(found)


# --- markup ---------------------------------------------------------------------------------------


def _esc(value: object) -> str:
    return str(escape(str(value)))


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _points(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{_num(px)},{_num(py)}" for px, py in points)


def safe_id(text: str) -> str:
    """An id made of letters, digits, '-' and '_' only (anything else becomes '-')."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", text) or "chart"


def svg(shape: Layout, chart_id: str, title: str, words_id: str, labels: Sequence[Label] = ()) -> SafeString:
    """The SVG markup of a layout: named by its title, described by the words beside it."""
    f = shape.frame
    hatch = f"{chart_id}-hatch"
    baseline = (shape.line[-1][0], f.bottom), (shape.line[0][0], f.bottom)
    parts = [
        f'<svg class="pace-chart-svg" viewBox="0 0 {_num(f.width)} {_num(f.height)}" role="img"'
        f' aria-labelledby="{_esc(chart_id)}-title" aria-describedby="{_esc(words_id)}" focusable="false">',
        f'<title id="{_esc(chart_id)}-title">{_esc(title)}</title>',
        f'<defs><pattern id="{_esc(hatch)}" width="6" height="6" patternUnits="userSpaceOnUse"'
        ' patternTransform="rotate(45)"><rect class="pace-hatch-line" width="2" height="6"/></pattern></defs>',
        '<g aria-hidden="true">',
        f'<line class="pace-total" x1="{_num(f.left)}" y1="{_num(shape.total_y)}"'
        f' x2="{_num(f.right)}" y2="{_num(shape.total_y)}"/>',
        f'<line class="pace-axis" x1="{_num(f.left)}" y1="{_num(f.bottom)}"'
        f' x2="{_num(f.right)}" y2="{_num(f.bottom)}"/>',
        f'<polygon class="pace-area" points="{_points((*shape.line, *baseline))}"/>',
    ]
    if shape.band:
        parts.append(f'<polygon class="pace-band" fill="url(#{_esc(hatch)})" points="{_points(shape.band)}"/>')
        parts.append(
            f'<line class="pace-now" x1="{_num(shape.now_x)}" y1="{_num(f.top)}"'
            f' x2="{_num(shape.now_x)}" y2="{_num(f.bottom)}"/>'
        )
    if len(shape.line) == 1:
        px, py = shape.line[0]
        parts.append(f'<circle class="pace-dot" cx="{_num(px)}" cy="{_num(py)}" r="3"/>')
    else:
        parts.append(f'<polyline class="pace-line" points="{_points(shape.line)}"/>')
    parts.extend(f'<circle class="pace-mark" cx="{_num(px)}" cy="{_num(py)}" r="3"/>' for px, py in shape.marks)
    parts.extend(
        f'<text class="pace-label" x="{_num(label.x)}" y="{_num(label.y)}"'
        f' text-anchor="{_esc(label.anchor)}">{_esc(label.text)}</text>'
        for label in labels
    )
    parts.append("</g></svg>")
    return mark_safe("".join(parts))  # noqa: S308 - numbers formatted here and text escaped by _esc


def edge_labels(shape: Layout, total: int, unit: str, now: datetime) -> list[Label]:
    """The large chart's words on its edges: the total at the top, times below; a label that would
    run into one placed before it is left out (the words beside the chart say it all)."""
    f = shape.frame
    below = f.bottom + 18
    edges = chart_edges(total, unit, shape.start, shape.end, now, shape.band_cut)
    words = {key: str(said) for key, said in edges.items()}
    labels = [Label(f.left, f.top - 8, words["total"], "start")]
    wanted = [Label(shape.now_x, below, words["now"], "middle")]
    wanted.append(Label(f.left, below, words["start"], "start"))
    if shape.band:
        wanted.append(Label(f.right, below, words["end"], "end"))
    placed: list[tuple[float, float]] = []
    for label in wanted:
        span = _extent(label, f)
        if all(span[1] + 6 < low or span[0] > high + 6 for low, high in placed):
            placed.append(span)
            labels.append(_kept_inside(label, f))
    return labels


def _extent(label: Label, frame: Frame) -> tuple[float, float]:
    """Where a label's text would run at the most (the larger font of narrow screens), kept inside the plot's width."""
    width = len(label.text) * LABEL_CHAR
    left = {"start": label.x, "middle": label.x - width / 2, "end": label.x - width}[label.anchor]
    left = min(max(left, frame.left), frame.right - width)
    return left, left + width


def _kept_inside(label: Label, frame: Frame) -> Label:
    """A middle label that would run past an edge is anchored to that edge instead."""
    half = len(label.text) * LABEL_CHAR / 2
    if label.anchor == "middle" and label.x - half < frame.left:
        return Label(frame.left, label.y, label.text, "start")
    if label.anchor == "middle" and label.x + half > frame.right:
        return Label(frame.right, label.y, label.text, "end")
    return label


# --- the chart ------------------------------------------------------------------------------------


def draw(
    series: Sequence[tuple[datetime, int]],
    total: int,
    now: datetime,
    *,
    chart_id: str,
    band: tuple[datetime, datetime] | None = None,
    marks: Sequence[datetime] = (),
    large: bool = False,
    name: str = "",
    unit: str = "volumes",
    stalled_since: datetime | None = None,
) -> PaceChart:
    """The chart and its words, from plain inputs (``marks``: when volumes were seen to finish)."""
    chart_id = safe_id(chart_id)
    total = max(0, int(total))
    shape = layout(series, total, now, band, marks if large else (), LARGE if large else SMALL)
    cut_at = shape.end if shape is not None and shape.band_cut else None
    words = sentence(series, total, now, band if shape and shape.band else None, unit, stalled_since, cut_at)
    if shape is None:
        return PaceChart(chart_id, large, mark_safe(""), words, unit=unit)
    title = str(chart_title(unit, name))
    labels = edge_labels(shape, total, unit, now) if large else ()
    chart = svg(shape, chart_id, title, f"{chart_id}-words", labels)
    table = rows(series, now, band if shape.band else None, total, marks) if large else ()
    return PaceChart(chart_id, large, chart, words, table, unit, bool(shape.band), len(shape.marks))


def chart_for(campaign: Campaign, now: datetime, chart_id: str, large: bool = False) -> PaceChart | None:
    """A running campaign's chart from its `pace`; None for any other campaign.

    Times are taken to the minute (the forecast's range outwards), so a card's markup changes when
    the picture does, not at every poll.
    """
    view = campaign.pace
    if view is None or campaign.phase != RUNNING or campaign.suspended:
        return None
    points = view.series()
    seen = view.timeline.seen_at or now
    if len(points) > 1 and points[-1].at == seen and points[-1].finished == points[-2].finished:
        points = points[:-1]  # the newest look repeats the count: the line runs on to now by itself
    moment = _minute(min(now, seen) if seen else now)
    band = None
    if view.forecast is not None:
        band = (_minute(view.forecast.earliest), _minute(view.forecast.latest, up=True))
    kept = view.timeline.points
    marks = [p.at for before, p in zip(kept, kept[1:], strict=False) if p.finished > before.finished]
    return draw(
        [(p.at, p.finished) for p in points],
        campaign.counts.total,
        moment,
        chart_id=chart_id,
        band=band,
        marks=marks,
        large=large,
        name=campaign.name,
        stalled_since=view.stalled_since,
    )


def _minute(at: datetime, up: bool = False) -> datetime:
    floor = at.replace(second=0, microsecond=0)
    return floor + timedelta(minutes=1) if up and floor != at else floor
