"""Pace, forecast and stall over recorded timelines (campaigns.domain.pace, .timelines): pure, no clock.

Each timeline is a campaign's finished count as the board would see it at every reading: steady,
speeding up, stalled, the app restarted (the status record's few numbers), the Job reaped, one
volume far larger than the rest. Property tests: a forecast is never in the past, and at a steady
pace more finished work never widens its range.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from campaigns.domain import pace
from campaigns.domain.projection import status_record_updates
from campaigns.domain.timelines import Timelines
from campaigns.models import RUNNING, SUCCEEDED, Campaign, Counts, PartState, Progress, Volume
from campaigns.models.pace import (
    FEW_FINISHED,
    LAST_HOUR,
    NOTHING_LEFT,
    SINCE_START,
    TOO_SOON,
    CampaignPace,
    Pace,
    PageEvidence,
)
from campaigns.presentation import cards
from campaigns.store.progress import VolumeProgress
from campaigns.wording import pace as words
from campaigns.wording.pace import pace_fact

T0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
SNAPSHOT = timedelta(seconds=5)


def minutes(n: float) -> datetime:
    return T0 + timedelta(minutes=n)


def watched(counts, every=SNAPSHOT, start=T0, uid="uid-1", timeline=None):
    """The timeline after the board looked at `counts(t)` (t in minutes since T0) at every reading."""
    at = start
    end = T0 + timedelta(minutes=counts.minutes)
    while at <= end:
        timeline = pace.observe(timeline, at, counts((at - T0).total_seconds() / 60), uid, T0)
        at += every
    return timeline


class Steady:
    """`per_hour` volumes an hour from T0 on, for `minutes` minutes."""

    def __init__(self, per_hour: float, minutes: float):
        self.per_hour, self.minutes = per_hour, minutes

    def __call__(self, t: float) -> int:
        return int(t * self.per_hour / 60)


class Curve:
    def __init__(self, function, minutes: float):
        self.function, self.minutes = function, minutes

    def __call__(self, t: float) -> int:
        return self.function(t)


def view_at(timeline, now, *, total=100, pods=4, parallelism=4, running=True, stall_minutes=None):
    return pace.campaign_pace(
        timeline, now, total=total, running_pods=pods, parallelism=parallelism, running=running,
        stall_minutes=stall_minutes,
    )


# --- the timeline stays small ---------------------------------------------------------------------


def test_a_day_of_readings_keeps_a_few_points_covering_the_last_hour_and_its_anchor():
    timeline = watched(Steady(30, 24 * 60), every=timedelta(seconds=5))
    now = minutes(24 * 60)
    assert len(timeline.points) <= pace.MAX_POINTS
    assert timeline.points[0].at <= now - pace.WINDOW < timeline.points[1].at
    assert timeline.finished == 720
    assert len(timeline.record()) < 600


def test_a_reading_without_a_change_adds_no_point_and_an_older_reading_is_ignored():
    timeline = pace.observe(None, minutes(0), 0, "u", T0)
    same = pace.observe(timeline, minutes(5), 0, "u", T0)
    assert same.points == timeline.points and same.seen_at == minutes(5)
    assert pace.observe(same, minutes(4), 3, "u", T0) == same


# --- recorded timelines ---------------------------------------------------------------------------


def test_steady_the_forecast_follows_the_last_hour_and_holds_the_true_end():
    timeline = watched(Steady(12, 180))  # 12 an hour for 3 h: 36 of 100 done, 64 to go: 5 h 20 min
    now = minutes(180)
    view = view_at(timeline, now)
    assert view.pace.recent == view.pace.since_start == 12
    assert view.forecast.basis == LAST_HOUR and view.forecast.remaining == 64
    assert view.forecast.earliest < now + timedelta(hours=64 / 12) < view.forecast.latest
    assert view.pace.volume_seconds == 20 * 60  # 4 pods, 12 an hour: 20 min a volume
    assert not view.stalled
    text = words.forecast_sentence(view, now).text
    # the middle of the range as said (its ends rounded up to 5 min once, in the domain), rounded up again
    assert text.startswith("About 5 h 30 min left at the pace of the last hour (finishes between ")
    assert "UTC today" in text


def test_speeding_up_the_last_hour_leads_and_the_range_covers_both_paces():
    timeline = watched(Curve(lambda t: int(t / 10) if t < 120 else 12 + int((t - 120) / 3), 180))
    now = minutes(180)
    view = view_at(timeline, now)
    assert view.pace.recent == 20 and view.pace.since_start == 32 / 3
    forecast = view.forecast
    assert forecast.basis == LAST_HOUR and forecast.per_hour == 20
    assert forecast.earliest < now + timedelta(hours=68 / 20)  # the last hour's pace, within the range
    assert forecast.latest > now + timedelta(hours=68 / (32 / 3))  # the slower pace since start, too


def test_stalled_pods_run_nothing_finishes_and_the_stall_starts_at_the_last_finish():
    timeline = watched(Curve(lambda t: min(int(t / 5), 24), 240))  # 12 an hour, then nothing after 2 h
    view = view_at(timeline, minutes(240))
    assert view.stalled_since == minutes(120)
    assert view.forecast is None
    # four usual volume times at the pace seen: an hour here (4 pods, 24 in the 2 h it moved... and after)
    assert view.stall_after_seconds >= pace.STALL_FLOOR.total_seconds()
    assert not view_at(timeline, minutes(240), pods=0).stalled  # no pod running: nothing is stuck
    assert not view_at(timeline, minutes(240), running=False).stalled  # paused or finished


def test_the_stall_setting_wins_and_a_campaign_with_nothing_finished_stalls_from_its_start():
    timeline = watched(Curve(lambda t: 0, 30))
    assert view_at(timeline, minutes(30)).stalled_since is None  # 30 min of nothing: not yet (60 by default)
    assert view_at(timeline, minutes(30), stall_minutes=10).stalled_since == T0
    assert view_at(timeline, minutes(61)).stalled_since == T0


def test_restarted_the_status_record_brings_the_timeline_back_and_the_stall_keeps_its_start():
    before = watched(Curve(lambda t: min(int(t / 5), 24), 150))  # stopped moving at 120
    kept = before.record()
    restored = pace.timeline_from_record(kept, "uid-1")
    assert restored.points == before.points and restored.started_at == T0
    # a new process: only what the record kept, then its own readings
    after = watched(Curve(lambda t: 24, 240), start=minutes(200), timeline=restored)
    assert view_at(after, minutes(240)).stalled_since == minutes(120)
    assert pace.timeline_from_record(kept, "another-job") is None  # a re-created Job starts afresh


def test_a_new_job_or_a_count_that_went_down_starts_a_new_timeline():
    timeline = watched(Steady(12, 60))
    again = pace.observe(timeline, minutes(61), 0, "uid-2", minutes(61))
    assert again.job_uid == "uid-2" and again.points == (pace.Point(minutes(61), 0),)
    fewer = pace.observe(timeline, minutes(62), 3, "uid-1", T0)
    assert fewer.points == (pace.Point(minutes(62), 3),)


def test_reaped_a_gone_campaign_keeps_its_timeline_from_the_record_and_says_nothing_of_the_future():
    timeline = watched(Steady(12, 120))
    record = {"metadata": {"name": "campaign-reaped-status"}, "data": {"pace": timeline.record()}}
    campaign = Campaign("htr-batch", "reaped", phase=SUCCEEDED, job_gone=True, parts=["reaped"])
    Timelines().hang_on([campaign], [record], minutes(60 * 24 * 8), None)
    assert campaign.pace.timeline.points == timeline.points
    assert campaign.pace.forecast is None and not campaign.stalled


def test_one_volume_huge_the_last_one_runs_on_and_pages_that_still_move_are_said_so():
    # 39 volumes in 2 h at parallelism 4, then the last one (20 times their size) runs alone.
    timeline = watched(Curve(lambda t: min(int(t * 39 / 120), 39), 300), every=timedelta(seconds=30))
    now = minutes(300)
    view = view_at(timeline, now, total=40, pods=1)
    assert view.stalled_since == minutes(120)  # the cluster alone: nothing finished for 3 h
    moving = PageEvidence(last_written_at=now - timedelta(minutes=1), last_volume="C0074535")
    said = words.stall_sentence(view, now, moving)
    assert said.tone == "warn" and "pages are still being written" in said.text and "C0074535" in said.text
    quiet = PageEvidence(last_written_at=minutes(140), last_volume="C0074535")
    said = words.stall_sentence(view, now, quiet)
    assert said.text.startswith("1 pod running, no volume finished for 3 h and no page for 2 h 40 min: ")
    assert "the last page was finished at 10:20 UTC by C0074535, which has written none since" in said.text
    assert said.tone == "bad" and "Its run log says why." in said.text  # that volume, not a list of places
    # before the stall: the last volume alone needs about one volume's time, whatever the rate says
    early = view_at(watched(Curve(lambda t: min(int(t * 39 / 120), 39), 125)), minutes(125), total=40, pods=1)
    assert early.forecast.latest - minutes(125) >= timedelta(seconds=early.pace.volume_seconds)


def test_too_early_to_say_until_enough_has_finished():
    timeline = watched(Curve(lambda t: 2, 30))
    view = view_at(timeline, minutes(30), stall_minutes=600)
    assert view.too_early.reason == FEW_FINISHED and view.forecast is None
    assert words.forecast_sentence(view, minutes(30)).text == (
        "Too early to say when it will finish: 2 volumes finished so far."
    )
    soon = view_at(watched(Curve(lambda t: 5, 5)), minutes(5))
    assert soon.too_early.reason == TOO_SOON
    done = view_at(watched(Curve(lambda t: 100, 30)), minutes(30))
    assert done.too_early.reason == NOTHING_LEFT


def test_the_app_started_within_the_hour_uses_what_it_saw_then_the_pace_since_start():
    restored = pace.Timeline("uid-1", T0, (pace.Point(minutes(100), 20),), minutes(100))
    timeline = watched(Steady(12, 125), start=minutes(100), timeline=restored)
    view = view_at(timeline, minutes(125))
    assert view.forecast.basis == "recent" and 0 < view.pace.recent_seconds < 3600
    fresh = view_at(pace.observe(None, minutes(125), 25, "uid-1", T0), minutes(125))
    assert fresh.forecast.basis == SINCE_START


# --- the status record and the board's hook -------------------------------------------------------


def running_campaign(done: int, active: int = 4, uid: str = "uid-1") -> Campaign:
    counts = Counts(total=100, done=done, active=active)
    campaign = Campaign("htr-batch", "steady", phase=RUNNING, parts=["steady"], started_at=T0, job_uid=uid)
    campaign.counts = counts
    campaign.parallelism = 4
    campaign.part_states = [PartState("steady", uid, RUNNING, counts, T0)]
    return campaign


def test_the_first_parts_status_record_keeps_the_timeline_and_a_new_process_reads_it_back():
    first = Timelines()
    for minute in range(0, 121, 5):
        campaign = running_campaign(minute // 5)
        first.hang_on([campaign], [], minutes(minute), None)
    writes = status_record_updates(campaign, {})
    kept = writes["campaign-steady-status"]["pace"]
    assert pace.timeline_from_record(kept, "uid-1").points == campaign.pace.timeline.points
    # nothing moved: the same data, no write
    assert status_record_updates(campaign, {"campaign-steady-status": writes["campaign-steady-status"]}) == {}
    second = Timelines()
    again = running_campaign(24)
    second.hang_on([again], [{"metadata": {"name": "campaign-steady-status"}, "data": {"pace": kept}}],
                   minutes(121), None)
    assert again.pace.timeline.points == campaign.pace.timeline.points
    assert again.pace.forecast is not None


def test_a_stalled_campaign_needs_attention_and_its_line_says_since_when():
    board = Timelines()
    for minute in (0, 30, 60, 90):
        campaign = running_campaign(0, active=12)
        board.hang_on([campaign], [], minutes(minute), None)
    assert campaign.stalled and campaign.in_trouble
    assert words.stall_line(campaign.pace) == "Stalled: no volume finished since 08:00 UTC while 12 pods run."
    said = words.stall_sentence(campaign.pace, minutes(90))
    assert said.text.startswith("12 pods running, no volume finished for 1 h 30 min (since 08:00 UTC). ")
    assert "results store" not in said.text and "then" not in said.text  # one thing named, not a list to try
    waiting = words.stall_sentence(campaign.pace, minutes(90), waiting_for_cache=3)
    assert waiting.text == (
        "No volume finished for 1 h 30 min: 3 pods still wait for the model cache (9 others running), "
        "so the warm-up is what holds it back, not a volume."
    )



def test_a_stalled_campaigns_line_says_pods_waiting_for_the_model_cache_wait_and_do_not_run():
    board = Timelines()
    for minute in (0, 30, 60, 90):
        campaign = running_campaign(0, active=12)
        campaign.counts.waiting = 3
        board.hang_on([campaign], [], minutes(minute), None)
    assert words.stall_line(campaign.pace) == (
        "Stalled: no volume finished since 08:00 UTC while 9 pods run and 3 wait for the model cache."
    )
    for minute in (0, 30, 60, 90):
        all_waiting = running_campaign(0, active=2)
        all_waiting.counts.waiting = 2
        board.hang_on([all_waiting], [], minutes(minute), None)
    assert words.stall_line(all_waiting.pace) == (
        "Stalled: no volume finished since 08:00 UTC while 2 pods wait for the model cache."
    )


# --- words ----------------------------------------------------------------------------------------


def test_durations_and_clock_times_are_rounded_so_a_card_does_not_change_every_poll():
    assert words.duration(3 * 3600 + 37 * 60) == "3 h 40 min"
    assert words.duration(7 * 60 + 10) == "8 min"
    assert words.duration(47 * 60) == "50 min"
    assert words.duration(50 * 3600) == "2 d 2 h"
    # Time already gone is rounded down: 1 h 21 min of stall is never told as 1 h 25 min.
    assert words.duration(81 * 60 + 30, up=False) == "1 h 20 min"
    assert words.duration(7 * 60 + 50, up=False) == "7 min"
    assert words.duration(20, up=False) == "1 min"
    assert words.clock(datetime(2026, 5, 4, 16, 43, 10, tzinfo=UTC), T0) == "16:45 UTC today"
    assert words.clock(datetime(2026, 5, 5, 9, 10, tzinfo=UTC), T0) == "09:10 UTC tomorrow"
    assert words.clock(datetime(2026, 5, 7, 9, 10, tzinfo=UTC), T0) == "Thu 7 May 09:10 UTC"


# --- properties -----------------------------------------------------------------------------------

finish_steps = st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(
    steps=finish_steps,
    gap_seconds=st.integers(min_value=5, max_value=1800),
    total=st.integers(min_value=1, max_value=400),
    parallelism=st.integers(min_value=0, max_value=50),
    later=st.integers(min_value=0, max_value=7200),
)
def test_a_forecast_is_never_in_the_past(steps, gap_seconds, total, parallelism, later):
    timeline, finished, at = None, 0, T0
    for step in steps:
        finished = min(total, finished + step)
        at += timedelta(seconds=gap_seconds)
        timeline = pace.observe(timeline, at, finished, "u", T0)
    now = at + timedelta(seconds=later)
    view = view_at(timeline, now, total=total, pods=max(1, parallelism), parallelism=parallelism)
    if view.forecast is not None:
        assert now <= view.forecast.earliest <= view.forecast.latest
        assert words.forecast_sentence(view, now).text.startswith("About ")


@settings(max_examples=200, deadline=None)
@given(
    every_minutes=st.integers(min_value=1, max_value=120),
    total=st.integers(min_value=10, max_value=2000),
    first=st.integers(min_value=1, max_value=200),
    more=st.integers(min_value=1, max_value=200),
    parallelism=st.integers(min_value=1, max_value=40),
)
def test_at_a_steady_pace_more_finished_work_never_widens_the_range(every_minutes, total, first, more, parallelism):
    """A volume finishes every `every_minutes`; the forecast is read as the first-th, then a later one, finishes.

    While more volumes remain than run side by side: for the last ones the range keeps room for one whole
    volume's time (they run in parallel, so the rate no longer says when the last one ends).
    """
    assume(total - (first + more) > parallelism)
    timeline, widths = None, []
    for finished in range(1, min(total - 1, first + more) + 1):
        at = minutes(finished * every_minutes)
        timeline = pace.observe(timeline, at, finished, "u", T0)
        if finished in (first, first + more):
            view = view_at(timeline, at, total=total, parallelism=parallelism, stall_minutes=10_000)
            widths.append(view.forecast.latest - view.forecast.earliest if view.forecast else None)
    if len(widths) == 2 and None not in widths:
        assert widths[1] <= widths[0] + timedelta(seconds=1)


# --- the card -------------------------------------------------------------------------------------


def test_the_cards_sentence_adds_the_pages_its_own_progress_read_saw():
    board = Timelines()
    for minute in range(0, 181, 5):
        campaign = running_campaign(minute // 5)
        board.hang_on([campaign], [], minutes(minute), None)
    now = minutes(180)
    rows = []
    for number, updated in enumerate((minutes(179), minutes(178))):
        row = cards.VolumeRow(Volume(index=40 + number, id=f"C00{number}", state="active"), "")
        read = Progress(done=30, total=60, updated_at=updated, started_at=updated - timedelta(minutes=30))
        row.progress = VolumeProgress(read)
        rows.append(row)
    evidence = cards.page_evidence(rows)
    assert evidence.last_volume == "C000" and evidence.pages_per_hour == 120
    said = cards.pace_sentence(campaign, rows, now)
    assert said.text.startswith("About ") and "about 120 pages an hour in the running volumes now" in said.detail

    stalled = running_campaign(36)
    board.hang_on([stalled], [], minutes(300), None)  # nothing finished for 2 h at 12 an hour: stalled
    said = cards.pace_sentence(stalled, rows, minutes(300))
    assert stalled.stalled and said.tone == "bad"
    assert "the last page was finished at 10:59 UTC by C000, which has written none since." in said.text


def test_the_operators_pace_figure_keeps_two_significant_figures_so_a_card_changes_only_with_news():
    def fact(recent: float, since: float) -> str:
        return pace_fact(CampaignPace(pace=Pace(recent=recent, recent_seconds=3600, since_start=since)))

    assert fact(68.1, 9.74) == "68 volumes/h over the last hour; 9.7 volumes/h since start"
    assert fact(68.1, 1234.0) == fact(67.6, 1190.0)  # a reading that moves the pace a little changes nothing shown
