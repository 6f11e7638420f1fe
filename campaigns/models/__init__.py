"""View models of the campaign browser: plain dataclasses, not Django models.

Data flows one way: ``kube.py`` reads the cluster into a :class:`Snapshot` of plain dicts (exactly as
the Kubernetes API returns them in JSON, camelCase keys), ``projection.project`` turns a snapshot
into :class:`Campaign` values (facts only: states, names, counts, datetimes, never a sentence), and
``wording`` words them when a page, poll, feed entry or API answer is rendered. Nothing here does I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from campaigns.models.findings import NOBODY, Finding, ModelCache
from campaigns.models.pace import CampaignPace
from campaigns.models.volume_list import Volumes
from core import contract
from core.quality import VolumeQuality, volume_quality

# Campaign phases as shown to people, and their machine form (CSS classes, filters).
RUNNING = "Running"
SUCCEEDED = "Succeeded"
PARTIALLY_FAILED = "Partially failed"
FAILED = "Failed"
QUEUED = "Queued"
PAUSED = "Paused"
UNKNOWN = "Unknown"
PHASES = (RUNNING, SUCCEEDED, PARTIALLY_FAILED, FAILED, QUEUED, PAUSED, UNKNOWN)
FINAL_PHASES = (SUCCEEDED, PARTIALLY_FAILED, FAILED)
PHASE_KEYS = {
    RUNNING: "running",
    SUCCEEDED: "succeeded",
    PARTIALLY_FAILED: "partially-failed",
    FAILED: "failed",
    QUEUED: "queued",
    PAUSED: "paused",
    UNKNOWN: "unknown",
}
# The phase as the status ConfigMap stores it (the existing read API's spelling).
RECORD_PHASES = {
    RUNNING: "Running",
    SUCCEEDED: "Succeeded",
    PARTIALLY_FAILED: "PartiallyFailed",
    FAILED: "Failed",
    QUEUED: "Queued",
    PAUSED: "Paused",
    UNKNOWN: "Unknown",
}

# Volume states.
VOLUME_STATES = ("done", "failed", "active", "pending", "unknown")

# Why a volume (or a warm-up) stopped: the failure classes of contracts §2.
REASON_KINDS = (
    "config",  # settings incomplete: a deployment problem
    "setup_permanent",  # the volume's IIIF manifest cannot be read (bad URL, 4xx)
    "transient",  # a failure that a retry may cure
    "transient_final",  # a transient failure on the last attempt: no retry left
    "permanent",  # any other permanent failure (bad pipeline, ...)
    "verify",  # pages missing or failed after processing
    "sigterm",  # the pod was stopped (drain, pause)
    "deadline",  # the volume ran out of its time budget
    "oom",  # killed for using more memory than its limit
    "evicted",  # the node evicted the pod
    "warmup_marker",  # the warm-up marker never appeared (warmup-wait exit 13)
    "unknown",
)

# Queue explanation kinds, for Queued and Paused campaigns (and admitted ones).
QUEUE_KINDS = (
    "waiting",
    "never_fits",
    "no_workload_priority_class",
    "no_workload_yet",
    "kueue_silent",
    "paused",
    "inadmissible",
    "evicted",
    "preempted",
    "not_looked_at",
    "admitted",
)

WARMUP_STATES = ("pending", "running", "failed", "missing", "succeeded")

TEXT_LIMIT = 3500


@dataclass
class Snapshot:
    """One namespace as read from the cluster, as plain JSON dicts."""

    namespace: str
    jobs: list[dict] = field(default_factory=list)  # campaign Jobs (app=htrflow-batch, h/managed-by=converter)
    warmup_jobs: list[dict] = field(default_factory=list)  # app=htrflow-warmup
    records: list[dict] = field(default_factory=list)  # campaign record ConfigMaps campaign-<job>
    status_records: list[dict] = field(default_factory=list)  # status ConfigMaps (h/kind=status)
    pipelines: list[dict] = field(default_factory=list)  # pipeline ConfigMaps htr-pipeline-<id>
    workloads: list[dict] = field(default_factory=list)  # Kueue Workloads in the namespace
    # campaign pods not Succeeded, warm-up pods in any phase; of a spec only nodeName is kept
    pods: list[dict] = field(default_factory=list)
    local_queues: list[dict] | None = None  # None = not readable
    cluster_queues: list[dict] | None = None  # None = not readable
    priority_classes: list[str] | None = None  # WorkloadPriorityClass names; None = not readable
    events: list[dict] = field(default_factory=list)
    pvcs: list[dict] | None = None  # the namespace's PersistentVolumeClaims; None = not readable
    resource_flavors: list[dict] | None = None  # Kueue ResourceFlavors; None = not readable
    kueue_deployments: list[dict] | None = None  # Deployments in Kueue's namespace; None = not read or readable
    kueue_pods: list[dict] | None = None  # Kueue's controller pods (control-plane=controller-manager); None = same
    # What the site that read it is set up with (not read from the cluster): where Kueue runs, and the
    # results address its viewers read, against which a campaign's own address is compared.
    kueue_namespace: str = ""
    results_url: str = ""
    read_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(frozen=True)
class Sentence:
    """What a person reads: plain words first, operator detail and commands apart.

    ``tone`` is one of ``ok``, ``info``, ``warn``, ``bad``, ``idle`` (matches the theme colours).
    """

    text: str
    detail: str = ""
    commands: tuple[str, ...] = ()
    tone: str = "info"

    def __str__(self) -> str:
        return self.text


@dataclass
class Counts:
    total: int = 0
    done: int = 0
    failed: int = 0
    active: int = 0
    pending: int = 0
    waiting: int = 0  # of the active ones, those whose pod still waits for the model cache (warmup-wait)

    def as_api(self) -> dict:
        return {"total": self.total, "active": self.active, "done": self.done, "failed": self.failed}

    @property
    def processing(self) -> int:
        """Volumes being processed now: active and past waiting for the model cache."""
        return max(0, self.active - self.waiting)


@dataclass
class VolumeReason:
    """Why a volume stopped, from the newest pod of its index (contracts §2)."""

    stage: str | None = None
    permanent: bool | None = None
    error: str = ""
    kind: str = "unknown"
    exit_code: int | None = None
    pod_name: str = ""
    container: str = ""
    source: str = ""  # which evidence spoke: "message", "last_message", "init", "pod_reason", "exit", "record"
    finished_at: datetime | None = None  # when the container that spoke stopped, if known

    def as_api(self) -> dict:
        return {"stage": self.stage, "permanent": self.permanent, "error": self.error}


@dataclass
class Volume:
    index: int
    id: str
    source: str = ""
    job: str = ""  # the (part) Job running this volume
    state: str = "unknown"  # done | failed | active | pending | unknown
    retrying: bool = False  # not done, not failed for good, and an earlier attempt failed
    attempts: int = 0  # failed attempts seen (from the pod's index failure count), 0 if unknown
    retry_limit: int = 3  # the Job's backoffLimitPerIndex
    time_budget: int | None = None  # seconds each attempt may run: the pod template's activeDeadlineSeconds
    reason: VolumeReason | None = None
    namespace: str = ""
    pipeline: str = ""
    malformed: bool = False  # the volumes.txt line could not be read
    waiting_for_cache: bool = False  # its pod is in the warmup-wait init container (Init:0/1)
    held: bool = False  # its campaign is queued or paused, so a pending volume waits for the campaign
    # Of a volume that gave up on the warm-up marker: its pipeline's warm-up as the campaign's chip reads it
    # (a WARMUP_STATES value, or "marker_missing": complete yet its marker not found); "" when not known.
    warmup_state: str = ""

    @property
    def key_prefix(self) -> str:
        return contract.volume_prefix(self.namespace, self.pipeline, self.id)

    @property
    def progress_key(self) -> str:
        return contract.progress_key(self.namespace, self.pipeline, self.id)

    @property
    def manifest_key(self) -> str:
        return contract.manifest_key(self.namespace, self.pipeline, self.id)

    @property
    def iiif_key(self) -> str:
        return contract.iiif_key(self.namespace, self.pipeline, self.id)

    @property
    def alto_prefix(self) -> str:
        return contract.alto_prefix(self.namespace, self.pipeline, self.id)

    @property
    def log_key(self) -> str:
        return contract.run_log_key(self.namespace, self.pipeline, self.id)

    @property
    def legacy_log_key(self) -> str:
        return contract.legacy_run_log_key(self.pipeline, self.id)

    @property
    def may_still_run(self) -> bool:
        return self.state in ("active", "pending")


@dataclass
class Warmup:
    pipeline: str
    state: str  # pending | running | failed | missing | succeeded
    job_name: str = ""
    message: str = ""  # the warm-up container's error text, bounded
    reason: VolumeReason | None = None
    recipe_sha256: str = ""
    cache_dir: str = ""  # /<pipeline>-<sha>/
    marker_path: str = ""  # /data/warmup/<pipeline>.done
    marker_missing: bool = False  # Complete, yet a campaign pod gave up waiting for the marker

    @property
    def shows_chip(self) -> bool:
        return self.state != "succeeded" or self.marker_missing


@dataclass
class ResourceFit:
    """What a campaign asks of one resource against what its ClusterQueue can ever give."""

    resource: str
    requested: str  # e.g. "8" or "64Gi"
    quota: str  # nominal quota, "" when the queue has none for it
    fits: bool


@dataclass
class QueueState:
    kind: str  # one of QUEUE_KINDS
    workload_name: str = ""
    queue_name: str = ""
    cluster_queue: str = ""
    priority_class: str = ""
    ahead: int | None = None  # pending workloads before it in the same ClusterQueue, None = unknown
    holders: list[str] = field(default_factory=list)  # workloads holding the queue's quota
    ahead_names: list[str] = field(default_factory=list)  # Jobs of the pending workloads that go first
    pending_in_queue: int | None = None  # the ClusterQueue's own count of pending workloads (all namespaces)
    fits: list[ResourceFit] = field(default_factory=list)
    message: str = ""  # Kueue's own words, bounded
    reason: str = ""  # condition reason (Preempted, PodsReadyTimeout, Deactivated, ...)
    since: datetime | None = None
    job: str = ""  # the (part) Job the queue was read for: its events say why Kueue ignores it
    # Campaigns holding the quota or ahead in line that the person may not see (campaigns.cluster.redaction):
    # left out of ``holders`` and ``ahead_names`` and only counted.
    hidden_holders: int = 0
    hidden_ahead: int = 0

    def as_api(self) -> dict:
        return {
            "kind": self.kind,
            "workload": self.workload_name,
            "queue": self.queue_name,
            "clusterQueue": self.cluster_queue,
            "priorityClass": self.priority_class,
            "ahead": self.ahead,
            "holders": list(self.holders),
            "aheadJobs": list(self.ahead_names),
            "pendingInQueue": self.pending_in_queue,
            "resources": [
                {"resource": f.resource, "requested": f.requested, "quota": f.quota, "fits": f.fits} for f in self.fits
            ],
            "message": self.message,
            "reason": self.reason,
        }


@dataclass
class Step:
    name: str
    model: str = ""
    revision: str = ""


@dataclass
class RecordInfo:
    """Annotations the apply stamps on the campaign record ConfigMap."""

    commit: str = ""
    applied_by: str = ""
    applied_at: str = ""
    image_digest: str = ""
    job_uid: str = ""


@dataclass
class PartState:
    """One Job of a campaign (a split campaign has several), as its status ConfigMap records it."""

    job: str
    job_uid: str = ""
    phase: str = UNKNOWN
    counts: Counts = field(default_factory=Counts)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    failed_volumes: list[tuple[str, str]] = field(default_factory=list)  # (volume id, reason text)

    @property
    def status_record_name(self) -> str:
        return f"campaign-{self.job}-status"

    def status_record_data(self, results_base: str = "") -> dict[str, str]:
        data = {
            "phase": RECORD_PHASES.get(self.phase, self.phase) if self.phase != UNKNOWN else "",
            "volumesTotal": str(self.counts.total),
            "volumesDone": str(self.counts.done),
            "volumesFailed": str(self.counts.failed),
            "startedAt": _iso(self.started_at),
            "finishedAt": _iso(self.finished_at),
            "resultsBase": results_base,
            "jobUid": self.job_uid,
        }
        if self.failed_volumes:
            data["failedVolumes"] = failed_volumes_json(self.failed_volumes)
            data["failedVolumesJobUid"] = self.job_uid
        return data


@dataclass
class Campaign:
    namespace: str
    name: str  # the Job name, or the stem of a split campaign
    campaign: str = ""  # h/campaign label (campaign file name)
    pipeline: str = ""
    phase: str = UNKNOWN
    parts: list[str] = field(default_factory=list)  # Job names, in part order
    suspended: bool = False
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    job_gone: bool = False
    job_uid: str = ""
    counts: Counts = field(default_factory=Counts)
    volumes: list[Volume] = field(default_factory=list)
    failures: list[Volume] = field(default_factory=list)  # failed or retrying volumes with a reason
    failures_truncated: bool = False  # the status record keeps at most 50 failed volumes
    warmup: Warmup | None = None
    queue: QueueState | None = None
    pipeline_steps: list[Step] = field(default_factory=list)
    pipeline_yaml: str = ""
    pipeline_sha256: str = ""
    workload_name: str = ""
    queue_name: str = ""
    cluster_queue_name: str = ""
    priority_class: str = ""
    parallelism: int = 0
    record: RecordInfo = field(default_factory=RecordInfo)
    results_prefix: str = ""  # key prefix "<ns>/<pipeline>/" (contract.results_prefix)
    part_states: list[PartState] = field(default_factory=list)  # one per live Job, for the status records
    stored_phase: str = ""  # the phase the status record held (for campaigns whose Job is gone)
    job_message: str = ""  # the Job's Failed condition, "reason: message", bounded
    # What the troubleshooting guide's Check steps found (domain.projection.findings), the one that
    # explains the campaign's state first; worded when rendered.
    findings: list[Finding] = field(default_factory=list)
    # Its pipeline's model cache (domain.diagnosis.cache): recipe, directory, claim, warm-up node, debug pod.
    model_cache: ModelCache | None = None
    # How long its pods wait for the warm-up's marker before giving up, from its Job's warmup-wait container.
    warmup_wait_seconds: int = 900
    # Pace, forecast and stall (models/pace.py), hung on by the board after each projection from what
    # it observed over time (never by the projection, which sees one moment): None until it has.
    pace: CampaignPace | None = None

    def __post_init__(self):
        self.volumes = Volumes.of(self.volumes)

    @property
    def phase_key(self) -> str:
        return PHASE_KEYS.get(self.phase, "unknown")

    @property
    def is_final(self) -> bool:
        return self.phase in FINAL_PHASES

    @property
    def is_split(self) -> bool:
        return len(self.parts) > 1

    @property
    def in_trouble(self) -> bool:
        """Something a person should look at now."""
        if self.phase in (FAILED, PARTIALLY_FAILED):
            return True
        if self.counts.failed > 0 or any(v.state == "failed" for v in self.failures):
            return True
        if self.warmup is not None and (self.warmup.state == "failed" or self.warmup.marker_missing):
            return True
        if self.stalled:
            return True
        if any(finding.actor != NOBODY and not finding.chosen for finding in self.findings):
            return True  # a cause the product found, that a person has to act on
        troubled_queue = ("never_fits", "no_workload_priority_class", "kueue_silent", "inadmissible")
        return self.queue is not None and self.queue.kind in troubled_queue

    @property
    def stalled(self) -> bool:
        """Pods run but no volume finished for the stall time (`domain.pace`): it needs attention."""
        return self.phase == RUNNING and self.pace is not None and self.pace.stalled_since is not None

    def results_base(self, results_url: str) -> str:
        if not results_url or not self.pipeline:
            return ""
        return results_url.rstrip("/") + "/" + contract.results_prefix(self.namespace, self.pipeline).rstrip("/")

    def status_record_data(self, results_url: str = "") -> dict[str, str]:
        """What the status ConfigMap should hold for this campaign (contracts §1): all strings.

        A split campaign has one status ConfigMap per part: use ``part_states`` for those.
        """
        base = self.results_base(results_url)
        if len(self.part_states) == 1:
            return self.part_states[0].status_record_data(base)
        whole = PartState(
            job=self.name,
            job_uid=self.job_uid,
            phase=self.phase,
            counts=self.counts,
            started_at=self.started_at,
            finished_at=self.finished_at,
        )
        return whole.status_record_data(base)


@dataclass
class Progress:
    """A volume's ``progress.json`` (contracts §4), read by the views through the results proxy."""

    done: int
    total: int
    failed: int = 0
    last_page: str | None = None
    stage: str = ""
    updated_at: datetime | None = None
    age_seconds: float | None = None
    last_error: dict | None = None  # {"page", "error"}
    errors: int = 0
    viewer_published: bool = False
    quality: VolumeQuality | None = None  # predicted page quality, when the pipeline scores pages
    started_at: datetime | None = None  # when the wrapper started the volume (its pace: pages_done over the time since)

    @property
    def fraction(self) -> float:
        return min(1.0, max(0.0, self.done / self.total)) if self.total > 0 else 0.0

    def as_api(self) -> dict:
        return {
            "done": self.done,
            "total": self.total,
            "failed": self.failed,
            "lastPage": self.last_page,
            "stage": self.stage,
            "updatedAt": _iso(self.updated_at) or None,
            "ageSeconds": None if self.age_seconds is None else round(self.age_seconds, 1),
            "lastError": self.last_error,
            "errors": self.errors,
            "viewerPublished": self.viewer_published,
            "quality": self.quality.as_api() if self.quality is not None else None,
        }


def progress_from_json(data: Any, now: datetime) -> Progress | None:
    """A :class:`Progress` from a parsed ``progress.json``; None when it holds no progress.

    Best effort and defensive: any missing or odd field gets a neutral value, never an error.
    """
    if not isinstance(data, dict):
        return None
    total = _non_negative_int(data.get("pages_total"))
    if total is None:
        return None
    updated = parse_time(data.get("updated_at"))
    age = None
    if updated is not None and now is not None:
        age = max(0.0, (now - updated).total_seconds())
    last_error = data.get("last_error")
    if isinstance(last_error, dict):
        last_error = {
            "page": bounded(str(last_error.get("page") or ""), 16),
            "error": bounded(str(last_error.get("error") or "")),
        }
    else:
        last_error = None
    last_page = data.get("last_page")
    stage = data.get("stage")
    return Progress(
        done=_non_negative_int(data.get("pages_done")) or 0,
        total=total,
        failed=_non_negative_int(data.get("pages_failed")) or 0,
        last_page=bounded(str(last_page), 16) if isinstance(last_page, (str, int)) else None,
        stage=bounded(stage, 40) if isinstance(stage, str) else "",
        updated_at=updated,
        age_seconds=age,
        last_error=last_error,
        errors=_non_negative_int(data.get("errors")) or 0,
        viewer_published=data.get("viewer_published") is True,
        quality=volume_quality(data.get("quality")),
        started_at=parse_time(data.get("started_at")),
    )


def failed_volumes_json(items: list[tuple[str, str]], limit: int = 50) -> str:
    """The status record's ``failedVolumes``: a compact JSON list of ``{"id", "reason"}``, at most 50."""
    return json.dumps(
        [{"id": vid, "reason": reason} for vid, reason in items[:limit]], separators=(",", ":"), ensure_ascii=False
    )


def bounded(text: Any, limit: int = TEXT_LIMIT) -> str:
    """Text cut to ``limit`` characters (with an ellipsis), from anything."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    text = text.strip()
    if len(text) > limit:
        return text[: max(0, limit - 1)].rstrip() + "…"
    return text


def parse_time(value: Any) -> datetime | None:
    """An aware datetime from an ISO 8601 / RFC 3339 string, or None."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _iso(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _non_negative_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value and abs(value) < 1e12:
        return max(0, int(value))
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
