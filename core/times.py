"""The one place a time is said to a reader: in the reader's zone and language, with the zone's abbreviation.

The active zone is Django's current time zone (htrbrowser.middleware.ReaderZoneMiddleware activates the one the
browser reports, else HTRFLOW_TIME_ZONE); the language is Django's active one. Every time is kept and compared
in UTC elsewhere; it is turned into the reader's wall clock only here, so daylight saving and "today" are the
reader's. Machine-readable times (``<time datetime>``, the read API) stay UTC ISO 8601 and do not come here.

The clock is 24-hour in both languages. Month names are this module's own (Swedish abbreviates them as
``jan.``, ``maj``, ``juni``, ``dec.``, which no Django date format letter gives); the order of the parts of a
date is the translator's to change.
"""

from datetime import datetime
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.formats import date_format, time_format
from django.utils.translation import gettext, pgettext, pgettext_lazy

_MONTHS = (
    pgettext_lazy("month, abbreviated in a date", "Jan"),
    pgettext_lazy("month, abbreviated in a date", "Feb"),
    pgettext_lazy("month, abbreviated in a date", "Mar"),
    pgettext_lazy("month, abbreviated in a date", "Apr"),
    pgettext_lazy("month, abbreviated in a date", "May"),
    pgettext_lazy("month, abbreviated in a date", "Jun"),
    pgettext_lazy("month, abbreviated in a date", "Jul"),
    pgettext_lazy("month, abbreviated in a date", "Aug"),
    pgettext_lazy("month, abbreviated in a date", "Sep"),
    pgettext_lazy("month, abbreviated in a date", "Oct"),
    pgettext_lazy("month, abbreviated in a date", "Nov"),
    pgettext_lazy("month, abbreviated in a date", "Dec"),
)


def reader_zone() -> ZoneInfo:
    """The zone times are said in for this request (or task): Django's current time zone."""
    return timezone.get_current_timezone()


def iso_in_reader_zone(at: datetime | None) -> str:
    """A time as ISO 8601 to the second with the reader's offset (``2026-12-06T15:02:37+01:00``), for a file a
    person takes away (a spreadsheet reads it as a time, at their clock); '' for an unknown time."""
    if at is None:
        return ""
    return at.astimezone(reader_zone()).isoformat(timespec="seconds")


def zone_label() -> str:
    """The active zone's name for a note: ``Europe/Stockholm``, ``UTC``."""
    zone = reader_zone()
    return getattr(zone, "key", None) or str(zone)


def moment(at: datetime | None, now: datetime | None = None) -> str:
    """A time to the minute in the reader's zone: ``14:02 CET`` when it falls on ``now``'s day there, else with
    its day, ``5 Dec 14:02 CET`` (Swedish ``5 dec. 14:02 CET``); always with its day when ``now`` is None.
    None is an unknown time, said so."""
    return _moment(at, now, "H:i")


def moment_seconds(at: datetime | None, now: datetime | None = None) -> str:
    """``moment`` to the second, for a time a person holds against others just as close (when a search of a
    growing log was made): ``14:02:37 CET``, another day ``5 Dec 14:02:37 CET``."""
    return _moment(at, now, "H:i:s")


def _moment(at: datetime | None, now: datetime | None, clock_format: str) -> str:
    if at is None:
        return gettext("an unknown time")
    local = timezone.localtime(at, reader_zone())
    said = time_format(local, clock_format)
    if now is not None and local.date() == timezone.localtime(now, reader_zone()).date():
        # Translators: a time today; {time} is hours:minutes (or hours:minutes:seconds), {zone} the time zone's
        # abbreviation (CET).
        return pgettext("a time today", "{time} {zone}").format(time=said, zone=_abbreviation(local))
    # Translators: a time on another day; {date} is the day and month (5 Dec), {time} hours:minutes (or
    # hours:minutes:seconds), {zone} the time zone's abbreviation (CET).
    return pgettext("a time on another day", "{date} {time} {zone}").format(
        date=_day_month(local), time=said, zone=_abbreviation(local)
    )


def clock(at: datetime, now: datetime) -> str:
    """A forecast's time with its day said relative to ``now`` in the reader's zone: ``16:15 CET today``,
    ``09:10 CET tomorrow``, else ``Mon 4 May 09:10 CEST``. Not rounded: a caller that rounds does so first."""
    local = timezone.localtime(at, reader_zone())
    days = (local.date() - timezone.localtime(now, reader_zone()).date()).days
    parts = {"time": _hours(local), "zone": _abbreviation(local)}
    if days == 0:
        # Translators: a forecast's time later today; {time} is hours:minutes, {zone} the zone's abbreviation.
        return pgettext("a forecast's time", "{time} {zone} today").format(**parts)
    if days == 1:
        # Translators: a forecast's time tomorrow; {time} is hours:minutes, {zone} the zone's abbreviation.
        return pgettext("a forecast's time", "{time} {zone} tomorrow").format(**parts)
    # Translators: a forecast's time on another day; {weekday} is the abbreviated weekday (Mon), {date} the day
    # and month (4 May), {time} hours:minutes, {zone} the zone's abbreviation.
    return pgettext("a forecast's time", "{weekday} {date} {time} {zone}").format(
        weekday=date_format(local, "D"), date=_day_month(local), **parts
    )


def day(at: datetime) -> str:
    """A date alone, in the reader's zone: ``5 Dec 2026`` (Swedish ``5 dec. 2026``)."""
    local = timezone.localtime(at, reader_zone())
    # Translators: a date; {day} is the day of the month, {month} the abbreviated month, {year} the year.
    return pgettext("a date with its year", "{day} {month} {year}").format(
        day=local.day, month=_MONTHS[local.month - 1], year=local.year
    )


def hours(at: datetime) -> str:
    """Hours and minutes alone in the reader's zone (``16:15``), for a sentence that says the day and zone once
    for two times: a forecast's ``between 16:15 and 17:25 CET today`` (the second from `clock`)."""
    return _hours(timezone.localtime(at, reader_zone()))


def axis_moment(at: datetime, now: datetime) -> str:
    """``moment`` without the zone's abbreviation, for a chart's axis where room is short and the words beside
    the chart name the zone: ``14:02`` on ``now``'s day in the reader's zone, else ``5 Dec 14:02``."""
    local = timezone.localtime(at, reader_zone())
    if local.date() == timezone.localtime(now, reader_zone()).date():
        return _hours(local)
    # Translators: a time on another day on a chart's axis, without its zone; {date} is the day and month
    # (5 Dec), {time} hours:minutes.
    return pgettext("a time on another day, on a chart's axis", "{date} {time}").format(
        date=_day_month(local), time=_hours(local)
    )


def _day_month(local: datetime) -> str:
    # Translators: a date in this year; {day} is the day of the month, {month} the abbreviated month (Dec).
    return pgettext("a date without its year", "{day} {month}").format(day=local.day, month=_MONTHS[local.month - 1])


def _hours(local: datetime) -> str:
    return time_format(local, "H:i")


def _abbreviation(local: datetime) -> str:
    """The zone's abbreviation at that moment (``CET`` in winter, ``CEST`` in summer; ``-03`` where the tz
    database has none)."""
    return local.tzname() or zone_label()
