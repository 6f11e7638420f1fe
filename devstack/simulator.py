"""Moves the demo scene forward, the way the cluster and the wrapper would.

``Simulator(scene, kube, store, images).step()`` makes one deterministic move:

- every running volume gains its campaign's ``page_rate`` pages: ALTO and PAGE XML written,
  ``progress.json`` updated (``updated_at`` = now), run-log lines appended, ``iiif.json`` every
  10 pages;
- a volume that reaches its page total completes: ``manifest.json``, the ``COMPLETE`` log line,
  its pod Succeeded, the Job's ``completedIndexes`` and ``active`` updated;
- free parallelism goes to the next retry or pending index (a new pod), so a failed attempt
  gets its replacement and pending volumes start;
- every ``FAILURE_EVERY`` steps one running volume fails a transient attempt (its pod Failed
  with exit 1 and the wrapper's JSON message) and is retried two steps later;
- a campaign with nothing left to run finishes (``Complete`` or ``Failed``, ``completionTime``),
  its Workload is Finished and its quota returns to the ClusterQueue;
- a campaign waiting its turn is admitted as soon as its GPUs fit in the freed quota.

``start()`` / ``stop()`` run ``step`` every ``interval`` seconds on a daemon thread. Nothing it
writes breaks what the browser relies on: the newest pod of an index explains it, Job status
ranges match the volumes, and the ClusterQueue's usage is the sum of admitted workloads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from botocore.exceptions import ClientError

from devstack import content_json as cj
from devstack import scene_kube as k
from devstack import scene_store as s
from devstack.content_log import last_log_time
from devstack.scene import Scene, failure_reason, queue_objects
from devstack.scene_model import (
    DONE,
    FAILED,
    PENDING,
    RETRYING,
    RUNNING,
    WAITING,
    Campaign,
    Volume,
    add_pod,
    fail_pod,
    finish_pod,
    stream_error,
    termination_json,
)

log = logging.getLogger(__name__)

FAILURE_EVERY = 17  # steps between two simulated transient failures
RETRY_AFTER = 2  # steps a failed index waits for its replacement pod


class Simulator:
    def __init__(
        self, scene: Scene, kube, store, images=None, interval: float = 3.0, clock: Callable[[], datetime] | None = None
    ):
        self.scene = scene
        self.kube = kube
        self.store = store
        self.images = images
        self.interval = interval
        self.clock = clock or (lambda: datetime.now(UTC))
        self.steps = 0
        self.failed_attempts: list[tuple[str, str]] = []  # (job, volume id) of each simulated failure
        self._writers: dict[tuple[str, int], object] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- running on a thread ---------------------------------------------------------------

    def start(self) -> Simulator:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="scene-simulator", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval + 10)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.step()
            except Exception:  # a failed write must not end the demo; the next step tries again
                log.exception("simulator step failed")

    # --- one move ----------------------------------------------------------------------------

    def step(self) -> None:
        with self._lock:
            now = self.clock().replace(microsecond=0)
            self.steps += 1
            active = [c for c in self.scene.campaigns.values() if self._moving(c)]
            victim = self._failure_victim(active)
            for campaign in active:
                self._advance(campaign, now, victim)
            self._admit_waiting(now)
            for obj in queue_objects(self.scene.campaigns.values(), self.scene.now - timedelta(days=60)):
                self.kube.put(obj)

    @staticmethod
    def _moving(campaign: Campaign) -> bool:
        return (
            not campaign.job_gone
            and not campaign.stuck
            and not campaign.finished
            and not campaign.suspended
            and campaign.workload_state == "admitted"
        )

    def _failure_victim(self, active: list[Campaign]) -> Volume | None:
        """Every FAILURE_EVERY steps, one running volume (taking turns between campaigns) fails."""
        if self.steps % FAILURE_EVERY:
            return None
        candidates = [
            v for c in active for v in c.volumes if v.state == RUNNING and v.processed + c.page_rate < v.pages
        ]
        if not candidates:
            return None
        return candidates[(self.steps // FAILURE_EVERY) % len(candidates)]

    def _advance(self, campaign: Campaign, now: datetime, victim: Volume | None) -> None:
        for volume in campaign.volumes:
            if volume.state == RUNNING:
                if volume is victim:
                    self._fail_attempt(campaign, volume, now)
                else:
                    self._grow(campaign, volume, now)
            elif volume.state == RETRYING:
                volume.retry_in -= 1
        self._fill_slots(campaign, now)
        if not any(v.state in (RUNNING, WAITING, RETRYING, PENDING) for v in campaign.volumes):
            self._finish(campaign, now)
        self.kube.put(k.campaign_job_of(campaign, self.scene.results_url))

    # --- volumes -----------------------------------------------------------------------------

    def _writer(self, campaign: Campaign, volume: Volume, now: datetime):
        key = (campaign.name, volume.index)
        if key not in self._writers:
            attempt = len(volume.pods)
            writer = s.log_writer(self.scene.where_of(campaign), campaign, volume, now, volume.ok_pages, attempt)
            self._writers[key] = self._after_written(campaign, volume, writer)
        return self._writers[key]

    def _after_written(self, campaign: Campaign, volume: Volume, writer):
        """``writer`` set to stamp its lines after the last line already in the volume's log: appended
        lines' times never go back."""
        try:
            written = self.store.get(s.log_key(self.scene.where, campaign, volume)).decode("utf-8", "replace")
        except ClientError:  # no log yet: nothing to follow
            written = ""
        writer.continue_after(last_log_time(written))
        return writer

    def _grow(self, campaign: Campaign, volume: Volume, now: datetime) -> None:
        where = self.scene.where_of(campaign)
        first = volume.processed + 1
        last = min(volume.pages, volume.processed + campaign.page_rate)
        volume.ok_pages += last - first + 1
        volume.updated_at = now
        for page_no in range(first, last + 1):
            for key, (content, kind) in s.page_files(where, campaign, volume, page_no).items():
                self.store.put(key, s.body(content), kind)
        writer = self._writer(campaign, volume, now)
        # The last page finishes about now, but never before the lines the writer has already stamped.
        lines = writer.pages(first, last, at=now)
        if volume.processed >= volume.pages:
            self._complete(campaign, volume, now, writer, lines)
            return
        self._put_progress(campaign, volume)
        if last // 10 > (first - 1) // 10:
            self._put_iiif(campaign, volume)
        self.store.append(s.log_key(where, campaign, volume), lines)

    def _complete(self, campaign: Campaign, volume: Volume, now: datetime, writer, lines: str) -> None:
        where = self.scene.where_of(campaign)
        volume.state, volume.finished_at = DONE, now
        self._put_iiif(campaign, volume)
        self.store.put(
            cj.manifest_key(where.namespace, campaign.pipeline.id, volume.id),
            s.manifest_text(where, campaign, volume),
            s.JSON,
        )
        self._put_progress(campaign, volume)
        self.store.append(s.log_key(where, campaign, volume), lines + writer.ending("complete"))
        self._writers.pop((campaign.name, volume.index), None)
        pod = volume.newest_pod
        finish_pod(pod, now)
        self.kube.put(pod)

    def _fail_attempt(self, campaign: Campaign, volume: Volume, now: datetime) -> None:
        """A transient failure in stream: the pod fails with exit 1; Kubernetes retries the index."""
        where = self.scene.where_of(campaign)
        error = stream_error(volume)
        failures_before = int(
            volume.newest_pod["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"]
        )
        last = failures_before >= k.BACKOFF_LIMIT_PER_INDEX
        pod = volume.newest_pod
        fail_pod(pod, now, termination_json("stream", False, error))
        self.kube.put(pod)
        outcome = "transient-last" if last else "transient"
        volume.failures.append(("stream", error, outcome))
        volume.failure = "stream"
        volume.updated_at = now
        volume.state = FAILED if last else RETRYING
        volume.retry_in = RETRY_AFTER
        self.failed_attempts.append((campaign.name, volume.id))
        writer = self._writer(campaign, volume, now)
        self.store.append(s.log_key(where, campaign, volume), writer.ending(outcome, stage="stream", error=error))
        self._writers.pop((campaign.name, volume.index), None)
        self._put_progress(campaign, volume)

    def _fill_slots(self, campaign: Campaign, now: datetime) -> None:
        """Give free parallelism to retries that are due, then to pending indexes, lowest first."""
        # A failed attempt keeps its slot until its replacement is due, as the Job's backoff would.
        busy = sum(
            1 for v in campaign.volumes if v.state in (RUNNING, WAITING) or (v.state == RETRYING and v.retry_in > 0)
        )
        while busy < campaign.parallelism:
            due = [v for v in campaign.volumes if v.state == RETRYING and v.retry_in <= 0]
            waiting = [v for v in campaign.volumes if v.state == PENDING]
            if not due and not waiting:
                return
            self._start_attempt(campaign, (due or waiting)[0], now)
            busy += 1

    def _start_attempt(self, campaign: Campaign, volume: Volume, now: datetime) -> None:
        where = self.scene.where_of(campaign)
        pod = add_pod(campaign, volume, "running", now - timedelta(seconds=6))
        self.kube.put(pod)
        self.kube.put(
            k.event(
                k.campaign_job_of(campaign, where.results_url),
                "SuccessfulCreate",
                f"Created pod: {pod['metadata']['name']}",
                now,
                "job-controller",
            )
        )
        volume.state, volume.failure = RUNNING, None
        volume.started_at = volume.started_at or now
        volume.updated_at = now
        writer = s.log_writer(where, campaign, volume, now - timedelta(seconds=5), volume.ok_pages, len(volume.pods))
        writer = self._after_written(campaign, volume, writer)
        self._writers[(campaign.name, volume.index)] = writer
        self.store.append(s.log_key(where, campaign, volume), writer.opening())
        self._put_progress(campaign, volume)

    def _put_progress(self, campaign: Campaign, volume: Volume) -> None:
        where = self.scene.where_of(campaign)
        key = cj.progress_key(where.namespace, campaign.pipeline.id, volume.id)
        self.store.put(key, s.progress_text(where, campaign, volume), s.JSON)

    def _put_iiif(self, campaign: Campaign, volume: Volume) -> None:
        where = self.scene.where_of(campaign)
        text = s.iiif_text(where, campaign, volume)
        if text:
            self.store.put(cj.iiif_key(where.namespace, campaign.pipeline.id, volume.id), text, s.JSON)

    # --- campaigns and the queue ---------------------------------------------------------------

    def _finish(self, campaign: Campaign, now: datetime) -> None:
        campaign.finished = now
        campaign.workload_state = "finished"
        failed = [v for v in campaign.volumes if v.state == FAILED]
        job = k.campaign_job_of(campaign, self.scene.results_url)
        if failed:
            self.kube.put(k.event(job, "FailedIndexes", "Job has failed indexes", now, "job-controller", "Warning"))
        else:
            self.kube.put(k.event(job, "Completed", "Job completed", now, "job-controller"))
        self.kube.put(k.workload_of(campaign))
        if campaign.status_phase:
            campaign.status_phase = "PartiallyFailed" if failed else "Succeeded"
            campaign.failed_volumes_record = [{"id": v.id, "reason": failure_reason(v)} for v in failed]
            record = campaign.failed_volumes_record
            self.kube.put(k.status_record_of(campaign, campaign.status_phase, self.scene.results_url, record))

    def _admit_waiting(self, now: datetime) -> None:
        """Admit campaigns waiting their turn, oldest first, while their GPUs fit in the free quota."""
        campaigns = list(self.scene.campaigns.values())
        waiting = sorted((c for c in campaigns if c.workload_state == "waiting"), key=lambda c: c.created)
        for campaign in waiting:
            free = k.GPU_QUOTA - sum(c.gpus for c in campaigns if c.holds_quota)
            if campaign.gpus > free:
                campaign.gpus_short = campaign.gpus - free
                self.kube.put(k.workload_of(campaign))
                continue
            campaign.workload_state = "admitted"
            campaign.suspended = False
            campaign.started = now
            workload = k.workload_of(campaign)
            self.kube.put(workload)
            job = k.campaign_job_of(campaign, self.scene.results_url)
            self.kube.put(
                k.event(
                    workload,
                    "QuotaReserved",
                    f"Quota reserved in ClusterQueue {k.CLUSTER_QUEUE}",
                    now,
                    "kueue-admission",
                )
            )
            self.kube.put(
                k.event(job, "Started", f"Admitted by clusterQueue {k.CLUSTER_QUEUE}", now, "kueue-job-controller")
            )
            self._fill_slots(campaign, now)
            self.kube.put(k.campaign_job_of(campaign, self.scene.results_url))


__all__ = ["Simulator", "FAILURE_EVERY", "RETRY_AFTER"]
