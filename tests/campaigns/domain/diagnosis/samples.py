"""The contract's sample objects as the diagnosis tests use them, and the variants they derive.

The world: campaign ``court-rolls-1650`` on pipeline ``swe-lines-v3`` (whose pod gave up on the marker in
``pod-warmup-wait-exit13.yaml``), its warm-up ``htr-warmup-swe-lines-v3`` (``warmup-job-failed.yaml``, turned
Complete here), the cache claim ``htr-test-data``. The campaign Job is the running sample's render with that
campaign's names, exactly as the converter would render it for swe-lines-v3.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
NAMESPACE = "htr-batch"
V2_SHA = "c9d92b23fbb8ca448ab9c8cf83ccaf1ff7b3ca76f3cbf926b8ed38508641d1e1"
V3_SHA = "cddf3d3e3ee8ef24f94f1304f8b36aa0ad768d75dba2bc0d0eff652a8aab0f17"
WARMUP_COMPLETED = "2026-09-24T06:14:02Z"


def load(name: str, text_edits: tuple[tuple[str, str], ...] = ()):
    """One sample file: its single document, or the list of its documents (a v1 List's items); a fresh copy
    each time, so a test may change what it gets."""
    return copy.deepcopy(_parsed(name, text_edits))


@functools.cache
def _parsed(name: str, text_edits: tuple[tuple[str, str], ...]):
    text = (SAMPLES / name).read_text()
    for old, new in text_edits:
        assert old in text, old
        text = text.replace(old, new)
    documents = [d for d in yaml.safe_load_all(text) if d is not None]
    if len(documents) == 1 and documents[0].get("kind") == "List":
        return documents[0]["items"]
    return documents[0] if len(documents) == 1 else documents


def campaign_job() -> dict:
    """court-rolls-1650 as rendered for swe-lines-v3 (the running sample's render, its names swapped)."""
    return load(
        "campaign-job-running.yaml",
        (
            ("parish-records-1870", "court-rolls-1650"),
            ("swe-lines-v2", "swe-lines-v3"),
            (V2_SHA, V3_SHA),
            ("6f3c2b9e-8d41-4a57-b0e2-1c9a7d5e3f80", "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"),
            ("job-court-rolls-1650-9e4d2", "job-court-rolls-1650-c5e2a"),
        ),
    )


def gave_up_pod() -> dict:
    return load("pod-warmup-wait-exit13.yaml")


def complete_warmup() -> tuple[dict, dict]:
    """The v3 warm-up Job and its pod, as they read once the warm-up completed on gpu-node-01."""
    job, pod = load("warmup-job-failed.yaml")
    job["status"] = {
        "startTime": "2026-09-24T06:10:41Z",
        "completionTime": WARMUP_COMPLETED,
        "succeeded": 1,
        "ready": 0,
        "terminating": 0,
        "uncountedTerminatedPods": {},
        "conditions": [
            {
                "type": "SuccessCriteriaMet",
                "status": "True",
                "reason": "CompletionsReached",
                "lastTransitionTime": WARMUP_COMPLETED,
            },
            {
                "type": "Complete",
                "status": "True",
                "reason": "CompletionsReached",
                "lastTransitionTime": WARMUP_COMPLETED,
            },
        ],
    }
    pod["spec"] = {**copy.deepcopy(job["spec"]["template"]["spec"]), "nodeName": "gpu-node-01"}
    pod["status"]["phase"] = "Succeeded"
    pod["status"]["containerStatuses"][0]["state"] = {
        "terminated": {
            "exitCode": 0,
            "reason": "Completed",
            "startedAt": "2026-09-24T06:10:43Z",
            "finishedAt": "2026-09-24T06:14:01Z",
        }
    }
    return job, pod


def pvc(**spec) -> dict:
    claim = load("pvc-model-cache.yaml")
    if "accessModes" in spec:
        claim["spec"]["accessModes"] = claim["status"]["accessModes"] = spec.pop("accessModes")
    if "created" in spec:
        claim["metadata"]["creationTimestamp"] = spec.pop("created")
    claim["spec"].update(spec)
    return claim


def queued() -> tuple[dict, dict]:
    """The queued Job estate-inventories-1890 and its pending Workload."""
    job, workload = load("campaign-job-queued.yaml")
    return job, workload


def with_condition(workload: dict, reason: str, message: str) -> dict:
    """The Workload with QuotaReserved=False for this reason and message, verbatim as Kueue writes them."""
    workload = copy.deepcopy(workload)
    for cond in workload["status"]["conditions"]:
        if cond["type"] == "QuotaReserved":
            cond.update(status="False", reason=reason, message=message)
    return workload


def flavors() -> list[dict]:
    return load("resource-flavors.yaml")


def kueue_objects() -> tuple[list[dict], list[dict]]:
    """(deployments, pods) of kueue-system, running."""
    deployment, pod = load("kueue-controller.yaml")
    return [deployment], [pod]
