"""One account of each state (issue 35, items 8 and 9): a card's rows, its chips, the list and the API say the
same of the warm-up, of a campaign paused in git, of who is ahead in line, of a stall and of the forecast. On
the namespace's realistic objects (devstack.kube_samples), worded as a page words them when rendered."""

from __future__ import annotations

import re
from datetime import timedelta

from campaigns.domain.timelines import Timelines
from campaigns.models import PAUSED, QUEUED, Progress
from campaigns.presentation.cards import pace_sentence
from campaigns.presentation.pace_chart import chart_for
from campaigns.wording.pace import forecast_sentence
from campaigns.wording.progress import progress_sentence
from campaigns.wording.warmup import campaign_warmup_sentence
from devstack import kube_samples as o
from tests.campaigns.domain.test_pace import minutes, running_campaign
from tests.campaigns.domain.test_projection import one
from tests.campaigns.said import said

COURT = "court-rolls-1650"
ESTATE = "estate-inventories-1890"


def court_with_warmup(*warmups: dict):
    scene = o.scene(warmup_jobs=[o.warmup_job(o.PIPELINE), *warmups])
    court = one(scene, COURT)
    row = next(v for v in court.failures if v.reason is not None and v.reason.kind == "warmup_marker")
    return court, row


def test_the_row_says_the_warmup_failed_when_its_chip_does():
    court, row = court_with_warmup(o.warmup_job(o.PIPELINE_V3, state="failed", recipe=o.RECIPE_V3, pod_suffix="q7k2m"))
    assert court.warmup.state == "failed" and court.warmup.shows_chip and row.warmup_state == "failed"
    chip, text = campaign_warmup_sentence(court).text, said(row).text
    assert "model cache for swe-lines-v3 could not be filled" in chip
    assert "because filling the model cache failed" in text
    assert "not filled yet" not in text and "chip" not in text


def test_the_row_says_the_warmup_still_runs_when_it_does():
    _court, row = court_with_warmup(o.warmup_job(o.PIPELINE_V3, state="running", recipe=o.RECIPE_V3))
    assert row.warmup_state == "running"
    assert "not filled yet; it is still being filled" in said(row).text


def test_a_warmup_complete_before_the_pod_gave_up_is_said_as_its_marker_missing():
    done = o.warmup_job(o.PIPELINE_V3, recipe=o.RECIPE_V3, finished="2026-09-24T06:20:00Z")  # before 06:35:14
    court, row = court_with_warmup(done)
    assert court.warmup.marker_missing and court.warmup.shows_chip and row.warmup_state == "marker_missing"
    text = said(row).text
    assert "although the model cache had been filled: the volume did not find it" in text
    assert "not filled yet" not in text


def test_a_warmup_complete_since_shows_no_chip_and_no_row_points_at_one():
    done = o.warmup_job(o.PIPELINE_V3, recipe=o.RECIPE_V3, finished="2026-09-24T08:00:00Z")  # after the pod gave up
    court, row = court_with_warmup(done)
    assert not court.warmup.shows_chip and row.warmup_state == "succeeded"
    text = said(row).text
    assert "it has been filled since" in text and "chip" not in text.lower()


def test_a_missing_warmup_is_said_as_missing():
    _court, row = court_with_warmup()
    assert row.warmup_state == "missing"
    assert "because nothing fills the model cache of its pipeline" in said(row).text


def paused_in_git(workload: dict) -> dict:
    workload["spec"]["active"] = False
    return workload


def test_paused_in_git_is_paused_whether_or_not_a_volume_finished_before():
    before = one(o.scene(workloads=[o.admitted_workload(), paused_in_git(o.pending_workload())]), ESTATE)
    after = one(
        o.scene(
            jobs=[o.running_job(suspend=True, active=0)], workloads=[paused_in_git(o.admitted_workload())], pods=[]
        ),
        "parish-records-1870",
    )
    for campaign in (before, after):
        assert campaign.phase == PAUSED and campaign.phase_key == "paused" and campaign.queue.kind == "paused"
        assert said(campaign).text.startswith("Paused")
        assert campaign.status_record_data()["phase"] == "Paused"  # the record the read API answers from
    assert said(before).text.startswith("Paused before any volume finished.")
    # one the queue only holds back is still Queued
    assert one(o.scene(), ESTATE).phase == QUEUED


def never_fits_ahead(reason: str, message: str) -> dict:
    return o.workload(
        "huge-campaign-1700",
        "aaaaaaaa-1111-4222-8333-444444444444",
        suffix="a1b2c",
        created="2026-09-24T08:00:00Z",  # before the estate campaign: it would go first
        template=False,
        conditions=[o.cond("QuotaReserved", "False", reason, message, at="2026-09-24T08:00:01Z")],
    )


def test_a_campaign_that_can_never_start_is_not_ahead_in_line():
    too_big = (
        "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor default-flavor, "
        "request > maximum capacity (24 > 16)"
    )
    for reason in ("ExceedsMaxQuota", "Pending"):  # Kueue >= 0.19 says so; older Kueue only in its message
        scene = o.scene(workloads=[o.admitted_workload(), o.pending_workload(), never_fits_ahead(reason, too_big)])
        queue = one(scene, ESTATE).queue
        assert queue.kind == "waiting" and queue.ahead == 0 and queue.ahead_names == []
    waits = never_fits_ahead("WaitingForQuota", o.PENDING_MESSAGE)  # one that will fit once quota frees up
    queue = one(o.scene(workloads=[o.admitted_workload(), o.pending_workload(), waits]), ESTATE).queue
    assert queue.ahead == 1 and queue.ahead_names == ["huge-campaign-1700"]


def test_a_stall_whose_pods_wait_for_the_model_cache_names_the_warmup_not_a_list():
    board = Timelines()
    for minute in (0, 40, 80):
        now = o.NOW + timedelta(minutes=minute)
        court = one(o.scene(read_at=now), COURT, now)
        board.hang_on([court], [], now, 30)  # HTRFLOW_STALL_MINUTES=30
    assert court.stalled and court.counts.waiting == 2
    text = pace_sentence(court, [], now).text
    assert "2 pods still wait for the model cache, so the warm-up is what holds it back" in text
    assert "run log" not in text and "results store" not in text


def test_a_rows_progress_age_and_the_log_viewers_age_are_named_apart():
    stale = o.NOW - timedelta(hours=1)
    line = progress_sentence(Progress(done=3, total=9, stage="stream", updated_at=stale), o.NOW)
    assert line == "processing pages · no page finished for 1 h"  # the log viewer says "log written N s ago"
    assert "update" not in line


def test_the_headline_and_the_chart_say_the_same_forecast():
    board = Timelines()
    for minute in range(0, 181, 5):
        campaign = running_campaign(minute // 5)
        board.hang_on([campaign], [], minutes(minute) + timedelta(seconds=37), None)
    now = minutes(180) + timedelta(seconds=37)
    forecast = campaign.pace.forecast
    assert forecast is not None and forecast.earliest.minute % 5 == 0 and forecast.latest.second == 0
    headline = forecast_sentence(campaign.pace, now).text
    chart = chart_for(campaign, now, "steady-chart").sentence
    said_times = re.findall(r"\d\d:\d\d", headline)
    drawn = re.search(r"finished between (\d\d:\d\d) UTC and (\d\d:\d\d) UTC", chart)
    assert drawn is not None and said_times == list(drawn.groups())
