"""RBAC agreement: the chart grants exactly the Kubernetes calls the app makes, nothing more.

The app's pages and read API are exercised against the devstack's API double (the demo scene in
it), every request the double records is turned into the (scope, verb, API group, resource) that a
real API server would authorise, and that set must equal what the rendered Role(s) and ClusterRole
grant. Whatever changes in campaigns/kube.py (watches, leases), this test says which grant to add
or drop in charts/htrbrowser/templates/_rbac-rules.tpl.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from campaigns import kube as kube_module
from campaigns import progress as progress_module
from campaigns import status_records
from devstack.scene import build_scene
from tests.chart.render import NAMESPACE, of_kind, render

CLUSTER = "(cluster)"
# Paths every authenticated account may read (system:discovery, system:public-info-viewer).
NON_RESOURCE = {"/version", "/api", "/apis", "/api/v1"}
WRITE_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}


def authorised_as(method: str, path: str, query: dict) -> tuple[str, str, str, str] | None:
    """(scope, verb, group, resource) a real API server checks for this request; None for discovery."""
    segments = [segment for segment in path.split("/") if segment]
    if path.rstrip("/") in NON_RESOURCE or (len(segments) == 3 and segments[0] == "apis"):
        return None
    if segments[:2] == ["api", "v1"]:
        group, rest = "", segments[2:]
    elif segments[0] == "apis":
        group, rest = segments[1], segments[3:]
    else:
        raise AssertionError(f"not a Kubernetes API path: {path}")
    scope = CLUSTER
    if len(rest) >= 3 and rest[0] == "namespaces":
        scope, rest = rest[1], rest[2:]
    resource = rest[0] + (f"/{rest[2]}" if len(rest) > 2 else "")
    named = len(rest) > 1
    if method == "GET":
        if query.get("watch") in ("true", "1"):
            verb = "watch"
        else:
            verb = "get" if named else "list"
    elif method == "DELETE":
        verb = "delete" if named else "deletecollection"
    else:
        verb = WRITE_VERBS[method]
    return scope, verb, group, resource


def used(calls) -> set[tuple[str, str, str, str]]:
    return {found for call in calls if (found := authorised_as(*call)) is not None}


def granted(objects) -> set[tuple[str, str, str, str]]:
    grants = set()
    for kind, scope_of in (("Role", lambda role: role["metadata"]["namespace"]), ("ClusterRole", lambda _: CLUSTER)):
        for role in of_kind(objects, kind):
            for rule in role["rules"]:
                assert "resourceNames" not in rule and "nonResourceURLs" not in rule, rule
                for group in rule["apiGroups"]:
                    for resource in rule["resources"]:
                        for verb in rule["verbs"]:
                            assert "*" not in (group, resource, verb), rule
                            grants.add((scope_of(role), verb, group, resource))
    return grants


def test_requests_are_authorised_as_a_real_api_server_would():
    assert authorised_as("GET", "/api/v1/namespaces/ns/pods", {"limit": "500"}) == ("ns", "list", "", "pods")
    assert authorised_as("GET", "/api/v1/namespaces/ns/pods", {"watch": "true"}) == ("ns", "watch", "", "pods")
    assert authorised_as("GET", "/api/v1/namespaces/ns/pods/p/log", {}) == ("ns", "get", "", "pods/log")
    assert authorised_as("PATCH", "/api/v1/namespaces/ns/configmaps/c", {}) == ("ns", "patch", "", "configmaps")
    assert authorised_as("PUT", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l", {}) == (
        "ns", "update", "coordination.k8s.io", "leases")
    assert authorised_as("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", {}) == (
        CLUSTER, "list", "kueue.x-k8s.io", "clusterqueues")
    assert authorised_as("GET", "/apis/kueue.x-k8s.io/v1beta2", {}) is None


@pytest.fixture
def scene_cluster(kube, settings):
    scene = build_scene(datetime.now(UTC), "http://127.0.0.1:9/iiif", "http://testserver/results")
    for obj in scene.objects:
        kube.put(obj)
    settings.HTRFLOW_NAMESPACES = [NAMESPACE]
    settings.HTRFLOW_RESULTS_NAMESPACE = NAMESPACE
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    # One snapshot per round of visits (rounds start afresh with reset_caches()).
    settings.HTRFLOW_SNAPSHOT_SECONDS = 600
    settings.HTRFLOW_KUBE_TIMEOUT = 2.0
    yield kube, scene
    kube.kueue_v1beta2_enabled = True
    reset_caches()


def reset_caches():
    kube_module.clear_cache()
    progress_module.clear_cache()
    status_records.forget()


def visit_everything(client, scene):
    """Every page and read-API answer that reads the cluster, for every campaign of the scene."""
    answers = [client.get("/"), client.get("/", HTTP_HX_REQUEST="true"), client.get("/api/v1/version"),
               client.get("/api/v1/jobs"), client.get(f"/campaigns/{NAMESPACE}/no-such-campaign")]
    for name in scene.campaigns:
        answers += [
            client.get(f"/campaigns/{NAMESPACE}/{name}"),
            client.get(f"/campaigns/{NAMESPACE}/{name}/card", HTTP_HX_REQUEST="true"),
            client.get(f"/api/v1/jobs/{NAMESPACE}/{name}"),
        ]
    assert [a.status_code for a in answers if a.status_code >= 500] == []
    return answers


def status_record_names(double):
    return {item["metadata"]["name"] for item in double.list("v1", "ConfigMap", NAMESPACE)
            if (item["metadata"].get("labels") or {}).get("htrflow.riksarkivet.se/kind") == "status"}


@pytest.mark.parametrize("write_status", [True, False], ids=["status-records-on", "status-records-off"])
def test_the_chart_grants_exactly_the_calls_the_app_makes(scene_cluster, results_client, settings, write_status):
    double, scene = scene_cluster
    settings.HTRFLOW_WRITE_STATUS = write_status
    reset_caches()
    double.reset_calls()
    before = status_record_names(double)

    visit_everything(results_client, scene)
    if write_status:
        # A record the app keeps must be brought up to date too (a patch, not only a create).
        created = status_record_names(double) - before
        assert created, "the scene gave the app no status record to create"
        stale = sorted(created)[0]
        record = double.get("v1", "ConfigMap", NAMESPACE, stale)
        record["data"].pop("jobUid", None)
        double.put(record)
        reset_caches()
        visit_everything(results_client, scene)
    # An older Kueue (v1beta1 only) is read through the same grants.
    double.kueue_v1beta2_enabled = False
    reset_caches()
    visit_everything(results_client, scene)

    calls = used(double.calls)
    verbs = {verb for _scope, verb, _group, _resource in calls}
    if write_status:
        assert {"create", "patch"} <= verbs
    else:
        assert verbs.isdisjoint({"create", "patch", "update", "delete"})
    objects = render({"statusRecords": {"enabled": write_status}})
    grants = granted(objects)
    assert sorted(calls - grants) == [], "the app makes calls the chart does not grant"
    assert sorted(grants - calls) == [], "the chart grants calls the app never makes"


def test_every_served_namespace_gets_its_own_role_and_nothing_cluster_wide_but_kueue_s_cluster_kinds():
    grants = granted(render({"namespaces": ["htr-a", "htr-b"]}))
    scopes = {scope for scope, *_ in grants}
    assert scopes == {"htr-a", "htr-b", CLUSTER}
    cluster_wide = {(group, resource) for scope, _verb, group, resource in grants if scope == CLUSTER}
    assert cluster_wide == {("kueue.x-k8s.io", "clusterqueues"), ("kueue.x-k8s.io", "workloadpriorityclasses")}
