"""The Kubernetes API double, exercised through the official `kubernetes` client as the product uses it."""

import json

import pytest
import urllib3
from hypothesis import given
from hypothesis import strategies as st
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from devstack import scene_kube
from devstack.kube_selectors import (
    SelectorError,
    json_patch,
    merge_patch,
    parse_field_selector,
    parse_label_selector,
)
from devstack.kubeapi import KubeDouble

NS = "htr-batch"
KUEUE = "kueue.x-k8s.io"


# -- helpers -------------------------------------------------------------------------------------


def pod(name, namespace=NS, labels=None, phase="Running", containers=("wrapper",)):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": {"containers": [{"name": c, "image": "registry.example/htr:1"} for c in containers]},
        "status": {"phase": phase},
    }


def configmap(name, namespace=NS, data=None, labels=None):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "data": data or {},
    }


def job(name, namespace=NS, labels=None):
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {"app": "htrflow-batch"}},
        "spec": {
            "completions": 3,
            "parallelism": 2,
            "completionMode": "Indexed",
            "suspend": True,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "wrapper", "image": "x"}]}},
        },
        "status": {"active": 0},
    }


def workload(name, job_uid="job-uid-1", version="v1beta2"):
    return {
        "apiVersion": f"{KUEUE}/{version}",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": NS, "labels": {"kueue.x-k8s.io/job-uid": job_uid}},
        "spec": {"active": True, "queueName": "htr-batch", "podSets": [{"name": "main", "count": 2}]},
    }


def cluster_queue(name):
    return {
        "apiVersion": f"{KUEUE}/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {"resourceGroups": []},
    }


def names(items):
    return sorted(item.metadata.name for item in items)


@pytest.fixture(scope="module")
def api(kube_double):
    """An ApiClient loaded from the double's kubeconfig, exactly as the product loads a real one."""
    api_client = config.new_client_from_config(config_file=str(kube_double.kubeconfig_path))
    yield api_client
    api_client.close()


@pytest.fixture(scope="module")
def no_retry_api(kube_double):
    """A client with urllib3 retries off, so a single injected failure surfaces at once."""
    api_client = kube_double.api_client(retries=False)
    yield api_client
    api_client.close()


@pytest.fixture
def core(api, kube):
    return client.CoreV1Api(api)


@pytest.fixture
def custom(api, kube):
    return client.CustomObjectsApi(api)


# -- label selectors -----------------------------------------------------------------------------


@pytest.fixture
def labelled_pods(kube):
    kube.put(pod("p-a", labels={"app": "batch", "tier": "gpu"}))
    kube.put(pod("p-b", labels={"app": "warmup"}))
    kube.put(pod("p-c", labels={"tier": "cpu"}))
    kube.put(pod("p-d", labels={"app": "batch", "idx": "5", "batch.kubernetes.io/job-name": "parish"}))
    return kube


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=batch", ["p-a", "p-d"]),
        ("app==batch", ["p-a", "p-d"]),
        ("app!=batch", ["p-b", "p-c"]),
        ("app in (batch,warmup)", ["p-a", "p-b", "p-d"]),
        ("app in ( warmup )", ["p-b"]),
        ("app notin (batch)", ["p-b", "p-c"]),
        ("tier", ["p-a", "p-c"]),
        ("!tier", ["p-b", "p-d"]),
        ("app=batch,tier", ["p-a"]),
        ("app=batch, !tier", ["p-d"]),
        ("idx>3", ["p-d"]),
        ("idx<3", []),
        ("batch.kubernetes.io/job-name=parish", ["p-d"]),
        ("", ["p-a", "p-b", "p-c", "p-d"]),
    ],
)
def test_label_selector_operator(core, labelled_pods, selector, expected):
    result = core.list_namespaced_pod(NS, label_selector=selector)
    assert names(result.items) == expected


@pytest.mark.parametrize("selector", ["app in ()", "app=a=b", "=batch", "app in (x", "bad key!x", "app=-x-"])
def test_malformed_label_selector_is_a_400_status(core, labelled_pods, selector):
    with pytest.raises(ApiException) as caught:
        core.list_namespaced_pod(NS, label_selector=selector)
    assert caught.value.status == 400
    assert json.loads(caught.value.body)["reason"] == "BadRequest"


# -- field selectors -----------------------------------------------------------------------------


@pytest.fixture
def pods_in_two_namespaces(kube):
    kube.put(pod("run-1", phase="Running"))
    kube.put(pod("run-2", phase="Failed"))
    kube.put(pod("run-3", phase="Succeeded"))
    kube.put(pod("other-1", namespace="kueue-system", phase="Running"))
    return kube


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("metadata.name=run-2", ["run-2"]),
        ("metadata.name==run-2", ["run-2"]),
        ("metadata.name!=run-2", ["other-1", "run-1", "run-3"]),
        ("status.phase=Running", ["other-1", "run-1"]),
        ("status.phase!=Running", ["run-2", "run-3"]),
        ("metadata.namespace=kueue-system", ["other-1"]),
        ("metadata.namespace!=kueue-system,status.phase!=Failed", ["run-1", "run-3"]),
    ],
)
def test_field_selector_on_cluster_wide_pod_list(core, pods_in_two_namespaces, selector, expected):
    result = core.list_pod_for_all_namespaces(field_selector=selector)
    assert names(result.items) == expected


def test_unsupported_field_is_a_400_status(core, pods_in_two_namespaces):
    with pytest.raises(ApiException) as caught:
        core.list_namespaced_pod(NS, field_selector="spec.priority=3")
    assert caught.value.status == 400
    assert "spec.priority" in json.loads(caught.value.body)["message"]


def test_status_phase_is_a_pod_field_only(api, kube):
    kube.put(job("parish-records-1870"))
    with pytest.raises(ApiException) as caught:
        client.BatchV1Api(api).list_namespaced_job(NS, field_selector="status.phase=Running")
    assert caught.value.status == 400


def test_events_select_by_involved_object(core, kube):
    for index, involved in enumerate(["parish-records-1870", "county-tax-1790"]):
        kube.put(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"event-{index}", "namespace": NS},
                "involvedObject": {"kind": "Job", "name": involved, "namespace": NS},
                "reason": "Suspended",
                "message": "Job suspended",
                "type": "Normal",
            }
        )
    result = core.list_namespaced_event(
        NS, field_selector="involvedObject.kind=Job,involvedObject.name=county-tax-1790"
    )
    assert names(result.items) == ["event-1"]


# -- paging --------------------------------------------------------------------------------------


@pytest.fixture
def five_configmaps(kube):
    for name in ["cm-e", "cm-a", "cm-d", "cm-b", "cm-c"]:
        kube.put(configmap(name))
    return kube


def test_paging_walks_every_object_once_in_name_order(core, five_configmaps):
    seen, token, versions, remaining = [], None, set(), []
    while True:
        page = core.list_namespaced_config_map(NS, limit=2, _continue=token)
        seen.extend(item.metadata.name for item in page.items)
        versions.add(page.metadata.resource_version)
        remaining.append(page.metadata.remaining_item_count)
        token = page.metadata._continue
        if not token:
            break
    assert seen == ["cm-a", "cm-b", "cm-c", "cm-d", "cm-e"]
    assert len(versions) == 1
    assert remaining == [3, 1, None]


def test_paging_serves_a_consistent_snapshot(core, five_configmaps):
    first = core.list_namespaced_config_map(NS, limit=3)
    five_configmaps.put(configmap("cm-f"))
    five_configmaps.delete("v1", "ConfigMap", NS, "cm-e")
    rest = core.list_namespaced_config_map(NS, limit=3, _continue=first.metadata._continue)
    assert names(rest.items) == ["cm-d", "cm-e"]
    assert rest.metadata._continue is None
    fresh = core.list_namespaced_config_map(NS)
    assert names(fresh.items) == ["cm-a", "cm-b", "cm-c", "cm-d", "cm-f"]


def test_paging_keeps_the_selector(core, kube):
    for index in range(5):
        kube.put(configmap(f"status-{index}", labels={"kind": "status" if index % 2 == 0 else "record"}))
    first = core.list_namespaced_config_map(NS, label_selector="kind=status", limit=2)
    second = core.list_namespaced_config_map(
        NS, label_selector="kind=status", limit=2, _continue=first.metadata._continue
    )
    assert names(first.items) + names(second.items) == ["status-0", "status-2", "status-4"]


def test_expired_continue_token_is_410_expired(core, five_configmaps):
    first = core.list_namespaced_config_map(NS, limit=2)
    five_configmaps.expire_continue_tokens()
    with pytest.raises(ApiException) as caught:
        core.list_namespaced_config_map(NS, limit=2, _continue=first.metadata._continue)
    assert caught.value.status == 410
    body = json.loads(caught.value.body)
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "Expired", 410)


def test_unknown_continue_token_is_410(core, five_configmaps):
    with pytest.raises(ApiException) as caught:
        core.list_namespaced_config_map(NS, limit=2, _continue="not-a-token")
    assert caught.value.status == 410


# -- resource versions and server-owned metadata ------------------------------------------------


def test_server_assigns_uid_timestamp_and_moving_resource_versions(core, kube):
    stored = kube.put(configmap("cm"))
    assert stored["metadata"]["uid"]
    assert stored["metadata"]["creationTimestamp"].endswith("Z")
    list_version = int(core.list_namespaced_config_map(NS).metadata.resource_version)
    kube.patch("v1", "ConfigMap", NS, "cm", {"data": {"phase": "Running"}})
    again = core.read_namespaced_config_map("cm", NS)
    assert again.metadata.uid == stored["metadata"]["uid"]
    assert int(again.metadata.resource_version) > int(stored["metadata"]["resourceVersion"])
    assert int(core.list_namespaced_config_map(NS).metadata.resource_version) > list_version


def test_in_process_reads_are_copies(kube):
    kube.put(configmap("cm", data={"phase": "Running"}))
    kube.get("v1", "ConfigMap", NS, "cm")["data"]["phase"] = "tampered"
    kube.list("v1", "ConfigMap")[0]["data"]["phase"] = "tampered"
    assert kube.get("v1", "ConfigMap", NS, "cm")["data"]["phase"] == "Running"


def test_put_many_stores_objects_the_client_lists_with_server_metadata(core, kube):
    kube.put_many([configmap(f"bulk-{n}", data={"n": str(n)}) for n in range(3)])
    listed = core.list_namespaced_config_map(NS, limit=2)
    rest = core.list_namespaced_config_map(NS, limit=2, _continue=listed.metadata._continue)
    items = listed.items + rest.items
    assert [(i.metadata.name, i.data["n"]) for i in items] == [("bulk-0", "0"), ("bulk-1", "1"), ("bulk-2", "2")]
    assert all(i.metadata.uid and i.metadata.resource_version for i in items)


def test_a_listed_page_is_not_the_stored_object(kube):
    kube.put(configmap("cm", data={"phase": "Running"}))
    page = kube._list_page(kube._route("/api/v1/namespaces/htr-batch/configmaps"), {})
    page["items"][0]["metadata"] = {"name": "tampered"}
    assert kube.get("v1", "ConfigMap", NS, "cm")["metadata"]["name"] == "cm"


# -- errors as Status bodies ---------------------------------------------------------------------


def test_missing_object_is_a_404_status(core, kube):
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod("missing", NS)
    body = json.loads(caught.value.body)
    assert caught.value.status == 404
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "missing" not found',
        "reason": "NotFound",
        "code": 404,
        "details": {"name": "missing", "kind": "pods"},
    }


def test_forbidden_fault_hits_only_its_path(custom, kube):
    kube.put(cluster_queue("htr-batch-cq"))
    kube.put(workload("job-a-12345"))
    kube.inject_fault(r"/clusterqueues", status=403)
    with pytest.raises(ApiException) as caught:
        custom.list_cluster_custom_object(KUEUE, "v1beta2", "clusterqueues")
    body = json.loads(caught.value.body)
    assert caught.value.status == 403
    assert body["reason"] == "Forbidden"
    assert 'cannot list resource "clusterqueues"' in body["message"]
    workloads = custom.list_namespaced_custom_object(KUEUE, "v1beta2", NS, "workloads")
    assert [w["metadata"]["name"] for w in workloads["items"]] == ["job-a-12345"]


def test_too_many_requests_carries_retry_after(no_retry_api, kube):
    kube.inject_fault(r"/pods$", status=429, retry_after=7)
    with pytest.raises(ApiException) as caught:
        client.CoreV1Api(no_retry_api).list_namespaced_pod(NS)
    assert caught.value.status == 429
    assert caught.value.headers["Retry-After"] == "7"
    assert json.loads(caught.value.body)["reason"] == "TooManyRequests"


def test_default_client_waits_out_one_429_and_succeeds(core, kube):
    kube.put(pod("p-1"))
    fault = kube.inject_fault(r"/pods$", status=429, retry_after=0, times=1)
    result = core.list_namespaced_pod(NS)
    assert names(result.items) == ["p-1"]
    assert fault.hits == 1
    assert [path for _, path, _ in kube.calls].count(f"/api/v1/namespaces/{NS}/pods") == 2


@pytest.mark.parametrize("code", [400, 409, 410, 500])
def test_injected_status_codes_answer_with_status_bodies(no_retry_api, kube, code):
    kube.inject_fault(r"/configmaps", status=code, times=1)
    with pytest.raises(ApiException) as caught:
        client.CoreV1Api(no_retry_api).list_namespaced_config_map(NS)
    body = json.loads(caught.value.body)
    assert (caught.value.status, body["code"], body["status"]) == (code, code, "Failure")


def test_delay_beyond_read_timeout_raises_a_timeout(no_retry_api, kube):
    fault = kube.inject_fault(r"/jobs$", delay=2.0)
    with pytest.raises(urllib3.exceptions.ReadTimeoutError):
        client.BatchV1Api(no_retry_api).list_namespaced_job(NS, _request_timeout=(1, 0.2))
    assert fault.hits == 1
    fault.remove()
    assert client.BatchV1Api(no_retry_api).list_namespaced_job(NS, _request_timeout=(1, 2)).items == []


def test_short_delay_still_answers(no_retry_api, kube):
    kube.put(job("j-1"))
    kube.inject_fault(r"/jobs$", delay=0.05, times=1)
    result = client.BatchV1Api(no_retry_api).list_namespaced_job(NS, _request_timeout=(1, 2))
    assert [j.metadata.name for j in result.items] == ["j-1"]


def test_dropped_connection_without_retries_is_a_protocol_error(no_retry_api, kube):
    kube.inject_fault(r"/pods$", drop=True)
    with pytest.raises(urllib3.exceptions.ProtocolError):
        client.CoreV1Api(no_retry_api).list_namespaced_pod(NS, _request_timeout=(1, 2))


def test_dropped_connection_every_time_exhausts_default_retries(core, kube):
    kube.inject_fault(r"/pods$", drop=True)
    with pytest.raises(urllib3.exceptions.MaxRetryError):
        core.list_namespaced_pod(NS, _request_timeout=(1, 2))
    assert [path for _, path, _ in kube.calls].count(f"/api/v1/namespaces/{NS}/pods") == 4


def test_dropped_once_is_retried_by_default(core, kube):
    kube.put(pod("p-1"))
    kube.inject_fault(r"/pods$", drop=True, times=1)
    assert names(core.list_namespaced_pod(NS, _request_timeout=(1, 2)).items) == ["p-1"]


def test_fault_limited_to_one_method(core, kube):
    kube.put(configmap("cm"))
    kube.inject_fault(r"/configmaps/cm$", method="PATCH", status=500)
    assert core.read_namespaced_config_map("cm", NS).metadata.name == "cm"
    with pytest.raises(ApiException) as caught:
        core.patch_namespaced_config_map("cm", NS, {"data": {"phase": "Done"}})
    assert caught.value.status == 500
    assert kube.get("v1", "ConfigMap", NS, "cm")["data"] == {}


def test_removing_one_of_two_alike_faults_keeps_the_other(core, kube):
    first = kube.inject_fault(r"/pods$", status=403)
    second = kube.inject_fault(r"/pods$", status=403)
    second.remove()
    with pytest.raises(ApiException):
        core.list_namespaced_pod(NS)
    assert (first.hits, second.hits) == (1, 0)
    first.remove()
    assert core.list_namespaced_pod(NS).items == []


def test_clear_faults_and_reset_restore_normal_answers(core, kube):
    kube.inject_fault(r".*", status=500)
    kube.clear_faults()
    assert core.list_namespaced_pod(NS).items == []
    kube.inject_fault(r".*", status=500)
    kube.reset()
    assert core.list_namespaced_pod(NS).items == []


def test_request_without_the_token_is_unauthorized(kube):
    configuration = client.Configuration()
    configuration.host = kube.url
    with client.ApiClient(configuration) as anonymous:
        with pytest.raises(ApiException) as caught:
            client.CoreV1Api(anonymous).list_namespaced_pod(NS)
    assert caught.value.status == 401


# -- Kueue versions ------------------------------------------------------------------------------


def test_workload_stored_once_and_served_under_both_versions(custom, kube):
    kube.put(workload("job-parish-records-1870-9e4d2", version="v1beta2"))
    for version in ("v1beta2", "v1beta1"):
        got = custom.get_namespaced_custom_object(KUEUE, version, NS, "workloads", "job-parish-records-1870-9e4d2")
        listed = custom.list_namespaced_custom_object(KUEUE, version, NS, "workloads")
        assert got["apiVersion"] == f"{KUEUE}/{version}"
        assert [item["apiVersion"] for item in listed["items"]] == [f"{KUEUE}/{version}"]
        assert listed["kind"] == "WorkloadList"
    assert len(kube.list(f"{KUEUE}/v1beta1", "Workload")) == 1


def test_workload_selected_by_job_uid_label(custom, kube):
    kube.put(workload("job-a-11111", job_uid="uid-a"))
    kube.put(workload("job-b-22222", job_uid="uid-b"))
    listed = custom.list_namespaced_custom_object(
        KUEUE, "v1beta1", NS, "workloads", label_selector="kueue.x-k8s.io/job-uid=uid-b"
    )
    assert [item["metadata"]["name"] for item in listed["items"]] == ["job-b-22222"]


def test_older_cluster_without_v1beta2_answers_404_there_only(api, custom, kube):
    kube.put(workload("job-a-11111", version="v1beta1"))
    kube.kueue_v1beta2_enabled = False
    with pytest.raises(ApiException) as caught:
        custom.list_namespaced_custom_object(KUEUE, "v1beta2", NS, "workloads")
    assert caught.value.status == 404
    assert json.loads(caught.value.body)["reason"] == "NotFound"
    listed = custom.list_namespaced_custom_object(KUEUE, "v1beta1", NS, "workloads")
    assert [item["metadata"]["name"] for item in listed["items"]] == ["job-a-11111"]
    groups = client.ApisApi(api).get_api_versions().groups
    kueue = next(group for group in groups if group.name == KUEUE)
    assert [v.version for v in kueue.versions] == ["v1beta1"]


def test_cluster_scoped_kueue_objects(custom, kube):
    kube.put(cluster_queue("htr-batch-cq"))
    kube.put(
        {
            "apiVersion": f"{KUEUE}/v1beta1",
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": "htr-bulk"},
            "value": 0,
        }
    )
    queues = custom.list_cluster_custom_object(KUEUE, "v1beta2", "clusterqueues")
    priority = custom.get_cluster_custom_object(KUEUE, "v1beta2", "workloadpriorityclasses", "htr-bulk")
    assert [q["metadata"]["name"] for q in queues["items"]] == ["htr-batch-cq"]
    assert "namespace" not in queues["items"][0]["metadata"]
    assert priority["value"] == 0


def test_local_queue_is_namespaced(custom, kube):
    kube.put(
        {
            "apiVersion": f"{KUEUE}/v1beta2",
            "kind": "LocalQueue",
            "metadata": {"name": "htr-batch", "namespace": NS},
            "spec": {"clusterQueue": "htr-batch-cq"},
        }
    )
    got = custom.get_namespaced_custom_object(KUEUE, "v1beta2", NS, "localqueues", "htr-batch")
    assert got["spec"]["clusterQueue"] == "htr-batch-cq"
    with pytest.raises(ApiException) as caught:
        custom.get_namespaced_custom_object(KUEUE, "v1beta2", "elsewhere", "localqueues", "htr-batch")
    assert caught.value.status == 404


def test_resource_flavors_are_cluster_scoped_and_served_under_both_versions(api, custom, kube):
    kube.put(scene_kube.resource_flavor("default-flavor"))
    kube.put(scene_kube.resource_flavor("ocr-dedicated", node_taints=[scene_kube.taint("dedicated", "ocr-only")]))
    for version in ("v1beta2", "v1beta1"):
        listed = custom.list_cluster_custom_object(KUEUE, version, "resourceflavors")
        assert [item["metadata"]["name"] for item in listed["items"]] == ["default-flavor", "ocr-dedicated"]
        assert listed["kind"] == "ResourceFlavorList" and listed["items"][0]["apiVersion"] == f"{KUEUE}/{version}"
        assert "namespace" not in listed["items"][0]["metadata"]
    with pytest.raises(ApiException) as caught:
        client.ApiClient.call_api(api, f"/apis/{KUEUE}/v1beta2/namespaces/{NS}/resourceflavors", "GET",
                                  auth_settings=["BearerToken"], _preload_content=False)
    assert caught.value.status == 404  # cluster-scoped: not under a namespace


def test_claims_are_namespaced_and_selected_by_label(core, kube):
    kube.put(scene_kube.cache_pvc())
    other = scene_kube.cache_pvc("scratch", namespace="htr-other")
    other["metadata"]["labels"] = {"purpose": "scratch"}
    kube.put(other)
    claims = core.list_namespaced_persistent_volume_claim(NS)
    assert names(claims.items) == [scene_kube.DATA_PVC]
    assert claims.items[0].status.capacity == {"storage": scene_kube.CACHE_SIZE}
    assert names(core.list_persistent_volume_claim_for_all_namespaces(label_selector="purpose=scratch").items) == [
        "scratch"
    ]


def test_deployments_and_pods_in_kueue_s_namespace(api, core, kube):
    kube.put(scene_kube.kueue_deployment())
    kube.put(scene_kube.kueue_controller_pod())
    kube.put(pod("unrelated", namespace=scene_kube.KUEUE_NAMESPACE))
    apps = client.AppsV1Api(api)
    listed = apps.list_namespaced_deployment(scene_kube.KUEUE_NAMESPACE)
    assert names(listed.items) == [scene_kube.KUEUE_CONTROLLER]
    assert listed.items[0].status.available_replicas == 1
    assert names(apps.list_namespaced_deployment(NS).items) == []
    selected = core.list_namespaced_pod(scene_kube.KUEUE_NAMESPACE, label_selector="control-plane=controller-manager")
    assert [item.metadata.name.startswith(scene_kube.KUEUE_CONTROLLER) for item in selected.items] == [True]
    field = f"metadata.name={scene_kube.KUEUE_CONTROLLER}"
    assert names(apps.list_namespaced_deployment(scene_kube.KUEUE_NAMESPACE, field_selector=field).items) == [
        scene_kube.KUEUE_CONTROLLER
    ]


def test_kinds_of_a_served_group_that_are_not_served_answer_404(api, kube):
    for path in ("/apis/apps/v1/namespaces/htr-batch/statefulsets", "/api/v1/namespaces/htr-batch/secrets"):
        with pytest.raises(ApiException) as caught:
            client.ApiClient.call_api(api, path, "GET", auth_settings=["BearerToken"], _preload_content=False)
        assert caught.value.status == 404


# -- cluster-wide lists --------------------------------------------------------------------------


def test_cluster_wide_lists_cover_every_namespace(api, custom, kube):
    for namespace in ("htr-batch", "htr-other"):
        kube.put(pod(f"pod-{namespace}", namespace=namespace))
        kube.put(job(f"job-{namespace}", namespace=namespace))
        workload_obj = workload(f"wl-{namespace}")
        workload_obj["metadata"]["namespace"] = namespace
        kube.put(workload_obj)
    pods = client.CoreV1Api(api).list_pod_for_all_namespaces()
    jobs = client.BatchV1Api(api).list_job_for_all_namespaces(label_selector="app=htrflow-batch")
    workloads = custom.list_cluster_custom_object(KUEUE, "v1beta2", "workloads")
    assert [(p.metadata.namespace, p.metadata.name) for p in pods.items] == [
        ("htr-batch", "pod-htr-batch"),
        ("htr-other", "pod-htr-other"),
    ]
    assert names(jobs.items) == ["job-htr-batch", "job-htr-other"]
    assert [w["metadata"]["namespace"] for w in workloads["items"]] == ["htr-batch", "htr-other"]
    assert names(client.CoreV1Api(api).list_namespaced_pod("htr-other").items) == ["pod-htr-other"]


# -- ConfigMap writes ----------------------------------------------------------------------------


def test_configmap_create_then_duplicate_is_409_already_exists(core, kube):
    created = core.create_namespaced_config_map(NS, configmap("campaign-x-status", data={"phase": "Queued"}))
    assert created.metadata.uid and created.metadata.resource_version
    assert kube.get("v1", "ConfigMap", NS, "campaign-x-status")["data"] == {"phase": "Queued"}
    with pytest.raises(ApiException) as caught:
        core.create_namespaced_config_map(NS, configmap("campaign-x-status"))
    body = json.loads(caught.value.body)
    assert (caught.value.status, body["reason"]) == (409, "AlreadyExists")


def test_configmap_replace_with_current_version_then_stale_version_conflicts(core, kube):
    kube.put(configmap("cm", data={"phase": "Running"}))
    current = core.read_namespaced_config_map("cm", NS)
    current.data["phase"] = "Complete"
    replaced = core.replace_namespaced_config_map("cm", NS, current)
    assert replaced.data["phase"] == "Complete"
    assert replaced.metadata.uid == current.metadata.uid
    current.data["phase"] = "Failed"  # still carries the old resourceVersion
    with pytest.raises(ApiException) as caught:
        core.replace_namespaced_config_map("cm", NS, current)
    assert (caught.value.status, json.loads(caught.value.body)["reason"]) == (409, "Conflict")
    assert kube.get("v1", "ConfigMap", NS, "cm")["data"]["phase"] == "Complete"


def test_configmap_replace_of_missing_object_is_404(core, kube):
    with pytest.raises(ApiException) as caught:
        core.replace_namespaced_config_map("ghost", NS, configmap("ghost"))
    assert caught.value.status == 404


@pytest.mark.parametrize("content_type", ["application/merge-patch+json", "application/strategic-merge-patch+json"])
def test_configmap_merge_patch_sets_and_removes_keys(core, kube, content_type):
    kube.put(configmap("cm", data={"phase": "Running", "finishedAt": "", "volumesDone": "3"}))
    patched = core.patch_namespaced_config_map(
        "cm", NS, {"data": {"phase": "Complete", "finishedAt": None}}, _content_type=content_type
    )
    assert patched.data == {"phase": "Complete", "volumesDone": "3"}
    assert kube.calls[-1][0] == "PATCH"


def test_client_default_patch_type_is_accepted(core, kube):
    kube.put(configmap("cm", data={"phase": "Running"}))
    assert core.patch_namespaced_config_map("cm", NS, {"data": {"phase": "Done"}}).data == {"phase": "Done"}


def test_merge_patch_with_stale_resource_version_conflicts(core, kube):
    kube.put(configmap("cm", data={"phase": "Running"}))
    with pytest.raises(ApiException) as caught:
        core.patch_namespaced_config_map("cm", NS, {"metadata": {"resourceVersion": "1"}, "data": {"phase": "X"}})
    assert caught.value.status == 409


def test_json_patch_list_body(core, kube):
    kube.put(configmap("cm", data={"phase": "Running"}))
    patched = core.patch_namespaced_config_map("cm", NS, [{"op": "replace", "path": "/data/phase", "value": "Done"}])
    assert patched.data == {"phase": "Done"}


def test_configmap_delete(core, kube):
    kube.put(configmap("cm"))
    status = core.delete_namespaced_config_map("cm", NS)
    assert status.status == "Success"
    assert kube.get("v1", "ConfigMap", NS, "cm") is None
    with pytest.raises(ApiException) as caught:
        core.delete_namespaced_config_map("cm", NS)
    assert caught.value.status == 404


def test_writes_to_other_kinds_are_405(api, kube):
    with pytest.raises(ApiException) as caught:
        client.BatchV1Api(api).create_namespaced_job(NS, job("new-job"))
    assert caught.value.status == 405
    assert kube.list("batch/v1", "Job") == []


# -- pod logs ------------------------------------------------------------------------------------


def read_log(core, name, **params):
    """The client turns a plain-text body into str(bytes) unless the body is read raw."""
    response = core.read_namespaced_pod_log(name, NS, _preload_content=False, **params)
    return response.data.decode("utf-8")


def test_pod_log_with_container_and_tail_lines(core, kube):
    kube.put(pod("court-rolls-1650-2-7hq4z", containers=("wrapper",)))
    kube.add_pod_log(NS, "court-rolls-1650-2-7hq4z", "wrapper", "one\ntwo\n")
    kube.append_pod_log(NS, "court-rolls-1650-2-7hq4z", "wrapper", "three\nfour\n")
    assert read_log(core, "court-rolls-1650-2-7hq4z") == "one\ntwo\nthree\nfour\n"
    assert read_log(core, "court-rolls-1650-2-7hq4z", container="wrapper", tail_lines=2) == "three\nfour\n"


def test_pod_log_needs_a_container_when_there_are_several(core, kube):
    kube.put(pod("p", containers=("wrapper", "sidecar")))
    kube.add_pod_log(NS, "p", "sidecar", "side\n")
    assert read_log(core, "p", container="sidecar") == "side\n"
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod_log("p", NS)
    assert caught.value.status == 400
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod_log("p", NS, container="nope")
    assert caught.value.status == 400


def test_log_of_missing_pod_is_404(core, kube):
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod_log("ghost", NS)
    assert caught.value.status == 404


# -- request log, discovery, fixtures ------------------------------------------------------------


def test_calls_record_method_path_and_query(core, kube):
    core.list_namespaced_pod(NS, label_selector="app=batch", limit=5)
    assert kube.calls == [("GET", f"/api/v1/namespaces/{NS}/pods", {"labelSelector": "app=batch", "limit": "5"})]
    kube.reset_calls()
    assert kube.calls == []


def test_version_endpoint(api, kube):
    assert client.VersionApi(api).get_code().git_version.startswith("v1.")


def test_kube_fixture_points_django_at_the_double(kube):
    from django.conf import settings

    assert settings.KUBECONFIG == str(kube.kubeconfig_path)
    loaded = client.Configuration()
    config.load_kube_config(config_file=settings.KUBECONFIG, client_configuration=loaded)
    assert loaded.host == kube.url


def test_put_yaml_expands_lists_and_multiple_documents(kube):
    text = """
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: htr-batch}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: htr-batch}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: c, namespace: htr-batch}
"""
    stored = kube.put_yaml(text)
    assert [obj["metadata"]["name"] for obj in stored] == ["a", "b", "c"]
    assert [obj["metadata"]["name"] for obj in kube.list("v1", "ConfigMap", NS)] == ["a", "b"]


def test_unknown_kind_is_refused_in_process(kube):
    with pytest.raises(ValueError):
        kube.put({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "x", "namespace": NS}})


def test_context_manager_starts_and_stops(tmp_path):
    with KubeDouble() as double:
        double.put(configmap("cm"))
        api_client = config.new_client_from_config(config_file=str(double.write_kubeconfig(tmp_path / "kc")))
        assert names(client.CoreV1Api(api_client).list_namespaced_config_map(NS).items) == ["cm"]
        api_client.close()
    with pytest.raises(RuntimeError):
        double.url


# -- the selector and patch helpers on their own -------------------------------------------------

label_keys = st.sampled_from(["app", "tier", "kueue.x-k8s.io/job-uid", "h.example/x_y"])
label_values = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?", fullmatch=True)


@given(labels=st.dictionaries(label_keys, label_values, max_size=4), key=label_keys, value=label_values)
def test_equality_and_inequality_split_every_label_set(labels, key, value):
    equal = parse_label_selector(f"{key}={value}").matches(labels)
    not_equal = parse_label_selector(f"{key}!={value}").matches(labels)
    assert equal == (labels.get(key) == value)
    assert not_equal is not equal
    assert parse_label_selector(f"{key} in ({value})").matches(labels) == equal
    assert parse_label_selector(f"{key} notin ({value})").matches(labels) == not_equal


def test_field_selector_values_may_escape_commas_and_equals():
    selector = parse_field_selector(r"metadata.name=a\,b\=c,status.phase!=Failed")
    assert selector.matches({"metadata.name": "a,b=c", "status.phase": "Running"})
    assert not selector.matches({"metadata.name": "a,b=c", "status.phase": "Failed"})


def test_merge_patch_follows_rfc_7386():
    target = {"a": "b", "c": {"d": "e", "f": "g"}, "list": [1, 2]}
    patch = {"a": "z", "c": {"f": None}, "list": [3], "new": {"x": None}}
    assert merge_patch(target, patch) == {"a": "z", "c": {"d": "e"}, "list": [3], "new": {}}
    assert target == {"a": "b", "c": {"d": "e", "f": "g"}, "list": [1, 2]}


def test_json_patch_operations_and_failed_test():
    document = {"data": {"a": "1"}, "items": ["x"]}
    patched = json_patch(
        document,
        [
            {"op": "add", "path": "/data/b", "value": "2"},
            {"op": "remove", "path": "/data/a"},
            {"op": "add", "path": "/items/-", "value": "y"},
            {"op": "test", "path": "/items/1", "value": "y"},
            {"op": "move", "from": "/data/b", "path": "/data/c"},
        ],
    )
    assert patched == {"data": {"c": "2"}, "items": ["x", "y"]}
    with pytest.raises(SelectorError):
        json_patch(document, [{"op": "test", "path": "/data/a", "value": "other"}])
