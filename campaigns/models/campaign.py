"""A campaign as the projection makes it: its phase, counts, warm-up, queue state, parts and findings (facts only:
states, names, counts, datetimes; never a sentence)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from campaigns.models.findings import NOBODY, Finding, ModelCache
from campaigns.models.pace import CampaignPace
from campaigns.models.parsing import utc_iso
from campaigns.models.vocabulary import (
    FAILED,
    FINAL_PHASES,
    PARTIALLY_FAILED,
    PHASE_KEYS,
    RECORD_PHASES,
    RUNNING,
    UNKNOWN,
)
from campaigns.models.volume import Volume, VolumeReason
from campaigns.models.volume_list import Volumes
from core import contract


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


# Queue states no waiting ends: the campaign can never fit, names no priority class Kueue knows, Kueue does not
# answer, or Kueue says it cannot be admitted.
TROUBLED_QUEUE_KINDS = ("never_fits", "no_workload_priority_class", "kueue_silent", "inadmissible")


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

    @property
    def troubled(self) -> bool:
        """The queue's state needs a person (the campaign needs attention) rather than only time."""
        return self.kind in TROUBLED_QUEUE_KINDS

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
            "startedAt": utc_iso(self.started_at),
            "finishedAt": utc_iso(self.finished_at),
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
        return self.queue is not None and self.queue.troubled

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


def failed_volumes_json(items: list[tuple[str, str]], limit: int = 50) -> str:
    """The status record's ``failedVolumes``: a compact JSON list of ``{"id", "reason"}``, at most 50."""
    return json.dumps(
        [{"id": vid, "reason": reason} for vid, reason in items[:limit]], separators=(",", ":"), ensure_ascii=False
    )
