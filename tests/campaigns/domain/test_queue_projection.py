"""Reading the queue from objects filled the less common way: a paused competitor, a Workload found only by its
owner, queues not named by the ``<queue>-cq`` convention, a priority read from the Workload alone, and every
Kueue reason the product words. Each test asserts the whole state (kind, reason, message, since), not only its
kind, because a page words all of them."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from campaigns.domain.projection import project_one
from campaigns.domain.projection.queue import KUEUE_SILENT_AFTER, counts_time
from campaigns.models import QueueState
from core.contract import LABEL_PRIORITY_CLASS
from devstack import kube_samples as o
from tests.campaigns.said import said

QUEUED = "estate-inventories-1890"
# When the queued Job and its Workload were created, and when Kueue last looked at that Workload.
QUEUED_AT = datetime.fromisoformat("2026-09-24T08:40:02+00:00")
LOOKED_AT = datetime.fromisoformat("2026-09-24T08:40:03+00:00")


def queue_of(snapshot, name: str = QUEUED, now=o.NOW) -> QueueState:
    campaign = project_one(snapshot, name, now)
    assert campaign is not None and campaign.queue is not None
    return campaign.queue


def _competitor(name: str, uid: str, created: str, **workload) -> tuple[dict, dict]:
    """Another suspended campaign of the same LocalQueue, created before or after the queued one."""
    job = o.campaign_job(name, uid, suspend=True, created=created)
    values = dict(
        suffix="aaaaa",
        created=created,
        conditions=[o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE, at=created)],
    )
    values.update(workload)
    return job, o.workload(name, uid, **values)


# --- who is ahead in line ---------------------------------------------------------------------------


def test_a_paused_workload_created_earlier_is_not_ahead_in_line():
    # Kueue does not queue a Workload with spec.active false: it cannot go first, whenever it was created.
    job, paused = _competitor("older-1880", "uid-older", "2026-09-24T08:30:00Z", active=False)
    snapshot = o.scene(
        jobs=[o.running_job(), o.queued_job(), job], workloads=[o.admitted_workload(), o.pending_workload(), paused]
    )
    queue = queue_of(snapshot)
    assert (queue.kind, queue.ahead, queue.ahead_names) == ("waiting", 0, [])

    # The same competitor, active, goes first: the test above could fail.
    job, active = _competitor("older-1880", "uid-older", "2026-09-24T08:30:00Z")
    snapshot = o.scene(
        jobs=[o.running_job(), o.queued_job(), job], workloads=[o.admitted_workload(), o.pending_workload(), active]
    )
    queue = queue_of(snapshot)
    assert (queue.kind, queue.ahead, queue.ahead_names) == ("waiting", 1, ["older-1880"])


def test_a_competitor_in_another_cluster_queue_is_not_ahead_in_line():
    job, other = _competitor("older-1880", "uid-older", "2026-09-24T08:30:00Z", queue="gpu-small")
    snapshot = o.scene(
        jobs=[o.running_job(), o.queued_job(), job],
        workloads=[o.admitted_workload(), o.pending_workload(), other],
        local_queues=[o.local_queue(), o.local_queue("gpu-small", cluster_queue="small-gpus")],
    )
    assert queue_of(snapshot).ahead == 0


# --- finding the Workload ------------------------------------------------------------------------------


def test_a_workload_without_the_job_uid_label_is_found_by_its_owner_jobs_name():
    load = o.pending_workload(name="job-estate-inventories-1890-owned")
    load["metadata"]["labels"] = {}
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), load]))
    assert queue.workload_name == "job-estate-inventories-1890-owned"
    assert queue.kind == "waiting" and queue.reason == "Pending" and queue.since == LOOKED_AT


def test_a_workload_owned_by_another_job_and_without_the_label_is_not_the_campaigns():
    load = o.pending_workload(name="job-someone-else")
    load["metadata"]["labels"] = {}
    load["metadata"]["ownerReferences"][0]["name"] = "someone-else"
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), load]))
    assert queue.workload_name == ""
    assert queue.kind == "kueue_silent"  # no Workload, 20 minutes after the Job was created


# --- which ClusterQueue -------------------------------------------------------------------------------


def test_the_cluster_queue_named_in_the_admission_is_the_campaigns():
    load = o.admitted_workload(cluster_queue="gpu-pool-a100")
    campaign = project_one(o.scene(workloads=[load, o.pending_workload()]), "parish-records-1870", o.NOW)
    assert campaign.queue.kind == "admitted"
    assert campaign.queue.cluster_queue == "gpu-pool-a100"
    assert "ClusterQueue gpu-pool-a100" in said(campaign.queue).detail


def test_a_pending_workload_uses_the_cluster_queue_its_local_queue_names():
    shared = o.cluster_queue(name="shared-gpus", gpu="2")
    snapshot = o.scene(local_queues=[o.local_queue(cluster_queue="shared-gpus")], cluster_queues=[shared])
    queue = queue_of(snapshot)
    assert queue.cluster_queue == "shared-gpus"
    # The quota read is that queue's: 4 GPUs asked, 2 in shared-gpus.
    assert queue.kind == "never_fits"
    gpu = next(fit for fit in queue.fits if fit.resource == "nvidia.com/gpu")
    assert (gpu.requested, gpu.quota, gpu.fits) == ("4", "2", False)


def test_competitors_are_counted_in_the_cluster_queue_their_local_queue_names():
    job, earlier = _competitor("older-1880", "uid-older", "2026-09-24T08:30:00Z", queue="night-batch")
    snapshot = o.scene(
        jobs=[o.running_job(), o.queued_job(), job],
        workloads=[o.admitted_workload(), o.pending_workload(), earlier],
        # Both LocalQueues feed one ClusterQueue that does not follow the <queue>-cq convention.
        local_queues=[
            o.local_queue(cluster_queue="shared-gpus"),
            o.local_queue("night-batch", cluster_queue="shared-gpus"),
        ],
        cluster_queues=[o.cluster_queue(name="shared-gpus")],
    )
    queue = queue_of(snapshot)
    assert (queue.kind, queue.cluster_queue, queue.ahead, queue.ahead_names) == (
        "waiting",
        "shared-gpus",
        1,
        ["older-1880"],
    )


def test_an_inactive_cluster_queue_without_words_of_its_own_gets_a_sentence_naming_it():
    inactive = o.cluster_queue(name="shared-gpus", active=False)
    active = next(c for c in inactive["status"]["conditions"] if c["type"] == "Active")
    active["message"] = ""
    snapshot = o.scene(local_queues=[o.local_queue(cluster_queue="shared-gpus")], cluster_queues=[inactive])
    queue = queue_of(snapshot)
    assert queue.kind == "inadmissible"
    assert queue.message == "ClusterQueue shared-gpus is inactive"
    assert queue.reason == "Pending" and queue.since == LOOKED_AT
    assert "Kueue says: ClusterQueue shared-gpus is inactive" in said(queue).detail


def test_an_inactive_cluster_queue_passes_on_kueues_own_words():
    snapshot = o.scene(cluster_queues=[o.cluster_queue(active=False)])
    queue = queue_of(snapshot)
    assert queue.kind == "inadmissible"
    assert queue.message == "Can't admit new workloads: FlavorNotFound"


def test_an_active_cluster_queue_is_no_reason_to_be_inadmissible():
    queue = queue_of(o.scene())
    assert queue.kind == "waiting" and queue.message == o.PENDING_MESSAGE


# --- the priority class -------------------------------------------------------------------------------


def test_the_priority_class_is_read_from_the_workloads_reference_alone():
    job = o.queued_job()
    assert LABEL_PRIORITY_CLASS not in job["metadata"].get("labels", {})
    snapshot = o.scene(jobs=[job], workloads=[o.pending_workload(priority_class="htr-urgent")])
    queue = queue_of(snapshot)
    assert queue.priority_class == "htr-urgent"
    assert "priority class htr-urgent" in said(queue).detail


def test_the_older_priority_class_name_field_of_a_workload_is_read_too():
    load = o.pending_workload()
    load["spec"]["priorityClassName"] = "htr-bulk"
    assert queue_of(o.scene(jobs=[o.queued_job()], workloads=[load])).priority_class == "htr-bulk"


def test_the_workloads_priority_class_wins_over_the_jobs_label():
    job = o.queued_job(priority_class="htr-bulk")
    snapshot = o.scene(jobs=[job], workloads=[o.pending_workload(priority_class="htr-urgent")])
    assert queue_of(snapshot).priority_class == "htr-urgent"


# --- Workloads Kueue has not looked at, and what is timed ---------------------------------------------


def test_a_workload_without_conditions_for_longer_than_kueue_needs_means_kueue_is_silent():
    load = o.pending_workload(conditions=None)  # created 08:40:02, now 09:00
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), load]))
    assert (queue.kind, queue.since) == ("kueue_silent", QUEUED_AT)
    assert counts_time(queue)
    # Just inside the time Kueue is given it is not looked at yet, dated from the same moment.
    soon = QUEUED_AT + KUEUE_SILENT_AFTER
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), load]), now=soon)
    assert (queue.kind, queue.since) == ("not_looked_at", QUEUED_AT)
    assert counts_time(queue)


def test_no_workload_yet_and_kueue_silent_are_dated_from_the_jobs_creation():
    queue = queue_of(o.scene(workloads=[]))
    assert (queue.kind, queue.since, queue.workload_name) == ("kueue_silent", QUEUED_AT, "")
    assert counts_time(queue)
    queue = queue_of(o.scene(workloads=[]), now=QUEUED_AT + KUEUE_SILENT_AFTER)
    assert (queue.kind, queue.since) == ("no_workload_yet", QUEUED_AT)
    assert counts_time(queue)


def test_kueue_is_given_three_minutes_before_it_is_called_silent():
    # Kueue is given three minutes to act on a new Job or Workload; past them the page says Kueue is silent.
    just_before, just_after = QUEUED_AT + timedelta(minutes=2, seconds=59), QUEUED_AT + timedelta(minutes=3, seconds=1)
    assert queue_of(o.scene(workloads=[]), now=just_before).kind == "no_workload_yet"
    assert queue_of(o.scene(workloads=[]), now=just_after).kind == "kueue_silent"
    unread = [o.admitted_workload(), o.pending_workload(conditions=None)]
    assert queue_of(o.scene(workloads=unread), now=just_before).kind == "not_looked_at"
    assert queue_of(o.scene(workloads=unread), now=just_after).kind == "kueue_silent"


def test_only_states_decided_by_the_clock_count_time():
    for kind in ("not_looked_at", "kueue_silent", "no_workload_yet"):
        assert counts_time(QueueState(kind=kind)), kind
    assert counts_time(QueueState(kind="waiting", ahead=0))
    assert not counts_time(QueueState(kind="waiting", ahead=2))  # behind others: no clock decides it
    for kind in ("admitted", "paused", "preempted", "evicted", "inadmissible", "never_fits"):
        assert not counts_time(QueueState(kind=kind)), kind
    assert not counts_time(None)


# --- every Kueue reason the product words ------------------------------------------------------------


def test_a_preempted_condition_gives_its_reason_and_message():
    at = "2026-09-24T08:55:00Z"
    message = "Preempted to accommodate a workload (UID: wl-1) due to prioritization in the ClusterQueue"
    conditions = [
        o.cond("QuotaReserved", "False", "Pending", "pending", at="2026-09-24T08:50:00Z"),
        o.cond("Preempted", "True", "InClusterQueue", message, at=at),
    ]
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)]))
    assert (queue.kind, queue.reason, queue.message) == ("preempted", "InClusterQueue", message)
    assert "reason InClusterQueue" in said(queue).detail and message in said(queue).detail


def test_a_preempted_condition_that_is_no_longer_true_is_no_preemption():
    conditions = [
        o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE, at="2026-09-24T08:40:03Z"),
        o.cond("Preempted", "False", "InClusterQueue", "earlier", at="2026-09-24T08:30:00Z"),
    ]
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)]))
    assert queue.kind == "waiting" and queue.reason == "Pending"


def test_an_eviction_by_preemption_gives_reason_message_and_when():
    at = "2026-09-24T08:52:00Z"
    message = "Preempted to accommodate a higher priority Workload"
    conditions = [
        o.cond("QuotaReserved", "False", "Pending", "pending"),
        o.cond("Evicted", reason="Preempted", message=message, at=at),
    ]
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)]))
    assert (queue.kind, queue.reason, queue.message) == ("preempted", "Preempted", message)
    assert queue.since == datetime.fromisoformat("2026-09-24T08:52:00+00:00")


def test_an_eviction_of_an_inactive_workload_is_a_pause():
    conditions = [o.cond("Evicted", reason="InactiveWorkload", message="The workload is deactivated")]
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)]))
    assert (queue.kind, queue.reason, queue.message) == ("paused", "InactiveWorkload", "The workload is deactivated")


def test_an_eviction_that_is_no_longer_true_is_no_eviction():
    conditions = [
        o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE, at="2026-09-24T08:40:03Z"),
        o.cond("Evicted", "False", "PodsReadyTimeout", "earlier"),
    ]
    queue = queue_of(o.scene(workloads=[o.admitted_workload(), o.pending_workload(conditions=conditions)]))
    assert queue.kind == "waiting"


def test_waiting_carries_kueues_reason_message_and_the_time_it_last_looked():
    queue = queue_of(o.scene())
    assert (queue.kind, queue.reason, queue.message, queue.since) == (
        "waiting",
        "Pending",
        o.PENDING_MESSAGE,
        LOOKED_AT,
    )
    assert (queue.queue_name, queue.cluster_queue, queue.workload_name) == (
        "htr-batch",
        "htr-batch-cq",
        "job-estate-inventories-1890-4b7c1",
    )


# --- more of the less common ways -------------------------------------------------------------------

NEVER_FITS = (
    "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor default-flavor, "
    "previously considered podsets requests (0) + current podset request (4) > maximum capacity (2)"
)


@pytest.mark.parametrize(
    ("reason", "message", "ahead"),
    [
        ("Pending", NEVER_FITS, 0),  # older Kueue: its message decides, by Kueue's own rule
        ("ExceedsMaxQuota", "", 0),  # newer Kueue: its reason decides
        ("Pending", o.PENDING_MESSAGE, 1),  # waits for quota like anyone: it goes first
    ],
)
def test_a_competitor_kueue_can_never_admit_is_not_ahead_in_line(reason, message, ahead):
    at = "2026-09-24T08:30:00Z"
    job, other = _competitor(
        "older-1880", "uid-older", at, conditions=[o.cond("QuotaReserved", "False", reason, message, at=at)]
    )
    snapshot = o.scene(
        jobs=[o.running_job(), o.queued_job(), job], workloads=[o.admitted_workload(), o.pending_workload(), other]
    )
    assert queue_of(snapshot).ahead == ahead


def test_a_finished_competitor_neither_holds_the_quota_nor_goes_first():
    at = "2026-09-24T08:30:00Z"
    job, other = _competitor(
        "older-1880",
        "uid-older",
        at,
        conditions=[o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE, at=at), o.cond("Finished", at=at)],
    )
    snapshot = o.scene(jobs=[o.queued_job(), job], workloads=[o.pending_workload(), other])
    queue = queue_of(snapshot)
    assert (queue.ahead, queue.holders) == (0, [])


def test_a_workload_admitted_without_a_quota_reserved_condition_holds_the_quota():
    job, other = _competitor("older-1880", "uid-older", "2026-09-24T08:30:00Z", conditions=[o.cond("Admitted")])
    snapshot = o.scene(jobs=[o.queued_job(), job], workloads=[o.pending_workload(), other])
    assert queue_of(snapshot).holders == ["older-1880"]


def test_a_holder_without_an_owning_job_is_named_by_its_workload():
    load = o.admitted_workload(name="job-parish-records-1870-orphan")
    load["metadata"]["ownerReferences"] = []
    snapshot = o.scene(workloads=[load, o.pending_workload()])
    assert queue_of(snapshot).holders == ["job-parish-records-1870-orphan"]


def test_the_local_queue_is_read_from_the_workload_before_the_jobs_label():
    load = o.pending_workload(queue="night-batch")
    snapshot = o.scene(
        workloads=[o.admitted_workload(), load], local_queues=[o.local_queue(), o.local_queue("night-batch")]
    )
    queue = queue_of(snapshot)
    assert queue.queue_name == "night-batch"
    assert "LocalQueue night-batch" in said(queue).detail


def test_without_readable_local_queues_the_cluster_queue_follows_the_naming_convention():
    queue = queue_of(o.scene(local_queues=None))
    assert queue.cluster_queue == "htr-batch-cq"
    assert queue.pending_in_queue == 1  # read from that ClusterQueue's status


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("couldn't assign flavors to pod set main: request > Maximum Capacity", "never_fits"),
        ("workload exceeds the quota of the ClusterQueue", "never_fits"),
        ("workload Exceeds Quota", "never_fits"),
        (o.PENDING_MESSAGE, "waiting"),
    ],
)
def test_with_the_cluster_queue_unreadable_kueues_words_say_whether_it_can_ever_fit(message, kind):
    load = o.pending_workload(conditions=[o.cond("QuotaReserved", "False", "Pending", message)])
    snapshot = o.scene(cluster_queues=None, workloads=[o.admitted_workload(), load])
    queue = queue_of(snapshot)
    assert (queue.kind, queue.message) == (kind, message)


@pytest.mark.parametrize(
    ("about", "message"),
    [
        ("estate-inventories-1890", 'secrets "registry-login" not found'),
        ("estate-inventories-1890", "priority class htr-urgent is being evaluated"),
        ("someone-else", 'workloadPriorityClass.kueue.x-k8s.io "htr-urgent" not found'),
    ],
)
def test_only_an_event_of_the_job_saying_its_priority_class_is_missing_means_so(about, message):
    job = o.queued_job(priority_class="htr-urgent")
    event = {"involvedObject": {"kind": "Job", "name": about}, "reason": "ErrWorkloadCompose", "message": message}
    snapshot = o.scene(jobs=[job], workloads=[], priority_classes=None, events=[event])
    assert queue_of(snapshot).kind == "kueue_silent"
