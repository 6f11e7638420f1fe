"""Lookups built once per snapshot, so projecting N campaigns stays linear.

Decides which pods belong to which Job and completion index (and which are warm-up pods), which
Workloads belong to which Job, and which ConfigMaps are campaign records, status records,
pipelines and warm-ups.

Pods are most of a namespace (14 400 at five times the archive) and few change between two
snapshots, so an index built with the previous one places only the pods that are new since (an
informer replaces a changed object and never edits one in place, so a pod that is the same object
is the same pod): the pod tables of the Jobs none of whose pods came or went are the previous
index's very tables, which also lets the incremental projection see them unchanged by identity.
The answer is the one a build from nothing gives (tests/campaigns/domain/test_incremental_projection.py).
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
    # (holding the pod keeps its id from being given to another object while the entry lives)
    pod_places: dict[int, tuple[dict, str, int]] = field(default_factory=dict)
    pod_order: dict[int, int] = field(default_factory=dict)  # id(pod) -> its place in the snapshot's pods


def build_index(snapshot: Snapshot, previous: SnapshotIndex | None = None) -> SnapshotIndex:
    """The lookups of a snapshot; with the index of an earlier snapshot of the same informers, only
    the pods that are not the same objects as then are placed (see the module's docstring)."""
    index = SnapshotIndex()
    pods = as_list(snapshot.pods)
    index.pod_order = dict(zip(map(id, pods), range(len(pods)), strict=True))  # shorter: an object twice
    if previous is None or not _place_changed_pods(index, pods, previous):
        index.pod_order = index.pod_order if len(index.pod_order) == len(pods) else {}
        _place_all_pods(index, pods)
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


def _place_all_pods(index: SnapshotIndex, pods: list) -> None:
    for pod in pods:
        place = index.pod_places[id(pod)] = (pod, *_pod_place(pod))
        _file_pod(index.pods_by_job, index.warmup_pods, place)


def _file_pod(by_job: dict, warmup: dict, place: tuple[dict, str, int]) -> None:
    pod, job, position = place
    if position == WARMUP:
        warmup.setdefault(job, []).append(pod)
    elif position >= 0:
        by_job.setdefault(job, {}).setdefault(position, []).append(pod)


def _place_changed_pods(index: SnapshotIndex, pods: list, previous: SnapshotIndex) -> bool:
    """Place the pods that came or went since `previous` and rebuild the tables of their Jobs only;
    False (nothing done) when that cannot give what a build from nothing gives: the same object
    twice in the list, or pods that stayed but are in another order than before."""
    order, before = index.pod_order, previous.pod_order
    if not before or len(order) != len(pods):
        return False
    if list(filter(order.__contains__, before)) != list(filter(before.__contains__, order)):
        return False
    gone, new = before.keys() - order.keys(), order.keys() - before.keys()
    places = index.pod_places = dict(previous.pod_places)
    touched = {places.pop(key)[1] for key in gone}
    for key in new:
        pod = pods[order[key]]
        places[key] = (pod, *_pod_place(pod))
        touched.add(places[key][1])
    index.pods_by_job, index.warmup_pods = dict(previous.pods_by_job), dict(previous.warmup_pods)
    # The touched Jobs' tables are made anew (an old table is never changed: an older projection holds
    # it), from their pods that stayed and those that came, in the snapshot's order.
    stayed = [id(pod) for job in touched for each in previous.pods_by_job.get(job, {}).values() for pod in each]
    stayed += [id(pod) for job in touched for pod in previous.warmup_pods.get(job, ())]
    keys = sorted([key for key in stayed if key in order] + [key for key in new if places[key][1] in touched],
                  key=order.__getitem__)
    for job in touched:
        index.pods_by_job.pop(job, None)
        index.warmup_pods.pop(job, None)
    by_job: dict = {}
    warmup: dict = {}
    for key in keys:
        _file_pod(by_job, warmup, places[key])
    index.pods_by_job.update(by_job)
    index.warmup_pods.update(warmup)
    return True


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
