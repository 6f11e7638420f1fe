"""The stable finding codes of the diagnosis, one constant each (docs/troubleshooting.md lists them).

A code is an interface: the wording, the read API, the metric ``htrbrowser_campaign_findings{code}``
and the chart's alert rules match on it. Never rename one; add a new code instead.
"""

from __future__ import annotations

# A warm-up that completed, yet the campaign's pods never found its marker (checked in this order).
WARMUP_PLACEMENT_DIFFERS = "warmup.placement_differs"  # runtimeClassName, nodeSelector, tolerations, nodeAffinity
CACHE_OTHER_CLAIM = "cache.other_claim"  # the two Jobs mount different cache claims
CACHE_OTHER_DIRECTORY = "cache.other_directory"  # they mount different recipe directories (subPath)
CACHE_RWO_OTHER_NODE = "cache.rwo_other_node"  # a ReadWriteOnce cache filled on one node, read on another
CACHE_REPLACED = "cache.replaced"  # the claim was created after the warm-up completed
WARMUP_MARKER_MISSING = "warmup.marker_missing"  # none of the above holds: what was compared is ruled out

# Pods waiting in their warmup-wait init container.
WARMUP_WAITING = "warmup.waiting"
# The warm-up Job failed: its error decides who acts (a model the hub does not have: the pipeline's author).
WARMUP_FAILED = "warmup.failed"

# Why Kueue has not reserved quota (QuotaReserved=False), by its reason and message.
QUEUE_UNTOLERATED_TAINT = "queue.untolerated_taint"
QUEUE_NODE_AFFINITY = "queue.node_affinity"
QUEUE_NO_MATCHING_FLAVOR = "queue.no_matching_flavor"  # several kinds of mismatch, or none parsed
QUEUE_RESOURCE_UNAVAILABLE = "queue.resource_unavailable"
QUEUE_FLAVOR_NOT_FOUND = "queue.flavor_not_found"
QUEUE_WAITING_FOR_QUOTA = "queue.waiting_for_quota"  # quota that will free up: the only 'waiting its turn'
QUEUE_EXCEEDS_MAX_QUOTA = "queue.exceeds_max_quota"  # never fits as rendered
QUEUE_BORROWING_LIMIT = "queue.borrowing_limit_reached"
QUEUE_PENDING_EVALUATION = "queue.pending_evaluation"
QUEUE_WAITING_FOR_PODS_READY = "queue.waiting_for_pods_ready"
QUEUE_MISCONFIGURED = "queue.misconfigured"
QUEUE_SUSPENDED = "queue.suspended"
QUEUE_LOCAL_QUEUE_MISSING = "queue.local_queue_missing"
QUEUE_LOCAL_QUEUE_INACTIVE = "queue.local_queue_inactive"
QUEUE_LOCAL_QUEUE_STOPPED = "queue.local_queue_stopped"
QUEUE_CLUSTER_QUEUE_MISSING = "queue.cluster_queue_missing"
QUEUE_CLUSTER_QUEUE_INACTIVE = "queue.cluster_queue_inactive"
QUEUE_CLUSTER_QUEUE_STOPPED = "queue.cluster_queue_stopped"
QUEUE_KUEUE_SAYS = "queue.kueue_says"  # a reason or message in no format known here: Kueue's words as evidence

# Causes written in the campaign's own file: the person who wrote it acts.
QUEUE_PAUSED = "queue.paused"  # suspend: true in git (Workload spec.active false, Evicted reason Deactivated)
QUEUE_NO_PRIORITY_CLASS = "queue.no_priority_class"  # its priority names a WorkloadPriorityClass the cluster lacks

# Kueue's own controller.
KUEUE_DOWN = "kueue.down"
KUEUE_MISSING = "kueue.missing"

# Where a campaign publishes, and what its errors say.
RESULTS_OTHER_ADDRESS = "results.other_address"
MODEL_NOT_IN_CACHE = "model.not_in_cache"

ALL = (
    WARMUP_PLACEMENT_DIFFERS,
    CACHE_OTHER_CLAIM,
    CACHE_OTHER_DIRECTORY,
    CACHE_RWO_OTHER_NODE,
    CACHE_REPLACED,
    WARMUP_MARKER_MISSING,
    WARMUP_WAITING,
    WARMUP_FAILED,
    QUEUE_UNTOLERATED_TAINT,
    QUEUE_NODE_AFFINITY,
    QUEUE_NO_MATCHING_FLAVOR,
    QUEUE_RESOURCE_UNAVAILABLE,
    QUEUE_FLAVOR_NOT_FOUND,
    QUEUE_WAITING_FOR_QUOTA,
    QUEUE_EXCEEDS_MAX_QUOTA,
    QUEUE_BORROWING_LIMIT,
    QUEUE_PENDING_EVALUATION,
    QUEUE_WAITING_FOR_PODS_READY,
    QUEUE_MISCONFIGURED,
    QUEUE_SUSPENDED,
    QUEUE_LOCAL_QUEUE_MISSING,
    QUEUE_LOCAL_QUEUE_INACTIVE,
    QUEUE_LOCAL_QUEUE_STOPPED,
    QUEUE_CLUSTER_QUEUE_MISSING,
    QUEUE_CLUSTER_QUEUE_INACTIVE,
    QUEUE_CLUSTER_QUEUE_STOPPED,
    QUEUE_KUEUE_SAYS,
    QUEUE_PAUSED,
    QUEUE_NO_PRIORITY_CLASS,
    KUEUE_DOWN,
    KUEUE_MISSING,
    RESULTS_OTHER_ADDRESS,
    MODEL_NOT_IN_CACHE,
)
