"""The model cache of a campaign's pipeline (issue 35, item 7): computed by the projection from the claims,
the warm-up Job and the pods that mount the cache; shown under Operator details, one click from the warm-up
chip, with the guide's debug pod among the commands; carried by the read API as ``modelCache``."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shlex

import pytest

from campaigns.domain.projection import project_again
from campaigns.wording import cache as words
from campaigns.wording.cache import cache_facts
from devstack import kube_samples as o
from devstack import scene_kube as k
from tests.campaigns.cluster.test_kube import NS
from tests.campaigns.domain.test_projection import one
from tests.campaigns.web.test_views import card_html, page_text, prepared_cluster

V3_DIR = f"/{o.PIPELINE_V3}-{o.RECIPE_V3}/"


def test_the_projection_gives_each_campaign_its_pipelines_cache_with_the_claim_and_the_warmups_node():
    court = one(o.scene(pvcs=[k.cache_pvc()]), "court-rolls-1650")
    cache = court.model_cache
    assert (cache.pipeline, cache.recipe_sha256, cache.cache_dir) == (o.PIPELINE_V3, o.RECIPE_V3, V3_DIR)
    assert cache.marker == f"{V3_DIR}warmup/{o.PIPELINE_V3}.done"
    assert (cache.claim.name, cache.claim.storage_class, cache.claim.access_modes, cache.claim.size) == (
        k.DATA_PVC, "cephfs", ("ReadWriteMany",), "200Gi")
    assert (cache.warmup_job, cache.warmup_pod, cache.warmup_node) == (
        f"htr-warmup-{o.PIPELINE_V3}", f"htr-warmup-{o.PIPELINE_V3}-q7k2m", "gpu-node-02")
    assert cache.pinned_node == "" and '"claimName":"htr-model-cache"' in cache.debug.argv[-1]
    assert cache.not_read == ()


def test_on_a_readwriteonce_claim_the_debug_pod_is_pinned_to_the_node_a_pod_of_the_campaign_runs_on():
    parish = one(o.scene(pvcs=[k.cache_pvc(access_modes=("ReadWriteOnce",))]), "parish-records-1870")
    cache = parish.model_cache
    running = [p for p in o.parish_pods() if p["status"]["phase"] == "Running"]
    first = min(running, key=lambda p: p["metadata"]["name"])
    assert (cache.pinned_by, cache.pinned_node) == (first["metadata"]["name"], first["spec"]["nodeName"])
    assert json.loads(cache.debug.argv[-1].removeprefix("--overrides="))["spec"]["nodeName"] == cache.pinned_node
    # its warm-up's pod is gone from the namespace: said as not read, never guessed
    assert [(f.object, f.value) for f in cache.not_read] == [(f"Job/htr-warmup-{o.PIPELINE}", "gone")]
    said = dict((label, value) for label, value, _ in cache_facts(cache))
    assert said[words.PINNED] == f"{cache.pinned_node} (where {cache.pinned_by} runs with the volume mounted)"


def test_claims_the_site_may_not_read_are_said_as_not_read_and_a_reaped_campaign_has_no_cache():
    court = one(o.scene(pvcs=None), "court-rolls-1650")
    assert court.model_cache.claim is None
    assert [(f.object, f.value) for f in court.model_cache.not_read] == [
        (f"PersistentVolumeClaim/{k.DATA_PVC}", "not_readable")]
    labels = dict((label, value) for label, value, _ in cache_facts(court.model_cache))
    assert labels[words.NOT_READ] == f"PersistentVolumeClaim/{k.DATA_PVC} (this site may not read it)"
    assert words.STORAGE_CLASS not in labels
    assert one(o.scene(), "county-tax-1790").model_cache is None


def test_a_replaced_claim_projects_its_campaigns_anew_and_an_unchanged_one_reuses_them():
    first = o.scene(pvcs=[k.cache_pvc()])
    before = project_again(first, o.NOW, None)
    same = project_again(dataclasses.replace(first, pvcs=[k.cache_pvc()]), o.NOW, before)  # equal, not the same
    replaced = project_again(dataclasses.replace(first, pvcs=[k.cache_pvc(created="2026-09-24T08:00:00Z")]),
                             o.NOW, same)
    # (the queued estate campaign compares its wait with `now`: it is projected anew every time anyway)
    assert "court-rolls-1650" not in same.projected and "parish-records-1870" not in same.projected
    assert sorted(replaced.projected) == ["court-rolls-1650", "estate-inventories-1890", "parish-records-1870"]
    court = next(c for c in replaced.campaigns if c.name == "court-rolls-1650")
    assert court.model_cache.claim.created.isoformat() == "2026-09-24T08:00:00+00:00"


# --- the card and the read API, through the kube double ---------------------------------------------------


@pytest.fixture
def court_rolls(kube, settings):
    """court-rolls-1650 as the cluster holds it: its Job, record and waiting pods, its pipeline's failed warm-up
    (pod on gpu-node-02) and the cache claim, ReadWriteOnce."""
    for _ in prepared_cluster(kube, settings):
        kube.put(o.court_rolls_job())
        kube.put(o.campaign_record("court-rolls-1650", [("CR-1", "https://iiif.example.se/cr1"),
                                                       ("CR-2", "https://iiif.example.se/cr2")],
                                   pipeline=o.PIPELINE_V3))
        kube.put(o.warmup_job(o.PIPELINE_V3, state="failed", recipe=o.RECIPE_V3, pod_suffix="q7k2m"))
        kube.put(o.failed_warmup_pod())
        kube.put(k.cache_pvc(access_modes=("ReadWriteOnce",), storage_class="local-path"))
        yield "court-rolls-1650"


def test_the_warmup_chip_links_to_the_model_cache_under_operator_details(court_rolls, results_client):
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/{court_rolls}"})), court_rolls)
    dom = f"card-{NS}--{court_rolls}"
    chip = re.search(rf'<a id="{dom}-warmup-chip" href="#{dom}-cache"[^>]*class="chip warmup[^"]*">', card)
    assert chip is not None
    details = card.split('<details class="ops"')[1].split("</details>")[0]
    cache = details.split(f'id="{dom}-cache"')[1].split("</section>")[0]  # the anchor is inside the details
    facts = dict(re.findall(r"<dt>([^<]+)</dt><dd[^>]*>(?:<span[^>]*>)?([^<]*)", cache))
    assert facts[words.DIRECTORY] == V3_DIR
    assert facts[words.CLAIM] == k.DATA_PVC
    assert facts[words.ACCESS_MODES] == "ReadWriteOnce" and facts[words.STORAGE_CLASS] == "local-path"
    assert facts[words.WARMUP_NODE] == "gpu-node-02"
    assert facts[words.PINNED] == "gpu-node-02 (where the warm-up ran)"  # no pod of the campaign runs
    assert 'data-copy-label="Copy the cache claim"' in cache
    commands = [html.unescape(line) for line in re.findall(rf'<code id="{dom}-cmd-\d+"[^>]*>([^<]*)</code>', card)]
    debug = next(line for line in commands if "htr-cache-debug" in line)
    argv = shlex.split(debug)  # one shell line an operator pastes as it stands
    overrides = json.loads(argv[-1].removeprefix("--overrides="))
    assert overrides["spec"]["nodeName"] == "gpu-node-02"
    assert overrides["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == k.DATA_PVC


def test_the_read_api_carries_the_model_cache(court_rolls, results_client):
    answer = json.loads(results_client.get(f"/api/v1/jobs/{NS}/{court_rolls}").content)
    cache = answer["modelCache"]
    assert (cache["cacheDir"], cache["claimName"], cache["warmupNode"], cache["pinnedNode"]) == (
        V3_DIR, k.DATA_PVC, "gpu-node-02", "gpu-node-02")
    assert cache["claim"]["accessModes"] == ["ReadWriteOnce"] and cache["claim"]["size"] == "200Gi"
    assert shlex.split(cache["debugPod"]["command"]) == cache["debugPod"]["argv"]
    listed = json.loads(results_client.get("/api/v1/jobs").content)
    assert any(job["name"] == court_rolls and job["modelCache"] == cache for job in listed)
