"""What a running campaign's card says of its pace: when it may finish, or that it has stalled; and its chart.

Pure words over `models.pace` values. Times are said in UTC, as everywhere on the site; durations
and clock times are rounded (to 5 or 10 minutes) so a card does not change with every poll, and a
range is said as a range. The stall sentence names what still moves and what does not, from the
cluster (pods running, volumes finished) and, where the person's own progress read saw them, the
pages (`PageEvidence`: written within the last 10 minutes, as a running volume's row counts it, means
they still move); without them it says what the cluster alone shows. Then the next thing to
check: the warm-up when pods wait for the model cache, else a running volume's run log, then the store.

The pace chart's words are here too (`presentation.pace_chart` draws, and calls these with plain values):
its title, the sentence that describes it, its table's labels and the words on its edges. Its times are
said to the minute as seen (`moment`), not rounded: they name the points drawn.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from campaigns.models import Sentence
from campaigns.models.pace import (
    FEW_FINISHED,
    LAST_HOUR,
    NO_PACE,
    NOT_STARTED,
    NOTHING_LEFT,
    RECENT,
    TOO_SOON,
    CampaignPace,
    Forecast,
    PageEvidence,
    TooEarly,
)
from campaigns.wording.progress import STALE_PROGRESS_SECONDS
from campaigns.wording.words import number, plural

TOO_EARLY = "Too early to say when it will finish"


def duration(seconds: float, up: bool = True) -> str:
    """``3 h 40 min``, ``25 min``, ``2 d 4 h``; rounded to 5 min below 2 h, to 10 min below a day: up for
    what is still to come (a forecast never promises too soon), down (``up=False``) for time already gone
    (a stall never sounds longer than it has lasted)."""
    whole = -(-max(0.0, seconds) // 60) if up else max(0.0, seconds) // 60
    minutes = max(1, int(whole))
    if minutes < 10:
        return f"{minutes} min"
    step = 5 if minutes < 120 else 10 if minutes < 24 * 60 else 60
    minutes = -(-minutes // step) * step if up else minutes // step * step
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{days} d"] if days else []
    if hours:
        parts.append(f"{hours} h")
    if mins and not days:
        parts.append(f"{mins} min")
    return " ".join(parts) or "0 min"


def clock(at: datetime, now: datetime) -> str:
    """``16:45 UTC today``, ``09:10 UTC tomorrow``, ``Mon 4 May 09:10 UTC``, rounded up to 5 minutes (a forecast's
    ends come so rounded from `domain.pace`, which the chart draws too)."""
    rounded = at + timedelta(minutes=(5 - at.minute % 5) % 5, seconds=-at.second, microseconds=-at.microsecond)
    text = rounded.strftime("%H:%M") + " UTC"
    days = (rounded.date() - now.date()).days
    if days == 0:
        return text + " today"
    if days == 1:
        return text + " tomorrow"
    return rounded.strftime("%a %-d %b ") + text


def basis_words(forecast: Forecast) -> str:
    if forecast.basis == LAST_HOUR:
        return "at the pace of the last hour"
    if forecast.basis == RECENT:
        return "at the pace seen since the site began watching it"
    return "at its pace since it started"


def forecast_sentence(view: CampaignPace | None, now: datetime) -> Sentence | None:
    """``About 3 h 40 min left at the pace of the last hour (finishes between 16:15 and 17:25 UTC today).``"""
    if view is None or view.stalled:
        return None
    if view.forecast is not None:
        return _forecast(view, view.forecast, now)
    if view.too_early is not None and view.running_pods:
        return Sentence(too_early_text(view.too_early, view.timeline.started_at, now), tone="idle")
    return None


def _forecast(view: CampaignPace, forecast: Forecast, now: datetime) -> Sentence:
    middle = (forecast.earliest - now) / 2 + (forecast.latest - now) / 2
    first, last = clock(forecast.earliest, now), clock(forecast.latest, now)
    when = f"finishes around {first}" if first == last else f"finishes between {_range(first, last)}"
    text = f"About {duration(middle.total_seconds())} left {basis_words(forecast)} ({when})."
    pace = view.pace
    rates = []
    if pace.recent is not None:
        rates.append(f"{pace.recent:.1f} volumes an hour lately")
    if pace.since_start is not None:
        rates.append(f"{pace.since_start:.1f} since it started")
    if pace.pages_per_hour:
        rates.append(f"about {pace.pages_per_hour:,.0f} pages an hour in the running volumes now")
    detail = (
        f"Assumes the parallelism stays at {forecast.parallelism} and the remaining "
        f"{plural(forecast.remaining, 'volume')} are the size of those finished so far; {', '.join(rates)}."
    )
    return Sentence(text, detail=detail, tone="info")


def _range(first: str, last: str) -> str:
    """``16:15 and 17:25 UTC today`` when both share their day, else both in full."""
    first_time, _, first_day = first.partition(" UTC")
    last_time, _, last_day = last.partition(" UTC")
    if first_day == last_day and first_time[:1].isdigit() and last_time[:1].isdigit():
        return f"{first_time} and {last}"
    return f"{first} and {last}"


def too_early_text(too_early: TooEarly, started_at: datetime | None, now: datetime) -> str:
    """``Too early to say when it will finish: 2 volumes finished so far.``"""
    if too_early.reason == NOTHING_LEFT:
        return "Every volume has finished; the campaign is closing."
    if too_early.reason == NOT_STARTED:
        return f"{TOO_EARLY}: it has not started yet."
    if too_early.reason == TOO_SOON and started_at is not None:
        return f"{TOO_EARLY}: it started {duration((now - started_at).total_seconds(), up=False)} ago."
    if too_early.reason in (FEW_FINISHED, NO_PACE, TOO_SOON):
        finished = too_early.finished
        return f"{TOO_EARLY}: {'no volume' if not finished else plural(finished, 'volume')} finished so far."
    return f"{TOO_EARLY}."


def stall_short(view: CampaignPace) -> str:
    """The list's words for a stalled campaign, the same at every poll: ``no volume finished since 13:15 UTC
    while 12 pods run`` (pods still waiting for the model cache said as waiting, not running)."""
    since = view.stalled_since
    if not since:
        return ""
    waiting = min(view.waiting_pods, view.running_pods)
    working = view.running_pods - waiting
    doing = []
    if working or not waiting:
        doing.append(f"{plural(working, 'pod')} {'runs' if working == 1 else 'run'}")
    if waiting:
        waits = "waits" if waiting == 1 else "wait"
        doing.append(f"{waiting if working else plural(waiting, 'pod')} {waits} for the model cache")
    return f"no volume finished since {since:%H:%M} UTC while {' and '.join(doing)}"


def stall_line(view: CampaignPace | None) -> str:
    """A stalled campaign's line in the list: ``Stalled: no volume finished since 13:15 UTC while 12 pods run.``"""
    short = stall_short(view) if view is not None else ""
    return f"Stalled: {short}." if short else ""


def stall_sentence(
    view: CampaignPace, now: datetime, evidence: PageEvidence | None = None, waiting_for_cache: int = 0
) -> Sentence | None:
    """What holds a stalled campaign, looked for in order: pods still waiting for the model cache (the warm-up);
    else a running volume's pages still being written (a slow volume, with its last page's time); else pages
    silent (that volume); else only what the cluster shows. One cause named, not a list of candidates."""
    since = view.stalled_since
    if since is None:
        return None
    quiet = duration((now - since).total_seconds(), up=False)
    waiting = min(max(0, waiting_for_cache), view.running_pods)
    working = view.running_pods - waiting
    last = evidence.last_written_at if evidence is not None else None
    volume = evidence.last_volume if evidence is not None else ""
    after = view.stall_after_seconds or 0
    if waiting:
        text, tone = _held_by_warmup(waiting, working, quiet), "bad"
    elif last is not None and (now - last).total_seconds() < min(after, STALE_PROGRESS_SECONDS):
        text = (
            f"No volume finished for {quiet}, but pages are still being written: {volume} finished a page at "
            f"{last:%H:%M} UTC. It is most likely a large volume still working; its row shows how far it has got."
        )
        tone = "warn"
    elif last is not None:
        page_quiet = duration((now - max(last, since)).total_seconds(), up=False)
        text = (
            f"{_running(working)}, no volume finished for {quiet} and no page for {page_quiet}: the last page "
            f"was finished at {last:%H:%M} UTC by {volume}, which has written none since. Its run log says why."
        )
        tone = "bad"
    else:
        text = (
            f"{_running(working)}, no volume finished for {quiet} (since {since:%H:%M} UTC). Whether pages are "
            "still being written is not known here: a running volume's row shows its pages once they are read."
        )
        tone = "bad"
    detail = (
        f"A running campaign counts as stalled when no volume finishes for {duration(after)} "
        "(HTRFLOW_STALL_MINUTES, or four usual volume times with a floor of 20 min)."
    )
    return Sentence(text, detail=detail, tone=tone)


def _running(pods: int) -> str:
    return f"{plural(pods, 'pod')} running"


def _held_by_warmup(waiting: int, working: int, quiet: str) -> str:
    wait = "waits" if waiting == 1 else "wait"
    pods = plural(waiting, "pod")
    also = f" ({number(working)} other{'s' if working != 1 else ''} running)" if working else ""
    return (
        f"No volume finished for {quiet}: {pods} still {wait} for the model cache{also}, so the warm-up is "
        "what holds it back, not a volume."
    )


def pace_fact(view: CampaignPace | None) -> str:
    """The operator's figure: ``9.0 volumes/h over the last hour, 9.7 since start; one volume ~26 min``
    (two significant figures: a tenth more or less is no news, and would change the card at every reading)."""
    if view is None:
        return ""
    pace = view.pace
    parts = []
    if pace.recent is not None:
        recent = duration(pace.recent_seconds, up=False)
        window = "the last hour" if pace.recent_seconds >= 3600 else f"the last {recent}"
        parts.append(f"{_rate(pace.recent)} volumes/h over {window}")
    if pace.since_start is not None:
        parts.append(f"{_rate(pace.since_start)} volumes/h since start")
    if pace.volume_seconds:
        parts.append(f"one volume about {duration(pace.volume_seconds)}")
    if view.stall_after_seconds and view.running_pods:
        parts.append(f"stalled after {duration(view.stall_after_seconds)} without a finished volume")
    return "; ".join(parts)


def _rate(per_hour: float) -> str:
    """``9.7``, ``68``, ``1200``: two significant figures, at least one decimal below 10."""
    return f"{per_hour:.1f}" if per_hour < 10 else f"{float(f'{per_hour:.2g}'):.0f}"


# --- the pace chart's words (campaigns.presentation.pace_chart draws; these say what it draws) ------------


def moment(at: datetime, now: datetime) -> str:
    """A moment to the minute, unrounded: ``14:02 UTC``, with the day when it is not today's (``3 May 14:02
    UTC``). The chart's points are times seen, so they are said as seen, unlike `clock`'s forecast."""
    at, today = at.astimezone(UTC), now.astimezone(UTC)
    if at.date() == today.date():
        return f"{at:%H:%M} UTC"
    return f"{at.day} {at:%b %H:%M} UTC"


def chart_title(unit: str, name: str = "") -> str:
    """The SVG's own name: ``Chart: volumes of parish finished over time (in words beside it)``."""
    of = f" of {name}" if name else ""
    return f"Chart: {unit}{of} finished over time (in words beside it)"


def chart_sentence(
    unit: str,
    total: int,
    first: tuple[datetime, int] | None,
    last: tuple[datetime, int] | None,
    now: datetime,
    *,
    band: tuple[datetime, datetime] | None = None,
    stalled_since: datetime | None = None,
    cut_at: datetime | None = None,
) -> str:
    """What the chart shows: its first and newest counts (None when there are none), the line's stall, and
    the forecast ``band`` as drawn (from now on; None when none is drawn), cut at ``cut_at`` when it is."""
    if first is None or last is None:
        return f"Nothing to draw yet: no {unit} have been seen to finish."
    (first_at, first_count), (last_at, finished) = first, last
    told = (
        f"The chart shows {unit} finished (done or failed) over time: {number(first_count)} at "
        f"{moment(first_at, now)}, {number(finished)} of {number(total)} now ({moment(max(now, last_at), now)})."
    )
    if stalled_since is not None:
        told += f" The line is flat: nothing has finished since {moment(stalled_since, now)}."
    if band is not None and finished < total:
        told += (
            f" The hatched band is the forecast: all {number(total)} finished between "
            f"{moment(band[0], now)} and {moment(band[1], now)}"
        )
        told += f" (the chart stops at {moment(cut_at, now)}; the band goes on)." if cut_at else "."
    elif finished < total and stalled_since is None:
        told += " No forecast is drawn yet."
    return told


CHART_NOW = "now"
CHART_EARLIEST = "forecast: done at the earliest"
CHART_LATEST = "forecast: done at the latest"


def chart_point(count: int, previous: int | None, seen_finishing: bool) -> str:
    """What a point of the chart's table is: the start, a count seen by then, or how many more were seen
    finishing there (``seen_finishing``: a dot is drawn at it)."""
    if previous is not None and count > previous and seen_finishing:
        return f"{number(count - previous)} more seen finished"
    return "the start" if previous is None and count == 0 else "seen finished by then"


def chart_edges(total: int, unit: str, start: datetime, end: datetime, now: datetime, cut: bool) -> dict[str, str]:
    """The large chart's words on its edges: the total at the top; the left and right times and now below
    (``→`` when the forecast goes on past the right edge)."""

    def short(at: datetime) -> str:
        return moment(at, now).removesuffix(" UTC")

    return {
        "total": f"{number(total)} {unit}",
        "now": f"now {short(now)}",
        "start": short(start),
        "end": short(end) + (" →" if cut else ""),
    }
