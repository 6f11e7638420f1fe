"""Named samples of one namespace, as a real cluster holds them, for projection tests and benchmarks.

An hour into the parish campaign: a running Indexed campaign Job with status, its admitted Kueue
Workload, a queued Job with a pending Workload, court rolls stuck behind a failed warm-up (its pod's
warmup-wait init container gave up, exit 13), campaign record and status ConfigMaps, and a pipeline
ConfigMap. Every object comes from the one factory, ``scene_kube``; its builders are importable from
here too, so a test reads ``o.scene()`` and ``o.campaign_job(...)`` alike.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from campaigns.models import Snapshot
from core.contract import format_volumes_txt as volumes_txt
from devstack.scene_kube import (
    CLUSTER_QUEUE,
    PARISH_VOLUMES,
    PIPELINE,
    PIPELINE_SHA_V2,
    PIPELINE_V3,
    PRIORITY_CLASSES,
    QUEUE,
    RECIPE_V2,
    RECIPE_V3,
    RESULTS_URL,
    RUNNING_UID,
    H,
    campaign_job,
    campaign_pod,
    campaign_record,
    cluster_queue,
    cond,
    failed_wrapper_pod,
    local_queue,
    pipeline_configmap,
    pod_template,
    status_record,
    terminated,
    warmup_job,
    warmup_pod,
    workload,
    wrapper_message,
)
from devstack.scene_kube import NAMESPACE as NS
from devstack.scene_kube import WRAPPER_IMAGE as IMAGE

__all__ = [
    "CLUSTER_QUEUE",
    "COURT_UID",
    "H",
    "IMAGE",
    "MANIFEST_404",
    "MARKER_LINE_V3",
    "NOW",
    "NS",
    "PARISH_VOLUMES",
    "PENDING_MESSAGE",
    "PIPELINE",
    "PIPELINE_SHA_V2",
    "PIPELINE_V3",
    "PIPELINE_YAML_V2",
    "PRIORITY_CLASSES",
    "QUEUE",
    "QUEUED_UID",
    "RECIPE_V2",
    "RECIPE_V3",
    "RESULTS_URL",
    "RUNNING_UID",
    "Snapshot",
    "WARMUP_ERROR_V3",
    "admitted_workload",
    "campaign_job",
    "campaign_pod",
    "campaign_record",
    "cluster_queue",
    "cond",
    "county_tax_status_record",
    "court_rolls_job",
    "failed_warmup_pod",
    "failed_wrapper_pod",
    "finished_job",
    "local_queue",
    "parish_pods",
    "parish_status_record",
    "pending_workload",
    "pipeline_configmap",
    "pod_template",
    "queued_job",
    "running_job",
    "scene",
    "status_record",
    "terminated",
    "volumes_txt",
    "warmup_job",
    "warmup_wait_exit13_pod",
    "workload",
    "wrapper_message",
]

QUEUED_UID = "d0e1f2a3-b4c5-4d6e-8f70-8192a3b4c5d6"
COURT_UID = "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"

# "Now" in the scene: an hour into the parish campaign.
NOW = datetime(2026, 9, 24, 9, 0, 0, tzinfo=UTC)

MANIFEST_404 = "manifest fetch failed: https://iiif.example.se/manifests/bouppteckning-1871/manifest.json: HTTP 404"
MARKER_LINE_V3 = (
    "no warm-up marker at /data/warmup/swe-lines-v3.done after 900s: the pipeline's warm-up Job has not finished\n"
)
WARMUP_ERROR_V3 = (
    "404 Client Error. (Request ID: Root=1-66f2a9c1-3b7d0e52a81f4c6d9e2b7a10) Repository Not Found for url: "
    "https://huggingface.co/api/models/Riksarkivet/trocr-base-handwritten-hist-swe-9/revision/"
    "5e4d3c2b1a0f9e8d7c6b5a49382716051f4e3d2c. Please make sure you specified the correct `repo_id` and `repo_type`."
)

PIPELINE_YAML_V2 = (
    "steps:\n- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    "      model: Riksarkivet/yolov9-regions-1\n      revision: 8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796\n"
    "- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    "      model: Riksarkivet/yolov9-lines-within-regions-1\n      revision: 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d\n"
    "- step: TextRecognition\n  settings:\n    model: TrOCR\n    model_settings:\n"
    "      model: Riksarkivet/trocr-base-handwritten-hist-swe-2\n      model_kwargs:\n"
    "        revision: 0f9e8d7c6b5a49382716051f4e3d2c1b0a998877\n      processor_kwargs:\n"
    "        revision: 0f9e8d7c6b5a49382716051f4e3d2c1b0a998877\n"
)


# --- campaign Jobs ---------------------------------------------------------------------------


def running_job(**overrides) -> dict:
    """parish-records-1870 mid-run: done 0-3,5,7 | failed 4 | active 6,8,9,10 | pending 11."""
    values = dict(
        priority_class="htr-bulk",
        completed="0-3,5,7",
        failed="4",
        active=4,
        start_time="2026-09-24T07:58:14Z",
        conditions=[cond("Suspended", "False", "JobResumed", "Job resumed")],
    )
    values.update(overrides)
    return campaign_job("parish-records-1870", RUNNING_UID, **values)


def queued_job(**overrides) -> dict:
    """estate-inventories-1890: suspended by Kueue at creation, nothing run (no priority label)."""
    values = dict(
        suspend=True,
        created="2026-09-24T08:40:02Z",
        conditions=[cond("Suspended", "True", "JobSuspended", "Job suspended", at="2026-09-24T08:40:02Z")],
    )
    values.update(overrides)
    return campaign_job("estate-inventories-1890", QUEUED_UID, **values)


def finished_job(name: str, uid: str, *, completed: str, failed: str = "", completions: int = 12, **overrides):
    """A Job at its end: Complete when nothing failed, else Failed (reason FailedIndexes)."""
    end = "2026-09-24T08:50:00Z"
    if failed:
        conditions = [
            cond("FailureTarget", reason="FailedIndexes", message="Job has failed indexes", at=end),
            cond("Failed", reason="FailedIndexes", message="Job has failed indexes", at=end),
        ]
    else:
        conditions = [cond("SuccessCriteriaMet", reason="CompletionsReached", at=end), cond("Complete", at=end)]
    values = dict(
        completed=completed,
        failed=failed,
        active=0,
        completions=completions,
        start_time="2026-09-24T07:00:00Z",
        completion_time=end if not failed else None,
        conditions=[cond("Suspended", "False", "JobResumed"), *conditions],
        created="2026-09-24T06:59:00Z",
    )
    values.update(overrides)
    return campaign_job(name, uid, **values)


def court_rolls_job(**overrides) -> dict:
    values = dict(
        pipeline=PIPELINE_V3,
        completions=3,
        parallelism=3,
        completed="",
        failed="2",
        active=2,
        start_time="2026-09-24T06:20:10Z",
        created="2026-09-24T06:20:09Z",
        conditions=[cond("Suspended", "False", "JobResumed")],
    )
    values.update(overrides)
    return campaign_job("court-rolls-1650", COURT_UID, **values)


# --- Kueue -----------------------------------------------------------------------------------


def admitted_workload(**overrides) -> dict:
    values = dict(
        priority_class="htr-bulk",
        cluster_queue=CLUSTER_QUEUE,
        conditions=[
            cond("QuotaReserved", reason="QuotaReserved", message=f"Quota reserved in ClusterQueue {CLUSTER_QUEUE}"),
            cond("Admitted", reason="Admitted", message="The workload is admitted"),
        ],
    )
    values.update(overrides)
    return workload("parish-records-1870", RUNNING_UID, **values)


PENDING_MESSAGE = (
    "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor "
    "default-flavor, 4 more needed"
)


def pending_workload(**overrides) -> dict:
    values = dict(
        suffix="4b7c1",
        created="2026-09-24T08:40:02Z",
        template=False,
        conditions=[
            cond("QuotaReserved", "False", "Pending", PENDING_MESSAGE, at="2026-09-24T08:40:03Z"),
        ],
    )
    values.update(overrides)
    return workload("estate-inventories-1890", QUEUED_UID, **values)


# --- pods ------------------------------------------------------------------------------------


def warmup_wait_exit13_pod() -> dict:
    """court-rolls-1650 index 2: warmup-wait gave up on the marker; the wrapper never ran."""
    pod = campaign_pod(
        "court-rolls-1650",
        2,
        suffix="7hq4z",
        phase="Failed",
        created="2026-09-24T06:20:11Z",
        uid=COURT_UID,
        init=terminated(13, MARKER_LINE_V3, finished="2026-09-24T06:35:14Z"),
        wrapper={"state": {"waiting": {"reason": "PodInitializing"}}, "started": False},
    )
    pod["status"]["conditions"] = [
        {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized"},
        {"type": "Ready", "status": "False", "reason": "PodFailed"},
    ]
    return pod


def failed_warmup_pod(pipeline: str = PIPELINE_V3, error: str = WARMUP_ERROR_V3, permanent: bool = True) -> dict:
    """The failed warm-up of swe-lines-v3: its model revision is not on the hub."""
    return warmup_pod(
        pipeline,
        state="failed",
        recipe=RECIPE_V3,
        created="2026-09-24T06:10:41Z",
        started="2026-09-24T06:10:43Z",
        finished="2026-09-24T06:12:03Z",
        error=error,
        permanent=permanent,
        suffix="q7k2m",
    )


def parish_pods() -> list[dict]:
    """Pods of the running parish campaign: index 4 failed for good in setup; index 6 on its third try."""
    job = "parish-records-1870"
    return [
        failed_wrapper_pod(job, 4, wrapper_message("setup", True, MANIFEST_404), suffix="x4a1b"),
        failed_wrapper_pod(
            job,
            6,
            wrapper_message("stream", False, "upload failed: UploadOutage (503)"),
            exit_code=1,
            suffix="a6aaa",
            created="2026-09-24T08:01:00Z",
        ),
        failed_wrapper_pod(
            job,
            6,
            wrapper_message("stream", False, "S3 endpoint unreachable: ConnectTimeout"),
            exit_code=1,
            suffix="b6bbb",
            created="2026-09-24T08:20:00Z",
            failure_count=1,
        ),
        campaign_pod(job, 6, suffix="c6ccc", created="2026-09-24T08:40:00Z", failure_count=2),
        campaign_pod(job, 8, suffix="d8ddd"),
        campaign_pod(job, 9, suffix="e9eee"),
        campaign_pod(job, 10, suffix="f10ff"),
    ]


# --- ConfigMaps ------------------------------------------------------------------------------


def parish_status_record() -> dict:
    return status_record(
        "parish-records-1870",
        {
            "phase": "Running",
            "volumesTotal": "12",
            "volumesDone": "6",
            "volumesFailed": "1",
            "startedAt": "2026-09-24T07:58:14Z",
            "finishedAt": "",
            "resultsBase": f"{RESULTS_URL}/{NS}/{PIPELINE}",
            "jobUid": RUNNING_UID,
            "failedVolumes": json.dumps([{"id": "bouppteckning-1871", "reason": MANIFEST_404}], separators=(",", ":")),
            "failedVolumesJobUid": RUNNING_UID,
        },
    )


def county_tax_status_record() -> dict:
    """A reaped campaign's terminal record, written before its Job's TTL."""
    return status_record(
        "county-tax-1790",
        {
            "phase": "PartiallyFailed",
            "volumesTotal": "40",
            "volumesDone": "38",
            "volumesFailed": "2",
            "startedAt": "2026-09-10T13:02:51Z",
            "finishedAt": "2026-09-12T04:47:30Z",
            "resultsBase": f"{RESULTS_URL}/{NS}/{PIPELINE}",
            "jobUid": "a1b2c3d4-e5f6-4718-9a0b-1c2d3e4f5a6b",
        },
    )


# --- the whole namespace ---------------------------------------------------------------------


def scene(**overrides) -> Snapshot:
    """The whole namespace: running parish campaign, queued estate campaign, court rolls stuck on a failed
    warm-up, and the reaped county-tax campaign. Keyword arguments replace whole lists."""
    values = dict(
        namespace=NS,
        jobs=[running_job(), queued_job(), court_rolls_job()],
        warmup_jobs=[
            warmup_job(PIPELINE),
            warmup_job(PIPELINE_V3, state="failed", recipe=RECIPE_V3, pod_suffix="q7k2m"),
        ],
        records=[
            campaign_record("parish-records-1870"),
            campaign_record("estate-inventories-1890", PARISH_VOLUMES),
            campaign_record(
                "court-rolls-1650",
                [
                    ("CR-1", "https://iiif.example.se/cr1"),
                    ("CR-2", "https://iiif.example.se/cr2"),
                    ("CR-3", "https://iiif.example.se/cr3"),
                ],
                pipeline=PIPELINE_V3,
            ),
        ],
        status_records=[parish_status_record(), county_tax_status_record()],
        pipelines=[pipeline_configmap(PIPELINE, PIPELINE_YAML_V2, sha256=PIPELINE_SHA_V2)],
        workloads=[admitted_workload(), pending_workload()],
        pods=[
            *parish_pods(),
            warmup_wait_exit13_pod(),
            campaign_pod(
                "court-rolls-1650",
                0,
                suffix="p0",
                phase="Pending",
                uid=COURT_UID,
                init={"state": {"running": {"startedAt": "2026-09-24T08:50:00Z"}}},
                wrapper={"state": {"waiting": {"reason": "PodInitializing"}}},
            ),
            campaign_pod(
                "court-rolls-1650",
                1,
                suffix="p1",
                phase="Pending",
                uid=COURT_UID,
                init={"state": {"running": {"startedAt": "2026-09-24T08:50:00Z"}}},
                wrapper={"state": {"waiting": {"reason": "PodInitializing"}}},
            ),
            failed_warmup_pod(),
        ],
        local_queues=[local_queue()],
        cluster_queues=[cluster_queue()],
        priority_classes=list(PRIORITY_CLASSES),
        events=[],
        read_at=NOW,
    )
    values.update(overrides)
    return Snapshot(**values)
