"""What a running campaign's card says of its pace: when it may finish, or that it has stalled; and its chart.

Pure words over `models.pace` values, said in the reader's language. Times are said by `core.times`, in the
reader's zone (daylight saving, "today" and "tomorrow" are that zone's); durations and forecast times are
rounded (to 5 or 10 minutes) so a card does not change with every poll, and a range is said as a range. The
stall sentence names what still moves and what does not, from the cluster (pods running, volumes finished)
and, where the person's own progress read saw them, the pages (`PageEvidence`: written within the last 10
minutes, as a running volume's row counts it, means they still move); without them it says what the cluster
alone shows. Then the next thing to check: the warm-up when pods wait for the model cache, else a running
volume's run log, then the store.

The pace chart's words are here too (`presentation.pace_chart` draws, and calls these with plain values):
its title, the sentence that describes it, its table's labels and the words on its edges. Its times are
said to the minute as seen (`core.times.moment`), not rounded: they name the points drawn.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy

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
from campaigns.wording.words import number
from core import times
from core.times import moment  # also campaigns.wording.evidence's, which imports it from here

PAGES = "pages"  # the chart's unit when it counts pages; anything else counts volumes


def duration(seconds: float, up: bool = True) -> str:
    """``3 h 40 min``, ``25 min``, ``2 d 4 h``; rounded to 5 min below 2 h, to 10 min below a day: up for
    what is still to come (a forecast never promises too soon), down (``up=False``) for time already gone
    (a stall never sounds longer than it has lasted)."""
    whole = -(-max(0.0, seconds) // 60) if up else max(0.0, seconds) // 60
    minutes = max(1, int(whole))
    if minutes >= 10:
        step = 5 if minutes < 120 else 10 if minutes < 24 * 60 else 60
        minutes = -(-minutes // step) * step if up else minutes // step * step
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days and hours:
        # Translators: a duration, abbreviated as on a dashboard: d days, h hours (2 d 4 h).
        return pgettext("a duration", "{days} d {hours} h").format(days=days, hours=hours)
    if days:
        # Translators: a duration in days, abbreviated (2 d).
        return pgettext("a duration", "{days} d").format(days=days)
    if hours and mins:
        # Translators: a duration, abbreviated: h hours, min minutes (3 h 40 min).
        return pgettext("a duration", "{hours} h {minutes} min").format(hours=hours, minutes=mins)
    if hours:
        # Translators: a duration in hours, abbreviated (3 h).
        return pgettext("a duration", "{hours} h").format(hours=hours)
    # Translators: a duration in minutes, abbreviated (25 min).
    return pgettext("a duration", "{minutes} min").format(minutes=mins)


def clock(at: datetime, now: datetime) -> str:
    """``16:45 CET today``, ``09:10 CET tomorrow``, ``Mon 4 May 09:10 CEST`` (`core.times.clock`, in the reader's
    zone), rounded up to 5 minutes (a forecast's ends come so rounded from `domain.pace`, which the chart draws
    too)."""
    return times.clock(_rounded(at), now)


def _rounded(at: datetime) -> datetime:
    """Up to the next 5 minutes (every zone's offset is a whole number of 15 minutes, so this is the reader's
    5 minutes too)."""
    return at + timedelta(minutes=(5 - at.minute % 5) % 5, seconds=-at.second, microseconds=-at.microsecond)


def basis_words(forecast: Forecast) -> str:
    if forecast.basis == LAST_HOUR:
        return pgettext("what a forecast follows", "at the pace of the last hour")
    if forecast.basis == RECENT:
        return pgettext("what a forecast follows", "at the pace seen since the site began watching it")
    return pgettext("what a forecast follows", "at its pace since it started")


def forecast_sentence(view: CampaignPace | None, now: datetime) -> Sentence | None:
    """``About 3 h 40 min left at the pace of the last hour (finishes between 16:15 and 17:25 CET today).``"""
    if view is None or view.stalled:
        return None
    if view.forecast is not None:
        return _forecast(view, view.forecast, now)
    if view.too_early is not None and view.running_pods:
        return Sentence(too_early_text(view.too_early, view.timeline.started_at, now), tone="idle")
    return None


def _forecast(view: CampaignPace, forecast: Forecast, now: datetime) -> Sentence:
    middle = (forecast.earliest - now) / 2 + (forecast.latest - now) / 2
    # Translators: a card's forecast. {left} is a duration (3 h 40 min); {basis} says which pace it follows
    # ("at the pace of the last hour"); {when} says when it finishes ("finishes between 16:15 and 17:25 CET today").
    text = _("About {left} left {basis} ({when}).").format(
        left=duration(middle.total_seconds()), basis=basis_words(forecast), when=_finishes(forecast, now)
    )
    pace = view.pace
    rates = []
    if pace.recent is not None:
        rates.append(_("{rate} volumes an hour lately").format(rate=_decimal(pace.recent)))
    if pace.since_start is not None:
        # Translators: follows "9.0 volumes an hour lately, ": {rate} is volumes an hour since the campaign started.
        rates.append(_("{rate} since it started").format(rate=_decimal(pace.since_start)))
    if pace.pages_per_hour:
        rates.append(
            _("about {pages} pages an hour in the running volumes now").format(pages=number(round(pace.pages_per_hour)))
        )
    detail = ngettext(
        # Translators: {parallelism} is how many volumes run at once; {rates} lists the paces seen, separated by commas.
        "Assumes the parallelism stays at {parallelism} and the remaining {count} volume is the size of those "
        "finished so far; {rates}.",
        "Assumes the parallelism stays at {parallelism} and the remaining {count} volumes are the size of those "
        "finished so far; {rates}.",
        forecast.remaining,
    ).format(parallelism=forecast.parallelism, count=forecast.remaining, rates=", ".join(rates))
    return Sentence(text, detail=detail, tone="info")


def _finishes(forecast: Forecast, now: datetime) -> str:
    """``finishes around 16:15 CET today``, ``finishes between 16:15 and 17:25 CET today`` (the day and zone said
    once when both ends share them in the reader's zone, today or tomorrow), else both ends in full."""
    first, last = _rounded(forecast.earliest), _rounded(forecast.latest)
    if first == last:
        # Translators: {time} is a forecast's time with its day: "16:15 CET today", "Thu 7 May 09:10 CEST".
        return _("finishes around {time}").format(time=times.clock(first, now))
    zone = times.reader_zone()
    start, end, today = (timezone.localtime(at, zone) for at in (first, last, now))
    shared = start.date() == end.date() and start.utcoffset() == end.utcoffset()
    near = (start.date() - today.date()).days in (0, 1)  # said "today" or "tomorrow", not with its date
    said_first = times.hours(first) if shared and near else times.clock(first, now)
    # Translators: a forecast's range. {last} is a time with its day and zone ("17:25 CET today"); {first} is one
    # too, or only hours:minutes (16:15) when it shares the day and zone {last} says.
    return _("finishes between {first} and {last}").format(first=said_first, last=times.clock(last, now))


def too_early_text(too_early: TooEarly, started_at: datetime | None, now: datetime) -> str:
    """``Too early to say when it will finish: 2 volumes finished so far.``"""
    if too_early.reason == NOTHING_LEFT:
        return _("Every volume has finished; the campaign is closing.")
    if too_early.reason == NOT_STARTED:
        return _("Too early to say when it will finish: it has not started yet.")
    if too_early.reason == TOO_SOON and started_at is not None:
        # Translators: {ago} is a duration (25 min).
        return _("Too early to say when it will finish: it started {ago} ago.").format(
            ago=duration((now - started_at).total_seconds(), up=False)
        )
    if too_early.reason in (FEW_FINISHED, NO_PACE, TOO_SOON):
        finished = too_early.finished
        if not finished:
            return _("Too early to say when it will finish: no volume finished so far.")
        return ngettext(
            "Too early to say when it will finish: {count} volume finished so far.",
            "Too early to say when it will finish: {count} volumes finished so far.",
            finished,
        ).format(count=finished)
    return _("Too early to say when it will finish.")


def stall_short(view: CampaignPace, now: datetime | None = None) -> str:
    """The list's words for a stalled campaign, the same at every poll: ``no volume finished since 13:15 CET
    while 12 pods run`` (pods still waiting for the model cache said as waiting, not running). Its time has its
    day when that is not ``now``'s (by default the newest look at the campaign) in the reader's zone."""
    since = view.stalled_since
    if not since:
        return ""
    at = times.moment(since, now or view.timeline.seen_at or since)
    waiting = min(view.waiting_pods, view.running_pods)
    working = view.running_pods - waiting
    if not waiting:
        return ngettext(
            # Translators: {time} is when the last volume finished (13:15 CET); {count} pods are running.
            "no volume finished since {time} while {count} pod runs",
            "no volume finished since {time} while {count} pods run",
            working,
        ).format(time=at, count=working)
    if not working:
        return ngettext(
            # Translators: {time} is when the last volume finished (13:15 CET).
            "no volume finished since {time} while {count} pod waits for the model cache",
            "no volume finished since {time} while {count} pods wait for the model cache",
            waiting,
        ).format(time=at, count=waiting)
    # Translators: {time} is when the last volume finished (13:15 CET); {running} says how many pods run
    # ("9 pods run"), {waiting} how many of the others wait ("3 wait for the model cache").
    return _("no volume finished since {time} while {running} and {waiting}").format(
        time=at,
        running=ngettext("{count} pod runs", "{count} pods run", working).format(count=working),
        waiting=ngettext("{count} waits for the model cache", "{count} wait for the model cache", waiting).format(
            count=waiting
        ),
    )


def stall_line(view: CampaignPace | None, now: datetime | None = None) -> str:
    """A stalled campaign's line in the list: ``Stalled: no volume finished since 13:15 CET while 12 pods run.``"""
    short = stall_short(view, now) if view is not None else ""
    # Translators: {what} says what stands still ("no volume finished since 13:15 CET while 12 pods run").
    return _("Stalled: {what}.").format(what=short) if short else ""


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
        text = _(
            # Translators: {quiet} is a duration (1 h 30 min); {volume} a volume's id; {time} when it finished a page.
            "No volume finished for {quiet}, but pages are still being written: {volume} finished a page at "
            "{time}. It is most likely a large volume still working; its row shows how far it has got."
        ).format(quiet=quiet, volume=volume, time=times.moment(last, now))
        tone = "warn"
    elif last is not None:
        text = ngettext(
            # Translators: {quiet} and {page_quiet} are durations (1 h 30 min); {time} is when the last page was
            # finished; {volume} the id of the volume that finished it.
            "{count} pod running, no volume finished for {quiet} and no page for {page_quiet}: the last page was "
            "finished at {time} by {volume}, which has written none since. Its run log says why.",
            "{count} pods running, no volume finished for {quiet} and no page for {page_quiet}: the last page was "
            "finished at {time} by {volume}, which has written none since. Its run log says why.",
            working,
        ).format(
            count=working,
            quiet=quiet,
            page_quiet=duration((now - max(last, since)).total_seconds(), up=False),
            time=times.moment(last, now),
            volume=volume,
        )
        tone = "bad"
    else:
        text = ngettext(
            # Translators: {quiet} is a duration (1 h 30 min); {time} is when the last volume finished.
            "{count} pod running, no volume finished for {quiet} (since {time}). Whether pages are still being "
            "written is not known here: a running volume's row shows its pages once they are read.",
            "{count} pods running, no volume finished for {quiet} (since {time}). Whether pages are still being "
            "written is not known here: a running volume's row shows its pages once they are read.",
            working,
        ).format(count=working, quiet=quiet, time=times.moment(since, now))
        tone = "bad"
    detail = _(
        # Translators: {after} is a duration (1 h); HTRFLOW_STALL_MINUTES is a setting's name.
        "A running campaign counts as stalled when no volume finishes for {after} "
        "(HTRFLOW_STALL_MINUTES, or four usual volume times with a floor of 20 min)."
    ).format(after=duration(after))
    return Sentence(text, detail=detail, tone=tone)


def _held_by_warmup(waiting: int, working: int, quiet: str) -> str:
    pods = ngettext(
        # Translators: how many pods still wait for the model cache ("3 pods still wait for the model cache").
        "{count} pod still waits for the model cache",
        "{count} pods still wait for the model cache",
        waiting,
    ).format(count=waiting)
    if not working:
        # Translators: {quiet} is a duration (1 h 30 min); {pods} says how many pods wait for the model cache.
        return _("No volume finished for {quiet}: {pods}, so the warm-up is what holds it back, not a volume.").format(
            quiet=quiet, pods=pods
        )
    return _(
        # Translators: {quiet} is a duration (1 h 30 min); {pods} says how many pods wait for the model cache
        # ("3 pods still wait for the model cache"); {others} how many other pods run ("9 others running").
        "No volume finished for {quiet}: {pods} ({others}), so the warm-up is what holds it back, not a volume."
    ).format(
        quiet=quiet,
        pods=pods,
        others=ngettext("{count} other running", "{count} others running", working).format(count=number(working)),
    )


def pace_fact(view: CampaignPace | None) -> str:
    """The operator's figure: ``9.0 volumes/h over the last hour, 9.7 since start; one volume ~26 min``
    (two significant figures: a tenth more or less is no news, and would change the card at every reading)."""
    if view is None:
        return ""
    pace = view.pace
    parts = []
    if pace.recent is not None:
        if pace.recent_seconds >= 3600:
            parts.append(_("{rate} volumes/h over the last hour").format(rate=_rate(pace.recent)))
        else:
            parts.append(
                # Translators: {window} is a duration (25 min): how long the pace was watched.
                _("{rate} volumes/h over the last {window}").format(
                    rate=_rate(pace.recent), window=duration(pace.recent_seconds, up=False)
                )
            )
    if pace.since_start is not None:
        parts.append(_("{rate} volumes/h since start").format(rate=_rate(pace.since_start)))
    if pace.volume_seconds:
        # Translators: {duration} is how long one volume usually takes (26 min).
        parts.append(_("one volume about {duration}").format(duration=duration(pace.volume_seconds)))
    if view.stall_after_seconds and view.running_pods:
        parts.append(
            # Translators: {duration} is the stall threshold (1 h).
            _("stalled after {duration} without a finished volume").format(duration=duration(view.stall_after_seconds))
        )
    return "; ".join(parts)


def _rate(per_hour: float) -> str:
    """``9.7``, ``68``, ``1200``: two significant figures, at least one decimal below 10 (Swedish ``9,7``)."""
    return _decimal(per_hour) if per_hour < 10 else number_format(round(float(f"{per_hour:.2g}")), 0)


def _decimal(value: float) -> str:
    """``9.7`` in English, ``9,7`` in Swedish: rounded to one decimal first (Django's number_format cuts)."""
    return number_format(round(value, 1), 1)


# --- the pace chart's words (campaigns.presentation.pace_chart draws; these say what it draws) ------------


def chart_title(unit: str, name: str = "") -> str:
    """The SVG's own name: ``Chart: volumes of parish finished over time (in words beside it)``; ``unit`` is
    ``pages`` or volumes."""
    if unit == PAGES:
        if name:
            # Translators: {name} is the campaign's name.
            return _("Chart: pages of {name} finished over time (in words beside it)").format(name=name)
        return _("Chart: pages finished over time (in words beside it)")
    if name:
        # Translators: {name} is the campaign's name.
        return _("Chart: volumes of {name} finished over time (in words beside it)").format(name=name)
    return _("Chart: volumes finished over time (in words beside it)")


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
        if unit == PAGES:
            return _("Nothing to draw yet: no pages have been seen to finish.")
        return _("Nothing to draw yet: no volumes have been seen to finish.")
    (first_at, first_count), (last_at, finished) = first, last
    counts = {
        "first": number(first_count),
        "first_time": moment(first_at, now),
        "finished": number(finished),
        "total": number(total),
        "now": moment(max(now, last_at), now),
    }
    if unit == PAGES:
        told = [
            _(
                # Translators: {first} is the count at the chart's first point, at {first_time}; {finished} of {total}
                # are finished now, at {now}. The times are 14:02 CET, or 3 May 14:02 CET on another day.
                "The chart shows pages finished (done or failed) over time: {first} at {first_time}, {finished} of "
                "{total} now ({now})."
            ).format(**counts)
        ]
    else:
        told = [
            _(
                # Translators: {first} is the count at the chart's first point, at {first_time}; {finished} of {total}
                # are finished now, at {now}. The times are 14:02 CET, or 3 May 14:02 CET on another day.
                "The chart shows volumes finished (done or failed) over time: {first} at {first_time}, {finished} of "
                "{total} now ({now})."
            ).format(**counts)
        ]
    if stalled_since is not None:
        told.append(_("The line is flat: nothing has finished since {time}.").format(time=moment(stalled_since, now)))
    if band is not None and finished < total:
        told.append(_band(total, band, cut_at, now))
    elif finished < total and stalled_since is None:
        told.append(_("No forecast is drawn yet."))
    return " ".join(told)


def _band(total: int, band: tuple[datetime, datetime], cut_at: datetime | None, now: datetime) -> str:
    """The forecast band as drawn: its ends, and where the chart cuts it when it does."""
    ends = {"total": number(total), "earliest": moment(band[0], now), "latest": moment(band[1], now)}
    if cut_at:
        return _(
            # Translators: {total} is how many there are in all; {earliest} and {latest} are the forecast's ends;
            # {cut} is the time at the chart's right edge.
            "The hatched band is the forecast: all {total} finished between {earliest} and {latest} (the chart "
            "stops at {cut}; the band goes on)."
        ).format(cut=moment(cut_at, now), **ends)
    # Translators: {total} is how many there are in all; {earliest} and {latest} are the forecast's ends.
    return _("The hatched band is the forecast: all {total} finished between {earliest} and {latest}.").format(**ends)


CHART_NOW = pgettext_lazy("a row of the pace chart's table", "now")
CHART_EARLIEST = pgettext_lazy("a row of the pace chart's table", "forecast: done at the earliest")
CHART_LATEST = pgettext_lazy("a row of the pace chart's table", "forecast: done at the latest")


def chart_point(count: int, previous: int | None, seen_finishing: bool) -> str:
    """What a point of the chart's table is: the start, a count seen by then, or how many more were seen
    finishing there (``seen_finishing``: a dot is drawn at it)."""
    if previous is not None and count > previous and seen_finishing:
        more = count - previous
        return ngettext("{count} more seen finished", "{count} more seen finished", more).format(count=number(more))
    if previous is None and count == 0:
        return pgettext("a row of the pace chart's table", "the start")
    return pgettext("a row of the pace chart's table", "seen finished by then")


def chart_edges(total: int, unit: str, start: datetime, end: datetime, now: datetime, cut: bool) -> dict[str, str]:
    """The large chart's words on its edges: the total at the top; the left and right times and now below
    (``→`` when the forecast goes on past the right edge). The times are the reader's wall clock without the
    zone (`core.times.axis_moment`: ``10:52``, ``3 May 10:52``), so three fit under a narrow chart; the words
    beside it name the zone."""
    if unit == PAGES:
        said = ngettext("{count} page", "{count} pages", total)
    else:
        said = ngettext("{count} volume", "{count} volumes", total)
    right = times.axis_moment(end, now)
    return {
        "total": said.format(count=number(total)),
        # Translators: under the pace chart, where now is on its time axis; {time} is hours:minutes (10:52).
        "now": pgettext("the pace chart's time axis", "now {time}").format(time=times.axis_moment(now, now)),
        "start": times.axis_moment(start, now),
        "end": right + " →" if cut else right,
    }
