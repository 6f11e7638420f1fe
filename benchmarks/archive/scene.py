"""An archive at scale, built into the devstack's Kubernetes double and S3 store.

40 running campaigns of 5 000 volumes each (Indexed Jobs at parallelism 20: 800 running pods), 1% of
volumes failed for good (one failed pod each), two volumes per campaign on their second try (with
the failed pod of the first): 2 080 failed pods, 2 880 pods in all; `ARCHIVE_SCALE` times as many
campaigns, pods and volumes finishing at once (size.py). The rest are done or, towards
the end of the list, pending. Every campaign has its
record ConfigMap (the 5 000-line `volumes.txt`), a status record and an admitted Kueue v1beta2
Workload; two pipelines with their ConfigMaps and finished warm-ups (and their pods); a ClusterQueue
full of them, the model cache's claim, Kueue's ResourceFlavors and its controller (devstack/scene.py).
Objects come from the one factory (devstack/scene_kube.py, samples in kube_samples) with what a real API server adds
(`realistic.py`); pods are made from one template per kind, copied and renamed.

`Archive.advance()` moves the scene the way a busy archive moves: a few volumes finish, their
pods go, the next pending index starts, and the Job's status and the store's progress follow.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from benchmarks.archive.realistic import filled_template, managed, pod_as_served, with_managed_fields
from benchmarks.archive.size import CAMPAIGNS, FINISHING_PER_STEP
from devstack import content_json as cj
from devstack import kube_samples as o
from devstack.scene import kueue_objects
from devstack.scene_kube import cache_pvc, index_ranges, priority_class, stable_uid, warmup_pod

VOLUMES = 5000
PARALLELISM = 20
FAILED = 50  # volumes per campaign failed for good: 1%
RETRYING = 2  # running volumes per campaign on their second try
DONE_WITH_PROGRESS = 200  # done volumes per campaign with a progress.json (a campaign page's first rows)
JSON = "application/json"
PIPELINES = (o.PIPELINE, o.PIPELINE_V3)
SERIES = ("parish-records", "court-rolls", "estate-inventories", "county-tax", "census", "church-books")
NODES = [f"gpu-node-{n:02d}" for n in range(1, 101)]
FAILURES = (
    ("setup", "manifest fetch failed: https://iiif.arkiv.example.se/arkis!{volume}/manifest: HTTP 404"),
    ("load", "model Riksarkivet/trocr-base-handwritten-hist-swe-2 revision 0f9e8d7c is not in the model cache"),
)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Campaign:
    number: int
    name: str
    uid: str
    pipeline: str
    volume_ids: list[str]
    failed: set[int]
    running: list[int]
    retrying: set[int]
    pending_from: int
    done: set[int] = field(default_factory=set)

    def progress_key(self, index: int) -> str:
        return cj.progress_key(o.NS, self.pipeline, self.volume_ids[index])


def plan(number: int) -> Campaign:
    """Which volume of campaign `number` is in which state."""
    name = f"{SERIES[number % len(SERIES)]}-{1700 + number * 7}"
    uid = f"7a{number:06d}-5c1e-4b2d-9f3a-{number:012d}"
    pending_from = VOLUMES - 5 * number
    spacing = pending_from // FAILED  # spread over the volumes that have run
    failed = {37 + k * spacing for k in range(FAILED)}
    running = []
    index = pending_from - 1
    while len(running) < PARALLELISM:
        if index not in failed:
            running.append(index)
        index -= 1
    running.sort()
    volume_ids = [f"C{number:02d}{i:05d}" for i in range(VOLUMES)]
    campaign = Campaign(number, name, uid, PIPELINES[number % 2], volume_ids, failed, running,
                        set(running[:RETRYING]), pending_from)
    campaign.done = set(range(pending_from)) - failed - set(running)
    return campaign


# --- Kubernetes objects --------------------------------------------------------------------------


class PodFactory:
    """Pods from one JSON template per (pipeline, kind), with the names filled in by text."""

    KINDS = ("running", "retry-failed", "failed-setup", "failed-load")

    def __init__(self, now: datetime):
        self.now = now
        self.texts = {(p, kind): json.dumps(self._template(p, kind)) for p in PIPELINES for kind in self.KINDS}

    def _template(self, pipeline: str, kind: str) -> dict:
        job, uid, index = "__JOB__", "__UID__", "__INDEX__"
        started = iso(self.now - timedelta(minutes=20))
        if kind == "running":
            pod = o.campaign_pod(job, index, suffix="__SUFFIX__", created=started, uid=uid)
        elif kind == "retry-failed":
            message = o.wrapper_message("stream", False, "upload failed: UploadOutage (503)")
            pod = o.failed_wrapper_pod(job, index, message, exit_code=1, suffix="__SUFFIX__", uid=uid,
                                       created=iso(self.now - timedelta(minutes=50)))
        else:
            stage, error = FAILURES[0 if kind == "failed-setup" else 1]
            message = o.wrapper_message(stage, True, error.replace("{volume}", "__VOLUME__"))
            pod = o.failed_wrapper_pod(job, index, message, suffix="__SUFFIX__", uid=uid,
                                       created=iso(self.now - timedelta(hours=3)))
        template = filled_template(o.pod_template(job, uid, pipeline), pipeline)
        return pod_as_served(pod, template, "__NODE__")

    def make(self, campaign: Campaign, index: int, kind: str, attempt: int = 0) -> dict:
        text = self.texts[(campaign.pipeline, kind)]
        suffix = f"{(campaign.number * 7919 + index * 31 + attempt) % 0xFFFFF:05x}"
        for placeholder, value in (
            ("__JOB__", campaign.name),
            ("__UID__", campaign.uid),
            ("__INDEX__", str(index)),
            ("__SUFFIX__", suffix),
            ("__VOLUME__", campaign.volume_ids[index]),
            ("__NODE__", NODES[index % len(NODES)]),
        ):
            text = text.replace(placeholder, value)
        pod = json.loads(text)
        pod["metadata"]["uid"] = stable_uid("pod", pod["metadata"]["name"])
        if kind == "running" and index in campaign.retrying:
            pod["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] = "1"
        return pod


def job(campaign: Campaign, now: datetime) -> dict:
    started = iso(now - timedelta(days=3))
    body = o.campaign_job(
        campaign.name,
        campaign.uid,
        pipeline=campaign.pipeline,
        completions=VOLUMES,
        parallelism=PARALLELISM,
        priority_class="htr-bulk",
        completed=index_ranges(campaign.done),
        failed=index_ranges(campaign.failed),
        active=len(campaign.running),
        created=iso(now - timedelta(days=3, minutes=1)),
        start_time=started,
        conditions=[o.cond("Suspended", "False", "JobResumed", "Job resumed", at=started)],
    )
    body["spec"]["template"] = filled_template(body["spec"]["template"], campaign.pipeline)
    body["spec"]["manualSelector"] = False
    body["status"].update(succeeded=len(campaign.done), failed=len(campaign.failed) + RETRYING)
    with_managed_fields(
        body,
        [("htrflow-campaigns", ("metadata", "spec"), ""), ("kube-controller-manager", ("status",), "status")],
        started,
    )
    body["metadata"]["managedFields"].insert(1, managed("kueue", "batch/v1", {"spec": {"suspend": False}}, started))
    return body


def record(campaign: Campaign, now: datetime) -> dict:
    lines = [(vid, f"https://iiif.arkiv.example.se/arkis!{vid}/manifest") for vid in campaign.volume_ids]
    body = o.campaign_record(campaign.name, lines, pipeline=campaign.pipeline)
    body["metadata"]["annotations"][o.H + "job-uid"] = campaign.uid
    body["metadata"]["creationTimestamp"] = iso(now - timedelta(days=3, minutes=2))
    return with_managed_fields(body, [("htrflow-campaigns", ("metadata", "data"), "")], iso(now - timedelta(days=3)))


def status(campaign: Campaign, now: datetime) -> dict:
    reasons = [{"id": campaign.volume_ids[i], "reason": FAILURES[0][1].format(volume=campaign.volume_ids[i])}
               for i in sorted(campaign.failed)[:50]]
    data = {
        "phase": "Running",
        "volumesTotal": str(VOLUMES),
        "volumesDone": str(len(campaign.done)),
        "volumesFailed": str(len(campaign.failed)),
        "startedAt": iso(now - timedelta(days=3)),
        "finishedAt": "",
        "resultsBase": f"{o.RESULTS_URL}/{o.NS}/{campaign.pipeline}",
        "jobUid": campaign.uid,
        "failedVolumes": json.dumps(reasons, separators=(",", ":")),
        "failedVolumesJobUid": campaign.uid,
    }
    body = o.status_record(campaign.name, data, pipeline=campaign.pipeline)
    return with_managed_fields(body, [("htrbrowser", ("metadata", "data"), "")], iso(now - timedelta(minutes=1)))


def workload(campaign: Campaign, now: datetime) -> dict:
    queue = o.CLUSTER_QUEUE
    body = o.workload(
        campaign.name,
        campaign.uid,
        suffix=f"{campaign.number * 4099 % 0xFFFFF:05x}",
        priority_class="htr-bulk",
        count=PARALLELISM,
        cluster_queue=o.CLUSTER_QUEUE,
        created=iso(now - timedelta(days=3, minutes=1)),
        conditions=[
            o.cond("QuotaReserved", reason="QuotaReserved", message=f"Quota reserved in ClusterQueue {queue}"),
            o.cond("Admitted", reason="Admitted", message="The workload is admitted"),
            o.cond("PodsReady", reason="PodsReady", message="All pods reached readiness and the workload is running"),
        ],
    )
    when = iso(now - timedelta(days=3))
    return with_managed_fields(body, [("kueue", ("metadata", "spec"), ""), ("kueue", ("status",), "status")], when)


def cluster_objects(now: datetime) -> list[dict]:
    gpus = str(CAMPAIGNS * PARALLELISM)
    queue = o.cluster_queue(cpu=str(4 * int(gpus)), memory=f"{8 * int(gpus)}Gi", gpu=gpus,
                            used=(str(4 * int(gpus)), f"{8 * int(gpus)}Gi", gpus))
    queue["status"].update(pendingWorkloads=0, admittedWorkloads=CAMPAIGNS)
    found = [queue, o.local_queue()]
    found += [priority_class(name, value, now) for name, value in (("htr-interactive", 1000), ("htr-bulk", 0),
                                                                     ("htr-idle", -10))]
    warmed, finished = now - timedelta(days=4), now - timedelta(days=4) + timedelta(minutes=2)
    for pipeline in PIPELINES:
        found.append(o.pipeline_configmap(pipeline, o.PIPELINE_YAML_V2))
        found.append(o.warmup_job(pipeline, recipe=o.RECIPE_V2, created=iso(warmed), finished=iso(finished)))
        found.append(warmup_pod(pipeline, state="succeeded", recipe=o.RECIPE_V2, created=iso(warmed),
                                finished=iso(finished)))
    return [*found, cache_pvc(created=iso(now - timedelta(days=60))), *kueue_objects(now - timedelta(days=60))]


# --- progress.json -----------------------------------------------------------------------------


def progress_text(stage: str, now: datetime, pages_done: int, pages_total: int = 412) -> str:
    record = cj.progress_record(
        stage,
        started_at=now - timedelta(minutes=20),
        updated_at=now - timedelta(seconds=pages_done % 30 + 1),
        pages_total=pages_total,
        pages_done=pages_done,
        last_page=pages_done or None,
        viewer_published=pages_done >= 10,
    )
    return cj.dumps(record)


def progress_objects(campaign: Campaign, now: datetime) -> list[list[str]]:
    """[key, body, content type] for running, failed and the first done volumes of a campaign."""
    found = [[campaign.progress_key(i), progress_text("stream", now, 40 + i % 300), JSON] for i in campaign.running]
    found += [[campaign.progress_key(i), progress_text("failed", now, 0, 0), JSON]
              for i in sorted(campaign.failed)]
    found += [[campaign.progress_key(i), progress_text("done", now, 412), JSON]
              for i in sorted(campaign.done)[:DONE_WITH_PROGRESS]]
    return found


# --- the whole archive ---------------------------------------------------------------------------


class Archive:
    """The scene, loaded into a `KubeDouble` and a `StoreDouble`."""

    def __init__(self, kube, store, now: datetime | None = None):
        self.kube, self.store = kube, store
        self.now = now or datetime.now(UTC)
        self.campaigns = [plan(n) for n in range(CAMPAIGNS)]
        self.pods = PodFactory(self.now)
        self.finished = 0

    def load(self) -> dict:
        """Put every object; returns how many of each kind were built."""
        built: list[tuple[str, dict]] = [(body["kind"], body) for body in cluster_objects(self.now)]
        progress = []
        for c in self.campaigns:
            built += [("Job", job(c, self.now)), ("ConfigMap record", record(c, self.now)),
                      ("ConfigMap status", status(c, self.now)), ("Workload", workload(c, self.now))]
            for index in c.running:
                built.append(("Pod running", self.pods.make(c, index, "running")))
                if index in c.retrying:
                    built.append(("Pod failed", self.pods.make(c, index, "retry-failed", attempt=1)))
            for n, index in enumerate(sorted(c.failed)):
                built.append(("Pod failed", self.pods.make(c, index, "failed-setup" if n % 5 else "failed-load")))
            progress += progress_objects(c, self.now)
        self.kube.put_many([body for _, body in built])
        self.store.put_many(progress)
        counts = Counter(kind for kind, _ in built)
        counts["progress.json"] = len(progress)
        return dict(counts)

    def advance(self) -> int:
        """Finish a few running volumes: their pods go, the next pending index starts. Returns how many."""
        moved = 0
        now = datetime.now(UTC)
        progress = []
        for _ in range(FINISHING_PER_STEP):
            waiting = [c for c in self.campaigns if c.pending_from < VOLUMES]
            if not waiting:
                break
            c = waiting[self.finished % len(waiting)]
            self.finished += 1
            index = next(i for i in c.running if i not in c.retrying)
            pod = self.pods.make(c, index, "running")
            self.kube.delete("v1", "Pod", o.NS, pod["metadata"]["name"])
            c.running.remove(index)
            c.done.add(index)
            started = c.pending_from
            c.pending_from += 1
            c.running.append(started)
            self.kube.put(self.pods.make(c, started, "running"))
            self.kube.patch("batch/v1", "Job", o.NS, c.name, {"status": {
                "completedIndexes": index_ranges(c.done), "succeeded": len(c.done)}})
            progress.append([c.progress_key(index), progress_text("done", now, 412), JSON])
            progress.append([c.progress_key(started), progress_text("setup", now, 0, 0), JSON])
            moved += 1
        if progress:
            self.store.put_many(progress)
        return moved
