"""The vocabulary of the campaign browser's facts: campaign phases, volume states, failure classes, queue
kinds and warm-up states, each a fixed string that the projection sets and the wording and API read."""

from __future__ import annotations

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
