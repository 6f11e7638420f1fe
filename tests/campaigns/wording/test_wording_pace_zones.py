"""The pace's words in the reader's zone: a forecast's "today" and "tomorrow" are Stockholm's past its midnight,
and a range across a daylight-saving change says each end with its own abbreviation (CET, CEST).

Tests run in UTC; each test here says the same campaign in Europe/Stockholm, and in UTC beside it where the two
differ, so the difference is the zone's and nothing else.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone, translation

from campaigns.models.pace import LAST_HOUR, CampaignPace, Forecast, Pace, PageEvidence, Timeline
from campaigns.wording import pace as words

STOCKHOLM = ZoneInfo("Europe/Stockholm")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def in_stockholm(function, *args, **kwargs):
    with timezone.override(STOCKHOLM):
        return function(*args, **kwargs)


def running(earliest: str, latest: str) -> CampaignPace:
    forecast = Forecast(utc(earliest), utc(latest), LAST_HOUR, per_hour=12.0, remaining=8, parallelism=4)
    return CampaignPace(
        pace=Pace(recent=12.0, recent_seconds=3600, since_start=11.5), forecast=forecast, running_pods=4
    )


def finishes(view: CampaignPace, now: str) -> str:
    """The forecast sentence's "(finishes …)"."""
    text = words.forecast_sentence(view, utc(now)).text
    return text[text.index("(") + 1 : text.rindex(")")]


def test_a_forecast_past_stockholms_midnight_is_tomorrow_there_while_utc_says_today():
    view, now = running("2026-12-05T23:10", "2026-12-05T23:40"), "2026-12-05T22:00"  # 23:00 CET in Stockholm
    assert finishes(view, now) == "finishes between 23:10 and 23:40 UTC today"
    assert in_stockholm(finishes, view, now) == "finishes between 00:10 and 00:40 CET tomorrow"


def test_a_forecast_across_stockholms_midnight_says_each_day():
    view, now = running("2026-12-05T22:50", "2026-12-05T23:20"), "2026-12-05T22:00"
    assert finishes(view, now) == "finishes between 22:50 and 23:20 UTC today"
    assert in_stockholm(finishes, view, now) == "finishes between 23:50 CET today and 00:20 CET tomorrow"


def test_after_stockholms_midnight_its_today_is_utcs_tomorrow():
    view, now = running("2026-12-06T08:10", "2026-12-06T09:20"), "2026-12-05T23:30"  # 00:30 on 6 Dec there
    assert finishes(view, now) == "finishes between 08:10 and 09:20 UTC tomorrow"
    assert in_stockholm(finishes, view, now) == "finishes between 09:10 and 10:20 CET today"


def test_a_single_forecast_time_is_said_once_with_its_day():
    view, now = running("2026-12-05T23:08", "2026-12-05T23:10"), "2026-12-05T22:00"  # both round up to 23:10
    assert in_stockholm(finishes, view, now) == "finishes around 00:10 CET tomorrow"


@pytest.mark.parametrize(
    ("earliest", "latest", "said"),
    [
        # Spring forward, Sunday 29 March 2026 at 01:00 UTC: 02:00 CET becomes 03:00 CEST.
        ("2026-03-29T00:30", "2026-03-29T01:30", "finishes between 01:30 CET today and 03:30 CEST today"),
        ("2026-03-29T02:00", "2026-03-29T03:00", "finishes between 04:00 and 05:00 CEST today"),
        # Fall back, Sunday 25 October 2026 at 01:00 UTC: 02:30 happens twice, told apart by the abbreviation.
        ("2026-10-25T00:30", "2026-10-25T01:30", "finishes between 02:30 CEST today and 02:30 CET today"),
        ("2026-10-25T02:00", "2026-10-25T03:00", "finishes between 03:00 and 04:00 CET today"),
    ],
)
def test_a_forecast_across_a_daylight_saving_change_says_each_ends_own_zone(earliest, latest, said):
    now = earliest[:10] + "T00:05" if earliest.startswith("2026-03") else "2026-10-24T23:00"  # after midnight there
    assert in_stockholm(finishes, running(earliest, latest), now) == said


def test_the_day_words_of_a_forecast_in_summer_and_winter():
    summer = running("2026-07-01T14:10", "2026-07-01T15:20")
    assert in_stockholm(finishes, summer, "2026-07-01T12:00") == "finishes between 16:10 and 17:20 CEST today"
    assert in_stockholm(words.clock, utc("2026-07-04T07:08"), utc("2026-07-01T12:00")) == "Sat 4 Jul 09:10 CEST"


def stalled(since: str, seen: str) -> CampaignPace:
    return CampaignPace(
        timeline=Timeline(seen_at=utc(seen)), running_pods=12, stall_after_seconds=3600, stalled_since=utc(since)
    )


def test_a_stall_before_stockholms_midnight_is_said_with_its_day_once_that_midnight_has_passed():
    view = stalled("2026-12-05T22:50", "2026-12-05T23:30")  # since 23:50 on 5 Dec, seen 00:30 on 6 Dec there
    assert words.stall_line(view) == "Stalled: no volume finished since 22:50 UTC while 12 pods run."
    assert in_stockholm(words.stall_line, view) == (
        "Stalled: no volume finished since 5 Dec 23:50 CET while 12 pods run."
    )
    said = in_stockholm(words.stall_sentence, view, utc("2026-12-05T23:30"))
    assert said.text.startswith("12 pods running, no volume finished for 40 min (since 5 Dec 23:50 CET). ")


def test_a_stalls_last_page_is_said_in_summer_time():
    view = stalled("2026-07-01T09:00", "2026-07-01T10:30")
    evidence = PageEvidence(last_written_at=utc("2026-07-01T09:20"), last_volume="C000")
    said = in_stockholm(words.stall_sentence, view, utc("2026-07-01T10:30"), evidence)
    assert "the last page was finished at 11:20 CEST by C000, which has written none since." in said.text
    assert in_stockholm(words.stall_line, view) == "Stalled: no volume finished since 11:00 CEST while 12 pods run."


def test_the_charts_words_and_edges_are_stockholms_wall_clock():
    now = utc("2026-03-29T02:00")  # 04:00 CEST, the morning the clocks went forward
    said = in_stockholm(
        words.chart_sentence, "volumes", 40, (utc("2026-03-29T00:30"), 0), (utc("2026-03-29T01:50"), 12), now
    )
    assert said.startswith(
        "The chart shows volumes finished (done or failed) over time: 0 at 01:30 CET, 12 of 40 now (04:00 CEST)."
    )
    edges = in_stockholm(words.chart_edges, 40, "volumes", utc("2026-03-28T22:30"), utc("2026-03-29T03:00"), now, True)
    assert edges == {"total": "40 volumes", "now": "now 04:00", "start": "28 Mar 23:30", "end": "05:00 →"}
