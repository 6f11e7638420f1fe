"""RBAC agreement: the chart grants exactly the Kubernetes calls the app makes, nothing more.

The app's pages and read API are exercised against the devstack's API double (the demo scene in
it), every request the double records is turned into the (scope, verb, API group, resource, name)
that a real API server would authorise, and that set must equal what the rendered Role(s) and
ClusterRole grant, as RBAC matches them: a rule without resourceNames grants every name, one with
resourceNames only those (and never a create or a list, which carry no name). Whatever changes in
what the app reads (campaigns/cluster/sources.py: every list is watched after it is read) or writes
(campaigns/cluster/writes.py), this test says which grant to add or drop in
charts/htrbrowser/templates/_rbac-rules.tpl. Every list is waited for until its watch has started,
so a watch is never missed for being opened in the background.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from campaigns.cluster import board, reading, status_lease, status_records
from campaigns.store import progress as progress_module
from devstack.scene import build_scene
from devstack.scene_kube import KUEUE_NAMESPACE
from tests.chart.render import NAMESPACE, of_kind, render
from tests.fixtures.waiting import wait_until

CLUSTER = "(cluster)"
# Paths every authenticated account may read (system:discovery, system:public-info-viewer).
NON_RESOURCE = {"/version", "/api", "/apis", "/api/v1"}
WRITE_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}
ANY_NAME = ""  # a request on a collection (list, watch, create) has no name; a rule without resourceNames


def authorised_as(method: str, path: str, query: dict) -> tuple[str, str, str, str, str] | None:
    """(scope, verb, group, resource, name) a real API server checks for this request; None for discovery.

    The name is the object's for a request on one object (get, update, patch, delete), else "": a
    create names its object only in the body, which RBAC's resourceNames never see.
    """
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
    name = rest[1] if named else ANY_NAME
    if method == "GET":
        if query.get("watch") in ("true", "1"):
            verb = "watch"
        else:
            verb = "get" if named else "list"
    elif method == "DELETE":
        verb = "delete" if named else "deletecollection"
    else:
        verb = WRITE_VERBS[method]
    return scope, verb, group, resource, name


def used(calls) -> set[tuple[str, str, str, str, str]]:
    return {found for call in calls if (found := authorised_as(*call)) is not None}


def granted(objects) -> set[tuple[str, str, str, str, str]]:
    """(scope, verb, group, resource, name) of every grant; name "" where a rule names no resourceNames."""
    grants = set()
    for kind, scope_of in (("Role", lambda role: role["metadata"]["namespace"]), ("ClusterRole", lambda _: CLUSTER)):
        for role in of_kind(objects, kind):
            for rule in role["rules"]:
                assert "nonResourceURLs" not in rule, rule
                names = rule.get("resourceNames", [ANY_NAME])
                assert names and ANY_NAME not in rule.get("resourceNames", ["-"]), rule
                for group in rule["apiGroups"]:
                    for resource in rule["resources"]:
                        for verb in rule["verbs"]:
                            assert "*" not in (group, resource, verb), rule
                            grants.update((scope_of(role), verb, group, resource, name) for name in names)
    return grants


def allowed(grants, call) -> bool:
    """As RBAC decides: a grant for every name of the kind, or one naming this very object."""
    return (*call[:4], ANY_NAME) in grants or (call[4] != ANY_NAME and call in grants)


def unused(grants, calls) -> list:
    """Grants no call needs: one for every name with no call of its kind, one by name with no call on that name."""
    kinds = {call[:4] for call in calls}
    return sorted(grant for grant in grants
                  if (grant[:4] not in kinds if grant[4] == ANY_NAME else grant not in calls))


def test_requests_are_authorised_as_a_real_api_server_would():
    assert authorised_as("GET", "/api/v1/namespaces/ns/pods", {"limit": "500"}) == ("ns", "list", "", "pods", "")
    assert authorised_as("GET", "/api/v1/namespaces/ns/pods", {"watch": "true"}) == ("ns", "watch", "", "pods", "")
    assert authorised_as("GET", "/api/v1/namespaces/ns/pods/p/log", {}) == ("ns", "get", "", "pods/log", "p")
    assert authorised_as("PATCH", "/api/v1/namespaces/ns/configmaps/c", {}) == ("ns", "patch", "", "configmaps", "c")
    assert authorised_as("PUT", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l", {}) == (
        "ns", "update", "coordination.k8s.io", "leases", "l")
    assert authorised_as("POST", "/apis/coordination.k8s.io/v1/namespaces/ns/leases", {}) == (
        "ns", "create", "coordination.k8s.io", "leases", "")
    assert authorised_as("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", {}) == (
        CLUSTER, "list", "kueue.x-k8s.io", "clusterqueues", "")
    assert authorised_as("GET", "/apis/kueue.x-k8s.io/v1beta2", {}) is None


def test_grants_by_name_are_matched_as_rbac_matches_them():
    grants = {("ns", "get", "coordination.k8s.io", "leases", "mine"),
              ("ns", "create", "coordination.k8s.io", "leases", ""),
              ("ns", "patch", "", "configmaps", "")}
    assert allowed(grants, ("ns", "get", "coordination.k8s.io", "leases", "mine"))
    assert not allowed(grants, ("ns", "get", "coordination.k8s.io", "leases", "htrflow-campaigns-apply"))
    assert not allowed(grants, ("ns", "update", "coordination.k8s.io", "leases", "mine"))
    assert not allowed(grants, ("other", "get", "coordination.k8s.io", "leases", "mine"))
    assert allowed(grants, ("ns", "create", "coordination.k8s.io", "leases", ""))
    assert allowed(grants, ("ns", "patch", "", "configmaps", "campaign-a-status"))
    assert unused(grants, {("ns", "get", "coordination.k8s.io", "leases", "theirs")}) == sorted(grants)
    assert unused(grants, {("ns", "patch", "", "configmaps", "c"),
                           ("ns", "create", "coordination.k8s.io", "leases", ""),
                           ("ns", "get", "coordination.k8s.io", "leases", "mine")}) == []


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
    reading.clear_cache()
    progress_module.clear_cache()
    status_records.forget()


def visit_everything(client, scene):
    """Every page and read-API answer that reads the cluster, for every campaign of the scene."""
    # /readyz/namespaces is `helm test`'s question (its pod has no right of its own): the app's grants cover it.
    answers = [client.get("/"), client.get("/", HTTP_HX_REQUEST="true"), client.get("/api/v1/version"),
               client.get("/readyz/namespaces"),
               client.get("/api/v1/jobs"), client.get(f"/campaigns/{NAMESPACE}/no-such-campaign")]
    for name in scene.campaigns:
        answers += [
            client.get(f"/campaigns/{NAMESPACE}/{name}"),
            client.get(f"/campaigns/{NAMESPACE}/{name}/card", HTTP_HX_REQUEST="true"),
            client.get(f"/api/v1/jobs/{NAMESPACE}/{name}"),
        ]
    assert [a.status_code for a in answers if a.status_code >= 500] == []
    return answers


def every_list_watched(double):
    """Wait until the double has seen a watch of every list the board read: the informers open their
    watches in the background, and a watch is a call the chart must grant too."""
    for each in board.board(NAMESPACE).informers:
        if each.known:
            wait_until(
                lambda each=each: bool(each.path) and double.watch_starts(f"^{re.escape(each.path)}$") > 0,
                what="a watch of every list",
            )


def status_record_names(double):
    return {item["metadata"]["name"] for item in double.list("v1", "ConfigMap", NAMESPACE)
            if (item["metadata"].get("labels") or {}).get("htrflow.riksarkivet.se/kind") == "status"}


def bring_a_record_up_to_date(double, client, scene, before):
    """A record the app keeps must be brought up to date too (a patch, not only a create), by a process
    that has forgotten the Lease it holds: it reads the Lease again and renews it (an update)."""
    created = status_record_names(double) - before
    assert created, "the scene gave the app no status record to create"
    stale = sorted(created)[0]
    record = double.get("v1", "ConfigMap", NAMESPACE, stale)
    record["data"].pop("jobUid", None)
    double.put(record)
    reset_caches()
    visit_everything(client, scene)


# What issue 35 added: the model cache's claim, Kueue's flavors, and Kueue's controller in its namespace.
CAUSE_READS = {(NAMESPACE, "persistentvolumeclaims", ""), (CLUSTER, "resourceflavors", "kueue.x-k8s.io")}
KUEUE_READS = {(KUEUE_NAMESPACE, "deployments", "apps"), (KUEUE_NAMESPACE, "pods", "")}


@pytest.mark.parametrize(
    ("write_status", "kueue_namespace"),
    [(True, KUEUE_NAMESPACE), (False, "")],
    ids=["status-records-on-kueue-read", "status-records-off-kueue-not-read"],
)
def test_the_chart_grants_exactly_the_calls_the_app_makes(
    scene_cluster, results_client, settings, write_status, kueue_namespace
):
    double, scene = scene_cluster
    settings.HTRFLOW_WRITE_STATUS = write_status
    settings.HTRFLOW_KUEUE_NAMESPACE = kueue_namespace
    reset_caches()
    double.reset_calls()
    before = status_record_names(double)

    visit_everything(results_client, scene)
    every_list_watched(double)
    if write_status:
        bring_a_record_up_to_date(double, results_client, scene, before)
        every_list_watched(double)
    # An older Kueue (v1beta1 only) is read through the same grants.
    double.kueue_v1beta2_enabled = False
    reset_caches()
    visit_everything(results_client, scene)
    every_list_watched(double)

    calls = used(double.calls)
    verbs = {verb for _scope, verb, _group, _resource, _name in calls}
    if write_status:
        assert {"create", "patch", "update"} <= verbs
    else:
        assert verbs.isdisjoint({"create", "patch", "update", "delete"})
    read = {(scope, resource, group) for scope, verb, group, resource, _name in calls if verb in ("list", "watch")}
    assert CAUSE_READS <= read
    assert (KUEUE_READS <= read) if kueue_namespace else not {scope for scope, *_ in read} & {KUEUE_NAMESPACE}
    objects = render({"statusRecords": {"enabled": write_status}, "kube": {"kueueNamespace": kueue_namespace}})
    grants = granted(objects)
    assert [call for call in sorted(calls) if not allowed(grants, call)] == [], \
        "the app makes calls the chart does not grant"
    assert unused(grants, calls) == [], "the chart grants calls the app never makes"


def lease_rules(objects):
    return [rule for role in of_kind(objects, "Role") for rule in role["rules"] if "leases" in rule["resources"]]


def test_the_lease_grant_is_the_status_writer_s_lease_and_only_that_one(scene_cluster, results_client, settings):
    """htrflow-batch's own Leases (htrflow-campaigns-apply) share the namespace: this pod must not hold them."""
    double, scene = scene_cluster
    settings.HTRFLOW_WRITE_STATUS = True
    reset_caches()
    double.reset_calls()
    before = status_record_names(double)
    visit_everything(results_client, scene)
    bring_a_record_up_to_date(double, results_client, scene, before)
    lease_calls = {call for call in used(double.calls) if call[2:4] == ("coordination.k8s.io", "leases")}
    # The name the app asks for against the API is its constant, and the only one it names.
    assert {(verb, name) for _scope, verb, _group, _resource, name in lease_calls} == {
        ("get", status_lease.LEASE_NAME), ("create", ANY_NAME), ("update", status_lease.LEASE_NAME)}
    assert [lease["metadata"]["name"] for lease in double.list("coordination.k8s.io/v1", "Lease", NAMESPACE)] == [
        status_lease.LEASE_NAME]

    objects = render({"namespaces": ["htr-a", "htr-b"]})
    for role in of_kind(objects, "Role"):
        rules = [rule for rule in role["rules"] if "leases" in rule["resources"]]
        if role["metadata"]["namespace"] == KUEUE_NAMESPACE:
            assert rules == []  # Kueue's namespace: its controller is read, nothing written
            continue
        assert rules == [
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
             "resourceNames": [status_lease.LEASE_NAME], "verbs": ["get", "update"]},
            # RBAC cannot scope create by name: the admission policy refuses any other Lease.
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        ], role["metadata"]["namespace"]
    grants = granted(objects)
    for namespace in ("htr-a", "htr-b"):
        for verb in ("get", "update", "patch", "delete"):
            assert not allowed(grants, (namespace, verb, "coordination.k8s.io", "leases", "htrflow-campaigns-apply"))
        assert allowed(grants, (namespace, "update", "coordination.k8s.io", "leases", status_lease.LEASE_NAME))
    assert lease_rules(render({"statusRecords": {"enabled": False}})) == []


def test_every_served_namespace_gets_its_own_role_and_nothing_cluster_wide_but_kueue_s_cluster_kinds():
    grants = granted(render({"namespaces": ["htr-a", "htr-b"]}))
    scopes = {scope for scope, *_ in grants}
    assert scopes == {"htr-a", "htr-b", KUEUE_NAMESPACE, CLUSTER}
    cluster_wide = {(group, resource) for scope, _verb, group, resource, _name in grants if scope == CLUSTER}
    assert cluster_wide == {("kueue.x-k8s.io", "clusterqueues"), ("kueue.x-k8s.io", "workloadpriorityclasses"),
                            ("kueue.x-k8s.io", "resourceflavors")}


def test_kueue_s_namespace_is_granted_reads_of_its_controller_only_and_nothing_when_it_is_not_read():
    grants = granted(render({"kube": {"kueueNamespace": "kueue"}}))
    assert {(verb, group, resource) for scope, verb, group, resource, _name in grants if scope == "kueue"} == {
        ("list", "apps", "deployments"), ("watch", "apps", "deployments"), ("list", "", "pods"), ("watch", "", "pods")}
    for values in ({"kube": {"kueueNamespace": ""}}, {"clusterScoped": False, "statusRecords": {"enabled": False}}):
        objects = render(values)
        assert KUEUE_NAMESPACE not in {scope for scope, *_ in granted(objects)}
        env = {entry["name"]: entry.get("value") for entry in of_kind(objects, "Deployment")[0]["spec"]["template"]
               ["spec"]["containers"][0]["env"]}
        assert env["HTRFLOW_KUEUE_NAMESPACE"] == "", values  # the app reads no namespace it is not granted
