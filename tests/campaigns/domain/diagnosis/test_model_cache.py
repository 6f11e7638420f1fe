"""A pipeline's model cache as data, with the guide's debug pod: the claim filled in, nodeName pinned on a
ReadWriteOnce volume."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from campaigns.domain.diagnosis.cache import CacheClaim, ModelCache, model_cache
from campaigns.models.findings import Command, Fact
from tests.campaigns.domain.diagnosis import samples as s

GUIDE_OVERRIDES = (
    '{"spec":{"containers":[{"name":"debug","image":"busybox","command":["sh"],"stdin":true,"tty":true,'
    '"volumeMounts":[{"name":"data","mountPath":"/data"}]}],"volumes":[{"name":"data","persistentVolumeClaim":'
    '{"claimName":"<cache-pvc>"}}]}}'
)


def _debug(overrides: str) -> Command:
    return Command(
        "cache.debug_pod",
        (
            "kubectl",
            "run",
            "htr-cache-debug",
            "-n",
            "htr-batch",
            "--rm",
            "-it",
            "--restart=Never",
            "--image=busybox",
            f"--overrides={overrides}",
        ),
    )


def test_model_cache_of_a_pipeline_with_the_guides_debug_pod():
    warmup, warmup_pod = s.complete_warmup()

    cache = model_cache("htr-batch", "swe-lines-v3", warmup, s.campaign_job(), [warmup_pod, s.gave_up_pod()], [s.pvc()])

    directory = f"/swe-lines-v3-{s.V3_SHA}/"
    assert cache == ModelCache(
        pipeline="swe-lines-v3",
        recipe_sha256=s.V3_SHA,
        cache_dir=directory,
        marker=f"{directory}warmup/swe-lines-v3.done",
        marker_in_pods="/data/warmup/swe-lines-v3.done",
        claim_name="htr-test-data",
        claim=CacheClaim(
            name="htr-test-data",
            storage_class="cephfs",
            access_modes=("ReadWriteMany",),
            size="200Gi",
            created=datetime(2026, 9, 1, 12, 3, 27, tzinfo=UTC),
            uid="4b8e2c1d-7a36-4f0e-9d52-8c3a1e6f7b90",
        ),
        warmup_job="htr-warmup-swe-lines-v3",
        warmup_pod="htr-warmup-swe-lines-v3-q7k2m",
        warmup_node="gpu-node-01",
        debug=_debug(GUIDE_OVERRIDES.replace("<cache-pvc>", "htr-test-data")),
    )


def test_model_cache_debug_pod_is_pinned_to_the_node_of_a_readwriteonce_volume():
    warmup, warmup_pod = s.complete_warmup()
    running = s.gave_up_pod()
    running["metadata"]["name"] = "court-rolls-1650-4-q8w3e"
    running["spec"]["nodeName"] = "gpu-node-03"
    running["status"]["phase"] = "Running"
    pvc = s.pvc(accessModes=["ReadWriteOnce"], storageClassName="local-path")

    cache = model_cache("htr-batch", "swe-lines-v3", warmup, s.campaign_job(), [warmup_pod, running], [pvc])
    without_pods = model_cache("htr-batch", "swe-lines-v3", warmup, s.campaign_job(), [], [pvc])
    unread = model_cache("htr-batch", "swe-lines-v3", None, s.campaign_job(), [], None)

    pinned = json.loads(GUIDE_OVERRIDES.replace("<cache-pvc>", "htr-test-data"))
    pinned["spec"] = {"nodeName": "gpu-node-03", **pinned["spec"]}
    assert (cache.pinned_node, cache.pinned_by, cache.warmup_node) == (
        "gpu-node-03",
        "court-rolls-1650-4-q8w3e",
        "gpu-node-01",
    )
    assert cache.debug == _debug(json.dumps(pinned, separators=(",", ":")))
    assert cache.not_read == ()
    assert (without_pods.pinned_node, without_pods.debug) == (
        "",
        _debug(GUIDE_OVERRIDES.replace("<cache-pvc>", "htr-test-data")),
    )
    assert without_pods.not_read == (
        Fact("Job/htr-warmup-swe-lines-v3", "pods.spec.nodeName", "gone"),
        Fact("PersistentVolumeClaim/htr-test-data", "node", "gone"),
    )
    # No warm-up Job and no claim readable: the recipe is read off the campaign's own cache subPath.
    assert (unread.recipe_sha256, unread.claim, unread.claim_name) == (s.V3_SHA, None, "htr-test-data")
    assert unread.not_read == (
        Fact("PersistentVolumeClaim/htr-test-data", "", "not_readable"),
        Fact("Job/htr-warmup-swe-lines-v3", "pods.spec.nodeName", "gone"),
    )
