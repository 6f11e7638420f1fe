"""core.times: a time said in the reader's zone (daylight saving and local midnight right) and language."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.test import override_settings
from django.utils import timezone, translation

from core import times

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.parametrize(
    ("now", "at", "said"),
    [
        # 25 October 2026 has 25 hours in Stockholm: 24 hours after 00:30 CEST is 23:30 CET the same day.
        ("2026-10-24T22:30", "2026-10-25T22:30", "23:30 CET today"),
        ("2026-10-24T22:30", "2026-10-25T23:00", "00:00 CET tomorrow"),
        # 29 March 2026 has 23 hours: 23:59 CEST is still that day, 22:00 UTC is already the next.
        ("2026-03-28T23:30", "2026-03-29T21:59", "23:59 CEST today"),
        ("2026-03-28T23:30", "2026-03-29T22:00", "00:00 CEST tomorrow"),
        ("2026-03-28T12:00", "2026-03-29T08:00", "10:00 CEST tomorrow"),
    ],
)
def test_today_and_tomorrow_across_the_nights_the_clocks_change(stockholm, now, at, said):
    assert times.clock(utc(at), utc(now)) == said


def test_a_forecasts_day_words(stockholm):
    now = utc("2026-12-05T10:00")
    assert times.clock(utc("2026-12-05T15:15"), now) == "16:15 CET today"
    assert times.clock(utc("2026-12-06T08:10"), now) == "09:10 CET tomorrow"
    assert times.clock(utc("2026-12-07T08:10"), now) == "Mon 7 Dec 09:10 CET"
    assert times.clock(utc("2026-05-04T07:10"), utc("2026-05-01T10:00")) == "Mon 4 May 09:10 CEST"


def test_a_moment_to_the_second_in_stockholm_winter_and_summer(stockholm):
    now = utc("2026-12-05T15:00")
    assert times.moment_seconds(utc("2026-12-05T13:02:07"), now) == "14:02:07 CET"
    assert times.moment_seconds(utc("2026-12-04T13:02:59"), now) == "4 Dec 14:02:59 CET"
    assert times.moment_seconds(utc("2026-07-04T13:02:00"), utc("2026-07-04T20:00")) == "15:02:00 CEST"
    assert times.moment_seconds(utc("2026-12-05T23:10:05"), utc("2026-12-05T23:30")) == "00:10:05 CET", "past midnight"
    assert times.moment_seconds(None) == "an unknown time"
    with timezone.override(ZoneInfo("UTC")):
        assert times.moment_seconds(utc("2026-12-05T13:02:07"), now) == "13:02:07 UTC"


def test_new_york_in_winter_and_summer_and_its_own_evening(new_york):
    assert times.moment(utc("2026-12-05T19:02"), utc("2026-12-05T20:00")) == "14:02 EST"
    assert times.moment(utc("2026-07-05T18:02"), utc("2026-07-05T20:00")) == "14:02 EDT"
    # 22:00 on 5 December in New York is 03:00 on the 6th in UTC: still today for the reader there.
    assert times.clock(utc("2026-12-06T03:00"), utc("2026-12-05T20:00")) == "22:00 EST today"
    assert times.day(utc("2026-12-06T03:00")) == "5 Dec 2026"
    assert times.zone_label() == "America/New_York"


# --- Swedish: the words come from the catalogue; this one is the test's own, so the mechanics are checked
# whatever the project's catalogue holds today (tests/test_catalogue.py checks that one; the last test here reads it).

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
    assert times.moment_seconds(utc("2026-12-04T13:02:07"), now) == "4 dec. 14:02:07 CET"


def test_the_template_filters_say_the_same(stockholm):
    now = utc("2026-12-05T10:00")
    page = Template(
        "{% load times %}{{ at|moment:now }}|{{ other|moment:now }}|{{ at|clock:now }}|{{ at|day }}|"
        "{{ nothing|moment }}|{{ text|moment }}|{% zone_label %}"
    )
    said = page.render(Context({"at": utc("2026-12-05T13:02"), "other": utc("2026-12-04T13:02"), "now": now,
                                "nothing": None, "text": "not a time"}))
    assert said == "14:02 CET|4 Dec 14:02 CET|14:02 CET today|5 Dec 2026|an unknown time||Europe/Stockholm"


def test_swedish_from_the_projects_own_catalogue():
    """What a Swedish reader in Stockholm reads, from locale/sv as `make messages` compiled it: "5 dec. 2026",
    the day words of the glossary (i dag, i morgon), the abbreviation telling the two 02:30s of October apart."""
    source = ROOT / "locale" / "sv" / "LC_MESSAGES" / "django.po"
    compiled = source.with_suffix(".mo")
    assert source.exists(), f"{source.relative_to(ROOT)} does not exist yet: the Swedish catalogue is not written"
    assert compiled.exists() and compiled.stat().st_mtime >= source.stat().st_mtime, (
        f"{compiled.relative_to(ROOT)} is missing or older than the .po: `make messages` compiles it"
    )
    now = utc("2026-12-05T10:00")
    with translation.override("sv"), timezone.override(STOCKHOLM):
        assert times.day(utc("2026-12-05T13:02")) == "5 dec. 2026"
        assert times.moment(utc("2026-12-04T13:02"), now) == "4 dec. 14:02 CET"
        assert times.moment(utc("2026-12-05T13:02"), now) == "14:02 CET"
        today, tomorrow = times.clock(utc("2026-12-05T15:15"), now), times.clock(utc("2026-12-06T08:10"), now)
        assert "i dag" in today and "16:15 CET" in today, today
        assert "i morgon" in tomorrow and "09:10 CET" in tomorrow, tomorrow
        autumn = utc("2026-10-25T12:00")
        assert times.moment(utc("2026-10-25T00:30"), autumn) == "02:30 CEST"
        assert times.moment(utc("2026-10-25T01:30"), autumn) == "02:30 CET"
        assert times.moment(None) != "an unknown time", "said in Swedish"
