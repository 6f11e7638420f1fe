"""campaigns.cluster.board and campaigns.cluster.informer: the cluster read by what changed, through the real client.

The API double serves watches as a real API server does (events, bookmarks, 410 for a version it no
longer holds); these tests follow one namespace from its first LIST through changes and outages.
"""

from __future__ import annotations

import time

import pytest

from campaigns.cluster import board, informer
from campaigns.cluster import kube as kube_api
from tests.campaigns.cluster.test_kube import NS, campaign_job, campaign_pod, campaign_record, load_campaigns
from tests.fixtures.waiting import wait_until


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_KUBE_TIMEOUT = 3.0  # generous: the machine may be busy, and a timeout is an outage
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.05
    settings.HTRFLOW_WRITE_STATUS = False
    kube.bookmark_seconds = 0.1
    board.stop_all()
    yield kube
    kube.clear_faults()
    board.stop_all()


def lists(double, resource: str) -> int:
    """LISTs of a resource (not watches, and not the one-item probe `board.settle` makes)."""
    return sum(
        1
        for m, p, q in double.calls
        if m == "GET" and p.endswith("/" + resource) and not q.get("watch") and q.get("limit") != "1"
    )


def test_the_first_reading_lists_every_source_once_and_projects_it(cluster):
    load_campaigns(cluster, 2)
    reading = board.reading(NS)
    assert sorted(c.name for c in reading.campaigns) == ["campaign-000", "campaign-001"]
    # pods: campaign and warm-up pods, finished warm-up pods, and Kueue's controller in its namespace
    assert lists(cluster, "pods") == 3 and lists(cluster, "configmaps") == 3
    assert reading.unreachable_since is None and reading.banner() is None


def test_changes_arrive_by_watch_without_listing_again(cluster):
    load_campaigns(cluster, 1)
    first = board.reading(NS)
    cluster.put(campaign_job("late-one", "00000000-0000-4000-8000-00000000beef", volumes=2))
    cluster.put(campaign_record("late-one", ["L-1", "L-2"]))
    later = board.settle(NS)
    assert "late-one" in [c.name for c in later.campaigns]
    assert later.edition > first.edition
    assert lists(cluster, "jobs") == 2  # campaign Jobs and warm-up Jobs, each listed once
    assert lists(cluster, "configmaps") == 3


def test_requests_share_one_reading_until_something_changes(cluster):
    load_campaigns(cluster, 1)
    first = board.reading(NS)
    calls = reads(cluster)
    assert board.reading(NS) is first
    assert reads(cluster) == calls  # the informers' watches open in the background; those are not reads


def reads(double) -> int:
    """Requests that read a list or an object (watches, which the informers open on their own, left out)."""
    return sum(1 for m, _p, q in double.calls if m == "GET" and not q.get("watch"))


def test_a_deleted_pod_leaves_the_reading(cluster):
    load_campaigns(cluster, 1)
    before = board.reading(NS)
    assert len(before.snapshot.pods) == 2  # the Succeeded pod is not listed
    cluster.delete("v1", "Pod", NS, "campaign-000-1-x0001")
    after = board.settle(NS)
    assert len(after.snapshot.pods) == 1


def test_a_pod_that_succeeds_leaves_the_list_it_no_longer_matches(cluster):
    load_campaigns(cluster, 1)
    board.reading(NS)
    cluster.patch("v1", "Pod", NS, "campaign-000-2-x0002", {"status": {"phase": "Succeeded"}})
    after = board.settle(NS)
    assert [p["metadata"]["name"] for p in after.snapshot.pods] == ["campaign-000-1-x0001"]


def test_managed_fields_are_not_kept(cluster):
    pod = campaign_pod("campaign-000", 1)
    pod["metadata"]["managedFields"] = [{"manager": "kubelet", "operation": "Update", "fieldsV1": {"f:status": {}}}]
    pod["metadata"]["annotations"] = {"tests/put": "with-managed-fields"}  # tells this pod from the one it replaces
    load_campaigns(cluster, 1)
    board.reading(NS)
    cluster.put(pod)
    name = pod["metadata"]["name"]
    assert "managedFields" in cluster.get("v1", "Pod", NS, name)["metadata"]  # the API serves them

    def ours():
        found = [p for p in board.settle(NS).snapshot.pods if p["metadata"]["name"] == name]
        return found if found and (found[0]["metadata"].get("annotations") or {}).get("tests/put") else None

    (kept,) = wait_until(ours, what="our pod alone in the reading")
    assert "managedFields" not in kept["metadata"]
    assert all("managedFields" not in p["metadata"] for p in board.reading(NS).snapshot.pods)


def test_a_version_too_old_for_the_server_means_listing_again(cluster):
    load_campaigns(cluster, 1)
    board.reading(NS)
    pods = next(each for each in board.board(NS).informers if each.source.field == "pods")
    cluster.inject_fault(r"/pods$", delay=0.5, times=1)  # the watch comes back after the compaction
    cluster.drop_watches()
    cluster.put(campaign_pod("campaign-000", 0))
    cluster.compact()
    wait_until(lambda: pods.lists >= 2, what="the pods listed again")
    reading = board.settle(NS)
    assert len(reading.snapshot.pods) == 3 and reading.unreachable_since is None


def test_a_dropped_watch_is_opened_again_without_a_banner(cluster):
    load_campaigns(cluster, 1)
    board.reading(NS)
    cluster.drop_watches()
    cluster.put(campaign_pod("campaign-000", 0))
    reading = board.settle(NS)
    assert len(reading.snapshot.pods) == 3
    assert reading.banner() is None


def test_when_the_api_goes_down_the_last_reading_is_served_with_a_banner_and_recovers(cluster):
    load_campaigns(cluster, 2)
    good = board.reading(NS)
    cluster.inject_fault(r".*", status=503)
    cluster.drop_watches()
    stale = wait_until(lambda: (r := board.reading(NS)).unreachable_since and r, what="a stale reading")
    assert [c.name for c in stale.campaigns] == [c.name for c in good.campaigns]
    assert stale.banner().startswith("The cluster has been answering with errors since ")
    assert stale.age_seconds() >= 0
    cluster.clear_faults()
    wait_until(lambda: board.reading(NS).unreachable_since is None, timeout=20, what="a current reading")


def test_a_reading_that_shows_an_outage_is_replaced_as_soon_as_the_lists_are_read_again(cluster, settings):
    """However long the period between readings, the banner does not outlast the outage by a period."""
    load_campaigns(cluster, 1)
    board.reading(NS)
    cluster.inject_fault(r".*", status=503)
    cluster.drop_watches()
    wait_until(lambda: board.reading(NS).unreachable_since, what="a stale reading")
    settings.HTRFLOW_SNAPSHOT_SECONDS = 300
    now = time.monotonic()  # the next failure wakes the board, which then rests for the new period
    wait_until(lambda: any(each.failed_at > now for each in board.board(NS).informers), what="a newer failure")
    cluster.clear_faults()
    wait_until(lambda: board.reading(NS).unreachable_since is None, timeout=30, what="a current reading")


def test_the_banner_says_why_the_cluster_is_not_read(cluster):
    load_campaigns(cluster, 1)
    board.reading(NS)
    cluster.inject_fault(r".*", status=429, retry_after=1)
    cluster.drop_watches()
    stale = wait_until(lambda: (r := board.reading(NS)).unreachable_since and r, what="a stale reading")
    assert "turning this site's reads away" in stale.banner()


def test_a_refused_list_before_anything_was_read_is_a_sentence(cluster):
    cluster.inject_fault(r"/pods$", status=403)
    with pytest.raises(kube_api.ClusterUnavailable) as raised:
        board.reading(NS)
    assert "may not list" in raised.value.sentence


def test_a_down_api_costs_retries_that_grow_apart_not_one_per_request(cluster):
    cluster.inject_fault(r".*", status=503)
    with pytest.raises(kube_api.ClusterUnavailable):
        board.reading(NS)
    calls = len(cluster.calls)
    for _ in range(20):
        with pytest.raises(kube_api.ClusterUnavailable):
            board.reading(NS)
    assert len(cluster.calls) - calls < 20


def test_the_api_server_is_read_the_same_however_many_requests_come(cluster):
    load_campaigns(cluster, 3)
    board.reading(NS)
    cluster.put(campaign_pod("campaign-001", 0))
    board.settle(NS)
    cluster.reset_calls()
    for _ in range(50):
        board.reading(NS)
    assert cluster.calls == []


def test_an_optional_list_the_account_may_not_read_is_not_known(cluster):
    cluster.inject_fault(r"/clusterqueues$", status=403)
    load_campaigns(cluster, 1)
    reading = board.reading(NS)
    assert reading.snapshot.cluster_queues is None
    assert reading.snapshot.workloads is not None


def test_slim_drops_the_last_applied_copy_but_keeps_other_annotations():
    obj = {
        "metadata": {
            "name": "x",
            "managedFields": [{}],
            "annotations": {informer.LAST_APPLIED: "{...}", "keep": "me"},
        }
    }
    slim = informer.slim(obj)
    assert slim["metadata"] == {"name": "x", "annotations": {"keep": "me"}}
    assert "managedFields" in obj["metadata"]  # the original is left alone
