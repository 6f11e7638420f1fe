"""Wording of the campaign's state chip: each phase with its reason, from the projected scene."""

from __future__ import annotations

import pytest

from campaigns import models
from campaigns.domain.projection import project_one
from campaigns.models import Campaign, Counts
from campaigns.wording.states import campaign_sentence
from devstack import kube_samples as o
from tests.campaigns.said import said


def test_running_campaign_sentence_counts_and_points_at_problems():
    campaign = project_one(o.scene(), "parish-records-1870", o.NOW)
    assert said(campaign).text.startswith("Running: 6 of 12 volumes done, 4 being processed.")
    assert "1 volume failed for good" in said(campaign).text


def test_queued_campaign_sentence_carries_its_queue_reason():
    campaign = project_one(o.scene(), "estate-inventories-1890", o.NOW)
    assert said(campaign).text.startswith("Queued. Waiting its turn")
    assert "job-estate-inventories-1890-4b7c1" in said(campaign).detail


def test_running_campaign_with_a_failed_warmup_says_volumes_cannot_start():
    campaign = project_one(o.scene(), "court-rolls-1650", o.NOW)
    assert "model cache is not ready" in said(campaign).text and said(campaign).tone == "bad"


@pytest.mark.parametrize(
    ("phase", "words"),
    [
        (models.SUCCEEDED, "all 12 volumes done"),
        (models.PARTIALLY_FAILED, "add them to a new campaign"),
        (models.FAILED, "add the volumes to a new campaign"),
        (models.PAUSED, "Paused after 3 of 12 volumes"),
        (models.UNKNOWN, "not known"),
    ],
)
def test_each_phase_has_a_state_sentence(phase, words):
    campaign = Campaign(namespace="htr-batch", name="x", phase=phase, counts=Counts(total=12, done=3, failed=1))
    assert words in campaign_sentence(campaign).text


def test_a_failed_campaign_without_failed_volumes_quotes_the_jobs_end():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="", failed="")
    job["status"]["conditions"] = [o.cond("Failed", reason="DeadlineExceeded", message="Job was active longer than")]
    campaign = project_one(o.scene(jobs=[job], pods=[]), "parish-records-1870", o.NOW)
    assert campaign.phase == models.FAILED
    assert "DeadlineExceeded: Job was active longer than" in said(campaign).text
    assert "Job condition: DeadlineExceeded" in said(campaign).detail


def test_a_gone_campaign_says_its_card_comes_from_records():
    campaign = Campaign(namespace="htr-batch", name="x", phase=models.SUCCEEDED, job_gone=True, counts=Counts(total=2))
    assert "kept from the campaign's records" in campaign_sentence(campaign).text
