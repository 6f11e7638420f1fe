"""Wording: every failure class in its retrying and final form, warm-up states, queue reasons, progress."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from campaigns import models, sentences
from campaigns.models import Campaign, Counts, Progress, QueueState, ResourceFit, Volume, VolumeReason, Warmup
from campaigns.projection import project_one
from tests.campaigns import objects as o

NOW = datetime(2026, 9, 24, 9, 0, tzinfo=UTC)

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
    "config": "deployment problem",
    "setup_permanent": "IIIF manifest could not be read",
    "transient": "processing pages",
    "transient_final": "failed while processing pages",
    "permanent": "loading models",
    "verify": "missing or failed",
    "sigterm": "stopped from outside",
    "deadline": "time budget",
    "oom": "out of memory",
    "evicted": "evicted",
    "warmup_marker": "/data/warmup/swe-lines-v3.done",
    "unknown": "something odd",
}


def volume(state: str, reason: VolumeReason | None, **kwargs) -> Volume:
    values = dict(index=6, id="C0074517", state=state, reason=reason, namespace="htr-batch", pipeline="swe-lines-v3")
    values.update(kwargs)
    return Volume(**values)


def test_every_failure_class_has_a_sentence_in_both_forms():
    assert set(REASONS) == set(models.REASON_KINDS)


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_final_form_says_nothing_runs_it_again_and_to_use_a_new_campaign(kind):
    sentence = sentences.volume_sentence(volume("failed", REASONS[kind], job="court-rolls-1650"))
    assert CAUSE_WORDS[kind] in sentence.text
    assert "new campaign" in sentence.text
    assert "in this campaign" in sentence.text
    assert sentence.tone == "bad"


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_retrying_form_says_what_happens_next_without_giving_up(kind):
    sentence = sentences.volume_sentence(volume("pending", REASONS[kind], attempts=2, retrying=True))
    final = sentences.volume_sentence(volume("failed", REASONS[kind]))
    assert CAUSE_WORDS[kind] in sentence.text
    assert sentence.text != final.text
    assert "new campaign" not in sentence.text
    assert sentence.tone in ("warn", "idle")


# The previous attempt, in the past tense, for a volume whose index runs again now.
PAST_WORDS = {
    "config": "batch settings were incomplete",
    "setup_permanent": "could not read the volume's IIIF manifest",
    "transient": "failed while processing pages (upload failed",
    "transient_final": "failed while processing pages",
    "permanent": "failed while loading models (pipeline step Foo is unknown)",
    "verify": "left some pages missing or failed",
    "sigterm": "was stopped from outside",
    "deadline": "ran out of its time budget",
    "oom": "ran out of memory",
    "evicted": "was evicted from its node",
    "warmup_marker": "gave up waiting for the model cache",
    "unknown": "failed (something odd)",
}


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_a_volume_running_again_puts_the_earlier_failure_in_the_past(kind):
    text = sentences.volume_sentence(volume("active", REASONS[kind], attempts=1, retrying=True)).text
    assert text.startswith("Running again (attempt 2 of 4): the previous attempt ")
    assert PAST_WORDS[kind] in text
    assert "next attempt" not in text and "is tried again" not in text and "new campaign" not in text


def test_a_volume_running_again_after_a_cause_retrying_cannot_fix_warns_it_will_fail_again():
    text = sentences.volume_sentence(volume("active", REASONS["permanent"], attempts=1, retrying=True)).text
    assert "will most likely fail the same way" in text
    calm = sentences.volume_sentence(volume("active", REASONS["deadline"], attempts=1, retrying=True))
    assert "nothing to do" in calm.text and calm.tone == "info"


def test_a_volume_waiting_for_the_cache_is_not_said_to_run_again():
    waiting = volume("active", REASONS["warmup_marker"], attempts=1, retrying=True, waiting_for_cache=True)
    assert "Running again" not in sentences.volume_sentence(waiting).text


def test_retrying_transient_says_it_is_retried_by_itself_and_counts_attempts():
    text = sentences.volume_sentence(volume("pending", REASONS["transient"], attempts=2)).text
    assert "tried again automatically" in text
    assert "2 of 4 attempts failed so far" in text
    assert "Nothing to do" in text


def test_a_transient_failure_shown_on_a_failed_volume_reads_as_final():
    text = sentences.volume_sentence(volume("failed", REASONS["transient"])).text
    assert "last attempt" in text and "spent its retries" in text


def test_marker_timeout_names_the_marker_the_warmup_job_and_the_wait():
    sentence = sentences.volume_sentence(volume("failed", REASONS["warmup_marker"]))
    assert "/data/warmup/swe-lines-v3.done" in sentence.text
    assert "htr-warmup-swe-lines-v3" in sentence.text
    assert "15 min" in sentence.text
    assert "warm-up" in sentence.text


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
    sentence = sentences.volume_sentence(volume("failed", reason, index=4, job="parish-records-1870"))
    assert "pod parish-records-1870-4-x4a1b" in sentence.detail and "exit code 13" in sentence.detail
    assert "Job parish-records-1870" in sentence.detail
    assert "kubectl -n htr-batch logs parish-records-1870-4-x4a1b -c wrapper" in sentence.commands


def test_long_errors_are_quoted_short_and_kept_bounded_in_the_detail():
    reason = VolumeReason(stage="stream", permanent=True, error="<script>" + "x" * 5000, kind="permanent")
    sentence = sentences.volume_sentence(volume("failed", reason))
    assert len(sentence.text) < 1000
    assert len(sentence.detail) <= models.TEXT_LIMIT + 200


def test_an_unknown_kind_or_stage_gets_a_general_sentence():
    odd = VolumeReason(stage="teleport", error="", kind="not-a-kind")
    text = sentences.volume_sentence(volume("failed", odd)).text
    assert "working on the volume" in text and "new campaign" in text
    assert sentences.stage_words(None) == "working on the volume"


@pytest.mark.parametrize(
    ("state", "words"),
    [
        ("done", "Done"),
        ("active", "processed now"),
        ("pending", "starts by itself"),
        ("failed", "pod that would say why is gone"),
        ("unknown", "not known"),
    ],
)
def test_volumes_without_a_reason_still_get_a_sentence(state, words):
    assert words in sentences.volume_sentence(volume(state, None)).text


def test_a_volume_waiting_for_the_cache_says_so():
    text = sentences.volume_sentence(volume("active", None, waiting_for_cache=True)).text
    assert "model cache" in text and "by itself" in text


# ---------------------------------------------------------------------------------------------
# Warm-up


def warmup(state: str, **kwargs) -> Warmup:
    values = dict(
        pipeline="swe-lines-v3",
        state=state,
        job_name="htr-warmup-swe-lines-v3",
        recipe_sha256=o.RECIPE_V3,
        cache_dir=f"/swe-lines-v3-{o.RECIPE_V3}/",
        marker_path="/data/warmup/swe-lines-v3.done",
    )
    values.update(kwargs)
    return Warmup(**values)


def test_failed_warmup_quotes_its_message_and_says_applying_again_replaces_it():
    reason = VolumeReason(stage="warmup", permanent=True, error=o.WARMUP_ERROR_V3)
    sentence = sentences.warmup_sentence(warmup("failed", message=o.WARMUP_ERROR_V3, reason=reason), "htr-batch")
    assert "Repository Not Found" in sentence.text
    assert "will not fix itself" in sentence.text and "apply again" in sentence.text
    assert o.RECIPE_V3 in sentence.detail and f"/swe-lines-v3-{o.RECIPE_V3}/" in sentence.detail
    assert "kubectl -n htr-batch logs job/htr-warmup-swe-lines-v3 --tail=50" in sentence.commands


def test_transiently_failed_warmup_says_it_may_pass():
    reason = VolumeReason(stage="warmup", permanent=False, error="connection reset")
    text = sentences.warmup_sentence(warmup("failed", message="connection reset", reason=reason)).text
    assert "may have been temporary" in text


def test_complete_warmup_without_a_marker_gives_the_known_causes_and_the_fix():
    sentence = sentences.warmup_sentence(warmup("succeeded", marker_missing=True), "htr-batch")
    for words in ("runtimeClassName", "nodeSelector", "tolerations", "ReadWriteOnce", "/data/warmup/swe-lines-v3.done"):
        assert words in sentence.text
    assert "kubectl -n htr-batch delete job htr-warmup-swe-lines-v3" in sentence.commands


@pytest.mark.parametrize(
    ("state", "words", "tone"),
    [
        ("succeeded", "is ready", "ok"),
        ("running", "start by themselves", "info"),
        ("pending", "has not started yet", "idle"),
        ("missing", "creates the warm-up Job htr-warmup-swe-lines-v3", "warn"),
        ("strange", "not known", "idle"),
    ],
)
def test_each_warmup_state_has_its_sentence(state, words, tone):
    sentence = sentences.warmup_sentence(warmup(state))
    assert words in sentence.text
    assert sentence.tone == tone


# ---------------------------------------------------------------------------------------------
# Queue


def queue(kind: str, **kwargs) -> QueueState:
    values = dict(
        kind=kind,
        workload_name="job-estate-inventories-1890-4b7c1",
        queue_name="htr-batch",
        cluster_queue="htr-batch-cq",
    )
    values.update(kwargs)
    return QueueState(**values)


def test_waiting_its_turn_says_how_many_are_ahead_and_who_holds_the_quota():
    sentence = sentences.queue_sentence(queue("waiting", ahead=3, holders=["parish-records-1870"]), "htr-batch")
    assert "3 campaigns ahead" in sentence.text
    assert "parish-records-1870" in sentence.text
    assert "by itself" in sentence.text
    assert "kubectl get clusterqueue htr-batch-cq -o yaml" in sentence.commands
    assert "1 campaign ahead" in sentences.queue_sentence(queue("waiting", ahead=1)).text


def test_never_fits_says_what_it_asks_against_the_quota_and_to_lower_window():
    fits = [ResourceFit("nvidia.com/gpu", "8", "4", False), ResourceFit("cpu", "32", "64", True)]
    text = sentences.queue_sentence(queue("never_fits", fits=fits)).text
    assert "nvidia.com/gpu: asks 8, quota 4" in text
    assert "cpu: asks" not in text
    assert "lower `window` in converter.yaml" in text
    assert "will not fix itself" in text


def test_missing_priority_class_names_it_and_the_classes_to_use():
    text = sentences.queue_sentence(queue("no_workload_priority_class", priority_class="htr-urgent")).text
    assert "`htr-urgent`" in text
    for name in ("htr-interactive", "htr-bulk", "htr-idle"):
        assert name in text


def test_kueue_silent_asks_whether_kueue_is_running():
    sentence = sentences.queue_sentence(queue("kueue_silent", workload_name=""), "htr-batch", "estate-inventories-1890")
    assert "Kueue" in sentence.text and "running" in sentence.text
    assert sentence.commands[0] == "kubectl -n kueue-system get pods"
    assert "no Workload" in sentence.detail


def test_paused_in_git_says_to_remove_suspend_and_apply():
    text = sentences.queue_sentence(queue("paused")).text
    assert "remove" in text and "`suspend: true`" in text and "applies again" in text


def test_inadmissible_quotes_kueue():
    text = sentences.queue_sentence(queue("inadmissible", message="ClusterQueue htr-batch-cq is inactive")).text
    assert "ClusterQueue htr-batch-cq is inactive" in text


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("no_workload_yet", "not picked it up yet"),
        ("evicted", "resumes from finished pages"),
        ("preempted", "more urgent campaign"),
        ("not_looked_at", "has not looked at it yet"),
        ("admitted", "Admitted"),
        ("something-new", "reason it waits is not known"),
    ],
)
def test_each_other_queue_reason_has_its_sentence(kind, words):
    assert words in sentences.queue_sentence(queue(kind, reason="Preempted" if kind == "evicted" else "")).text


# ---------------------------------------------------------------------------------------------
# Progress and ages


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0 s"), (12, "12 s"), (240, "4 min"), (3 * 3600 + 5, "3 h"), (3 * 86400, "3 d")]
)
def test_human_ages(seconds, text):
    assert sentences.human_age(seconds) == text


def test_progress_sentence_names_the_stage_and_its_age():
    progress = Progress(done=137, total=412, stage="stream", age_seconds=12)
    assert sentences.progress_sentence(progress, NOW) == "processing pages · updated 12 s ago"


def test_progress_sentence_from_the_update_time_when_no_age_was_computed():
    progress = Progress(done=1, total=2, stage="load", updated_at=NOW - timedelta(minutes=4))
    assert sentences.progress_sentence(progress, NOW) == "loading models · updated 4 min ago"


def test_stale_progress_says_no_update_for():
    progress = Progress(done=1, total=2, stage="stream", age_seconds=1500)
    assert sentences.progress_sentence(progress, NOW) == "processing pages · no update for 25 min"


def test_progress_with_an_unknown_stage_or_none_still_reads():
    assert sentences.progress_sentence(Progress(done=0, total=1, stage="warp"), NOW) == "working on the volume"
    assert sentences.progress_sentence(None, NOW) == "no progress reported yet"


# ---------------------------------------------------------------------------------------------
# Campaign state sentences, from the projected scene


def test_running_campaign_sentence_counts_and_points_at_problems():
    campaign = project_one(o.scene(), "parish-records-1870", o.NOW)
    assert campaign.sentence.text.startswith("Running: 6 of 12 volumes done, 4 being processed.")
    assert "1 volume failed for good" in campaign.sentence.text


def test_queued_campaign_sentence_carries_its_queue_reason():
    campaign = project_one(o.scene(), "estate-inventories-1890", o.NOW)
    assert campaign.sentence.text.startswith("Queued. Waiting its turn")
    assert "job-estate-inventories-1890-4b7c1" in campaign.sentence.detail


def test_running_campaign_with_a_failed_warmup_says_volumes_cannot_start():
    campaign = project_one(o.scene(), "court-rolls-1650", o.NOW)
    assert "model cache is not ready" in campaign.sentence.text and campaign.sentence.tone == "bad"


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
    assert words in sentences.campaign_sentence(campaign).text


def test_a_failed_campaign_without_failed_volumes_quotes_the_jobs_end():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="", failed="")
    job["status"]["conditions"] = [o.cond("Failed", reason="DeadlineExceeded", message="Job was active longer than")]
    campaign = project_one(o.scene(jobs=[job], pods=[]), "parish-records-1870", o.NOW)
    assert campaign.phase == models.FAILED
    assert "DeadlineExceeded: Job was active longer than" in campaign.sentence.text
    assert "Job condition: DeadlineExceeded" in campaign.sentence.detail


def test_a_gone_campaign_says_its_card_comes_from_records():
    campaign = Campaign(namespace="htr-batch", name="x", phase=models.SUCCEEDED, job_gone=True, counts=Counts(total=2))
    assert "kept from the campaign's records" in sentences.campaign_sentence(campaign).text


def test_a_pending_volume_of_a_held_campaign_does_not_promise_to_start_by_itself():
    pending = Volume(index=0, id="C1", state="pending", namespace="htr-batch", pipeline="p")
    assert "starts by itself" in sentences.volume_sentence(pending).text
    held = sentences.volume_sentence(pending, held=True).text
    assert "starts by itself" not in held and "held back" in held


def test_waiting_its_turn_names_the_campaigns_ahead_and_writes_parts_as_people_know_them():
    queue = models.QueueState(
        kind="waiting", ahead=2, ahead_names=["poll-tax-1810-part2", "census-1880"], holders=["land-1820-part1"]
    )
    text = sentences.queue_sentence(queue).text
    assert "2 campaigns ahead (poll-tax-1810 (part 2), census-1880)" in text
    assert "in use by land-1820 (part 1)" in text
    assert "part2" not in text


def test_a_stored_reason_keeps_the_stage_its_text_shows():
    from campaigns.projection import _record_reason

    stored = "page 0003: upload of alto/0003.xml failed after 5 attempts: UploadOutage: 503 SlowDown"
    reason = _record_reason(stored, final=True)
    text = sentences.volume_sentence(volume("failed", reason)).text
    assert text.startswith("Its last attempt failed while processing pages (page 0003")
    unstaged = sentences.volume_sentence(volume("failed", _record_reason("something odd", final=True))).text
    assert unstaged.startswith("Its last attempt failed (something odd).")


def test_a_failed_warm_up_message_drops_request_ids_and_ends_with_one_ellipsis():
    message = (
        "404 Client Error. (Request ID: Root=1-66f2a9c1-3b7d0e52a81f4c6d9e2b7a10) Repository Not Found for url: "
        "https://huggingface.co/api/models/Riksarkivet/trocr-9/revision/5e4d3c2b. " + "Please check the name. " * 30
    )
    warmup = models.Warmup(pipeline="swe-lines-v3", state="failed", message=message)
    text = sentences.warmup_sentence(warmup).text
    assert "Request ID" not in text and "Root=1-" not in text
    assert "404 Client Error. Repository Not Found" in text
    assert text.count("…") == 1 and "…." not in text and "(…). Volumes" in text
