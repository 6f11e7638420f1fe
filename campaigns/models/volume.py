"""One volume of a campaign, and why it stopped."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core import contract


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
