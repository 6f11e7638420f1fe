"""campaigns.cluster.kube, sources, watches and writes against the Kubernetes API double, through the real
`kubernetes` client over HTTP."""

from __future__ import annotations

import time

import pytest
from prometheus_client import REGISTRY

from campaigns.cluster import kube, reading, sources, watches, writes
from devstack import scene_kube as k
from devstack.kube_watch import PLAIN_LIST
from devstack.kubeapi import KubeDouble

NS = "htr-batch"
H = "htrflow.riksarkivet.se/"


# --- realistic objects, small ---------------------------------------------------------------------


def campaign_job(name, uid, *, volumes=3, suspend=False, completed="", failed="", active=0, pipeline="swe-lines-v2"):
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": uid,
            "creationTimestamp": "2026-09-24T07:58:09Z",
            "labels": {
                "app": "htrflow-batch",
                H + "managed-by": "converter",
                H + "campaign": name,
                H + "pipeline": pipeline,
                "kueue.x-k8s.io/queue-name": "htr-batch",
            },
        },
        "spec": {
            "suspend": suspend,
            "completionMode": "Indexed",
            "completions": volumes,
            "parallelism": 2,
            "backoffLimitPerIndex": 3,
            "template": {
                "spec": {
                    "volumes": [
                        {"name": "campaign", "configMap": {"name": f"campaign-{name}"}},
                        {"name": "pipeline", "configMap": {"name": f"htr-pipeline-{pipeline}"}},
                    ],
                    "containers": [{"name": "wrapper", "resources": {"requests": {"cpu": "4"}}}],
                }
            },
        },
        "status": {
            "startTime": None if suspend else "2026-09-24T07:58:14Z",
            "active": active,
            "completedIndexes": completed,
            "failedIndexes": failed,
        },
    }


def campaign_record(name, volume_ids, pipeline="swe-lines-v2"):
    lines = "".join(f"{vid}\thttps://iiif.example.se/{vid}/manifest\n" for vid in volume_ids)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{name}",
            "namespace": NS,
            "labels": {H + "managed-by": "converter", H + "campaign": name, H + "pipeline": pipeline},
        },
        "data": {"volumes.txt": lines},
    }


def workload(job_name, job_uid, *, admitted=True):
    conditions = (
        [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "reserved"},
            {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted"},
        ]
        if admitted
        else [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "insufficient quota"}]
    )
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": f"job-{job_name}-abcde", "namespace": NS, "labels": {"kueue.x-k8s.io/job-uid": job_uid}},
        "spec": {"active": True, "queueName": "htr-batch", "podSets": [{"name": "main", "count": 2}]},
        "status": {"conditions": conditions, **({"admission": {"clusterQueue": "htr-batch-cq"}} if admitted else {})},
    }


def campaign_pod(job_name, index, phase="Running"):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{job_name}-{index}-x{index:04d}",
            "namespace": NS,
            "creationTimestamp": "2026-09-24T08:00:00Z",
            "labels": {
                "app": "htrflow-batch",
                "batch.kubernetes.io/job-name": job_name,
                "batch.kubernetes.io/job-completion-index": str(index),
            },
        },
        "spec": {},
        "status": {"phase": phase},
    }


def load_campaigns(double: KubeDouble, count: int, volumes: int = 3) -> None:
    """`count` running campaigns, each with its record, Workload and one running pod per active index."""
    for number in range(count):
        name = f"campaign-{number:03d}"
        uid = f"00000000-0000-4000-8000-{number:012d}"
        double.put(campaign_job(name, uid, volumes=volumes, completed="0", active=2))
        double.put(campaign_record(name, [f"V{number:03d}-{i:05d}" for i in range(volumes)]))
        double.put(workload(name, uid))
        double.put(campaign_pod(name, 1))
        double.put(campaign_pod(name, 2))
        double.put(campaign_pod(name, 0, phase="Succeeded"))


# --- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def running_double():
    double = KubeDouble().start()
    yield double
    double.stop()


@pytest.fixture
def cluster(running_double, settings, tmp_path):
    """An empty double; settings point at it; the shared snapshot cache is empty."""
    running_double.reset()
    settings.KUBECONFIG = str(running_double.write_kubeconfig(tmp_path / "kubeconfig"))
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_KUBE_TIMEOUT = 0.5
    settings.HTRFLOW_SNAPSHOT_SECONDS = 30
    reading.clear_cache()
    yield running_double
    running_double.clear_faults()
    reading.clear_cache()


def list_paths(double) -> list[str]:
    return [path for method, path, _query in double.calls if method == "GET"]


# --- tests ----------------------------------------------------------------------------------------


def test_a_snapshot_holds_plain_camel_case_dicts_of_every_kind(cluster):
    load_campaigns(cluster, 1)
    cluster.put(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "htr-warmup-swe-lines-v2",
                "namespace": NS,
                "labels": {"app": "htrflow-warmup", H + "managed-by": "converter", H + "pipeline": "swe-lines-v2"},
            },
            "spec": {},
            "status": {"active": 1},
        }
    )
    snapshot = sources.fetch_snapshot(NS)
    assert [job["metadata"]["name"] for job in snapshot.jobs] == ["campaign-000"]
    assert snapshot.jobs[0]["spec"]["completionMode"] == "Indexed"
    assert snapshot.jobs[0]["status"]["completedIndexes"] == "0"
    assert [job["metadata"]["name"] for job in snapshot.warmup_jobs] == ["htr-warmup-swe-lines-v2"]
    assert [cm["metadata"]["name"] for cm in snapshot.records] == ["campaign-campaign-000"]
    assert snapshot.records[0]["data"]["volumes.txt"].startswith("V000-00000\t")
    assert snapshot.workloads[0]["metadata"]["labels"]["kueue.x-k8s.io/job-uid"].endswith("000000000000")
    # Succeeded pods are not read: only the two running ones.
    assert sorted(p["metadata"]["name"] for p in snapshot.pods) == ["campaign-000-1-x0001", "campaign-000-2-x0002"]
    assert snapshot.cluster_queues == [] and snapshot.priority_classes == []


def test_status_records_are_read_apart_from_campaign_records(cluster):
    load_campaigns(cluster, 1)
    cluster.put(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "campaign-campaign-000-status",
                "namespace": NS,
                "labels": {H + "campaign": "campaign-000", H + "kind": "status"},
            },
            "data": {"phase": "Running"},
        }
    )
    snapshot = sources.fetch_snapshot(NS)
    assert [cm["metadata"]["name"] for cm in snapshot.status_records] == ["campaign-campaign-000-status"]
    assert [cm["metadata"]["name"] for cm in snapshot.records] == ["campaign-campaign-000"]


def test_pods_are_read_page_by_page(cluster, monkeypatch):
    monkeypatch.setattr(kube, "PAGE_SIZE", 3)
    load_campaigns(cluster, 4)  # 8 unfinished pods
    cluster.reset_calls()
    snapshot = sources.fetch_snapshot(NS)
    assert len(snapshot.pods) == 8
    pod_calls = [q for m, p, q in cluster.calls if p.endswith("/pods") and q.get("labelSelector") == sources.JOB_PODS]
    assert len(pod_calls) == 3
    assert all(q.get("limit") == "3" for q in pod_calls)
    assert "continue" in pod_calls[1] and "continue" in pod_calls[2]


def test_an_expired_continue_token_starts_the_list_again(cluster, monkeypatch):
    monkeypatch.setattr(kube, "PAGE_SIZE", 2)
    load_campaigns(cluster, 2)
    original = kube._call_sized
    expired_once = []

    def expire_before_second_page(method, path, query=None, **kwargs):
        if path.endswith("/pods") and any(k == "continue" for k, _ in query or []) and not expired_once:
            expired_once.append(True)
            cluster.expire_continue_tokens()
        return original(method, path, query, **kwargs)

    monkeypatch.setattr(kube, "_call_sized", expire_before_second_page)
    snapshot = sources.fetch_snapshot(NS)
    assert len(snapshot.pods) == 4
    assert expired_once


def test_workloads_fall_back_to_v1beta1_on_an_older_cluster(cluster):
    load_campaigns(cluster, 1)
    cluster.kueue_v1beta2_enabled = False
    cluster.reset_calls()
    snapshot = sources.fetch_snapshot(NS)
    assert len(snapshot.workloads) == 1
    paths = list_paths(cluster)
    assert f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads" in paths
    assert f"/apis/kueue.x-k8s.io/v1beta1/namespaces/{NS}/workloads" in paths
    assert "/apis/kueue.x-k8s.io/v1beta1/clusterqueues" in paths


def test_cluster_queues_the_account_may_not_read_are_not_known_rather_than_an_error(cluster):
    load_campaigns(cluster, 1)
    cluster.inject_fault(r"/clusterqueues$", status=403)
    cluster.inject_fault(r"/workloadpriorityclasses$", status=403)
    snapshot = sources.fetch_snapshot(NS)
    assert snapshot.cluster_queues is None
    assert snapshot.priority_classes is None
    assert len(snapshot.jobs) == 1


def test_priority_classes_are_listed_by_name(cluster):
    cluster.put(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": "htr-bulk"},
            "value": 0,
        }
    )
    assert sources.fetch_snapshot(NS).priority_classes == ["htr-bulk"]


def test_an_api_slower_than_the_timeout_is_cluster_unavailable_with_a_sentence(cluster):
    cluster.inject_fault(r"/jobs$", delay=3)
    started = time.monotonic()
    with pytest.raises(kube.ClusterUnavailable) as raised:
        reading.read_namespace(NS)
    elapsed = time.monotonic() - started
    assert "did not answer within 0.5 seconds" in raised.value.sentence
    assert elapsed < 3  # one timeout, not the fault's delay nor urllib3's retries


def test_a_refused_list_is_cluster_unavailable(cluster):
    cluster.inject_fault(r"/configmaps$", status=500)
    with pytest.raises(kube.ClusterUnavailable) as raised:
        sources.fetch_snapshot(NS)
    assert "500" in raised.value.sentence


def test_a_missing_kubeconfig_is_a_sentence(settings, tmp_path):
    reading.clear_cache()
    settings.KUBECONFIG = str(tmp_path / "nowhere")
    with pytest.raises(kube.ClusterUnavailable) as raised:
        reading.read_namespace(NS)
    assert "kubeconfig" in raised.value.sentence


@pytest.mark.parametrize("campaigns", [2, 30])
def test_the_number_of_api_calls_does_not_grow_with_the_campaigns(cluster, campaigns):
    load_campaigns(cluster, campaigns)
    cluster.reset_calls()
    sources.fetch_snapshot(NS)
    # jobs x2, configmaps x3, pods x2 (campaign and warm-up pods, finished warm-up pods), workloads, localqueues,
    # clusterqueues, priority classes, resource flavors, claims, events; in Kueue's namespace deployments and pods
    assert len(cluster.calls) == 16


def test_status_config_maps_can_be_created_and_patched(cluster):
    writes.create_config_map(
        NS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x-status"}, "data": {"phase": "Running"}}
    )
    writes.patch_config_map(NS, "x-status", {"data": {"volumesDone": "3"}})
    stored = cluster.get("v1", "ConfigMap", NS, "x-status")
    assert stored["data"] == {"phase": "Running", "volumesDone": "3"}


def test_pointing_the_settings_at_another_cluster_does_not_serve_the_old_snapshot(cluster, settings, tmp_path):
    load_campaigns(cluster, 1)
    assert len(reading.read_namespace(NS).snapshot.jobs) == 1
    other = KubeDouble().start()
    try:
        load_campaigns(other, 3)
        settings.KUBECONFIG = str(other.write_kubeconfig(tmp_path / "other" / "kubeconfig"))
        assert len(reading.read_namespace(NS).snapshot.jobs) == 3
    finally:
        other.stop()


def test_a_watch_answered_with_a_whole_body_ends_before_the_body_is_read(cluster):
    """A proxy that drops `watch=true` answers with the whole list (a Content-Length, not chunked): the
    watch says so at once and reads none of it, and the next call on the pool is answered well."""
    load_campaigns(cluster, 20)
    path = f"/apis/batch/v1/namespaces/{NS}/jobs"
    listed = kube.list_with_version(path, sources.CAMPAIGN_JOBS)
    cluster.misbehave_watches(PLAIN_LIST)
    before = REGISTRY.get_sample_value("htrbrowser_kube_read_bytes_total") or 0.0
    with pytest.raises(watches.NotAStream):
        list(watches.watch(path, listed.resource_version, sources.CAMPAIGN_JOBS, seconds=5))
    assert (REGISTRY.get_sample_value("htrbrowser_kube_read_bytes_total") or 0.0) == before
    cluster.misbehave_watches(None)
    assert len(kube.list_all(path, sources.CAMPAIGN_JOBS)) == 20


# --- what the troubleshooting guide's Check steps read: pods' nodes, the cache claim, flavors, Kueue ----------


def kueue_system(double: KubeDouble, *, crashing: bool = False) -> None:
    """Kueue's controller as installed (crashing: not available, its pod in CrashLoopBackOff), and a
    pod of something else in its namespace."""
    double.put(k.kueue_deployment(ready=not crashing))
    double.put(k.kueue_controller_pod(state="crashloop" if crashing else "running", restarts=7 if crashing else 0))
    other = k.kueue_controller_pod(name="kueueviz-backend")
    other["metadata"]["labels"] = {"app.kubernetes.io/name": "kueueviz"}
    double.put(other)


def test_the_cache_claim_is_kept_with_what_names_it_its_access_modes_class_size_and_phase(cluster):
    cluster.put(k.cache_pvc(created="2026-07-26T09:00:00Z"))
    (claim,) = sources.fetch_snapshot(NS).pvcs
    assert claim == {
        "metadata": {
            "name": k.DATA_PVC,
            "namespace": NS,
            "uid": k.stable_uid("pvc", NS, k.DATA_PVC),
            "creationTimestamp": "2026-07-26T09:00:00Z",
            "labels": {"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": NS},
        },
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "storageClassName": k.CACHE_STORAGE_CLASS,
            "resources": {"requests": {"storage": k.CACHE_SIZE}},
        },
        "status": {"accessModes": ["ReadWriteMany"], "capacity": {"storage": k.CACHE_SIZE}, "phase": "Bound"},
    }


def test_resource_flavors_keep_their_node_labels_taints_and_tolerations(cluster):
    taint = k.taint("dedicated", "ocr-only")
    cluster.put(k.resource_flavor("default-flavor"))
    cluster.put(k.resource_flavor("ocr-dedicated", node_labels={"node-pool": "ocr"}, node_taints=[taint],
                                  tolerations=[{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]))
    flavors = {each["metadata"]["name"]: each for each in sources.fetch_snapshot(NS).resource_flavors}
    assert flavors["default-flavor"].get("spec") is None  # an empty flavor
    assert flavors["ocr-dedicated"]["spec"] == {
        "nodeLabels": {"node-pool": "ocr"},
        "nodeTaints": [{"key": "dedicated", "value": "ocr-only", "effect": "NoSchedule"}],
        "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
    }


def test_resource_flavors_are_read_from_v1beta1_on_an_older_kueue(cluster):
    cluster.put(k.resource_flavor("default-flavor", version="v1beta1"))
    cluster.kueue_v1beta2_enabled = False
    assert [each["metadata"]["name"] for each in sources.fetch_snapshot(NS).resource_flavors] == ["default-flavor"]
    assert "/apis/kueue.x-k8s.io/v1beta1/resourceflavors" in list_paths(cluster)


def test_kueue_s_controller_is_read_in_its_namespace_its_deployment_and_labelled_pods_only(cluster):
    kueue_system(cluster, crashing=True)
    snapshot = sources.fetch_snapshot(NS)
    (deployment,) = snapshot.kueue_deployments
    assert deployment["metadata"]["name"] == k.KUEUE_CONTROLLER
    assert deployment["spec"] == {"replicas": 1, "selector": {"matchLabels": {"control-plane": "controller-manager"}}}
    assert set(deployment["status"]) == {"conditions", "replicas"}  # no replica ready or available
    assert deployment["status"]["conditions"][0]["type"] == "Available"
    assert deployment["status"]["conditions"][0]["status"] == "False"
    (pod,) = snapshot.kueue_pods  # the namespace's other pod is not the controller's
    assert "spec" not in pod and pod["metadata"]["labels"]["control-plane"] == "controller-manager"
    assert set(pod["status"]) == {"phase", "conditions", "containerStatuses", "startTime"}
    (manager,) = pod["status"]["containerStatuses"]
    assert set(manager) == {"name", "state", "lastState", "restartCount", "ready"}
    assert manager["state"]["waiting"]["reason"] == "CrashLoopBackOff" and manager["restartCount"] == 7


def test_kueue_s_namespace_is_the_setting_s_and_an_empty_setting_reads_nothing_there(cluster, settings):
    kueue_system(cluster)
    settings.HTRFLOW_KUEUE_NAMESPACE = "kueue"
    snapshot = sources.fetch_snapshot(NS)
    assert snapshot.kueue_deployments == [] and snapshot.kueue_pods == []  # read there: nothing
    assert "/apis/apps/v1/namespaces/kueue/deployments" in list_paths(cluster)
    settings.HTRFLOW_KUEUE_NAMESPACE = ""
    cluster.reset_calls()
    snapshot = sources.fetch_snapshot(NS)
    assert snapshot.kueue_deployments is None and snapshot.kueue_pods is None
    assert not [path for path in list_paths(cluster) if "/namespaces/kueue" in path]


@pytest.mark.parametrize("status", [403, 404])
def test_the_new_lists_refused_or_not_served_are_not_known_and_the_namespace_is_still_read(cluster, status):
    load_campaigns(cluster, 1)
    cluster.put(k.cache_pvc())
    cluster.put(k.resource_flavor("default-flavor"))
    kueue_system(cluster)
    for path in (r"/persistentvolumeclaims$", r"/resourceflavors$", r"/kueue-system/deployments$",
                 r"/kueue-system/pods$"):
        cluster.inject_fault(path, status=status)
    snapshot = sources.fetch_snapshot(NS)
    assert (snapshot.pvcs, snapshot.resource_flavors, snapshot.kueue_deployments, snapshot.kueue_pods) == (
        None, None, None, None)
    assert len(snapshot.jobs) == 1 and len(snapshot.pods) == 2


def test_pods_keep_their_node_and_nothing_else_of_their_spec(cluster):
    cluster.put(k.campaign_pod("parish", 1, node="gpu-node-07"))
    pending = k.campaign_pod("parish", 2, phase="Pending", suffix="fghij")
    del pending["spec"]["nodeName"]  # not scheduled yet
    cluster.put(pending)
    pods = {pod["metadata"]["name"]: pod for pod in sources.fetch_snapshot(NS).pods}
    assert pods["parish-1-abcde"]["spec"] == {"nodeName": "gpu-node-07"}
    assert "spec" not in pods["parish-2-fghij"]
    assert "image" not in pods["parish-1-abcde"]["status"]["containerStatuses"][0]  # status slimmed as before


def test_a_succeeded_warm_up_pod_is_kept_and_a_succeeded_campaign_pod_is_not(cluster):
    cluster.put(k.warmup_pod("swe-lines-v2", state="succeeded"))
    cluster.put(k.warmup_pod("swe-lines-v3", state="failed", suffix="zzzzz"))
    cluster.put(k.campaign_pod("parish", 0, phase="Succeeded"))
    cluster.put(k.campaign_pod("parish", 1, suffix="fghij"))
    pods = {pod["metadata"]["name"]: pod for pod in sources.fetch_snapshot(NS).pods}
    warmup = next(name for name in pods if name.startswith("htr-warmup-swe-lines-v2-"))
    assert pods[warmup]["status"]["phase"] == "Succeeded"
    assert pods[warmup]["spec"] == {"nodeName": "gpu-node-02"}
    assert sorted(pods) == sorted([warmup, "htr-warmup-swe-lines-v3-zzzzz", "parish-1-fghij"])
