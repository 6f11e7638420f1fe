"""Lookups built once per snapshot, so projecting N campaigns stays linear.

Decides which pods belong to which Job and completion index (and which are warm-up pods), which
Workloads belong to which Job, and which ConfigMaps are campaign records, status records,
pipelines and warm-ups.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campaigns.domain.projection.readers import annotations_of, as_int, as_list, as_str, labels_of, metadata_of, name_of
from campaigns.models import Snapshot
from core.contract import LABEL_COMPLETION_INDEX, LABEL_JOB_NAME, LABEL_KIND, LABEL_PIPELINE, LABEL_WORKLOAD_JOB_UID

WARMUP = -2  # the place of a warm-up pod (-1: a pod the projection does not look at)


@dataclass
class SnapshotIndex:
    """Lookups built once per snapshot, so projecting N campaigns stays linear."""

    pods_by_job: dict[str, dict[int, list[dict]]] = field(default_factory=dict)
    warmup_pods: dict[str, list[dict]] = field(default_factory=dict)
    workloads_by_uid: dict[str, list[dict]] = field(default_factory=dict)
    workloads_by_owner: dict[str, list[dict]] = field(default_factory=dict)
    records: dict[str, dict] = field(default_factory=dict)
    status_records: dict[str, dict] = field(default_factory=dict)
    pipelines: dict[str, dict] = field(default_factory=dict)
    warmups: dict[str, dict] = field(default_factory=dict)
    cluster_queues: dict[str, dict] = field(default_factory=dict)
    local_queues: dict[str, dict] = field(default_factory=dict)
    # id(pod) -> (the pod, its Job, its completion index or WARMUP): kept for the next snapshot's index
    pod_places: dict[int, tuple[dict, str, int]] = field(default_factory=dict)


def build_index(snapshot: Snapshot, previous: SnapshotIndex | None = None) -> SnapshotIndex:
    """The lookups of a snapshot; with the index of an earlier snapshot of the same informers, a pod
    that is the same object as then is placed as it was then without reading its labels again."""
    index = SnapshotIndex()
    known = previous.pod_places if previous is not None else {}
    for pod in as_list(snapshot.pods):
        place = known.get(id(pod))
        if place is None or place[0] is not pod:
            place = (pod, *_pod_place(pod))
        index.pod_places[id(pod)] = place
        _, job, position = place
        if position == WARMUP:
            index.warmup_pods.setdefault(job, []).append(pod)
        elif position >= 0:
            index.pods_by_job.setdefault(job, {}).setdefault(position, []).append(pod)
    for workload in as_list(snapshot.workloads):
        uid = as_str(labels_of(workload).get(LABEL_WORKLOAD_JOB_UID))
        if uid:
            index.workloads_by_uid.setdefault(uid, []).append(workload)
        for owner in as_list(metadata_of(workload).get("ownerReferences")):
            if isinstance(owner, dict) and owner.get("kind", "Job") == "Job" and as_str(owner.get("name")):
                index.workloads_by_owner.setdefault(as_str(owner.get("name")), []).append(workload)
    for config_map in [*as_list(snapshot.records), *as_list(snapshot.status_records)]:
        name = name_of(config_map)
        if not name:
            continue
        if as_str(labels_of(config_map).get(LABEL_KIND)) == "status":
            index.status_records[name] = config_map
        else:
            index.records[name] = config_map
    for config_map in as_list(snapshot.pipelines):
        name = name_of(config_map)
        if name:
            index.pipelines[name] = config_map
        pipeline = as_str(labels_of(config_map).get(LABEL_PIPELINE))
        if pipeline:
            index.pipelines.setdefault(f"htr-pipeline-{pipeline}", config_map)
    for job in as_list(snapshot.warmup_jobs):
        pipeline = as_str(labels_of(job).get(LABEL_PIPELINE))
        name = name_of(job)
        if not pipeline and name.startswith("htr-warmup-"):
            pipeline = name[len("htr-warmup-") :]
        if pipeline:
            index.warmups[pipeline] = job
    for queue in as_list(snapshot.cluster_queues or []):
        if name_of(queue):
            index.cluster_queues[name_of(queue)] = queue
    for queue in as_list(snapshot.local_queues or []):
        if name_of(queue):
            index.local_queues[name_of(queue)] = queue
    return index


def _pod_place(pod: dict) -> tuple[str, int]:
    """A pod's Job and completion index, (job, WARMUP) for a warm-up pod, ("", -1) for one of neither."""
    labels = labels_of(pod)
    job = as_str(labels.get(LABEL_JOB_NAME)) or as_str(labels.get("job-name"))
    if not job:
        return "", -1
    if as_str(labels.get("app")) == "htrflow-warmup" or job.startswith("htr-warmup-"):
        return job, WARMUP
    raw_index = labels.get(LABEL_COMPLETION_INDEX)
    if raw_index is None:
        raw_index = annotations_of(pod).get(LABEL_COMPLETION_INDEX)
    return job, max(-1, as_int(raw_index, -1))
