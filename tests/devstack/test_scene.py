"""The demo scene, read back through the real kubernetes client and boto3, the simulator, and `make demo`.

The tests that read the situations share one stack of their own (not the session-wide
``demo_stack``, which other tests move with ``step()``), so they are read exactly as built; each
simulator test moves a stack of its own, so the tests pass in any order.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from botocore.exceptions import ClientError
from kubernetes import client as k8s
from kubernetes import config as k8s_config

from campaigns.cluster import kept
from campaigns.domain.projection import project
from campaigns.models import Snapshot
from core.contract import LABEL_CAMPAIGN, LABEL_KIND, LABEL_MANAGED_BY, LABEL_PIPELINE
from devstack.demo import parse_args
from devstack.scene import build_scene, kueue_objects
from tests.fixtures.scene import start_stack
from tests.fixtures.waiting import wait_until

NS = "htr-batch"
H = "htrflow.riksarkivet.se/"
KUEUE = ("kueue.x-k8s.io", "v1beta2")
PROJECT_ROOT = Path(__file__).resolve().parents[2]


# --- helpers -----------------------------------------------------------------------------------


def indexes(ranges: str | None) -> set[int]:
    """'0-2,5' -> {0, 1, 2, 5}."""
    found: set[int] = set()
    for part in filter(None, (ranges or "").split(",")):
        first, _, last = part.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return found


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    built = start_stack("http://127.0.0.1:8000/results", tmp_path_factory.mktemp("scene-tests"))
    try:
        yield built
    finally:
        built.stop()


@pytest.fixture
def moving_stack(tmp_path):
    """A stack for one test that moves the scene, so that no other test sees it moved."""
    built = start_stack("http://127.0.0.1:8000/results", tmp_path)
    try:
        yield built
    finally:
        built.stop()


@pytest.fixture
def moving_api(moving_stack):
    """The BatchV1, CoreV1 and CustomObjects clients of `moving_stack`."""
    api_client = k8s_config.new_client_from_config(config_file=str(moving_stack.kubeconfig_path))
    yield k8s.BatchV1Api(api_client), k8s.CoreV1Api(api_client), k8s.CustomObjectsApi(api_client)
    api_client.close()


@pytest.fixture(scope="module")
def api(stack):
    api_client = k8s_config.new_client_from_config(config_file=str(stack.kubeconfig_path))
    yield api_client
    api_client.close()


@pytest.fixture(scope="module")
def batch(api):
    return k8s.BatchV1Api(api)


@pytest.fixture(scope="module")
def core(api):
    return k8s.CoreV1Api(api)


@pytest.fixture(scope="module")
def custom(api):
    return k8s.CustomObjectsApi(api)


def job(batch, name):
    return batch.read_namespaced_job(name, NS)


def pods_of(core, job_name):
    pods = core.list_namespaced_pod(NS, label_selector=f"batch.kubernetes.io/job-name={job_name}").items
    by_index: dict[int, list] = {}
    for pod in pods:
        by_index.setdefault(int(pod.metadata.labels["batch.kubernetes.io/job-completion-index"]), []).append(pod)
    for group in by_index.values():
        group.sort(key=lambda pod: (pod.metadata.creation_timestamp, pod.metadata.name))
    return by_index


def workloads_of(custom, job_uid):
    answer = custom.list_namespaced_custom_object(
        *KUEUE, NS, "workloads", label_selector=f"kueue.x-k8s.io/job-uid={job_uid}"
    )
    return answer["items"]


def condition(obj_conditions, kind):
    for item in obj_conditions or []:
        found_type = item["type"] if isinstance(item, dict) else item.type
        if found_type == kind:
            return item
    return None


def newest_pod(core, stack, situation):
    campaign = stack.scene.situations[situation]
    volume_id = stack.scene.volumes[situation][0]
    index = stack.scene.campaigns[campaign].volume(volume_id).index
    return pods_of(core, campaign)[index], index, campaign


def wrapper_terminated(pod):
    return pod.status.container_statuses[0].state.terminated


def termination_json(pod):
    return json.loads(wrapper_terminated(pod).message)


def cluster_queue(custom):
    return custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "htr-batch-cq")


def gpu_quota_and_usage(queue):
    quota = next(
        int(resource["nominalQuota"])
        for group in queue["spec"]["resourceGroups"]
        for flavor in group["flavors"]
        for resource in flavor["resources"]
        if resource["name"] == "nvidia.com/gpu"
    )
    used = sum(
        int(resource["total"])
        for flavor in queue["status"]["flavorsUsage"]
        for resource in flavor["resources"]
        if resource["name"] == "nvidia.com/gpu"
    )
    return quota, used


def reader(stack, name):
    return stack.store.client(stack.store.accounts[name])


def read(stack, name, key) -> bytes:
    return reader(stack, name).get_object(Bucket=stack.store.bucket, Key=key)["Body"].read()


# --- the cluster side --------------------------------------------------------------------------


def test_every_situation_names_a_campaign_the_cluster_shows(stack, batch, core):
    jobs = {j.metadata.name: j for j in batch.list_namespaced_job(NS, label_selector="app=htrflow-batch").items}
    records = {cm.metadata.name for cm in core.list_namespaced_config_map(NS).items}
    for situation, name in stack.scene.situations.items():
        if situation.startswith("job_gone"):
            assert name not in jobs
            assert {f"campaign-{name}", f"campaign-{name}-status"} <= records
        elif situation == "split":
            parts = sorted(n for n, j in jobs.items() if j.metadata.labels[H + "campaign"] == name)
            assert parts == [f"{name}-part1", f"{name}-part2"]
        else:
            assert name in jobs, situation
            assert f"campaign-{name}" in records


def test_campaign_jobs_carry_the_contract_labels_and_shape(batch, custom):
    listed = custom.list_namespaced_custom_object(*KUEUE, NS, "localqueues")["items"]
    local_queues = {queue["metadata"]["name"] for queue in listed}
    assert local_queues == {"htr-batch", "htr-ocr"}
    queues = set()
    for item in batch.list_namespaced_job(NS, label_selector="app=htrflow-batch").items:
        labels = item.metadata.labels
        assert labels[H + "managed-by"] == "converter"
        assert labels[H + "campaign"] and labels[H + "pipeline"]
        queues.add(labels["kueue.x-k8s.io/queue-name"])
        assert item.spec.completion_mode == "Indexed"
        assert item.spec.backoff_limit_per_index == 3
        volumes = {v.name: v for v in item.spec.template.spec.volumes}
        assert volumes["campaign"].config_map.name == f"campaign-{item.metadata.name}"
        assert volumes["pipeline"].config_map.name == f"htr-pipeline-{labels[H + 'pipeline']}"
    assert queues == local_queues  # every Job names a LocalQueue that exists, and each queue has a campaign


def test_volumes_txt_has_one_tab_separated_line_per_index_pointing_at_served_manifests(stack, batch, core):
    parish = job(batch, stack.scene.situations["running_mixed"])
    record = core.read_namespaced_config_map(f"campaign-{parish.metadata.name}", NS)
    lines = record.data["volumes.txt"].splitlines()
    assert len(lines) == parish.spec.completions == 40
    volume_id, source = lines[0].split("\t")
    assert source.startswith(stack.images.base + "/manifests/")
    with urllib.request.urlopen(source, timeout=10) as answer:
        assert json.loads(answer.read())["type"] == "Manifest"


def test_one_campaign_lists_bare_images_and_they_are_served(stack, core):
    name = stack.scene.situations["images_form"]
    lines = core.read_namespaced_config_map(f"campaign-{name}", NS).data["volumes.txt"].splitlines()
    sources = dict(line.split("\t") for line in lines)
    volume_id = stack.scene.volumes["images_form"][0]
    assert sources[volume_id].startswith("images:")
    urls = sources[volume_id][len("images:") :].split(" ")
    assert len(urls) > 1
    with urllib.request.urlopen(urls[0], timeout=10) as answer:
        assert answer.headers["Content-Type"] == "image/jpeg"


def test_no_volume_has_more_pages_than_it_has_and_only_done_ones_have_all(stack):
    for campaign in stack.scene.campaigns.values():
        for volume in campaign.volumes:
            assert volume.processed <= volume.pages, (campaign.name, volume.id)
            assert (volume.processed == volume.pages) == (volume.state == "done") or volume.state == "failed"


def test_the_running_campaign_has_done_failed_active_and_pending_volumes(stack, batch, core):
    name = stack.scene.situations["running_mixed"]
    status = job(batch, name).status
    done, failed = indexes(status.completed_indexes), indexes(status.failed_indexes)
    pods = pods_of(core, name)
    pending = set(range(40)) - set(pods)
    assert done and failed and pending and status.active > 0
    assert not done & failed
    running = {i for i, group in pods.items() if group[-1].status.phase == "Running"}
    assert len(running) == status.active
    assert condition(status.conditions, "Complete") is None and condition(status.conditions, "Failed") is None


def test_a_campaign_waits_in_init_for_a_warm_up_that_has_not_finished(stack, batch, core):
    name = stack.scene.situations["warmup_pending"]
    pipeline = job(batch, name).metadata.labels[H + "pipeline"]
    warmup = job(batch, f"htr-warmup-{pipeline}")
    assert not condition(warmup.status.conditions, "Complete") and not condition(warmup.status.conditions, "Failed")
    assert H + "recipe-sha256" in warmup.spec.template.metadata.annotations
    for group in pods_of(core, name).values():
        pod = group[-1]
        assert pod.status.phase == "Pending"
        assert pod.status.init_container_statuses[0].name == "warmup-wait"
        assert pod.status.init_container_statuses[0].state.running is not None
        assert pod.status.container_statuses[0].state.waiting.reason == "PodInitializing"


def test_a_failed_warm_up_job_has_its_json_reason_and_its_campaign_failed_on_the_marker(stack, batch, core):
    name = stack.scene.situations["warmup_failed"]
    pipeline = job(batch, name).metadata.labels[H + "pipeline"]
    warmup = job(batch, f"htr-warmup-{pipeline}")
    assert condition(warmup.status.conditions, "Failed").status == "True"
    (pod,) = core.list_namespaced_pod(NS, label_selector=f"batch.kubernetes.io/job-name=htr-warmup-{pipeline}").items
    message = json.loads(pod.status.container_statuses[0].state.terminated.message)
    assert message["stage"] == "warmup" and message["permanent"] is True and message["error"]
    marker = (
        f"no warm-up marker at /data/warmup/{pipeline}.done after 900s: the pipeline's warm-up Job has not finished"
    )
    for group in pods_of(core, stack.scene.situations["warmup_wait_exit13"]).values():
        init = group[-1].status.init_container_statuses[0].state.terminated
        assert init.exit_code == 13 and init.message.strip() == marker


@pytest.mark.parametrize(
    "situation, exit_code, evidence",
    [
        ("permanent_setup", 13, {"stage": "setup", "permanent": True}),
        ("transient_retrying", 1, {"stage": "stream", "permanent": False}),
        ("transient_last_attempt", 1, {"stage": "stream", "permanent": False}),
        ("verify_missing_pages", 1, {"stage": "verify"}),
        ("sigterm", 143, {"error": "SIGTERM"}),
        ("deadline_exceeded", 143, {"error": "SIGTERM"}),
    ],
)
def test_each_wrapper_failure_leaves_its_exit_code_and_json_message(stack, core, batch, situation, exit_code, evidence):
    pods, index, name = newest_pod(core, stack, situation)
    terminated = wrapper_terminated(pods[-1])
    assert terminated.exit_code == exit_code
    message = termination_json(pods[-1])
    assert {key: message[key] for key in evidence} == evidence
    failed = indexes(job(batch, name).status.failed_indexes)
    assert (index in failed) == (situation in ("permanent_setup", "transient_last_attempt", "verify_missing_pages"))


def test_the_permanent_setup_failure_names_a_manifest_that_really_answers_404(stack, core):
    pods, _, _ = newest_pod(core, stack, "permanent_setup")
    error = termination_json(pods[-1])["error"]
    url = re.search(r"(http://\S+manifest\.json)", error).group(1)
    assert error.endswith("HTTP 404")
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(url, timeout=10)
    assert answer.value.code == 404


def test_the_last_attempt_failure_spent_all_four_tries(stack, core):
    pods, _, _ = newest_pod(core, stack, "transient_last_attempt")
    assert len(pods) == 4
    assert pods[-1].metadata.annotations["batch.kubernetes.io/job-index-failure-count"] == "3"


def test_the_verify_failure_lists_missing_and_failed_pages(stack, core):
    pods, _, _ = newest_pod(core, stack, "verify_missing_pages")
    error = termination_json(pods[-1])["error"]
    assert error.startswith("verify failed: 2 missing, 1 failed")
    assert "missing=[0012, 0044] failed=[0031]" in error


def test_kills_are_told_by_pod_reason_and_terminated_reason(stack, core):
    deadline, _, _ = newest_pod(core, stack, "deadline_exceeded")
    assert deadline[-1].status.reason == "DeadlineExceeded"
    evicted, _, _ = newest_pod(core, stack, "evicted")
    assert evicted[-1].status.reason == "Evicted" and evicted[-1].status.phase == "Failed"
    oom, _, _ = newest_pod(core, stack, "oom_killed")
    terminated = wrapper_terminated(oom[-1])
    assert (terminated.reason, terminated.exit_code) == ("OOMKilled", 137)
    drained, _, _ = newest_pod(core, stack, "sigterm")
    assert condition(drained[-1].status.conditions, "DisruptionTarget").status == "True"


# --- the queue ---------------------------------------------------------------------------------


def test_queued_waiting_its_turn_while_others_hold_the_quota(stack, batch, custom):
    waiting = job(batch, stack.scene.situations["queued_turn"])
    assert waiting.spec.suspend is True
    (workload,) = workloads_of(custom, waiting.metadata.uid)
    reserved = condition(workload["status"]["conditions"], "QuotaReserved")
    assert (reserved["status"], reserved["reason"]) == ("False", "Pending")
    assert "insufficient unused quota for nvidia.com/gpu" in reserved["message"]
    assert workload["metadata"]["ownerReferences"][0]["uid"] == waiting.metadata.uid
    queue = cluster_queue(custom)
    quota, used = gpu_quota_and_usage(queue)
    assert used == quota
    assert queue["status"]["pendingWorkloads"] > 0


def test_what_the_campaigns_stand_on_is_there_the_cache_claim_the_flavors_and_a_running_kueue(
    stack, api, batch, core, custom
):
    claims = {
        volume.persistent_volume_claim.claim_name
        for job_obj in batch.list_namespaced_job(NS).items
        for volume in job_obj.spec.template.spec.volumes or []
        if volume.name == "data" and volume.persistent_volume_claim
    }
    pvcs = {pvc.metadata.name: pvc for pvc in core.list_namespaced_persistent_volume_claim(NS).items}
    assert claims and set(pvcs) == claims  # one bound claim for every cache the Jobs mount
    assert all(pvc.status.phase == "Bound" for pvc in pvcs.values())
    single_node = {name for name, pvc in pvcs.items() if pvc.status.access_modes != ["ReadWriteMany"]}
    assert single_node == {"htr-model-cache-local"}  # only the cache of cache_rwo_other_node is ReadWriteOnce
    assert pvcs["htr-model-cache-local"].status.access_modes == ["ReadWriteOnce"]
    flavors = {each["metadata"]["name"]: each.get("spec") or {}
               for each in custom.list_cluster_custom_object(*KUEUE, "resourceflavors")["items"]}
    named = {flavor["name"] for group in cluster_queue(custom)["spec"]["resourceGroups"] for flavor in group["flavors"]}
    assert named <= set(flavors)  # every flavor the campaigns' ClusterQueue names exists
    assert [name for name, spec in flavors.items() if not spec] == ["default-flavor"]  # the empty one
    tainted = [name for name, spec in flavors.items() if spec.get("nodeTaints")]
    assert tainted and not set(tainted) & named  # no admitted campaign would have been let onto it
    ocr = custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "htr-ocr-cq")
    ocr_flavors = {flavor["name"] for group in ocr["spec"]["resourceGroups"] for flavor in group["flavors"]}
    assert ocr_flavors == set(tainted) and ocr["status"]["admittedWorkloads"] == 0  # the team's queue: only there
    (deployment,) = k8s.AppsV1Api(api).list_namespaced_deployment("kueue-system").items
    assert deployment.metadata.name == "kueue-controller-manager" and deployment.status.available_replicas == 1
    (pod,) = core.list_namespaced_pod("kueue-system", label_selector="control-plane=controller-manager").items
    assert pod.status.phase == "Running" and pod.status.container_statuses[0].ready is True


def test_queued_that_can_never_be_admitted_asks_for_more_than_the_quota(stack, batch, custom):
    never = job(batch, stack.scene.situations["queued_never_fits"])
    gpus_per_pod = int(never.spec.template.spec.containers[0].resources.requests["nvidia.com/gpu"])
    quota, _ = gpu_quota_and_usage(cluster_queue(custom))
    assert never.spec.parallelism * gpus_per_pod > quota
    (workload,) = workloads_of(custom, never.metadata.uid)
    message = condition(workload["status"]["conditions"], "QuotaReserved")["message"]
    assert message == (  # Kueue's own format (contracts §8)
        "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor gpu-a100, "
        f"previously considered podsets requests (0) + current podset request ({never.spec.parallelism * gpus_per_pod})"
        f" > maximum capacity ({quota})"
    )


def test_queued_without_workload_names_a_missing_priority_class(stack, batch, core, custom):
    missing = job(batch, stack.scene.situations["queued_missing_priority"])
    wanted = missing.metadata.labels["kueue.x-k8s.io/priority-class"]
    classes = custom.list_cluster_custom_object(*KUEUE, "workloadpriorityclasses")["items"]
    names = {item["metadata"]["name"]: item["value"] for item in classes}
    assert names == {"htr-interactive": 1000, "htr-bulk": 0, "htr-idle": -10}
    assert wanted not in names
    assert workloads_of(custom, missing.metadata.uid) == []
    events = core.list_namespaced_event(NS).items
    assert not [e for e in events if e.involved_object.name == missing.metadata.name]


@pytest.mark.parametrize("situation, finished_some", [("paused_before_start", False), ("paused_after_some", True)])
def test_paused_campaigns_have_a_deactivated_workload(stack, batch, custom, situation, finished_some):
    paused = job(batch, stack.scene.situations[situation])
    assert paused.spec.suspend is True
    assert condition(paused.status.conditions, "Suspended").status == "True"
    (workload,) = workloads_of(custom, paused.metadata.uid)
    assert workload["spec"]["active"] is False
    evicted = condition(workload["status"]["conditions"], "Evicted")
    assert (evicted["status"], evicted["reason"]) == ("True", "Deactivated")
    assert bool(paused.status.completed_indexes) is finished_some


# --- one campaign per cause: what the cluster and the bucket hold -------------------------------


def warmup_of(batch, core, name):
    pipeline = job(batch, name).metadata.labels[H + "pipeline"]
    warmup = job(batch, f"htr-warmup-{pipeline}")
    (pod,) = core.list_namespaced_pod(NS, label_selector=f"batch.kubernetes.io/job-name={warmup.metadata.name}").items
    return warmup, pod


def gave_up_after(warmup, groups) -> list:
    """The newest pod of each index: each gave up in warmup-wait (exit 13) after the warm-up completed."""
    newest = [group[-1] for group in groups.values()]
    for pod in newest:
        init = pod.status.init_container_statuses[0].state.terminated
        assert init.exit_code == 13 and init.finished_at > warmup.status.completion_time
    return newest


def test_the_warm_up_campaigns_gave_up_after_it_completed_each_for_its_own_cause(stack, batch, core):
    placement = stack.scene.situations["warmup_placement_differs"]
    warmup, _ = warmup_of(batch, core, placement)
    gave_up_after(warmup, pods_of(core, placement))
    assert job(batch, placement).spec.template.spec.node_selector == {"gpu": "a100"}
    assert warmup.spec.template.spec.node_selector is None
    rwo = stack.scene.situations["cache_rwo_other_node"]
    warmup, warmup_pod = warmup_of(batch, core, rwo)
    assert (warmup_pod.status.phase, warmup_pod.spec.node_name) == ("Succeeded", "gpu-node-02")
    nodes = {pod.spec.node_name for pod in gave_up_after(warmup, pods_of(core, rwo))}
    assert nodes and "gpu-node-02" not in nodes
    claim = job(batch, rwo).spec.template.spec.volumes
    claim = next(v.persistent_volume_claim.claim_name for v in claim if v.name == "data")
    assert core.read_namespaced_persistent_volume_claim(claim, NS).spec.access_modes == ["ReadWriteOnce"]
    replaced = stack.scene.situations["cache_replaced"]
    warmup, _ = warmup_of(batch, core, replaced)
    gave_up_after(warmup, pods_of(core, replaced))
    claim = next(v.persistent_volume_claim.claim_name for v in warmup.spec.template.spec.volumes if v.name == "data")
    made = core.read_namespaced_persistent_volume_claim(claim, NS).metadata.creation_timestamp
    assert warmup.status.completion_time < made < job(batch, replaced).metadata.creation_timestamp


def test_a_running_campaign_publishes_under_another_address_and_its_results_say_so(stack, batch):
    name = stack.scene.situations["results_other_address"]
    wrapper = job(batch, name).spec.template.spec.containers[0]
    env = {entry.name: entry.value for entry in wrapper.env}
    assert env["RESULTS_URL"] == "https://old-htr.example.org/results" != stack.results_url
    pipeline = job(batch, name).metadata.labels[H + "pipeline"]
    volume_id = stack.scene.volumes["results_other_address"][0]
    manifest = json.loads(read(stack, "full", f"{NS}/{pipeline}/{volume_id}/manifest.json"))
    assert manifest["viewer_url"] == f"https://old-htr.example.org/results/{NS}/{pipeline}/{volume_id}/iiif.json"


def test_a_model_missing_from_the_cache_fails_each_volume_in_load_on_every_attempt(stack, batch, core):
    name = stack.scene.situations["model_not_in_cache"]
    assert indexes(job(batch, name).status.failed_indexes) == set(pods_of(core, name))
    for group in pods_of(core, name).values():
        assert len(group) == 4
        message = termination_json(group[-1])
        assert (message["stage"], message["permanent"]) == ("load", False)
        assert message["error"].startswith("LocalEntryNotFoundError: Cannot find the requested files in the disk cache")
    pipeline = job(batch, name).metadata.labels[H + "pipeline"]
    volume_id = stack.scene.volumes["model_not_in_cache"][0]
    log = read(stack, "full", f"{NS}/status/logs/{pipeline}/{volume_id}.txt").decode()
    assert "transient failure in load on the last attempt: LocalEntryNotFoundError" in log


def test_a_campaign_queued_where_a_taint_keeps_it_out_has_kueues_own_words(stack, batch, custom):
    name = stack.scene.situations["queue_untolerated_taint"]
    queued = job(batch, name)
    assert queued.spec.suspend is True and queued.metadata.labels["kueue.x-k8s.io/queue-name"] == "htr-ocr"
    (workload,) = workloads_of(custom, queued.metadata.uid)
    reserved = condition(workload["status"]["conditions"], "QuotaReserved")
    assert (reserved["status"], reserved["reason"], reserved["message"]) == (
        "False",
        "Pending",
        "couldn't assign flavors to pod set main: untolerated taint {dedicated ocr-only NoSchedule <nil>} "
        "in flavor ocr-dedicated",
    )
    assert not queued.spec.template.spec.tolerations


# --- one campaign per cause: what the projection names -----------------------------------------

# Each situation and the one finding its campaign carries (codes of campaigns.domain.diagnosis.codes).
FINDING_OF_SITUATION = {
    "warmup_pending": "warmup.waiting",
    "queued_turn": "queue.waiting_for_quota",
    "queued_never_fits": "queue.exceeds_max_quota",
    "warmup_placement_differs": "warmup.placement_differs",
    "cache_rwo_other_node": "cache.rwo_other_node",
    "cache_replaced": "cache.replaced",
    "queue_untolerated_taint": "queue.untolerated_taint",
    "results_other_address": "results.other_address",
    "model_not_in_cache": "model.not_in_cache",
}
SCENE_RESULTS_URL = "https://htr.example/results"


@pytest.fixture(scope="module")
def pure_scene():
    """The scene as built, with no server (addresses are only compared, never opened)."""
    return build_scene(datetime.now(UTC), "http://img.example", SCENE_RESULTS_URL)


def labels(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("labels") or {}


def scene_snapshot(scene, objects: list[dict] | None = None) -> Snapshot:
    """The scene's namespace as the site's informers hold it (campaigns.cluster.sources): the lists their
    selectors pick, each object cut as `kept` cuts it. A campaign's pods that succeeded are not held; a
    warm-up's are, whatever their phase."""
    kinds: dict[str, list[dict]] = {}
    for obj in scene.objects if objects is None else objects:
        kinds.setdefault(obj["kind"], []).append(obj)
    maps, jobs, pods = kinds["ConfigMap"], kinds["Job"], kinds["Pod"]
    mine = [pod for pod in pods if pod["metadata"]["namespace"] == scene.namespace]
    held = [
        pod
        for pod in mine
        if labels(pod).get("app") == "htrflow-warmup"
        or (labels(pod).get("app") == "htrflow-batch" and pod["status"]["phase"] != "Succeeded")
    ]
    controller = [pod for pod in pods if labels(pod).get("control-plane") == "controller-manager"]
    return Snapshot(
        namespace=scene.namespace,
        jobs=[j for j in jobs if labels(j).get("app") == "htrflow-batch" and labels(j).get(LABEL_MANAGED_BY)],
        warmup_jobs=[j for j in jobs if labels(j).get("app") == "htrflow-warmup"],
        records=[m for m in maps if LABEL_CAMPAIGN in labels(m) and labels(m).get(LABEL_KIND) != "status"],
        status_records=[m for m in maps if labels(m).get(LABEL_KIND) == "status"],
        pipelines=[m for m in maps if LABEL_PIPELINE in labels(m) and LABEL_CAMPAIGN not in labels(m)],
        workloads=kinds["Workload"],
        pods=[kept.job_pod(pod) for pod in held],
        local_queues=kinds["LocalQueue"],
        cluster_queues=kinds["ClusterQueue"],
        priority_classes=[each["metadata"]["name"] for each in kinds["WorkloadPriorityClass"]],
        events=kinds["Event"],
        pvcs=[kept.pvc(claim) for claim in kinds["PersistentVolumeClaim"]],
        resource_flavors=[kept.resource_flavor(flavor) for flavor in kinds["ResourceFlavor"]],
        kueue_deployments=[kept.deployment(found) for found in kinds["Deployment"]],
        kueue_pods=[kept.controller_pod(pod) for pod in controller],
        kueue_namespace="kueue-system",
        results_url=SCENE_RESULTS_URL,
        read_at=scene.now,
    )


def findings_by_campaign(scene, objects: list[dict] | None = None) -> dict[str, list]:
    return {campaign.name: campaign.findings for campaign in project(scene_snapshot(scene, objects), scene.now)}


def test_each_cause_has_a_campaign_that_carries_exactly_its_finding(pure_scene):
    found = findings_by_campaign(pure_scene)
    named = {situation: pure_scene.situations[situation] for situation in FINDING_OF_SITUATION}
    assert len(set(named.values())) == len(named)  # one campaign per cause
    codes = {situation: [f.code for f in found[name]] for situation, name in named.items()}
    assert codes == {situation: [code] for situation, code in FINDING_OF_SITUATION.items()}


def test_each_cause_is_named_from_the_objects_as_the_cluster_leaves_them(pure_scene):
    found = findings_by_campaign(pure_scene)

    def finding(situation):
        (only,) = found[pure_scene.situations[situation]]
        return only

    placement = finding("warmup_placement_differs")
    assert (placement.value("field"), placement.value("warmup_value"), placement.value("campaign_value")) == (
        "nodeSelector", (), ("gpu=a100",)
    )
    rwo = finding("cache_rwo_other_node")
    assert rwo.value("claim") == "htr-model-cache-local" and rwo.value("warmup_node") == "gpu-node-02"
    assert rwo.value("other_nodes") == ("gpu-node-03", "gpu-node-04") and rwo.value("pods_elsewhere") == 2
    replaced = finding("cache_replaced")
    assert replaced.value("claim_created") > replaced.value("warmup_completed")
    taint = finding("queue_untolerated_taint")
    assert (taint.value("taint"), taint.value("flavor"), taint.value("cluster_queue")) == (
        "dedicated=ocr-only:NoSchedule", "ocr-dedicated", "htr-ocr-cq"
    )
    address = finding("results_other_address")
    assert (address.value("campaign_address"), address.value("site_address")) == (
        "https://old-htr.example.org/results", SCENE_RESULTS_URL
    )
    model = finding("model_not_in_cache")
    assert model.value("retries_help") is False and model.value("warmup_job") == "htr-warmup-swe-lines-v8"
    assert model.value("stage") == "load"  # from the termination message, though the volume keeps only its error
    assert "Riksarkivet/trocr-base-handwritten-hist-swe-2" in [m for _, m, _ in model.value("models")]


def test_with_kueue_crash_looping_what_kueue_holds_back_says_so_and_nothing_else_changes(pure_scene):
    """Kueue down overrides every queue reason, so the scene keeps it healthy; a test swaps in the
    crash-looping controller (the same Deployment and pod names)."""
    down = [
        obj
        for obj in kueue_objects(pure_scene.now - timedelta(days=60), down_since=pure_scene.now - timedelta(minutes=20))
        if obj["kind"] in ("Deployment", "Pod")
    ]
    swapped = {(obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"]) for obj in down}
    objects = [
        obj
        for obj in pure_scene.objects
        if (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"]) not in swapped
    ]
    assert len(objects) == len(pure_scene.objects) - len(down)  # replaced, not added
    before = {name: [f.code for f in found] for name, found in findings_by_campaign(pure_scene).items()}
    after = {name: [f.code for f in found] for name, found in findings_by_campaign(pure_scene, objects + down).items()}
    # What waits for Kueue: the Workloads it has not admitted, and the Job it gave no Workload (while it is
    # down new Jobs get none). A campaign paused in git, running or finished is not Kueue's to explain.
    waiting = ("queued_turn", "queued_never_fits", "queue_untolerated_taint", "queued_missing_priority")
    held = {pure_scene.situations[situation] for situation in waiting}
    for name, codes in after.items():
        if name in held:  # a cause in the campaign's own file stays: Kueue coming back would not cure it
            assert codes == ["kueue.down", *(c for c in before[name] if c == "queue.no_priority_class")], name
        else:
            assert codes == before[name], name


def test_the_demo_started_with_kueue_down_shows_the_same_crash_looping_controller(pure_scene):
    """`make demo DEMO_ARGS=--kueue-down` builds the scene with the controller that test swaps in."""
    assert parse_args(["--kueue-down"]).kueue_down and not parse_args([]).kueue_down
    down = build_scene(pure_scene.now, "http://img.example", SCENE_RESULTS_URL, kueue_down=True)
    codes = {name: [f.code for f in found] for name, found in findings_by_campaign(down).items()}
    turn = pure_scene.situations["queued_turn"]
    assert codes[turn] == ["kueue.down"]
    assert sum(1 for found in codes.values() if "kueue.down" in found) == 4


# --- finished campaigns and records ------------------------------------------------------------


def test_finished_campaigns_end_as_their_situation_says(stack, batch):
    situations = stack.scene.situations
    succeeded = job(batch, situations["succeeded"]).status
    assert condition(succeeded.conditions, "Complete").status == "True" and succeeded.completion_time
    partly = job(batch, situations["partially_failed"]).status
    assert condition(partly.conditions, "Failed").status == "True"
    assert indexes(partly.completed_indexes) and indexes(partly.failed_indexes)
    failed = job(batch, situations["failed"]).status
    assert condition(failed.conditions, "Failed").status == "True" and not failed.completed_indexes


def test_succeeded_with_failed_pages_has_a_manifest_that_says_so(stack, batch):
    name = stack.scene.situations["succeeded_failed_pages"]
    pipeline = job(batch, name).metadata.labels[H + "pipeline"]
    volume_id = stack.scene.volumes["succeeded_failed_pages"][0]
    manifest = json.loads(read(stack, "full", f"{NS}/{pipeline}/{volume_id}/manifest.json"))
    assert manifest["pages_failed"] >= 1
    assert [r for r in manifest["results"].values() if r["status"] == "failed"]


def test_a_campaign_whose_job_is_gone_keeps_its_records(stack, core):
    name = stack.scene.situations["job_gone"]
    record = core.read_namespaced_config_map(f"campaign-{name}", NS)
    assert record.data["volumes.txt"].count("\n") >= 1
    status = core.read_namespaced_config_map(f"campaign-{name}-status", NS)
    assert status.metadata.labels[H + "kind"] == "status"
    assert status.data["phase"] == "Succeeded"
    assert isinstance(json.loads(status.data["failedVolumes"]), list)
    partly = core.read_namespaced_config_map(
        f"campaign-{stack.scene.situations['job_gone_partially_failed']}-status", NS
    )
    failed = json.loads(partly.data["failedVolumes"])
    assert {entry["id"] for entry in failed} == set(stack.scene.volumes["job_gone_partially_failed"])
    assert all(entry["reason"] for entry in failed)


# --- the results bucket ------------------------------------------------------------------------


def test_a_done_volume_has_every_result_file(stack):
    volume_id = stack.scene.volumes["limited_allowed"][0]
    prefix = f"{NS}/swe-lines-v2/{volume_id}"
    progress = json.loads(read(stack, "full", f"{prefix}/progress.json"))
    assert progress["stage"] == "done" and progress["pages_done"] == progress["pages_total"]
    manifest = json.loads(read(stack, "full", f"{prefix}/manifest.json"))
    assert manifest["viewer_url"] == f"{stack.results_url}/{prefix}/iiif.json"
    iiif = json.loads(read(stack, "full", f"{prefix}/iiif.json"))
    assert iiif["items"][0]["seeAlso"][0]["id"] == f"{stack.results_url}/{prefix}/alto/0001.xml"
    assert b"http://www.loc.gov/standards/alto/ns-v4#" in read(stack, "full", f"{prefix}/alto/0001.xml")
    assert b"PcGts" in read(stack, "full", f"{prefix}/page/0001.xml")
    log = read(stack, "full", f"{NS}/status/logs/swe-lines-v2/{volume_id}.txt").decode()
    assert f"[{volume_id}] COMPLETE {manifest['pages']} pages" in log


def test_one_volume_keeps_its_run_log_at_the_older_key(stack):
    volume_id = stack.scene.volumes["old_log_key"][0]
    log = stack.store.get(f"status/logs/swe-lines-v2/{volume_id}.txt").decode()
    assert "COMPLETE" in log


def test_the_limited_account_is_denied_its_volumes_and_reads_the_others(stack):
    denied = stack.scene.volumes["limited_denied"][0]
    allowed = stack.scene.volumes["limited_allowed"][0]
    for key in (f"{NS}/swe-lines-v2/{denied}/manifest.json", f"{NS}/status/logs/swe-lines-v2/{denied}.txt"):
        with pytest.raises(ClientError) as refused:
            read(stack, "limited", key)
        assert refused.value.response["Error"]["Code"] == "AccessDenied"
        assert read(stack, "full", key)
    assert json.loads(read(stack, "limited", f"{NS}/swe-lines-v2/{allowed}/manifest.json"))["volume"] == allowed


def test_one_campaign_has_scored_pages_and_another_says_nothing_about_quality(stack):
    scored = stack.scene.campaign_of("quality_scored")
    assert scored.pipeline.predicts_quality and "QualityPrediction" in scored.pipeline.yaml
    volume_id = stack.scene.volumes["quality_scored"][0]
    prefix = f"{NS}/{scored.pipeline.id}/{volume_id}"
    progress = json.loads(read(stack, "full", f"{prefix}/progress.json"))
    manifest = json.loads(read(stack, "full", f"{prefix}/manifest.json"))
    assert progress["quality"]["scored"] == manifest["quality"]["scored"] == manifest["pages_ok"]
    assert progress["quality"]["lowest"] == manifest["quality"]["lowest"]
    assert manifest["quality"]["target"] == "bow_f1"
    unscored = stack.scene.campaign_of("quality_unscored")
    assert not unscored.pipeline.predicts_quality
    done = next(v for v in unscored.volumes if v.state == "done" and not v.old_log_key)
    prefix = f"{NS}/{unscored.pipeline.id}/{done.id}"
    assert "quality" not in json.loads(read(stack, "full", f"{prefix}/progress.json"))
    manifest = json.loads(read(stack, "full", f"{prefix}/manifest.json"))
    assert "quality" not in manifest and all("quality" not in page for page in manifest["results"].values())
    log = read(stack, "full", f"{NS}/status/logs/{unscored.pipeline.id}/{done.id}.txt").decode()
    assert "quality" not in log


# --- the shared fixture --------------------------------------------------------------------------


def test_the_scene_fixture_points_the_app_at_a_stack_built_for_the_live_server(scene, settings, live_server):
    assert settings.HTRFLOW_RESULTS_URL == live_server.url + "/results"
    assert settings.S3_ENDPOINT == scene.store.endpoint and settings.HTRFLOW_NAMESPACES == ["htr-batch"]
    api_client = k8s_config.new_client_from_config(config_file=settings.KUBECONFIG)
    try:
        names = {j.metadata.name for j in k8s.BatchV1Api(api_client).list_namespaced_job(NS).items}
    finally:
        api_client.close()
    assert scene.scene.situations["running_mixed"] in names
    volume_id = scene.scene.volumes["limited_allowed"][0]
    manifest = json.loads(read(scene, "full", f"{NS}/swe-lines-v2/{volume_id}/manifest.json"))
    assert manifest["viewer_url"].startswith(live_server.url + "/results/")


# --- the simulator (each moves a stack of its own) ---------------------------------------------------


def test_a_step_adds_pages_to_running_volumes(moving_stack):
    stack = moving_stack
    volume_id = stack.scene.volumes["long_running"][0]
    key = f"{NS}/swe-lines-v2/{volume_id}/progress.json"
    before = json.loads(stack.store.get(key))
    stack.simulator.step()
    after = json.loads(stack.store.get(key))
    assert after["pages_done"] == before["pages_done"] + 1
    assert after["updated_at"] >= before["updated_at"]
    assert read(stack, "full", f"{NS}/swe-lines-v2/{volume_id}/alto/{after['pages_done']:04d}.xml")


LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ", re.MULTILINE)


def test_lines_appended_to_a_running_volume_log_never_go_back_in_time(moving_stack):
    from devstack import scene_store
    from devstack.scene_model import RUNNING

    stack = moving_stack
    where = stack.scene.where
    running = [(c, v) for c in stack.scene.campaigns.values() for v in c.volumes if v.state == RUNNING]
    assert running
    before = {v.id: stack.store.get(scene_store.log_key(where, c, v)).decode() for c, v in running}
    for _ in range(3):
        stack.simulator.step()
    checked = 0
    for campaign, volume in running:
        written = before[volume.id]
        log_text = stack.store.get(scene_store.log_key(where, campaign, volume)).decode()
        appended = LOG_TIME.findall(log_text[len(written) :])
        if not appended:
            continue
        checked += 1
        assert appended == sorted(appended), volume.id
        assert appended[0] >= max(LOG_TIME.findall(written), default=""), volume.id
    assert checked


def test_steps_complete_volumes_finish_a_campaign_and_admit_the_queued_one(moving_stack, moving_api):
    stack = moving_stack
    batch, core, custom = moving_api
    finishing = stack.scene.situations["finishing_soon"]
    queued = job(batch, stack.scene.situations["queued_turn"])
    done_before = indexes(job(batch, finishing).status.completed_indexes)
    quota, _ = gpu_quota_and_usage(cluster_queue(custom))
    admitted = False
    for _ in range(40):
        stack.simulator.step()
        _, used = gpu_quota_and_usage(cluster_queue(custom))
        assert used <= quota
        admitted = job(batch, queued.metadata.name).spec.suspend is False
        if admitted:
            break
    assert admitted
    finished = job(batch, finishing)
    assert indexes(finished.status.completed_indexes) > done_before
    assert condition(finished.status.conditions, "Complete").status == "True" and finished.status.completion_time
    (workload,) = workloads_of(custom, queued.metadata.uid)
    for kind in ("QuotaReserved", "Admitted"):
        assert condition(workload["status"]["conditions"], kind)["status"] == "True"
    assert pods_of(core, queued.metadata.name)
    finished_volume = stack.scene.campaigns[finishing].volumes[-1]
    pipeline = stack.scene.campaigns[finishing].pipeline.id
    log = stack.store.get(f"{NS}/status/logs/{pipeline}/{finished_volume.id}.txt").decode()
    assert f"[{finished_volume.id}] COMPLETE" in log


def test_a_transient_failure_fails_a_pod_and_a_replacement_follows(moving_stack, moving_api):
    from devstack.simulator import FAILURE_EVERY, RETRY_AFTER

    stack = moving_stack
    _, core, _ = moving_api
    seen = len(stack.simulator.failed_attempts)
    for _ in range(FAILURE_EVERY):
        stack.simulator.step()
        if len(stack.simulator.failed_attempts) > seen:
            break
    name, volume_id = stack.simulator.failed_attempts[-1]
    index = stack.scene.campaigns[name].volume(volume_id).index
    before = pods_of(core, name)[index]
    assert before[-1].status.phase == "Failed"
    message = termination_json(before[-1])
    assert (message["stage"], message["permanent"], wrapper_terminated(before[-1]).exit_code) == ("stream", False, 1)
    for _ in range(RETRY_AFTER + 1):
        stack.simulator.step()
    after = pods_of(core, name)[index]
    assert len(after) == len(before) + 1
    assert after[-1].status.phase == "Running"
    failures = sum(
        1 for pod in after if pod.status.phase == "Failed" and not condition(pod.status.conditions, "DisruptionTarget")
    )
    assert after[-1].metadata.annotations["batch.kubernetes.io/job-index-failure-count"] == str(failures)


def test_the_simulator_thread_steps_until_stopped(moving_stack):
    simulator = moving_stack.simulator
    before = simulator.steps
    simulator.interval = 0.05
    simulator.start()
    (thread,) = [each for each in threading.enumerate() if each.name == "scene-simulator"]
    wait_until(lambda: simulator.steps >= before + 2, timeout=30, what="two steps of the simulator's thread")
    simulator.stop()
    stopped_at = simulator.steps
    assert not thread.is_alive()  # ended, so it steps no more
    assert stopped_at >= before + 2
    assert simulator.steps == stopped_at


# --- make demo ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def start_demo(port: int) -> tuple[subprocess.Popen, list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "devstack.demo", "--port", str(port)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def wait_for_health(process, port: int, lines: list[str]) -> None:
    def healthy() -> bool:
        assert process.poll() is None, "".join(lines)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return answer.status == 200 and any("Press Ctrl-C" in line for line in lines)

    wait_until(
        healthy,
        timeout=120,
        interval=0.3,
        what=lambda: "the demo to answer /healthz and print its logins:\n" + "".join(lines),
        ignoring=(OSError,),
    )


# One demo per stop signal, as separate cases, so the two start-ups run side by side on test workers.
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_make_demo_starts_prints_the_logins_and_stops_on_ctrl_c_and_on_sigterm(stop_signal):
    from devstack.store import DEMO_LOGINS

    port = free_port()
    process, lines = start_demo(port)
    try:
        wait_for_health(process, port, lines)
        output = "".join(lines)
        for username, password in DEMO_LOGINS.values():
            assert username in output and password in output
        assert f"http://127.0.0.1:{port}/" in output
        process.send_signal(stop_signal)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert port_is_free(port)
    assert "Traceback" not in "".join(lines)


def test_make_demo_on_a_taken_port_says_so_in_one_sentence():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        answer = subprocess.run(
            [sys.executable, "-m", "devstack.demo", "--port", str(port)],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert answer.returncode != 0
    assert answer.stdout == ""
    message = answer.stderr.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert f"Port {port}" in message and "already in use" in message
