"""Campaigns of the demo scene that each show one cause the troubleshooting guide names.

Each is built the way the cluster would leave its objects, so the projection names its cause from
what it reads, and ``make demo`` shows every finding (one finding code per campaign):

- ``warmup_placement_differs`` (parish-moves-1830, pipeline swe-lines-v5): the warm-up Job
  completed; the campaign Job's pods select ``gpu: a100`` nodes, the warm-up's pods any node; every
  pod gave up in warmup-wait (exit 13) after the warm-up had completed.
- ``cache_rwo_other_node`` (manor-rolls-1690, swe-lines-v6): the same placement, but the cache claim
  is ReadWriteOnce: the warm-up pod (Succeeded, kept) ran on gpu-node-02, the pods that gave up on
  gpu-node-03 and gpu-node-04.
- ``cache_replaced`` (customs-ledgers-1770, swe-lines-v7): the cache claim was made anew a day
  after the warm-up completed, so the marker went with the old volume.
- ``queue_untolerated_taint`` (merchant-letters-1780): queued in the OCR team's LocalQueue, whose
  ClusterQueue's only flavor keeps its nodes with a taint the campaign's pods do not tolerate.
- ``results_other_address`` (school-registers-1895): running, its wrapper publishing under an
  older results address (``RESULTS_URL``) than the site's; its results in the bucket say so too.
  It asks for no GPU, so the other campaigns' quota stays as it was.
- ``model_not_in_cache`` (emigrant-lists-1885, swe-lines-v8): every volume failed for good in
  ``load``, four attempts each: huggingface_hub's ``LocalEntryNotFoundError`` under
  ``HF_HUB_OFFLINE=1`` (the wrapper calls it transient: the last attempt is "transient-last").

Kueue itself being down overrides every queue reason, so it has no campaign here: the scene's
``kueue_objects(created, down_since=...)`` builds the crash-looping controller a test swaps in.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from devstack import scene_kube as k
from devstack.scene_model import (
    DONE,
    FAILED,
    Campaign,
    Pipeline,
    add_pod,
    failure_reason,
    model_steps,
)

OLD_RESULTS_URL = "https://old-htr.example.org/results"  # where school-registers-1895 publishes
LOCAL_CLAIM = "htr-model-cache-local"  # a node-local, ReadWriteOnce cache (swe-lines-v6)
REPLACED_CLAIM = "htr-model-cache-fast"  # made anew after swe-lines-v7's warm-up
A100 = {"gpu": "a100"}


def _steps(pipeline: str, text_model: str) -> str:
    """Three model steps, each at a revision of its own for this pipeline."""

    def revision(step: str) -> str:
        return hashlib.sha1(f"{pipeline}:{step}".encode()).hexdigest()

    return model_steps(revision("regions"), revision("lines"), text_model, revision("text"))


def pipelines(now: datetime) -> dict[str, Pipeline]:
    """The pipelines of these campaigns, each warmed up (Complete) on a cache of its own."""
    found = [
        Pipeline(
            "swe-lines-v5",
            _steps("swe-lines-v5", "Riksarkivet/trocr-base-handwritten-hist-swe-5"),
            "complete",
            created=now - timedelta(hours=3, minutes=2),
        ),
        Pipeline(
            "swe-lines-v6",
            _steps("swe-lines-v6", "Riksarkivet/trocr-base-handwritten-hist-swe-6"),
            "complete",
            created=now - timedelta(hours=5, minutes=2),
            claim=LOCAL_CLAIM,
            claim_modes=("ReadWriteOnce",),
            claim_class="local-path",
        ),
        Pipeline(
            "swe-lines-v7",
            _steps("swe-lines-v7", "Riksarkivet/trocr-base-handwritten-hist-swe-7"),
            "complete",
            created=now - timedelta(days=4),
            claim=REPLACED_CLAIM,
            claim_class="cephfs-nvme",
            claim_created=now - timedelta(days=1),
        ),
        Pipeline(
            "swe-lines-v8",
            _steps("swe-lines-v8", "Riksarkivet/trocr-base-handwritten-hist-swe-2"),
            "complete",
            created=now - timedelta(days=2),
        ),
    ]
    return {pipeline.id: pipeline for pipeline in found}


def _gave_up_on_marker(b, name: str, pipeline: str, ids: list[str], created: datetime, **options) -> Campaign:
    """Failed, nothing done: every pod waited in warmup-wait from the start and gave up (exit 13) when
    the Job's limit ran out, after the pipeline's warm-up had completed."""
    c = Campaign(
        name,
        name,
        b.pipelines[pipeline],
        created,
        b.volumes(ids, b.pages(name, len(ids))),
        parallelism=len(ids),
        workload_state="finished",
        **options,
    )
    c.started = created + timedelta(seconds=3)
    gave_up = c.started + timedelta(seconds=k.WARMUP_WAIT_SECONDS + 3)
    for volume in c.volumes:
        volume.state, volume.failure = FAILED, "warmup_wait"
        add_pod(c, volume, "warmup_wait", c.started + timedelta(seconds=1), gave_up)
    c.finished = gave_up + timedelta(seconds=1)
    c.status_phase = "Failed"
    c.failed_volumes_record = [{"id": v.id, "reason": failure_reason(v)} for v in c.volumes]
    return c


def _untolerated(b) -> Campaign:
    """Queued in the OCR team's queue: Kueue cannot place it on that queue's one (tainted) flavor."""
    name = "merchant-letters-1780"
    ids = b.ids("C01210", 10, 3)
    return Campaign(
        name,
        name,
        b.pipelines["swe-lines-v2"],
        b.now - timedelta(minutes=40),
        b.volumes(ids, b.pages(name, 3, 12, 30)),
        parallelism=2,
        suspended=True,
        workload_state="untolerated",
        queue=k.OCR_QUEUE,
    )


def _other_address(b) -> Campaign:
    """Running, one volume done and two going: its pods publish under another results address."""
    name = "school-registers-1895"
    ids = b.ids("C01302", 10, 4)
    c = Campaign(
        name,
        name,
        b.pipelines["swe-lines-v2"],
        b.now - timedelta(minutes=45),
        b.volumes(ids, b.pages(name, 4, 12, 20)),
        parallelism=2,
        gpus_per_pod=0,
        results_url=OLD_RESULTS_URL,
    )
    c.started = c.created + timedelta(seconds=4)
    b.done(c, c.volumes[0], c.started + timedelta(seconds=6))
    b.running(c, c.volumes[1], 6)
    b.running(c, c.volumes[2], 3)
    return c


def _not_in_cache(b) -> Campaign:
    """Failed: every volume stopped loading its models, four attempts each (the wrapper's error says
    transient; only the warm-up can put the models back)."""
    name = "emigrant-lists-1885"
    ids = b.ids("C01377", 10, 2)
    created = b.now - timedelta(hours=7)
    c = Campaign(
        name,
        name,
        b.pipelines["swe-lines-v8"],
        created,
        b.volumes(ids, b.pages(name, 2)),
        parallelism=2,
        workload_state="finished",
    )
    c.started = created + timedelta(seconds=5)
    ends = [
        b.attempts(c, volume, ["load"] * 4, c.started + timedelta(seconds=6 + 9 * volume.index), 0, final=FAILED)
        for volume in c.volumes
    ]
    c.finished = max(ends)
    c.status_phase = "Failed"
    c.failed_volumes_record = [{"id": v.id, "reason": failure_reason(v)} for v in c.volumes]
    return c


def campaigns(b) -> tuple[list[Campaign], dict[str, list[str]], dict[str, str]]:
    """The campaigns, the volumes of interest and the situation each shows (``b`` is the scene's builder)."""
    now = b.now
    placement = _gave_up_on_marker(
        b, "parish-moves-1830", "swe-lines-v5", b.ids("C01144", 10, 3), now - timedelta(hours=3), node_selector=A100
    )
    rwo = _gave_up_on_marker(
        b,
        "manor-rolls-1690",
        "swe-lines-v6",
        b.ids("C00391", 10, 2),
        now - timedelta(hours=5),
        nodes=("gpu-node-03", "gpu-node-04"),
    )
    replaced = _gave_up_on_marker(
        b, "customs-ledgers-1770", "swe-lines-v7", b.ids("C00688", 10, 3), now - timedelta(hours=2)
    )
    untolerated = _untolerated(b)
    other_address = _other_address(b)
    not_in_cache = _not_in_cache(b)
    found = [placement, rwo, replaced, untolerated, other_address, not_in_cache]
    interest = {
        "cache_rwo_other_node": [v.id for v in rwo.volumes],
        "results_other_address": [v.id for v in other_address.volumes if v.state == DONE],
        "model_not_in_cache": [v.id for v in not_in_cache.volumes],
    }
    situations = {
        "warmup_placement_differs": placement.name,
        "cache_rwo_other_node": rwo.name,
        "cache_replaced": replaced.name,
        "queue_untolerated_taint": untolerated.name,
        "results_other_address": other_address.name,
        "model_not_in_cache": not_in_cache.name,
    }
    return found, interest, situations
