"""The projection rules, one test per rule, on whole realistic objects (see objects.py)."""

from __future__ import annotations

import copy
import gc
import json
from datetime import timedelta

from campaigns import models
from campaigns.domain.projection import (
    parse_quantity,
    parse_volumes_txt,
    project,
    project_one,
    record_updates,
    sort_campaigns,
    status_record_update,
    status_record_updates,
)
from campaigns.domain.ranges import format_ranges, parse_ranges
from campaigns.models import Snapshot, parse_time, progress_from_json
from devstack import kube_samples as o
from devstack.scene_kube import CONDITION_AT
from tests.campaigns.said import said


def one(snapshot: Snapshot, name: str, now=o.NOW):
    campaign = project_one(snapshot, name, now)
    assert campaign is not None, f"{name} not projected"
    return campaign


def only(jobs, **overrides) -> Snapshot:
    """A scene holding just these Jobs (records, pipelines and warm-ups stay)."""
    return o.scene(jobs=jobs, **overrides)


# ---------------------------------------------------------------------------------------------
# Phase


def test_job_with_complete_condition_is_succeeded():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="0-11")
    campaign = one(only([job]), "parish-records-1870")
    assert campaign.phase == models.SUCCEEDED
    assert campaign.phase_key == "succeeded"
    assert campaign.finished_at is not None and campaign.finished_at.isoformat() == "2026-09-24T08:50:00+00:00"
    assert all(v.state == "done" for v in campaign.volumes)


def test_failed_job_with_completed_indexes_is_partially_failed():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="0-3,5-11", failed="4")
    campaign = one(only([job]), "parish-records-1870")
    assert campaign.phase == models.PARTIALLY_FAILED
    assert campaign.phase_key == "partially-failed"
    assert (campaign.counts.done, campaign.counts.failed) == (11, 1)
    # finished time from the Failed condition when there is no completionTime
    assert campaign.finished_at is not None


def test_failed_job_with_nothing_completed_is_failed():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="", failed="0-11")
    assert one(only([job]), "parish-records-1870").phase == models.FAILED


def test_suspended_job_with_nothing_finished_is_queued():
    assert one(o.scene(), "estate-inventories-1890").phase == models.QUEUED


def test_suspended_job_after_a_finished_volume_is_paused():
    job = o.running_job(suspend=True, active=0)
    campaign = one(only([job], pods=[]), "parish-records-1870")
    assert campaign.phase == models.PAUSED
    assert campaign.suspended is True


def test_unsuspended_job_without_an_end_condition_is_running():
    campaign = one(o.scene(), "parish-records-1870")
    assert campaign.phase == models.RUNNING
    assert campaign.finished_at is None


def test_job_conditions_are_read_by_type_not_by_position():
    end = "2026-09-24T08:50:00Z"
    job = o.running_job(
        completed="0-11",
        failed="",
        active=0,
        conditions=[
            o.cond("Complete", at=end),
            o.cond("Failed", "False", at=end),
            o.cond("Suspended", "False", "JobResumed"),
        ],
    )
    assert one(only([job]), "parish-records-1870").phase == models.SUCCEEDED
    job["status"]["conditions"] = [o.cond("Complete", "False"), o.cond("Suspended", "False", "JobResumed")]
    assert one(only([job]), "parish-records-1870").phase == models.RUNNING


def test_success_criteria_met_counts_as_the_end_before_complete_appears():
    job = o.running_job(completed="0-11", failed="", active=0)
    job["status"]["conditions"].append(o.cond("SuccessCriteriaMet", reason="CompletionsReached"))
    assert one(only([job]), "parish-records-1870").phase == models.SUCCEEDED


def test_campaign_known_only_from_records_with_a_non_final_stored_phase_is_unknown():
    snapshot = o.scene(jobs=[])
    campaign = one(snapshot, "parish-records-1870")
    assert campaign.job_gone is True
    assert campaign.phase == models.UNKNOWN
    assert campaign.stored_phase == "Running"
    assert "removed" in said(campaign).text


def test_a_campaign_with_only_its_volume_list_is_unknown_and_says_its_job_may_not_exist_yet():
    snapshot = o.scene(jobs=[], status_records=[])
    campaign = one(snapshot, "estate-inventories-1890")
    assert campaign.job_gone is True and campaign.phase == models.UNKNOWN
    assert campaign.counts.total == 12 and {v.state for v in campaign.volumes} == {"unknown"}
    assert "not been created yet" in said(campaign).text


def test_campaign_known_only_from_records_keeps_its_final_phase():
    campaign = one(o.scene(), "county-tax-1790")
    assert campaign.job_gone is True
    assert campaign.phase == models.PARTIALLY_FAILED
    assert (campaign.counts.total, campaign.counts.done, campaign.counts.failed) == (40, 38, 2)
    assert campaign.finished_at.isoformat() == "2026-09-12T04:47:30+00:00"
    assert campaign.failures_truncated is True  # two failed, none stored by id


# ---------------------------------------------------------------------------------------------
# Counts and volumes


def test_counts_come_from_completed_failed_indexes_and_active():
    counts = one(o.scene(), "parish-records-1870").counts
    assert (counts.total, counts.done, counts.failed, counts.active, counts.pending) == (12, 6, 1, 4, 1)


def test_index_i_is_line_i_plus_one_of_volumes_txt():
    campaign = one(o.scene(), "parish-records-1870")
    assert [v.id for v in campaign.volumes][:5] == [
        "C0074512",
        "C0074513",
        "C0074514",
        "C0074515",
        "bouppteckning-1871",
    ]
    assert campaign.volumes[10].id == "loose-scans-0042"
    assert campaign.volumes[10].source.startswith("images:https://images.example.se/scans/0042/p001.jpg")


def test_each_volume_has_a_state_from_the_job_and_its_pods():
    states = {v.index: v.state for v in one(o.scene(), "parish-records-1870").volumes}
    assert [i for i, s in states.items() if s == "done"] == [0, 1, 2, 3, 5, 7]
    assert [i for i, s in states.items() if s == "failed"] == [4]
    assert [i for i, s in states.items() if s == "active"] == [6, 8, 9, 10]
    assert [i for i, s in states.items() if s == "pending"] == [11]


def test_volumes_left_when_a_job_ended_are_unknown_not_pending():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="0-3", failed="4-6")
    campaign = one(only([job], pods=[]), "parish-records-1870")
    assert {v.state for v in campaign.volumes[7:]} == {"unknown"}


def test_a_malformed_volumes_line_becomes_an_unknown_volume():
    text = "C0074512\thttps://x/1\nnot a volume line\n\nC0074514\thttps://x/3\n"
    record = o.campaign_record("parish-records-1870", text)
    job = o.running_job(completed="", failed="", active=0, completions=4)
    campaign = one(only([job], records=[record], pods=[]), "parish-records-1870")
    assert [v.state for v in campaign.volumes] == ["pending", "unknown", "pending", "pending"]
    assert campaign.volumes[1].malformed is True
    assert "line 2" in said(campaign.volumes[1]).text
    assert campaign.volumes[3].id == "C0074514"  # the blank line kept its position


def test_blank_lines_in_volumes_txt_hold_no_volume():
    lines = parse_volumes_txt("A1\tsrc-a\n\nB2\tsrc-b\n\n")
    assert sorted(lines) == [0, 2]
    assert lines[2].id == "B2" and lines[2].source == "src-b"


def test_index_ranges_are_parsed_and_formatted():
    assert parse_ranges("0-3,5,7-9") == {0, 1, 2, 3, 5, 7, 8, 9}
    assert parse_ranges("") == set() and parse_ranges(None) == set()
    assert parse_ranges("3-1,x,4") == {4}
    assert len(parse_ranges("0-999999999")) == 100_000
    assert format_ranges({0, 1, 2, 3, 5, 7, 8, 9}) == "0-3,5,7-9"


def test_volume_keys_follow_the_results_layout():
    volume = one(o.scene(), "parish-records-1870").volumes[8]
    assert volume.progress_key == "htr-batch/swe-lines-v2/C0074519/progress.json"
    assert volume.manifest_key == "htr-batch/swe-lines-v2/C0074519/manifest.json"
    assert volume.iiif_key == "htr-batch/swe-lines-v2/C0074519/iiif.json"
    assert volume.alto_prefix == "htr-batch/swe-lines-v2/C0074519/alto/"
    assert volume.log_key == "htr-batch/status/logs/swe-lines-v2/C0074519.txt"
    assert volume.legacy_log_key == "status/logs/swe-lines-v2/C0074519.txt"


# ---------------------------------------------------------------------------------------------
# Why a volume stopped


def test_wrapper_json_message_gives_stage_permanence_and_error():
    volume = one(o.scene(), "parish-records-1870").volumes[4]
    assert volume.reason.stage == "setup"
    assert volume.reason.permanent is True
    assert volume.reason.error == o.MANIFEST_404
    assert volume.reason.kind == "setup_permanent"
    assert volume.reason.pod_name == "parish-records-1870-4-x4a1b"


def test_the_newest_pod_of_an_index_explains_a_retrying_volume():
    volume = one(o.scene(), "parish-records-1870").volumes[6]
    assert volume.state == "active" and volume.retrying is True
    assert volume.reason.error == "S3 endpoint unreachable: ConnectTimeout"  # not the older UploadOutage
    assert volume.reason.kind == "transient"
    assert volume.attempts == 2


def test_retrying_and_failed_volumes_are_the_failures():
    campaign = one(o.scene(), "parish-records-1870")
    assert [(v.index, v.state) for v in campaign.failures] == [(4, "failed"), (6, "active")]


def test_wrapper_last_state_message_is_read_when_the_current_state_has_none():
    pod = o.campaign_pod("parish-records-1870", 11, phase="Failed")
    pod["status"]["containerStatuses"][0] = {
        "name": "wrapper",
        "state": {"terminated": {"exitCode": 1, "reason": "Error"}},
        "lastState": {"terminated": {"exitCode": 1, "message": o.wrapper_message("load", False, "model missing")}},
    }
    volume = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11]
    assert (volume.reason.stage, volume.reason.error, volume.reason.source) == ("load", "model missing", "last_message")


def test_warmup_wait_exit_13_is_a_marker_timeout_naming_the_marker():
    campaign = one(o.scene(), "court-rolls-1650")
    volume = campaign.volumes[2]
    assert volume.state == "failed"
    assert volume.reason.kind == "warmup_marker"
    assert volume.reason.container == "warmup-wait" and volume.reason.exit_code == 13
    assert "/data/warmup/swe-lines-v3.done" in said(volume).detail  # the operator's; the row says "model cache"
    assert "waited 15 min for the cache" in said(volume).text
    assert "because filling the model cache failed" in said(volume).text


def test_pod_reason_evicted_explains_a_pod_without_a_message():
    pod = o.campaign_pod(
        "parish-records-1870", 11, phase="Failed", reason="Evicted", message="The node was low on resource: memory."
    )
    volume = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11]
    assert volume.reason.kind == "evicted" and "low on resource" in volume.reason.error
    assert volume.retrying is True


def test_sigterm_with_pod_reason_deadline_exceeded_is_the_time_budget():
    pod = o.failed_wrapper_pod(
        "parish-records-1870",
        11,
        o.wrapper_message("stream", False, "SIGTERM"),
        exit_code=143,
        reason="DeadlineExceeded",
    )
    volume = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11]
    assert volume.reason.kind == "deadline"


def test_sigterm_without_a_deadline_is_a_stopped_pod():
    pod = o.failed_wrapper_pod("parish-records-1870", 11, o.wrapper_message("stream", False, "SIGTERM"), exit_code=143)
    assert one(o.scene(pods=[pod]), "parish-records-1870").volumes[11].reason.kind == "sigterm"


def test_a_pod_stopped_by_a_node_drain_does_not_count_as_a_try():
    pod = o.failed_wrapper_pod("parish-records-1870", 11, o.wrapper_message("stream", False, "SIGTERM"), exit_code=143)
    pod["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"}]
    volume = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11]
    assert volume.reason.kind == "sigterm" and volume.retrying is True
    assert volume.attempts == 0


def test_oom_killed_comes_from_the_terminated_reason_and_exit_code():
    pod = o.campaign_pod("parish-records-1870", 11, phase="Failed", wrapper=o.terminated(137, reason="OOMKilled"))
    volume = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11]
    assert volume.reason.kind == "oom" and volume.reason.exit_code == 137


def test_verify_failure_is_its_own_class():
    message = o.wrapper_message(
        "verify", False, "verify failed: 2 missing, 1 failed missing=[0012, 0044] failed=[0007]"
    )
    pod = o.failed_wrapper_pod("parish-records-1870", 11, message, exit_code=1)
    assert one(o.scene(pods=[pod]), "parish-records-1870").volumes[11].reason.kind == "verify"


def test_a_transient_failure_on_a_failed_volume_is_final():
    job = o.running_job(failed="4,11")
    pod = o.failed_wrapper_pod(
        "parish-records-1870", 11, o.wrapper_message("stream", False, "UploadOutage"), exit_code=1, failure_count=3
    )
    volume = one(only([job], pods=[pod]), "parish-records-1870").volumes[11]
    assert volume.state == "failed" and volume.retrying is False
    assert volume.reason.kind == "transient_final"
    assert volume.attempts == 4


def test_plain_text_messages_are_kept_as_the_error():
    pod = o.failed_wrapper_pod("parish-records-1870", 11, "segfault in worker <b>x</b>", exit_code=1)
    reason = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11].reason
    assert reason.error == "segfault in worker <b>x</b>" and reason.stage is None
    assert reason.kind == "transient"


def test_every_message_is_bounded():
    pod = o.failed_wrapper_pod("parish-records-1870", 11, o.wrapper_message("stream", False, "x" * 50_000), exit_code=1)
    reason = one(o.scene(pods=[pod]), "parish-records-1870").volumes[11].reason
    assert len(reason.error) <= models.TEXT_LIMIT


def test_a_failed_volume_whose_pod_is_gone_keeps_the_reason_of_its_status_record():
    campaign = one(o.scene(pods=[]), "parish-records-1870")
    volume = campaign.volumes[4]
    assert volume.reason.source == "record"
    assert volume.reason.error == o.MANIFEST_404
    assert volume.reason.kind == "setup_permanent"


# ---------------------------------------------------------------------------------------------
# Warm-up


def test_succeeded_warmup_has_recipe_cache_directory_and_marker():
    warmup = one(o.scene(), "parish-records-1870").warmup
    assert warmup.state == "succeeded" and warmup.shows_chip is False
    assert warmup.recipe_sha256 == o.RECIPE_V2
    assert warmup.cache_dir == f"/swe-lines-v2-{o.RECIPE_V2}/"
    assert warmup.marker_path == "/data/warmup/swe-lines-v2.done"
    assert warmup.job_name == "htr-warmup-swe-lines-v2"


def test_failed_warmup_carries_the_message_of_its_warmup_container():
    warmup = one(o.scene(), "court-rolls-1650").warmup
    assert warmup.state == "failed"
    assert warmup.message == o.WARMUP_ERROR_V3
    assert warmup.reason.stage == "warmup" and warmup.reason.permanent is True
    assert warmup.recipe_sha256 == o.RECIPE_V3


def test_failed_warmup_without_a_pod_falls_back_to_the_job_condition():
    warmup = one(o.scene(pods=[]), "court-rolls-1650").warmup
    assert "exit code 13" in warmup.message


def test_warmup_with_an_active_pod_is_running():
    snapshot = o.scene(warmup_jobs=[o.warmup_job(o.PIPELINE, state="running")])
    assert one(snapshot, "parish-records-1870").warmup.state == "running"


def test_warmup_neither_ended_nor_active_is_pending():
    snapshot = o.scene(warmup_jobs=[o.warmup_job(o.PIPELINE, state="pending")])
    assert one(snapshot, "parish-records-1870").warmup.state == "pending"


def test_no_warmup_job_is_missing():
    warmup = one(o.scene(warmup_jobs=[]), "parish-records-1870").warmup
    assert warmup.state == "missing" and warmup.shows_chip is True


def test_a_complete_warmup_yet_a_marker_timeout_after_it_is_flagged():
    job = o.running_job(failed="4,11")
    late = o.campaign_pod(
        "parish-records-1870",
        11,
        phase="Failed",
        created="2026-09-24T08:00:00Z",
        init=o.terminated(
            13,
            "no warm-up marker at /data/warmup/swe-lines-v2.done after 900s: the pipeline's warm-up Job has not "
            "finished\n",
            finished="2026-09-24T08:15:00Z",
        ),
        wrapper={"state": {"waiting": {"reason": "PodInitializing"}}},
    )
    warmup = one(only([job], pods=[late]), "parish-records-1870").warmup
    assert warmup.state == "succeeded" and warmup.marker_missing is True and warmup.shows_chip is True
    assert "delete" in said(warmup).text and "kubectl -n htr-batch delete job htr-warmup-swe-lines-v2" in (
        said(warmup).commands
    )


def test_a_finished_campaign_shows_no_warmup():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="0-11")
    assert one(only([job], warmup_jobs=[]), "parish-records-1870").warmup is None


# ---------------------------------------------------------------------------------------------
# Queue


def _other_pending(name: str, uid: str, created: str, priority: int = 0) -> tuple[dict, dict]:
    job = o.campaign_job(name, uid, suspend=True, created=created)
    load = o.workload(
        name,
        uid,
        suffix="aaaaa",
        created=created,
        priority=priority,
        conditions=[o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE, at=created)],
    )
    return job, load


def test_waiting_its_turn_counts_campaigns_ahead_and_names_who_holds_the_quota():
    earlier, earlier_load = _other_pending("older-1880", "uid-older", "2026-09-24T08:30:00Z")
    urgent, urgent_load = _other_pending("urgent-1900", "uid-urgent", "2026-09-24T08:50:00Z", priority=1000)
    later, later_load = _other_pending("later-1910", "uid-later", "2026-09-24T08:55:00Z")
    snapshot = o.scene(
        jobs=[o.running_job(), o.queued_job(), earlier, urgent, later],
        workloads=[o.admitted_workload(), o.pending_workload(), earlier_load, urgent_load, later_load],
    )
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "waiting"
    assert queue.ahead == 2
    assert queue.holders == ["parish-records-1870"]
    assert queue.cluster_queue == "htr-batch-cq"
    assert "2 campaigns ahead" in said(queue).text
    assert queue.pending_in_queue == 1 and "1 pending in the ClusterQueue" in said(queue).detail


def test_asking_more_than_the_nominal_quota_can_never_be_admitted():
    snapshot = o.scene(cluster_queues=[o.cluster_queue(gpu="2")])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "never_fits"
    gpu = next(f for f in queue.fits if f.resource == "nvidia.com/gpu")
    assert (gpu.requested, gpu.quota, gpu.fits) == ("4", "2", False)
    memory = next(f for f in queue.fits if f.resource == "memory")
    assert (memory.requested, memory.fits) == ("32Gi", True)
    assert "window" in said(queue).text


def test_never_fits_from_kueues_words_when_the_cluster_queue_is_unreadable():
    message = (
        "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu, request > maximum capacity"
    )
    load = o.pending_workload(conditions=[o.cond("QuotaReserved", "False", "Pending", message)])
    snapshot = o.scene(cluster_queues=None, workloads=[o.admitted_workload(), load])
    assert one(snapshot, "estate-inventories-1890").queue.kind == "never_fits"


def test_no_workload_because_the_priority_class_does_not_exist():
    job = o.queued_job(priority_class="htr-urgent")
    snapshot = o.scene(jobs=[job], workloads=[])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "no_workload_priority_class"
    assert queue.priority_class == "htr-urgent"
    assert "htr-urgent" in said(queue).text


def test_no_workload_and_an_event_naming_the_missing_priority_class():
    job = o.queued_job(priority_class="htr-urgent")
    event = {
        "involvedObject": {"kind": "Job", "name": "estate-inventories-1890"},
        "reason": "ErrWorkloadCompose",
        "message": 'workloadPriorityClass.kueue.x-k8s.io "htr-urgent" not found',
    }
    snapshot = o.scene(jobs=[job], workloads=[], priority_classes=None, events=[event])
    assert one(snapshot, "estate-inventories-1890").queue.kind == "no_workload_priority_class"


def test_no_workload_for_some_minutes_means_kueue_is_silent():
    snapshot = o.scene(workloads=[])
    queue = one(snapshot, "estate-inventories-1890").queue  # created 08:40, now 09:00
    assert queue.kind == "kueue_silent"
    assert "kubectl -n kueue-system get pods" in said(queue).commands


def test_first_in_line_with_room_in_the_queue_yet_pending_for_minutes_means_kueue_is_silent():
    snapshot = o.scene(
        jobs=[o.queued_job()],
        workloads=[o.pending_workload()],
        cluster_queues=[o.cluster_queue(used=("0", "0", "0"))],
    )
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "kueue_silent"
    # the same workload a minute after it was looked at is just waiting
    assert one(snapshot, "estate-inventories-1890", now=o.NOW.replace(hour=8, minute=41)).queue.kind == "waiting"


def test_no_workload_right_after_creation_is_not_yet():
    snapshot = o.scene(workloads=[])
    queue = one(snapshot, "estate-inventories-1890", now=o.NOW.replace(hour=8, minute=41)).queue
    assert queue.kind == "no_workload_yet"


def test_inactive_workload_is_paused_in_git():
    snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(active=False)])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "paused"
    assert "suspend: true" in said(queue).text


def test_evicted_with_reason_deactivated_is_paused():
    conditions = [o.cond("Evicted", reason="Deactivated", message="The workload is deactivated")]
    snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert (queue.kind, queue.reason, queue.message) == ("paused", "Deactivated", "The workload is deactivated")
    assert queue.since == parse_time(CONDITION_AT)


def test_evicted_by_preemption_is_preempted():
    conditions = [
        o.cond("QuotaReserved", "False", "Pending", "pending"),
        o.cond("Evicted", reason="Preempted", message="Preempted to accommodate a higher priority Workload"),
    ]
    snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "preempted" and queue.reason == "Preempted"
    assert queue.message == "Preempted to accommodate a higher priority Workload"
    assert queue.since == parse_time(CONDITION_AT)


def test_evicted_for_another_reason_is_evicted_with_that_reason():
    conditions = [o.cond("Evicted", reason="PodsReadyTimeout", message="Exceeded the PodsReady timeout")]
    snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "evicted" and queue.reason == "PodsReadyTimeout"
    assert queue.message == "Exceeded the PodsReady timeout" and queue.since == parse_time(CONDITION_AT)
    assert "did not get going in time" in said(queue).text


def test_inadmissible_carries_kueues_own_message():
    message = "ClusterQueue htr-batch-cq is inactive"
    conditions = [o.cond("QuotaReserved", "False", "Inadmissible", message)]
    snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "inadmissible" and queue.message == message
    assert message in said(queue).detail


def test_a_missing_local_queue_is_inadmissible():
    snapshot = o.scene(local_queues=[o.local_queue("other-queue")])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "inadmissible" and "htr-batch" in queue.message


def test_a_workload_without_conditions_is_not_yet_looked_at():
    load = o.pending_workload(conditions=None, created="2026-09-24T08:59:30Z")
    snapshot = o.scene(workloads=[o.admitted_workload(), load])
    queue = one(snapshot, "estate-inventories-1890").queue
    assert queue.kind == "not_looked_at" and queue.since == parse_time("2026-09-24T08:59:30Z")
    assert (queue.reason, queue.message) == ("", "")


def test_the_workload_is_found_by_the_job_uid_label():
    load = o.pending_workload()
    load["metadata"]["ownerReferences"] = []
    load["metadata"]["name"] = "renamed-by-a-newer-kueue"
    queue = one(o.scene(workloads=[load]), "estate-inventories-1890").queue
    assert queue.workload_name == "renamed-by-a-newer-kueue"


def test_a_running_campaign_names_its_admitted_workload_and_queues():
    campaign = one(o.scene(), "parish-records-1870")
    assert campaign.queue.kind == "admitted"
    assert campaign.workload_name == "job-parish-records-1870-9e4d2"
    assert (campaign.queue_name, campaign.cluster_queue_name, campaign.priority_class) == (
        "htr-batch",
        "htr-batch-cq",
        "htr-bulk",
    )


def test_quantities_are_read_as_kubernetes_writes_them():
    assert parse_quantity("8Gi") == 8 * 2**30
    assert parse_quantity("50m") * 1000 == 50
    assert parse_quantity("1e3") == 1000
    assert parse_quantity("lots") is None


# ---------------------------------------------------------------------------------------------
# Split and gone campaigns, pipeline, records


def test_split_campaign_parts_read_as_one_campaign():
    part1 = o.finished_job("maps-1900-part1", "uid-p1", campaign="maps-1900", completed="0-1", completions=2)
    part2 = o.campaign_job(
        "maps-1900-part2", "uid-p2", campaign="maps-1900", completions=3, completed="0", failed="", active=2
    )
    records = [
        o.campaign_record("maps-1900-part1", [("M1", "s1"), ("M2", "s2")], campaign="maps-1900"),
        o.campaign_record("maps-1900-part2", [("M3", "s3"), ("M4", "s4"), ("M5", "s5")], campaign="maps-1900"),
    ]
    campaigns = project(o.scene(jobs=[part2, part1], records=records, pods=[]), o.NOW)
    split = [c for c in campaigns if c.name == "maps-1900"]
    assert len(split) == 1
    campaign = split[0]
    assert campaign.parts == ["maps-1900-part1", "maps-1900-part2"] and campaign.is_split
    assert [v.id for v in campaign.volumes] == ["M1", "M2", "M3", "M4", "M5"]
    assert [v.job for v in campaign.volumes] == ["maps-1900-part1"] * 2 + ["maps-1900-part2"] * 3
    assert (campaign.counts.total, campaign.counts.done, campaign.counts.active) == (5, 3, 2)
    assert campaign.phase == models.RUNNING
    assert project_one(o.scene(jobs=[part2, part1], records=records), "maps-1900-part2", o.NOW).name == "maps-1900"
    assert [p.status_record_name for p in campaign.part_states] == [
        "campaign-maps-1900-part1-status",
        "campaign-maps-1900-part2-status",
    ]


def test_a_job_named_like_a_part_of_another_campaign_stays_alone():
    job = o.campaign_job("letters-part2", "uid-l", campaign="letters-part2")
    names = [c.name for c in project(o.scene(jobs=[job]), o.NOW)]
    assert "letters-part2" in names


def test_a_gone_campaign_keeps_its_card_from_records_with_failed_volumes():
    data = dict(
        o.parish_status_record()["data"], phase="PartiallyFailed", volumesDone="11", finishedAt="2026-09-25T10:00:00Z"
    )
    snapshot = o.scene(jobs=[], status_records=[o.status_record("parish-records-1870", data)])
    campaign = one(snapshot, "parish-records-1870")
    assert campaign.job_gone is True and campaign.phase == models.PARTIALLY_FAILED
    assert [(v.id, v.state) for v in campaign.failures] == [("bouppteckning-1871", "failed")]
    assert campaign.failures[0].reason.kind == "setup_permanent"
    assert {v.state for v in campaign.volumes if v.id != "bouppteckning-1871"} == {"done"}
    assert campaign.record.commit == "4f2a9c81d03b6e7f5a1c2d3e4f5061728394a5b6"
    assert status_record_update(campaign, data) is None  # never written from records alone


def test_a_gone_split_campaign_reads_as_one_from_its_part_records():
    def part_record(n: int, done: str, failed: str, finished: str) -> dict:
        data = {
            "phase": "Succeeded" if failed == "0" else "PartiallyFailed",
            "volumesTotal": "2",
            "volumesDone": done,
            "volumesFailed": failed,
            "startedAt": "2026-09-01T00:00:00Z",
            "finishedAt": finished,
            "jobUid": f"uid-p{n}",
        }
        return o.status_record(f"maps-1900-part{n}", data, campaign="maps-1900")

    records = [part_record(2, "1", "1", "2026-09-03T00:00:00Z"), part_record(1, "2", "0", "2026-09-02T00:00:00Z")]
    campaigns = [c for c in project(o.scene(jobs=[], records=[], status_records=records), o.NOW)]
    assert [c.name for c in campaigns] == ["maps-1900"]
    campaign = campaigns[0]
    assert campaign.parts == ["maps-1900-part1", "maps-1900-part2"] and campaign.job_gone
    assert campaign.phase == models.PARTIALLY_FAILED
    assert (campaign.counts.total, campaign.counts.done, campaign.counts.failed) == (4, 3, 1)
    assert campaign.finished_at.isoformat() == "2026-09-03T00:00:00+00:00"


def test_pipeline_steps_with_models_and_revisions():
    campaign = one(o.scene(), "parish-records-1870")
    assert [(s.name, s.model, s.revision) for s in campaign.pipeline_steps] == [
        ("Segmentation", "Riksarkivet/yolov9-regions-1", "8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796"),
        ("Segmentation", "Riksarkivet/yolov9-lines-within-regions-1", "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"),
        (
            "TextRecognition",
            "Riksarkivet/trocr-base-handwritten-hist-swe-2",
            "0f9e8d7c6b5a49382716051f4e3d2c1b0a998877",
        ),
    ]
    assert campaign.pipeline_sha256 == o.PIPELINE_SHA_V2
    assert campaign.pipeline_yaml == o.PIPELINE_YAML_V2
    assert campaign.results_prefix == "htr-batch/swe-lines-v2/"


def test_record_annotations_are_on_the_campaign():
    record = one(o.scene(), "parish-records-1870").record
    assert record.applied_by == "argocd-hook/htr-campaigns"
    assert record.applied_at == "2026-09-24T07:58:08Z"
    assert record.image_digest == o.IMAGE


# ---------------------------------------------------------------------------------------------
# Status record


def test_status_record_data_is_all_strings_in_the_stored_shape():
    data = one(o.scene(), "parish-records-1870").status_record_data(o.RESULTS_URL)
    assert all(isinstance(v, str) for v in data.values())
    assert data["phase"] == "Running" and data["volumesDone"] == "6" and data["volumesFailed"] == "1"
    assert data["resultsBase"] == "https://htr.arkiv.example.se/results/htr-batch/swe-lines-v2"
    assert json.loads(data["failedVolumes"]) == [{"id": "bouppteckning-1871", "reason": o.MANIFEST_404}]
    assert data["failedVolumesJobUid"] == o.RUNNING_UID


def test_status_record_is_written_only_when_something_changed():
    campaign = one(o.scene(), "parish-records-1870")
    current = o.parish_status_record()["data"]
    assert status_record_update(campaign, current, o.RESULTS_URL) is None
    older = dict(current, volumesDone="5")
    assert status_record_update(campaign, older, o.RESULTS_URL)["volumesDone"] == "6"


def test_a_missing_status_record_is_written_whole():
    campaign = one(o.scene(), "parish-records-1870")
    update = status_record_update(campaign, None, o.RESULTS_URL)
    assert update["phase"] == "Running" and update["jobUid"] == o.RUNNING_UID


def test_empty_values_never_overwrite_filled_ones():
    campaign = one(o.scene(), "parish-records-1870")
    current = dict(o.parish_status_record()["data"], volumesDone="5")
    update = status_record_update(campaign, current, results_url="")
    assert update["resultsBase"] == current["resultsBase"]
    assert set(current) <= set(update)  # keys are never dropped


def test_finished_at_never_moves_back():
    job = o.finished_job("parish-records-1870", o.RUNNING_UID, completed="0-11")
    campaign = one(only([job]), "parish-records-1870")
    later = dict(o.parish_status_record()["data"], finishedAt="2026-09-24T10:00:00Z")
    update = status_record_update(campaign, later, o.RESULTS_URL)
    assert update["finishedAt"] == "2026-09-24T10:00:00Z"
    assert update["phase"] == "Succeeded"


def test_stored_failure_reasons_survive_a_pod_that_is_gone():
    campaign = one(o.scene(pods=[]), "parish-records-1870")
    campaign.volumes[4].reason = None  # as if the record had not been read
    for part in campaign.part_states:
        part.failed_volumes = [("bouppteckning-1871", "")]
    current = o.parish_status_record()["data"]
    update = status_record_update(campaign, current, o.RESULTS_URL)
    assert update is None or json.loads(update["failedVolumes"])[0]["reason"] == o.MANIFEST_404


def test_split_campaigns_write_one_status_record_per_part():
    part1 = o.finished_job("maps-1900-part1", "uid-p1", campaign="maps-1900", completed="0-1", completions=2)
    part2 = o.campaign_job("maps-1900-part2", "uid-p2", campaign="maps-1900", completions=3, completed="0", active=2)
    campaign = one(o.scene(jobs=[part1, part2], pods=[]), "maps-1900")
    writes = status_record_updates(campaign, {"campaign-maps-1900-part1-status": {}}, o.RESULTS_URL)
    assert writes["campaign-maps-1900-part1-status"]["phase"] == "Succeeded"
    assert writes["campaign-maps-1900-part2-status"]["phase"] == "Running"
    assert writes["campaign-maps-1900-part2-status"]["jobUid"] == "uid-p2"


def test_status_record_writes_are_remembered_while_their_campaign_lives_and_no_longer():
    gc.collect()
    record_updates._remembered.clear()
    readings = [one(o.scene(pods=[]), "parish-records-1870") for _ in range(5)]
    first = [status_record_updates(campaign, {}, o.RESULTS_URL) for campaign in readings]
    assert len(record_updates._remembered) == 5
    assert [status_record_updates(campaign, {}, o.RESULTS_URL) for campaign in readings] == first
    del readings[:4]  # replaced by later readings, as the board replaces a campaign that changed
    gc.collect()
    assert len(record_updates._remembered) == 1


# ---------------------------------------------------------------------------------------------
# Order


def test_order_is_running_then_trouble_then_finished_newest_first_then_queued_and_paused():
    done_old = o.finished_job(
        "old-done", "uid-od", completed="0-11", created="2026-09-01T00:00:00Z", completion_time="2026-09-02T00:00:00Z"
    )
    done_new = o.finished_job("new-done", "uid-nd", completed="0-11", completion_time="2026-09-23T00:00:00Z")
    broken = o.finished_job("broken", "uid-b", completed="0-5", failed="6-11")
    paused = o.campaign_job("paused-one", "uid-pa", suspend=True, completed="0")
    paused_load = o.workload("paused-one", "uid-pa", active=False, conditions=[])
    snapshot = o.scene(
        jobs=[paused, done_old, o.queued_job(), broken, done_new, o.running_job()],
        workloads=[o.admitted_workload(), o.pending_workload(), paused_load],
        records=[],
        status_records=[],
        pods=[],
    )
    order = [c.name for c in sort_campaigns(project(snapshot, o.NOW), o.NOW)]
    assert order == ["parish-records-1870", "broken", "new-done", "old-done", "estate-inventories-1890", "paused-one"]


def test_a_failed_campaign_long_finished_is_no_longer_sorted_as_trouble():
    broken = o.finished_job("broken", "uid-b", completed="0-5", failed="6-11")
    done = o.finished_job("new-done", "uid-nd", completed="0-11", completion_time="2026-09-30T00:00:00Z")
    later = o.NOW + timedelta(days=10)
    order = [
        c.name
        for c in sort_campaigns(project(o.scene(jobs=[broken, done], records=[], status_records=[]), later), later)
    ]
    assert order == ["new-done", "broken"]


# ---------------------------------------------------------------------------------------------
# Progress


def test_progress_from_json_reads_the_wrappers_fields():
    data = {
        "stage": "stream",
        "pages_total": 412,
        "pages_done": 137,
        "pages_failed": 1,
        "last_page": "0138",
        "last_error": {"page": "0044", "error": "page 0044: worker thread died"},
        "errors": 0,
        "viewer_published": True,
        "started_at": "2026-09-24T08:02:11+00:00",
        "updated_at": "2026-09-24T08:31:47+00:00",
    }
    progress = progress_from_json(data, o.NOW.replace(hour=8, minute=32))
    assert (progress.done, progress.total, progress.failed, progress.last_page) == (137, 412, 1, "0138")
    assert progress.age_seconds == 13
    assert progress.last_error == {"page": "0044", "error": "page 0044: worker thread died"}
    assert progress.viewer_published is True
    assert progress.as_api()["updatedAt"] == "2026-09-24T08:31:47Z"


def test_progress_without_pages_total_is_no_progress():
    assert progress_from_json({"stage": "setup", "pages_done": 0}, o.NOW) is None
    assert progress_from_json(["not", "a", "dict"], o.NOW) is None
    failed_setup = progress_from_json({"stage": "failed", "pages_total": 0, "updated_at": "garbage"}, o.NOW)
    assert failed_setup.total == 0 and failed_setup.age_seconds is None


def test_the_snapshot_is_not_changed_by_projecting_it():
    snapshot = o.scene()
    before = copy.deepcopy(snapshot)
    project(snapshot, o.NOW)
    assert snapshot == before


# ---------------------------------------------------------------------------------------------
# Robustness: missing or unexpected fields anywhere still give campaigns with sentences

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TRICKY_TEXT = st.sampled_from(
    [
        "",
        "0-99999999999",
        "3-1,,x,-",
        "<script>alert(1)</script>",
        "{",
        '{"stage": 5, "permanent": "yes", "error": ["x"]}',
        "9" * 40,
        "2026-13-45T99:99:99Z",
        "Gi",
        "-5",
        "\t\t\n",
    ]
)
GARBAGE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
POOLS = [
    "jobs",
    "workloads",
    "pods",
    "records",
    "status_records",
    "warmup_jobs",
    "pipelines",
    "cluster_queues",
    "local_queues",
    "events",
]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from _paths(child, (*prefix, position))


def _mutilate(container: list, position: int, path: tuple, action: str, garbage) -> None:
    if not path:
        container[position] = garbage
        return
    parent = container[position]
    for step in path[:-1]:
        parent = parent[step]
    if action == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = garbage


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutilated_objects_still_project_to_campaigns_with_sentences(data):
    snapshot = o.scene(events=[{"involvedObject": {"name": "estate-inventories-1890"}, "message": "x"}])
    for _ in range(data.draw(st.integers(1, 4))):
        pool = getattr(snapshot, data.draw(st.sampled_from(POOLS)))
        if not pool:
            continue
        position = data.draw(st.integers(0, len(pool) - 1))
        paths = list(_paths(pool[position]))
        path = data.draw(st.sampled_from(paths))
        _mutilate(pool, position, path, data.draw(st.sampled_from(["delete", "replace"])), data.draw(GARBAGE))
    campaigns = sort_campaigns(project(snapshot, o.NOW), o.NOW)
    for campaign in campaigns:
        assert campaign.phase in models.PHASES
        assert said(campaign) is not None and said(campaign).text
        assert all(said(v) is not None and v.state in models.VOLUME_STATES for v in campaign.volumes)
        assert all(len(v.reason.error) <= models.TEXT_LIMIT for v in campaign.volumes if v.reason)
        assert campaign.queue is None or campaign.queue.kind in models.QUEUE_KINDS
        assert campaign.warmup is None or campaign.warmup.state in models.WARMUP_STATES
        data_out = campaign.status_record_data(o.RESULTS_URL)
        assert all(isinstance(v, str) for v in data_out.values())
        status_record_update(campaign, data.draw(st.none() | st.dictionaries(st.text(max_size=8), GARBAGE)))
        assert project_one(snapshot, campaign.name, o.NOW) is not None


@settings(max_examples=100, deadline=None)
@given(data=GARBAGE)
def test_garbage_progress_json_never_raises(data):
    progress = progress_from_json(data, o.NOW)
    assert progress is None or (progress.total >= 0 and progress.done >= 0)


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200) | TRICKY_TEXT)
def test_garbage_volumes_txt_and_ranges_never_raise(text):
    for line in parse_volumes_txt(text).values():
        assert len(line.id) <= 80
    assert all(0 <= i < 100_000 for i in parse_ranges(text))
