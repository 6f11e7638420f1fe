"""The lists issue 35 added to a namespace's reading, kept current by the informers like the others:
the model cache's claim, Kueue's ResourceFlavors, Kueue's controller (Deployments and pods in its own
namespace), the node each pod ran on, and the warm-up pods that finished.
"""

from __future__ import annotations

import pytest

from campaigns.cluster import board
from campaigns.domain.projection.index import build_index
from devstack import scene_kube as k
from tests.campaigns.cluster.test_board import lists
from tests.campaigns.cluster.test_kube import NS, load_campaigns
from tests.fixtures.waiting import wait_until

NEW_LISTS = ("persistentvolumeclaims", "resourceflavors", "deployments")


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_KUEUE_NAMESPACE = k.KUEUE_NAMESPACE
    settings.HTRFLOW_KUBE_TIMEOUT = 3.0  # generous: the machine may be busy, and a timeout is an outage
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.05
    settings.HTRFLOW_WRITE_STATUS = False
    kube.bookmark_seconds = 0.1
    board.stop_all()
    yield kube
    kube.clear_faults()
    board.stop_all()


def informer_of(field: str):
    return next(each for each in board.board(NS).informers if each.source.field == field)


def test_the_new_lists_are_listed_once_and_then_watched(cluster):
    load_campaigns(cluster, 1)
    board.reading(NS)
    for field in ("pvcs", "resource_flavors", "kueue_deployments", "kueue_pods", "finished_warmup_pods"):
        wait_until(lambda field=field: informer_of(field).watch_starts >= 1, what=f"a watch of {field}")
    listed = {resource: lists(cluster, resource) for resource in (*NEW_LISTS, "pods")}
    assert listed == {"persistentvolumeclaims": 1, "resourceflavors": 1, "deployments": 1, "pods": 3}

    cluster.put(k.cache_pvc())
    cluster.put(k.resource_flavor("ocr-dedicated", node_taints=[k.taint("dedicated", "ocr-only")]))
    cluster.put(k.kueue_deployment(ready=False))
    cluster.put(k.kueue_controller_pod(state="crashloop", restarts=3))
    reading = board.settle(NS)
    assert [claim["metadata"]["name"] for claim in reading.snapshot.pvcs] == [k.DATA_PVC]
    assert reading.snapshot.resource_flavors[0]["spec"]["nodeTaints"][0]["value"] == "ocr-only"
    assert reading.snapshot.kueue_deployments[0]["status"]["conditions"][0]["status"] == "False"
    assert reading.snapshot.kueue_pods[0]["status"]["containerStatuses"][0]["restartCount"] == 3
    assert {resource: lists(cluster, resource) for resource in (*NEW_LISTS, "pods")} == listed  # by watch alone

    cluster.delete("apps/v1", "Deployment", k.KUEUE_NAMESPACE, k.KUEUE_CONTROLLER)
    assert board.settle(NS).snapshot.kueue_deployments == []


def test_a_warm_up_pod_that_succeeds_stays_in_the_reading_with_its_node(cluster):
    running = k.warmup_pod("swe-lines-v2", state="running")
    cluster.put(running)
    cluster.put(k.campaign_pod("parish", 0, node="gpu-node-07"))
    name = running["metadata"]["name"]
    board.reading(NS)
    cluster.put(k.warmup_pod("swe-lines-v2", state="succeeded"))
    cluster.patch("v1", "Pod", NS, "parish-0-abcde", {"status": {"phase": "Succeeded"}})

    def settled_once():
        pods = board.settle(NS).snapshot.pods
        return pods if [p["metadata"]["name"] for p in pods] == [name] else None

    # the campaign pod that succeeded is gone, the warm-up's stays
    (warmup,) = wait_until(settled_once, what="the warm-up pod alone")
    assert warmup["status"]["phase"] == "Succeeded"
    assert warmup["spec"] == {"nodeName": "gpu-node-02"}
    index = build_index(board.reading(NS).snapshot)
    assert [pod["metadata"]["name"] for pod in index.warmup_pods["htr-warmup-swe-lines-v2"]] == [name]


def test_pods_held_by_the_informers_keep_their_node_and_nothing_else_of_their_spec(cluster):
    cluster.put(k.campaign_pod("parish", 1, node="gpu-node-07"))
    (pod,) = board.reading(NS).snapshot.pods
    assert pod["spec"] == {"nodeName": "gpu-node-07"}
    assert set(pod) == {"metadata", "spec", "status"}


@pytest.mark.parametrize("status", [403, 404])
def test_a_new_list_refused_or_not_served_is_not_known_and_the_page_is_still_read(cluster, status):
    load_campaigns(cluster, 1)
    for path in (r"/persistentvolumeclaims$", r"/resourceflavors$", r"/deployments$", r"/kueue-system/pods$"):
        cluster.inject_fault(path, status=status)
    reading = board.reading(NS)
    snapshot = reading.snapshot
    assert (snapshot.pvcs, snapshot.resource_flavors, snapshot.kueue_deployments, snapshot.kueue_pods) == (
        None, None, None, None)
    assert [c.name for c in reading.campaigns] == ["campaign-000"]
    assert reading.unreachable_since is None and reading.banner() is None
