"""Which of the guide's checks a campaign's findings come from, and on which of its objects
(campaigns/domain/projection/findings.py): each check only in the states it explains, handed the Job the
queue was read for, the pipeline's warm-up and the pods that mount its cache; and the count of campaigns per
finding code, every code listed."""

from __future__ import annotations

import copy
from dataclasses import replace

from campaigns.domain.diagnosis import codes
from campaigns.domain.projection.findings import diagnose, findings_count, pipeline_cache
from campaigns.domain.projection.index import build_index
from campaigns.models import PAUSED, QUEUED, RUNNING, Campaign
from campaigns.models.findings import AUTHOR, NOBODY, Finding, Subject
from devstack import kube_samples as o
from devstack.scene_kube import cond, failed_wrapper_pod, warmup_pod, wrapper_message
from tests.campaigns.domain.diagnosis import samples as s
from tests.campaigns.domain.test_projection import one

ESTATE = "estate-inventories-1890"
PARISH = "parish-records-1870"
COURT = "court-rolls-1650"


def found(campaign: Campaign) -> list[tuple[str, object]]:
    return [(finding.code, finding.value("job")) for finding in campaign.findings]


# --- the queue and the campaign file: only while the campaign is held ---------------------------------------


def test_a_campaign_paused_in_its_file_gets_the_authors_finding_not_kueues():
    snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(active=False)])
    estate = one(snapshot, ESTATE)
    assert (estate.phase, estate.queue.kind) == (PAUSED, "paused")
    [finding] = estate.findings
    assert (finding.code, finding.actor, finding.chosen) == (codes.QUEUE_PAUSED, AUTHOR, True)
    assert finding.subject == Subject("campaign", "htr-batch", campaign=ESTATE)
    assert finding.value("workload") == "job-estate-inventories-1890-4b7c1"
    assert finding.value("file") == f"campaigns/{ESTATE}.yaml"


def test_a_priority_class_the_cluster_lacks_is_the_authors_finding():
    jobs = [o.running_job(), o.queued_job(priority_class="htr-missing"), o.court_rolls_job()]
    estate = one(o.scene(jobs=jobs, workloads=[o.admitted_workload()]), ESTATE)
    assert (estate.phase, estate.queue.kind) == (QUEUED, "no_workload_priority_class")
    [finding] = estate.findings
    assert (finding.code, finding.actor, finding.value("job")) == (codes.QUEUE_NO_PRIORITY_CLASS, AUTHOR, ESTATE)
    assert finding.subject == Subject("campaign", "htr-batch", campaign=ESTATE)


def test_a_campaign_kueue_pushed_aside_after_some_volumes_is_paused_and_gets_kueues_cause():
    evicted = o.admitted_workload(
        conditions=[
            cond("Evicted", "True", "Preempted", "Preempted to accommodate a higher priority workload"),
            cond("QuotaReserved", "False", "Preempted", "Preempted to accommodate a higher priority workload"),
        ]
    )
    held = o.running_job(suspend=True, conditions=[cond("Suspended", "True", "JobSuspended", "Job suspended")])
    parish = one(
        o.scene(jobs=[held, o.queued_job(), o.court_rolls_job()], workloads=[evicted, o.pending_workload()]), PARISH
    )
    assert (parish.phase, parish.queue.kind) == (PAUSED, "preempted")
    assert found(parish) == [(codes.QUEUE_KUEUE_SAYS, PARISH)]


def diagnosed(campaign: Campaign, snapshot, jobs: list[dict]) -> list[tuple[str, object]]:
    return [(f.code, f.value("job")) for f in diagnose(snapshot, build_index(snapshot), campaign, jobs)]


def test_the_queue_is_read_only_while_the_campaign_is_queued_or_paused():
    snapshot = o.scene()
    estate = one(snapshot, ESTATE)
    jobs = [o.queued_job()]
    assert diagnosed(estate, snapshot, jobs) == [(codes.QUEUE_WAITING_FOR_QUOTA, ESTATE)]
    assert diagnosed(replace(estate, phase=PAUSED), snapshot, jobs) == [(codes.QUEUE_WAITING_FOR_QUOTA, ESTATE)]
    assert diagnosed(replace(estate, phase=RUNNING), snapshot, jobs) == []
    assert diagnosed(replace(estate, queue=None), snapshot, jobs) == []
    admitted = replace(estate, queue=replace(estate.queue, kind="admitted"))
    assert diagnosed(admitted, snapshot, jobs) == []


def test_the_queue_and_the_campaign_file_read_the_job_the_queue_was_read_for_not_the_first():
    snapshot = o.scene()
    estate = one(snapshot, ESTATE)
    jobs = [o.running_job(), o.queued_job()]  # the first is another campaign's, admitted
    assert diagnosed(estate, snapshot, jobs) == [(codes.QUEUE_WAITING_FOR_QUOTA, ESTATE)]
    # A queue read for no Job of these: the first is read.
    elsewhere = replace(estate, queue=replace(estate.queue, job="gone-1"))
    assert diagnosed(elsewhere, snapshot, [o.queued_job(), o.running_job()]) == [
        (codes.QUEUE_WAITING_FOR_QUOTA, ESTATE)
    ]

    paused_snapshot = o.scene(workloads=[o.admitted_workload(), o.pending_workload(active=False)])
    paused = one(paused_snapshot, ESTATE)
    assert diagnosed(paused, paused_snapshot, jobs) == [(codes.QUEUE_PAUSED, ESTATE)]
    assert diagnosed(replace(paused, phase=RUNNING), paused_snapshot, jobs) == []
    assert diagnosed(replace(paused, queue=None), paused_snapshot, jobs) == []

    missing = o.queued_job(priority_class="htr-missing")
    missing_snapshot = o.scene(jobs=[o.running_job(), missing, o.court_rolls_job()], workloads=[o.admitted_workload()])
    lacking = one(missing_snapshot, ESTATE)
    assert diagnosed(lacking, missing_snapshot, [o.running_job(), missing]) == [(codes.QUEUE_NO_PRIORITY_CLASS, ESTATE)]
    assert diagnosed(replace(lacking, phase=RUNNING), missing_snapshot, [missing]) == []


# --- the model cache and the warm-up --------------------------------------------------------------------------


def test_a_failed_warmup_is_the_pipelines_finding_and_its_waiting_volumes_the_campaigns():
    court = one(o.scene(), COURT)
    failed, waiting = court.findings
    assert (failed.code, failed.subject) == (
        codes.WARMUP_FAILED,
        Subject("pipeline", "htr-batch", pipeline="swe-lines-v3"),
    )
    assert failed.value("wait_seconds") == 900
    assert (waiting.code, waiting.subject) == (codes.WARMUP_WAITING, Subject("campaign", "htr-batch", campaign=COURT))
    assert (waiting.actor, waiting.value("pods"), waiting.value("limit_seconds")) == (NOBODY, 2, 900)
    assert (waiting.value("job"), waiting.value("limit_source")) == (COURT, "command")


def test_without_a_limit_in_the_job_the_wait_is_read_from_the_message_of_a_pod_that_gave_up():
    job = copy.deepcopy(o.court_rolls_job())
    wait = job["spec"]["template"]["spec"]["initContainers"][0]
    script = wait["command"][-1].replace("-le 900 ]", '-le "$LIMIT" ]').replace("after 900s", "after a while")
    wait["command"] = [*wait["command"][:-1], script]
    court = one(o.scene(jobs=[o.running_job(), o.queued_job(), job]), COURT)
    [waiting] = [f for f in court.findings if f.code == codes.WARMUP_WAITING]
    assert (waiting.value("job"), waiting.value("pods")) == (COURT, 2)
    assert (waiting.value("limit_seconds"), waiting.value("limit_source")) == (900, "message")


def test_a_warmup_that_did_not_fail_is_no_finding():
    snapshot = o.scene(
        warmup_jobs=[o.warmup_job(o.PIPELINE), o.warmup_job(o.PIPELINE_V3, state="running", recipe=o.RECIPE_V3)],
        pods=[p for p in o.scene().pods if "warmup-swe-lines-v3" not in p["metadata"]["name"]],
    )
    court = one(snapshot, COURT)
    assert court.warmup.state != "failed"
    assert codes.WARMUP_FAILED not in [f.code for f in court.findings]


def test_the_cache_is_read_with_the_warmups_pods_and_the_campaigns_own():
    snapshot = o.scene()
    index = build_index(snapshot)
    court = one(snapshot, COURT)
    cache = pipeline_cache(snapshot, index, court, [o.court_rolls_job()])
    assert court.model_cache == cache
    assert (cache.pipeline, cache.warmup_job) == ("swe-lines-v3", "htr-warmup-swe-lines-v3")
    assert (cache.warmup_pod, cache.warmup_node) == ("htr-warmup-swe-lines-v3-q7k2m", "gpu-node-02")
    assert pipeline_cache(snapshot, index, replace(court, pipeline=""), [o.court_rolls_job()]) is None
    assert pipeline_cache(snapshot, index, court, []) is None


def test_a_complete_warmup_whose_marker_the_volumes_did_not_find_gets_its_cause():
    warmups = [o.warmup_job(o.PIPELINE), o.warmup_job(o.PIPELINE_V3, recipe=o.RECIPE_V3)]
    snapshot = o.scene(warmup_jobs=warmups, pods=[o.warmup_wait_exit13_pod()])
    court = one(snapshot, COURT)
    assert court.warmup.marker_missing
    [finding] = court.findings
    assert finding.code == codes.CACHE_OTHER_DIRECTORY
    assert (finding.value("campaign_job"), finding.value("warmup_job")) == (COURT, "htr-warmup-swe-lines-v3")
    assert finding.subject == Subject("pipeline", "htr-batch", campaign=COURT, pipeline="swe-lines-v3")
    jobs = [o.running_job(), o.court_rolls_job()]  # the Job of the volumes that gave up, not the first
    assert diagnosed(court, snapshot, jobs) == [(codes.CACHE_OTHER_DIRECTORY, None)]
    assert diagnose(snapshot, build_index(snapshot), court, jobs)[0].value("campaign_job") == COURT
    # The campaign by its own name, which a split campaign's Jobs do not carry.
    renamed = diagnose(snapshot, build_index(snapshot), replace(court, name="court-rolls"), jobs)
    assert renamed[0].subject == Subject("pipeline", "htr-batch", campaign="court-rolls", pipeline="swe-lines-v3")
    # No volume gave up on the marker: nothing to explain.
    assert (
        diagnosed(replace(court, volumes=one(o.scene(warmup_jobs=warmups, pods=[]), COURT).volumes), snapshot, jobs)
        == []
    )


MISS = (
    "LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been "
    "disabled. To enable hf.co look-ups and downloads online, set 'local_files_only' to False."
)


def missing_model_scene():
    pod = failed_wrapper_pod(PARISH, 4, wrapper_message("load", True, MISS), suffix="x4a1b")
    return o.scene(pods=[pod, *o.parish_pods()[1:]])


def test_a_volume_stopped_by_a_model_not_in_the_cache_is_one_finding_on_that_volume():
    parish = one(missing_model_scene(), PARISH)
    [finding] = parish.findings
    assert finding.code == codes.MODEL_NOT_IN_CACHE
    assert finding.subject == Subject("volume", "htr-batch", PARISH, "bouppteckning-1871", "swe-lines-v2")
    assert (finding.value("pod"), finding.value("stage")) == ("parish-records-1870-4-x4a1b", "load")
    assert finding.evidence[0].object == "Pod/parish-records-1870-4-x4a1b"
    assert finding.evidence[0].field == "status.containerStatuses[wrapper].state.terminated.message"


def test_failures_without_words_are_passed_over_and_an_unnamed_container_is_the_wrapper():
    snapshot = missing_model_scene()
    parish = one(snapshot, PARISH)
    missing = next(v for v in parish.failures if v.id == "bouppteckning-1871")
    silent = replace(missing, id="silent", reason=None)
    wordless = replace(missing, id="wordless", reason=replace(missing.reason, error=""))
    unnamed = replace(missing, reason=replace(missing.reason, container="", stage=None))
    campaign = replace(parish, failures=[silent, wordless, unnamed])
    [finding] = diagnose(snapshot, build_index(snapshot), campaign, [o.running_job()])
    assert (finding.code, finding.subject.volume, finding.value("stage")) == (codes.MODEL_NOT_IN_CACHE, missing.id, "")
    assert finding.evidence[0].field == "status.containerStatuses[wrapper].state.terminated.message"


def test_a_results_address_is_checked_only_when_the_site_has_one_on_every_job_until_one_differs():
    job = copy.deepcopy(o.running_job())
    wrapper = next(c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == "wrapper")
    env = [e for e in wrapper.get("env", []) if e["name"] not in ("RESULTS_URL", "PUBLIC_RESULTS_BASE")]
    wrapper["env"] = [*env, {"name": "RESULTS_URL", "value": "https://old-htr.example.org/results"}]
    snapshot = o.scene(jobs=[job, o.queued_job(), o.court_rolls_job()], results_url=o.RESULTS_URL)
    parish = one(snapshot, PARISH)
    other = (codes.RESULTS_OTHER_ADDRESS, PARISH)
    assert [f for f in found(parish) if f == other] == [other]
    index = build_index(snapshot)
    address = [f for f in diagnose(snapshot, index, parish, [o.running_job(), job]) if f.code == other[0]]
    assert [f.value("campaign_address") for f in address] == ["https://old-htr.example.org/results"]
    assert address[0].subject == Subject("campaign", "htr-batch", campaign=PARISH)
    unset = replace(snapshot, results_url="")
    assert [f for f in diagnose(unset, build_index(unset), parish, [job]) if f.code == other[0]] == []


def test_each_code_counts_the_campaigns_carrying_it_once_and_every_code_is_listed():
    def carrying(*found_codes: str) -> Campaign:
        campaign = Campaign(namespace="htr-batch", name="c")
        campaign.findings = [Finding(code, Subject("campaign", "htr-batch")) for code in found_codes]
        return campaign

    counts = findings_count(
        [
            carrying(codes.WARMUP_WAITING, codes.WARMUP_WAITING, codes.WARMUP_FAILED),
            carrying(codes.WARMUP_WAITING),
            carrying(),
            carrying("cache.new_kind"),
        ]
    )
    assert counts[codes.WARMUP_WAITING] == 2 and counts[codes.WARMUP_FAILED] == 1
    assert counts["cache.new_kind"] == 1
    assert set(counts) == {*codes.ALL, "cache.new_kind"}
    assert sum(counts.values()) == 4
    assert findings_count([]) == dict.fromkeys(codes.ALL, 0)


def test_kueues_health_is_read_in_its_own_namespace_before_the_queue():
    deployment = {
        "metadata": {"name": "kueue-controller-manager", "namespace": "queueing"},
        "spec": {"replicas": 1},
        "status": {
            "replicas": 1,
            "readyReplicas": 0,
            "availableReplicas": 0,
            "conditions": [{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"}],
        },
    }
    snapshot = o.scene(kueue_deployments=[deployment], kueue_pods=[], kueue_namespace="queueing")
    [down] = one(snapshot, ESTATE).findings
    assert (down.code, down.value("kueue_namespace")) == (codes.KUEUE_DOWN, "queueing")


def test_kueues_refusal_is_checked_against_the_flavors_read():
    taint = (
        "couldn't assign flavors to pod set main: untolerated taint {dedicated ocr-only NoSchedule <nil>} "
        "in flavor ocr-dedicated"
    )
    flavor = {
        "metadata": {"name": "ocr-dedicated"},
        "spec": {"nodeTaints": [{"key": "dedicated", "value": "ocr-only", "effect": "NoSchedule"}]},
    }
    pending = o.pending_workload(conditions=[cond("QuotaReserved", "False", "NoMatchingFlavor", taint)])
    snapshot = o.scene(workloads=[o.admitted_workload(), pending], resource_flavors=[flavor])
    [finding] = one(snapshot, ESTATE).findings
    assert finding.code == codes.QUEUE_UNTOLERATED_TAINT
    read = [(fact.object, fact.field) for fact in finding.evidence]
    assert ("ResourceFlavor/ocr-dedicated", "spec.nodeTaints") in read


def test_a_marker_not_found_is_checked_with_the_warmups_pod_and_the_pods_that_gave_up():
    """The cache's disk only one machine can use: the warm-up's pod ran on one node, the volume that gave up on
    another, both read from the snapshot's pods."""
    warmups = [o.warmup_job(o.PIPELINE), o.warmup_job(o.PIPELINE_V3, recipe=o.RECIPE_V2, pod_suffix="w3ok")]
    warmup = warmup_pod(o.PIPELINE_V3, state="succeeded", recipe=o.RECIPE_V2, suffix="w3ok")
    claim = s.pvc(accessModes=["ReadWriteOnce"])
    claim["metadata"]["name"] = "htr-model-cache"
    snapshot = o.scene(warmup_jobs=warmups, pods=[o.warmup_wait_exit13_pod(), warmup], pvcs=[claim])
    [finding] = one(snapshot, COURT).findings
    assert finding.code == codes.CACHE_RWO_OTHER_NODE
    assert (finding.value("warmup_node"), finding.value("other_nodes")) == ("gpu-node-02", ("gpu-node-01",))
    assert (finding.value("pods"), finding.value("pods_elsewhere")) == (("court-rolls-1650-2-7hq4z",), 1)
    assert [(fact.object, fact.value) for fact in finding.evidence[1:]] == [
        ("Pod/htr-warmup-swe-lines-v3-w3ok", "gpu-node-02"),
        ("Pod/court-rolls-1650-2-7hq4z", "gpu-node-01"),
    ]
