"""Wording of volumes: every failure class in its retrying and final form, running again, plain states."""

from __future__ import annotations

import re

import pytest

from campaigns import models
from campaigns.domain.projection import record_reason
from campaigns.models import Volume, VolumeReason
from campaigns.wording.reasons import REASON_WORDS
from campaigns.wording.volumes import volume_sentence
from campaigns.wording.words import stage_words
from devstack import kube_samples as o

REASONS = {
    "config": VolumeReason(stage="config", permanent=True, error="S3_BUCKET is not set", kind="config"),
    "setup_permanent": VolumeReason(stage="setup", permanent=True, error=o.MANIFEST_404, kind="setup_permanent"),
    "transient": VolumeReason(stage="stream", permanent=False, error="upload failed: UploadOutage", kind="transient"),
    "transient_final": VolumeReason(
        stage="stream", permanent=False, error="upload failed: UploadOutage", kind="transient_final"
    ),
    "permanent": VolumeReason(stage="load", permanent=True, error="pipeline step Foo is unknown", kind="permanent"),
    "verify": VolumeReason(
        stage="verify", permanent=False, error="verify failed: 2 missing, 1 failed missing=[0012, 0044]", kind="verify"
    ),
    "sigterm": VolumeReason(stage="stream", permanent=False, error="SIGTERM", exit_code=143, kind="sigterm"),
    "deadline": VolumeReason(stage="stream", permanent=False, error="SIGTERM", exit_code=143, kind="deadline"),
    "oom": VolumeReason(error="OOMKilled, exit code 137", exit_code=137, kind="oom"),
    "evicted": VolumeReason(error="The node was low on resource: memory.", kind="evicted"),
    "warmup_marker": VolumeReason(
        error=o.MARKER_LINE_V3.strip(), exit_code=13, container="warmup-wait", kind="warmup_marker"
    ),
    "unknown": VolumeReason(error="something odd", kind="unknown"),
}

# What each class must say, in either form: the cause in plain words.
CAUSE_WORDS = {
    "config": "settings of the installation are incomplete",
    "setup_permanent": "IIIF manifest) could not be read",
    "transient": "processing pages",
    "transient_final": "failed while processing pages",
    "permanent": "loading models",
    "verify": "missing or failed",
    "sigterm": "stopped from outside",
    "deadline": "time budget",
    "oom": "out of memory",
    "evicted": "machine it ran on stopped the volume",
    "warmup_marker": "waited 15 min for the cache",
    "unknown": "attempt failed",
}


def volume(state: str, reason: VolumeReason | None, **kwargs) -> Volume:
    values = dict(index=6, id="C0074517", state=state, reason=reason, namespace="htr-batch", pipeline="swe-lines-v3")
    values.update(kwargs)
    return Volume(**values)


def test_every_failure_class_has_a_sentence_in_both_forms():
    assert set(REASONS) == set(models.REASON_KINDS)
    assert set(REASON_WORDS) == set(models.REASON_KINDS)


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_final_form_says_nothing_runs_it_again_and_to_use_a_new_campaign(kind):
    sentence = volume_sentence(volume("failed", REASONS[kind], job="court-rolls-1650"))
    assert CAUSE_WORDS[kind] in sentence.text
    assert "new campaign" in sentence.text
    assert "in this campaign" in sentence.text
    assert sentence.tone == "bad"


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_retrying_form_says_what_happens_next_without_giving_up(kind):
    sentence = volume_sentence(volume("pending", REASONS[kind], attempts=2, retrying=True))
    final = volume_sentence(volume("failed", REASONS[kind]))
    assert CAUSE_WORDS[kind] in sentence.text
    assert sentence.text != final.text
    assert "new campaign" not in sentence.text
    assert sentence.tone in ("warn", "idle")

# The previous attempt, in the past tense, for a volume whose index runs again now.
PAST_WORDS = {
    "config": "settings of the installation were incomplete",
    "setup_permanent": "could not read the volume's list of pages (its IIIF manifest)",
    "transient": "failed while processing pages.",
    "transient_final": "failed while processing pages",
    "permanent": "failed while loading models.",
    "verify": "left some pages missing or failed",
    "sigterm": "was stopped from outside",
    "deadline": "ran out of its time budget",
    "oom": "ran out of memory",
    "evicted": "was stopped by the machine it ran on",
    "warmup_marker": "gave up waiting for the model cache",
    "unknown": "the previous attempt failed.",
}


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_a_volume_running_again_puts_the_earlier_failure_in_the_past(kind):
    text = volume_sentence(volume("active", REASONS[kind], attempts=1, retrying=True)).text
    assert text.startswith("Running again (attempt 2 of 4): the previous attempt ")
    assert PAST_WORDS[kind] in text
    assert "next attempt" not in text and "is tried again" not in text and "new campaign" not in text


def test_a_volume_running_again_after_a_cause_retrying_cannot_fix_warns_it_will_fail_again():
    text = volume_sentence(volume("active", REASONS["permanent"], attempts=1, retrying=True)).text
    assert "will most likely fail the same way" in text
    calm = volume_sentence(volume("active", REASONS["deadline"], attempts=1, retrying=True))
    assert "Nothing to do" in calm.text and calm.tone == "info"


def test_a_volume_waiting_for_the_cache_is_not_said_to_run_again():
    waiting = volume("active", REASONS["warmup_marker"], attempts=1, retrying=True, waiting_for_cache=True)
    assert "Running again" not in volume_sentence(waiting).text


def test_retrying_transient_says_it_is_retried_by_itself_and_counts_attempts():
    text = volume_sentence(volume("pending", REASONS["transient"], attempts=2)).text
    assert "tried again by itself" in text
    assert "2 of 4 attempts failed so far" in text
    assert "Nothing to do" in text


def test_a_transient_failure_shown_on_a_failed_volume_reads_as_final():
    text = volume_sentence(volume("failed", REASONS["transient"])).text
    assert "last attempt" in text and "spent its retries" in text


def test_marker_timeout_says_the_wait_in_plain_words_and_leaves_the_marker_to_the_detail():
    sentence = volume_sentence(volume("failed", REASONS["warmup_marker"]))
    assert "waited 15 min for the cache" in sentence.text and "model cache" in sentence.text
    assert "/data/warmup/swe-lines-v3.done" not in sentence.text and "htr-warmup" not in sentence.text
    assert "/data/warmup/swe-lines-v3.done" in sentence.detail  # the operator's: the wait line as the pod gave it


def test_operator_detail_names_the_pod_container_and_exit_code_with_commands():
    reason = VolumeReason(
        stage="setup",
        permanent=True,
        error=o.MANIFEST_404,
        kind="setup_permanent",
        pod_name="parish-records-1870-4-x4a1b",
        container="wrapper",
        exit_code=13,
    )
    sentence = volume_sentence(volume("failed", reason, index=4, job="parish-records-1870"))
    assert "pod parish-records-1870-4-x4a1b" in sentence.detail and "exit code 13" in sentence.detail
    assert "Job parish-records-1870" in sentence.detail
    assert "kubectl -n htr-batch logs parish-records-1870-4-x4a1b -c wrapper" in sentence.commands


def test_long_errors_are_quoted_short_and_kept_bounded_in_the_detail():
    reason = VolumeReason(stage="stream", permanent=True, error="<script>" + "x" * 5000, kind="permanent")
    sentence = volume_sentence(volume("failed", reason))
    assert len(sentence.text) < 1000
    assert len(sentence.detail) <= models.TEXT_LIMIT + 200


def test_an_unknown_kind_or_stage_gets_a_general_sentence():
    odd = VolumeReason(stage="teleport", error="", kind="not-a-kind")
    text = volume_sentence(volume("failed", odd)).text
    assert "working on the volume" in text and "new campaign" in text
    assert stage_words(None) == "working on the volume"


@pytest.mark.parametrize(
    ("state", "words"),
    [
        ("done", "Done"),
        ("active", "processed now"),
        ("pending", "starts by itself"),
        ("failed", "what would have said why is gone"),
        ("unknown", "not known"),
    ],
)
def test_volumes_without_a_reason_still_get_a_sentence(state, words):
    assert words in volume_sentence(volume(state, None)).text


def test_a_volume_waiting_for_the_cache_says_so():
    text = volume_sentence(volume("active", None, waiting_for_cache=True)).text
    assert "model cache" in text and "by itself" in text


def test_a_pending_volume_of_a_held_campaign_does_not_promise_to_start_by_itself():
    pending = Volume(index=0, id="C1", state="pending", namespace="htr-batch", pipeline="p")
    assert "starts by itself" in volume_sentence(pending).text
    held = volume_sentence(pending, held=True).text
    assert "starts by itself" not in held and "held back" in held


def test_a_stored_reason_keeps_the_stage_its_text_shows():
    stored = "page 0003: upload of alto/0003.xml failed after 5 attempts: UploadOutage: 503 SlowDown"
    reason = record_reason(stored, final=True)
    sentence = volume_sentence(volume("failed", reason))
    assert sentence.text.startswith("Its last attempt failed while processing pages.")
    assert "page 0003: upload of alto/0003.xml" in sentence.detail
    unstaged = volume_sentence(volume("failed", record_reason("something odd", final=True)))
    assert unstaged.text.startswith("Its last attempt failed.") and "something odd" in unstaged.detail


# Kubernetes words and raw error text an archivist is not expected to read; the row's sentence has none.
JARGON = re.compile(
    r"\b(pods?|nodes?|jobs?|kubectl|containers?|markers?|namespaces?|exit code|usually|automatically)\b|/data/",
    re.IGNORECASE,
)
WHO_ACTS = re.compile(r"Nothing to do|by itself|an operator|the person who wrote the campaign", re.IGNORECASE)


@pytest.mark.parametrize("kind", sorted(REASONS))
@pytest.mark.parametrize("state", ["failed", "pending"])
def test_each_row_says_in_plain_words_what_happened_and_who_acts_and_keeps_the_error_for_the_detail(kind, state):
    reason = REASONS[kind]
    sentence = volume_sentence(volume(state, reason, job="court-rolls-1650", attempts=1, retrying=state != "failed"))
    assert JARGON.search(sentence.text) is None, JARGON.search(sentence.text)
    assert WHO_ACTS.search(sentence.text), sentence.text
    assert reason.error not in sentence.text
    assert reason.error in sentence.detail


def test_the_time_budget_is_the_jobs_own():
    budget = volume_sentence(volume("failed", REASONS["deadline"], time_budget=5400)).text
    assert "ran out of its time budget (1 h 30 min per attempt)" in budget
    assert "time budget." in volume_sentence(volume("failed", REASONS["deadline"])).text  # not read: no number
