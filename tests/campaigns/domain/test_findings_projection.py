"""The projection runs the guide's Check steps on each campaign (campaigns/domain/projection/findings.py):
the findings it records, on the namespace's realistic objects, and the facts the words are made from."""

from __future__ import annotations

import copy

from campaigns.domain.diagnosis import codes
from campaigns.wording.warmup import campaign_warmup_sentence
from devstack import kube_samples as o
from devstack.scene_kube import cond
from tests.campaigns.domain.test_projection import one
from tests.campaigns.said import said

TAINT_MESSAGE = (
    "couldn't assign flavors to pod set main: untolerated taint {dedicated ocr-only NoSchedule <nil>} "
    "in flavor ocr-dedicated"
)
FLAVORS = [
    {"metadata": {"name": "ocr-dedicated"},
     "spec": {"nodeTaints": [{"key": "dedicated", "value": "ocr-only", "effect": "NoSchedule"}]}},
]


def with_wait_limit(job: dict, seconds: int) -> dict:
    """The Job as rendered with another warmup_wait_seconds: the limit lives in its init container's script."""
    job = copy.deepcopy(job)
    for container in job["spec"]["template"]["spec"]["initContainers"]:
        if container["name"] == "warmup-wait":
            container["command"] = [part.replace("-le 900", f"-le {seconds}") for part in container["command"]]
    return job


def test_pods_waiting_for_the_model_cache_are_waiting_not_being_processed():
    court = one(o.scene(), "court-rolls-1650")
    assert (court.counts.active, court.counts.waiting, court.counts.processing) == (2, 2, 0)
    text = said(court).text
    assert "0 being processed, 2 waiting for the model cache" in text


def test_the_wait_limit_is_the_jobs_own_and_each_waiting_pod_says_when_it_gives_up():
    job = with_wait_limit(o.court_rolls_job(), 1800)
    court = one(o.scene(jobs=[o.running_job(), o.queued_job(), job]), "court-rolls-1650")
    assert court.warmup_wait_seconds == 1800
    waiting = next(f for f in court.findings if f.code == codes.WARMUP_WAITING)
    assert waiting.value("limit_seconds") == 1800 and waiting.value("limit_source") == "command"
    assert waiting.value("pods") == 2
    gives_up = {pod: until for pod, _index, _node, _since, until in waiting.value("waiting")}
    assert [until.isoformat() for until in gives_up.values()] == ["2026-09-24T09:20:00+00:00"] * 2
    assert "waits for it 30 min and then gives up" in campaign_warmup_sentence(court).text  # the chip: failed


def test_the_default_limit_is_said_where_the_job_says_none():
    court = one(o.scene(), "court-rolls-1650")
    assert court.warmup_wait_seconds == 900
    assert "waits for it 15 min and then gives up" in campaign_warmup_sentence(court).text


def test_a_queued_campaign_carries_kueues_own_cause_against_the_flavor_that_refuses_it():
    pending = o.pending_workload(
        conditions=[cond("QuotaReserved", "False", "NoMatchingFlavor", TAINT_MESSAGE, at="2026-09-24T08:40:03Z")]
    )
    snapshot = o.scene(workloads=[o.admitted_workload(), pending], resource_flavors=FLAVORS)
    estate = one(snapshot, "estate-inventories-1890")
    [finding] = [f for f in estate.findings if f.area in ("queue", "kueue")]
    assert finding.code == codes.QUEUE_UNTOLERATED_TAINT
    assert "dedicated=ocr-only:NoSchedule" in str(finding.values)


def test_kueue_down_is_the_cause_before_any_workload_reason():
    crashing = {
        "metadata": {"name": "kueue-controller-manager-7d9f8-x2x", "namespace": "kueue-system",
                     "labels": {"control-plane": "controller-manager"}},
        "status": {"phase": "Running", "startTime": "2026-09-24T07:00:00Z",
                   "conditions": [{"type": "Ready", "status": "False"}],
                   "containerStatuses": [{"name": "manager", "ready": False, "restartCount": 14,
                                          "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]},
    }
    deployment = {
        "metadata": {"name": "kueue-controller-manager", "namespace": "kueue-system"},
        "spec": {"replicas": 1},
        "status": {"replicas": 1, "readyReplicas": 0, "availableReplicas": 0,
                   "conditions": [{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
                                   "lastTransitionTime": "2026-09-24T07:05:00Z"}]},
    }
    snapshot = o.scene(kueue_deployments=[deployment], kueue_pods=[crashing], kueue_namespace="kueue-system")
    estate = one(snapshot, "estate-inventories-1890")
    assert [f.code for f in estate.findings] == [codes.KUEUE_DOWN]
    running = one(snapshot, "parish-records-1870")
    assert not [f for f in running.findings if f.area == "kueue"]  # an admitted campaign is not held by Kueue


def test_a_campaign_publishing_under_another_address_says_so():
    job = copy.deepcopy(o.running_job())
    wrapper = next(c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == "wrapper")
    env = [e for e in wrapper.get("env", []) if e["name"] not in ("RESULTS_URL", "PUBLIC_RESULTS_BASE")]
    wrapper["env"] = [*env, {"name": "RESULTS_URL", "value": "https://old-htr.example.org/results"}]
    snapshot = o.scene(jobs=[job, o.queued_job(), o.court_rolls_job()], results_url=o.RESULTS_URL)
    parish = one(snapshot, "parish-records-1870")
    [finding] = [f for f in parish.findings if f.code == codes.RESULTS_OTHER_ADDRESS]
    assert finding.value("campaign_address") == "https://old-htr.example.org/results"
    assert finding.value("site_address") == o.RESULTS_URL
    same = one(o.scene(results_url=o.RESULTS_URL), "parish-records-1870")
    assert not [f for f in same.findings if f.code == codes.RESULTS_OTHER_ADDRESS]
