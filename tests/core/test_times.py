"""core.times: a time said in the reader's zone (daylight saving and local midnight right) and language."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.test import override_settings
from django.utils import timezone, translation

from core import times

STOCKHOLM = ZoneInfo("Europe/Stockholm")
NEW_YORK = ZoneInfo("America/New_York")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.fixture
def stockholm():
    with timezone.override(STOCKHOLM), translation.override("en"):
        yield


@pytest.fixture
def new_york():
    with timezone.override(NEW_YORK), translation.override("en"):
        yield


def test_the_reader_zone_is_the_active_one(stockholm):
    assert times.reader_zone() == STOCKHOLM
    assert times.zone_label() == "Europe/Stockholm"
    with timezone.override(ZoneInfo("UTC")):
        assert times.zone_label() == "UTC"


def test_a_winter_time_today_and_another_day_in_stockholm(stockholm):
    now = utc("2026-12-05T15:00")
    assert times.moment(utc("2026-12-05T13:02"), now) == "14:02 CET"
    assert times.moment(utc("2026-12-04T13:02"), now) == "4 Dec 14:02 CET"
    assert times.moment(utc("2026-12-05T13:02")) == "5 Dec 14:02 CET", "no now: the day is always said"
    assert times.moment(None) == "an unknown time"


@pytest.mark.parametrize(
    ("at", "said"),
    [
        # Spring forward, Sunday 29 March 2026 at 01:00 UTC: 02:00 CET becomes 03:00 CEST.
        ("2026-03-29T00:30", "01:30 CET"),
        ("2026-03-29T01:30", "03:30 CEST"),
        # Fall back, Sunday 25 October 2026 at 01:00 UTC: 02:30 happens twice, told apart by the abbreviation.
        ("2026-10-25T00:30", "02:30 CEST"),
        ("2026-10-25T01:30", "02:30 CET"),
    ],
)
def test_daylight_saving_changes_in_stockholm(stockholm, at, said):
    now = utc(at[:10] + "T12:00")
    assert times.moment(utc(at), now) == said


def test_today_is_stockholms_today_past_its_midnight_while_utc_is_still_yesterday(stockholm):
    now = utc("2026-12-05T23:30")  # 00:30 on 6 December in Stockholm
    assert times.moment(utc("2026-12-05T23:10"), now) == "00:10 CET"
    assert times.moment(utc("2026-12-05T22:50"), now) == "5 Dec 23:50 CET", "before Stockholm's midnight: yesterday"
    assert times.clock(utc("2026-12-06T08:10"), now) == "09:10 CET today", "UTC would say tomorrow"
    assert times.clock(utc("2026-12-06T23:10"), now) == "00:10 CET tomorrow", "past the next midnight there"
    assert times.day(utc("2026-12-31T23:30")) == "1 Jan 2027"
    with timezone.override(ZoneInfo("UTC")):
        assert times.day(utc("2026-12-31T23:30")) == "31 Dec 2026"
        assert times.clock(utc("2026-12-06T08:10"), now) == "08:10 UTC tomorrow"


def test_a_forecasts_day_words(stockholm):
    now = utc("2026-12-05T10:00")
    assert times.clock(utc("2026-12-05T15:15"), now) == "16:15 CET today"
    assert times.clock(utc("2026-12-06T08:10"), now) == "09:10 CET tomorrow"
    assert times.clock(utc("2026-12-07T08:10"), now) == "Mon 7 Dec 09:10 CET"
    assert times.clock(utc("2026-05-04T07:10"), utc("2026-05-01T10:00")) == "Mon 4 May 09:10 CEST"


def test_new_york_in_winter_and_summer_and_its_own_evening(new_york):
    assert times.moment(utc("2026-12-05T19:02"), utc("2026-12-05T20:00")) == "14:02 EST"
    assert times.moment(utc("2026-07-05T18:02"), utc("2026-07-05T20:00")) == "14:02 EDT"
    # 22:00 on 5 December in New York is 03:00 on the 6th in UTC: still today for the reader there.
    assert times.clock(utc("2026-12-06T03:00"), utc("2026-12-05T20:00")) == "22:00 EST today"
    assert times.day(utc("2026-12-06T03:00")) == "5 Dec 2026"
    assert times.zone_label() == "America/New_York"


# --- Swedish: the words come from the catalogue; this one is the test's own, so the mechanics are checked
# whatever the project's catalogue holds today (tests/test_catalogues.py checks that one).

_SWEDISH = [
    ("month, abbreviated in a date", "Dec", "dec."),
    ("month, abbreviated in a date", "May", "maj"),
    ("a time today", "{time} {zone}", "{time} {zone}"),
    ("a time on another day", "{date} {time} {zone}", "{date} {time} {zone}"),
    ("a date without its year", "{day} {month}", "{day} {month}"),
    ("a date with its year", "{day} {month} {year}", "{day} {month} {year}"),
    ("a forecast's time", "{time} {zone} today", "i dag {time} {zone}"),
    ("a forecast's time", "{time} {zone} tomorrow", "i morgon {time} {zone}"),
    ("a forecast's time", "{weekday} {date} {time} {zone}", "{weekday} {date} {time} {zone}"),
    (None, "an unknown time", "en okänd tid"),
]


@pytest.fixture
def swedish(tmp_path):
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "msgfmt (GNU gettext) is missing: `make gettext` installs it"
    folder = tmp_path / "sv" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    header = '"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
    entries = ['msgid ""\nmsgstr ""\n' + header]
    for context, english, swedish_words in _SWEDISH:
        head = f'msgctxt "{context}"\n' if context else ""
        entries.append(f'{head}msgid "{english}"\nmsgstr "{swedish_words}"\n')
    (folder / "django.po").write_text("\n".join(entries), encoding="utf-8")
    subprocess.run([msgfmt, "--check-format", "-o", folder / "django.mo", folder / "django.po"], check=True, timeout=30)
    with override_settings(LOCALE_PATHS=[tmp_path]), translation.override("sv"), timezone.override(STOCKHOLM):
        yield


def test_swedish_words_and_order(swedish):
    now = utc("2026-12-05T10:00")
    assert times.moment(utc("2026-12-05T13:02"), now) == "14:02 CET"
    assert times.moment(utc("2026-12-04T13:02"), now) == "4 dec. 14:02 CET"
    assert times.moment(utc("2026-05-04T12:02"), now) == "4 maj 14:02 CEST"
    assert times.day(utc("2026-12-05T13:02")) == "5 dec. 2026"
    assert times.clock(utc("2026-12-05T15:15"), now) == "i dag 16:15 CET"
    assert times.clock(utc("2026-12-06T08:10"), now) == "i morgon 09:10 CET"
    # The weekday is Django's own Swedish word.
    assert times.clock(utc("2026-12-07T08:10"), now) == "mån 7 dec. 09:10 CET"
    assert times.moment(None) == "en okänd tid"


def test_the_template_filters_say_the_same(stockholm):
    now = utc("2026-12-05T10:00")
    page = Template(
        "{% load times %}{{ at|moment:now }}|{{ other|moment:now }}|{{ at|clock:now }}|{{ at|day }}|"
        "{{ nothing|moment }}|{{ text|moment }}|{% zone_label %}"
    )
    said = page.render(Context({"at": utc("2026-12-05T13:02"), "other": utc("2026-12-04T13:02"), "now": now,
                                "nothing": None, "text": "not a time"}))
    assert said == "14:02 CET|4 Dec 14:02 CET|14:02 CET today|5 Dec 2026|an unknown time||Europe/Stockholm"
