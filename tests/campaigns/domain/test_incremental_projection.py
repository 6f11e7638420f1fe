"""campaigns.domain.projection.incremental: projecting again by what changed equals projecting all.

A property test: from the sample namespace (a running campaign, a queued one, one stuck on a failed
warm-up, a gone one) plus a split campaign, a second queued campaign behind the first and a fresh
one Kueue has not looked at yet, random sequences of changes are applied the way the informers
apply them (a changed object is a new dict, an unchanged one the same), with the clock moving on
or not. After every step the incremental answer must equal a full projection: the same campaigns,
in the same order, field by field, every volume, and the same sentences worded from them.
"""

from __future__ import annotations

import copy
import random
from datetime import timedelta

import pytest

from campaigns.domain.projection import project, project_again
from campaigns.domain.projection.index import build_index
from campaigns.domain.projection.queue import counts_time
from campaigns.models import Snapshot
from campaigns.wording.states import campaign_sentence
from campaigns.wording.volumes import volume_sentence
from devstack import kube_samples as o
from devstack.scene_kube import event, iso

FIELDS = (
    "jobs",
    "warmup_jobs",
    "records",
    "status_records",
    "pipelines",
    "workloads",
    "pods",
    "local_queues",
    "cluster_queues",
    "events",
)
SPLIT_UID = "5b6c7d8e-9fa0-4b1c-8d2e-3f4a5b6c7d8e"
LATE_UID = "6c7d8e9f-a0b1-4c2d-9e3f-4a5b6c7d8e9f"
FRESH_UID = "7d8e9fa0-b1c2-4d3e-8f4a-5b6c7d8e9fa0"
FIRST_UID = "8e9fa0b1-c2d3-4e4f-9a5b-6c7d8e9fa0b1"


def _key(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name") or ""


class World:
    """The namespace as the informers hold it: per list, name -> object, in arrival order."""

    def __init__(self, snapshot: Snapshot, now):
        self.lists = {name: {_key(obj): obj for obj in getattr(snapshot, name) or []} for name in FIELDS}
        self.unreadable: set[str] = set()
        self.priority_classes = list(snapshot.priority_classes or [])
        self.now = now

    def snapshot(self) -> Snapshot:
        lists = {
            name: (None if name in self.unreadable else list(objects.values())) for name, objects in self.lists.items()
        }
        lists["events"] = lists["events"] or []
        classes = None if "priority_classes" in self.unreadable else list(self.priority_classes)
        return Snapshot(namespace=o.NS, priority_classes=classes, read_at=self.now, **lists)

    def put(self, name: str, obj: dict) -> None:
        self.lists[name][_key(obj)] = obj

    def changed(self, name: str, rng: random.Random) -> tuple[str, dict] | None:
        """A copy of one object of a list, to change and put back (an informer never edits in place)."""
        if not self.lists[name]:
            return None
        key = rng.choice(sorted(self.lists[name]))
        return key, copy.deepcopy(self.lists[name][key])


def start() -> World:
    snapshot = o.scene()
    now = o.NOW
    world = World(snapshot, now)
    split = [
        o.campaign_job(
            f"poll-tax-1810-part{n}",
            f"{SPLIT_UID[:-1]}{n}",
            campaign="poll-tax-1810",
            completed="0-2",
            failed="3" if n == 1 else "",
            active=2,
            start_time="2026-09-24T08:00:00Z",
        )
        for n in (1, 2)
    ]
    late = o.campaign_job(
        "land-survey-1900",
        LATE_UID,
        suspend=True,
        created="2026-09-24T08:45:00Z",
        conditions=[o.cond("Suspended", "True", "JobSuspended", "Job suspended")],
    )
    fresh = o.campaign_job(
        "tax-rolls-1910",
        FRESH_UID,
        suspend=True,
        priority_class="htr-bulk",
        created=iso(now - timedelta(minutes=2)),
        conditions=[o.cond("Suspended", "True", "JobSuspended", "Job suspended")],
    )
    for job in [*split, late, fresh]:
        world.put("jobs", job)
        world.put("records", o.campaign_record(_key(job)))
    world.put(
        "workloads",
        o.workload(
            "land-survey-1900",
            LATE_UID,
            suffix="5d1e0",
            created="2026-09-24T08:45:01Z",
            template=False,
            conditions=[o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE)],
        ),
    )
    world.put("pods", o.campaign_pod("poll-tax-1810-part1", 4, suffix="pt4aa", uid=f"{SPLIT_UID[:-1]}1"))
    # First in line (the highest priority) in a queue with room: waiting now, waiting too long in a minute.
    first_in_line = o.campaign_job(
        "deed-index-1920",
        FIRST_UID,
        suspend=True,
        created=iso(now - timedelta(minutes=2)),
        conditions=[o.cond("Suspended", "True", "JobSuspended", "Job suspended")],
    )
    world.put("jobs", first_in_line)
    world.put("records", o.campaign_record("deed-index-1920"))
    asked = iso(now - timedelta(minutes=2))
    world.put(
        "workloads",
        o.workload(
            "deed-index-1920",
            FIRST_UID,
            suffix="1f1f1",
            priority=1000,
            created=asked,
            template=False,
            conditions=[o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE, at=asked)],
        ),
    )
    world.put("cluster_queues", o.cluster_queue(used=("0", "0Gi", "0")))
    return world


# --- the changes ----------------------------------------------------------------------------------


def change_pod(world: World, rng: random.Random) -> None:
    roll = rng.random()
    if roll < 0.3 and world.lists["pods"]:
        del world.lists["pods"][rng.choice(sorted(world.lists["pods"]))]
        return
    if roll < 0.6:
        job = rng.choice(sorted(world.lists["jobs"]) or ["parish-records-1870"])
        index = rng.randrange(0, 12)
        kind = rng.choice(["running", "failed", "waiting"])
        suffix = f"r{rng.randrange(10**6):06d}"
        if kind == "failed":
            message = o.wrapper_message(rng.choice(["setup", "stream"]), rng.random() < 0.5, "it broke")
            pod = o.failed_wrapper_pod(job, index, message, suffix=suffix, failure_count=rng.randrange(3))
        elif kind == "waiting":
            pod = o.campaign_pod(
                job,
                index,
                suffix=suffix,
                phase="Pending",
                init={"state": {"running": {"startedAt": "2026-09-24T08:50:00Z"}}},
                wrapper={"state": {"waiting": {"reason": "PodInitializing"}}},
            )
        else:
            pod = o.campaign_pod(job, index, suffix=suffix, failure_count=rng.randrange(3))
        world.put("pods", pod)
        return
    found = world.changed("pods", rng)
    if found:
        _, pod = found
        pod["status"]["phase"] = rng.choice(["Running", "Failed", "Pending"])
        world.put("pods", pod)


def change_job(world: World, rng: random.Random) -> None:
    found = world.changed("jobs", rng)
    if found is None:
        return
    key, job = found
    roll = rng.random()
    if roll < 0.1:
        del world.lists["jobs"][key]  # gone: its records speak for it from now on
        return
    status = job.setdefault("status", {})
    if roll < 0.4:
        done = sorted(set(rng.sample(range(12), rng.randrange(0, 12))))
        status["completedIndexes"] = ",".join(str(i) for i in done)
    elif roll < 0.55:
        status["failedIndexes"] = rng.choice(["", "4", "4,9", "1-2"])
    elif roll < 0.7:
        suspended = not job["spec"].get("suspend")
        job["spec"]["suspend"] = suspended
        status["conditions"] = [o.cond("Suspended", "True" if suspended else "False", "JobSuspended")]
    elif roll < 0.8:
        status["conditions"] = [o.cond("Complete", at="2026-09-24T08:55:00Z")]
        status["completionTime"] = "2026-09-24T08:55:00Z"
    else:
        status["active"] = rng.randrange(0, 5)
    world.put("jobs", job)


def change_workload(world: World, rng: random.Random) -> None:
    found = world.changed("workloads", rng)
    if found is None:
        return
    key, workload = found
    roll = rng.random()
    if roll < 0.15:
        del world.lists["workloads"][key]
        return
    if roll < 0.4:
        workload["status"]["conditions"] = [
            o.cond("QuotaReserved", reason="QuotaReserved", message="Quota reserved"),
            o.cond("Admitted", reason="Admitted", message="The workload is admitted"),
        ]
        workload["status"]["admission"] = {"clusterQueue": o.CLUSTER_QUEUE}
    elif roll < 0.6:
        workload["status"] = {"conditions": [o.cond("QuotaReserved", "False", "Pending", o.PENDING_MESSAGE)]}
    elif roll < 0.7:
        workload["status"] = {}
    elif roll < 0.85:
        workload["spec"]["priority"] = rng.choice([-10, 0, 1000])
    else:
        workload["spec"]["active"] = rng.random() < 0.5
    world.put("workloads", workload)


def change_queues(world: World, rng: random.Random) -> None:
    roll = rng.random()
    if roll < 0.2:
        world.unreadable ^= {rng.choice(["cluster_queues", "local_queues", "priority_classes"])}
    elif roll < 0.5:
        found = world.changed("cluster_queues", rng)
        if found:
            _, queue = found
            queue["status"]["pendingWorkloads"] = rng.randrange(4)
            for flavor in queue["status"].get("flavorsReservation") or []:
                for resource in flavor.get("resources") or []:
                    if resource.get("name") == "nvidia.com/gpu":
                        resource["total"] = str(rng.randrange(5))
            world.put("cluster_queues", queue)
    elif roll < 0.65:
        world.put("cluster_queues", o.cluster_queue(active=rng.random() < 0.7, gpu=rng.choice(["2", "4", "8"])))
    elif roll < 0.8:
        if world.lists["local_queues"]:
            world.lists["local_queues"].clear()
        else:
            world.put("local_queues", o.local_queue())
    elif "htr-bulk" in world.priority_classes:
        world.priority_classes.remove("htr-bulk")
    else:
        world.priority_classes.append("htr-bulk")


def change_event(world: World, rng: random.Random) -> None:
    if world.lists["events"] and rng.random() < 0.4:
        world.lists["events"].clear()
        return
    job = world.lists["jobs"].get(rng.choice(sorted(world.lists["jobs"]) or ["none"]))
    if job is not None:
        message = rng.choice(["workload priority class htr-bulk not found", "Created pod: x"])
        world.put("events", event(job, "CreatedWorkload", message, world.now, "kueue"))


def change_config_map(world: World, rng: random.Random) -> None:
    name = rng.choice(["records", "status_records", "pipelines"])
    found = world.changed(name, rng)
    if found is None:
        return
    key, config_map = found
    if rng.random() < 0.15:
        del world.lists[name][key]
        return
    data = config_map.setdefault("data", {})
    if name == "records":
        data["volumes.txt"] = o.volumes_txt([(f"V-{i}", f"https://iiif.example.se/v{i}") for i in range(12)])
    elif name == "status_records":
        data["volumesDone"] = str(rng.randrange(12))
        data["failedVolumes"] = rng.choice(['[{"id":"BOUPP-1871-05","reason":"manifest fetch failed"}]', "[]"])
        data["phase"] = rng.choice(["Running", "Succeeded", "Failed", "Partially failed"])
    else:
        data["pipeline.yaml"] = rng.choice([o.PIPELINE_YAML_V2, "steps: []\n", "not: [yaml"])
    world.put(name, config_map)


def change_warmup(world: World, rng: random.Random) -> None:
    pipeline = rng.choice([o.PIPELINE, o.PIPELINE_V3])
    state = rng.choice(["succeeded", "failed", "running", "pending"])
    world.put("warmup_jobs", o.warmup_job(pipeline, state=state))
    if state == "failed" and rng.random() < 0.5:
        world.put("pods", o.failed_warmup_pod(pipeline))


def add_status_record_of_a_gone_job(world: World, rng: random.Random) -> None:
    job = f"gone-{rng.randrange(3)}"
    data = {
        "phase": rng.choice(["Succeeded", "Failed"]),
        "volumesTotal": "3",
        "volumesDone": "2",
        "volumesFailed": "1",
        "jobUid": f"uid-{job}",
    }
    world.put("status_records", o.status_record(job, data))
    if rng.random() < 0.5:
        world.put("records", o.campaign_record(job, [("G-1", "https://g/1"), ("G-2", "https://g/2")]))


CHANGES = (
    change_pod,
    change_pod,
    change_job,
    change_workload,
    change_queues,
    change_event,
    change_config_map,
    change_warmup,
    add_status_record_of_a_gone_job,
)


# --- the property ---------------------------------------------------------------------------------


def assert_same_index(again, whole) -> None:
    """An index built from the previous one is the one built from nothing, in every table's order."""
    assert again == whole
    for job, table in whole.pods_by_job.items():
        assert list(again.pods_by_job[job].items()) == list(table.items()), job


@pytest.mark.parametrize("seed", range(12))
def test_projecting_again_equals_projecting_everything_at_every_step(seed):
    rng = random.Random(seed)
    world = start()
    previous = None
    reused = 0
    for _step in range(40):
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            rng.choice(CHANGES)(world, rng)
        if rng.random() < 0.5:
            world.now += timedelta(seconds=rng.choice([5, 30, 90, 240]))
        snapshot = world.snapshot()
        previous = project_again(snapshot, world.now, previous)
        everything = project(snapshot, world.now)
        assert [c.name for c in previous.campaigns] == [c.name for c in everything]
        assert previous.campaigns == everything
        assert_same_index(previous.index, build_index(snapshot))
        for again, whole in zip(previous.campaigns, everything, strict=True):
            assert campaign_sentence(again) == campaign_sentence(whole)
            assert [volume_sentence(v) for v in again.volumes] == [volume_sentence(v) for v in whole.volumes]
        reused += previous.reused
    assert reused > 0  # the property is not met by projecting everything every time


def test_a_campaign_is_reused_until_something_it_read_changes():
    world = start()
    first = project_again(world.snapshot(), world.now, None)
    again = project_again(world.snapshot(), world.now, first)
    by_name = {c.name: c for c in first.campaigns}
    time_bound = {c.name for c in first.campaigns if counts_time(c.queue)}
    assert time_bound  # the queued campaigns read the clock, so they are projected every time
    assert set(again.projected) == time_bound
    assert all(c is by_name[c.name] for c in again.campaigns if c.name not in time_bound)

    pod = copy.deepcopy(world.lists["pods"]["parish-records-1870-10-f10ff"])
    pod["status"]["phase"] = "Failed"
    world.put("pods", pod)
    changed = project_again(world.snapshot(), world.now, again)
    assert set(changed.projected) == time_bound | {"parish-records-1870"}


def test_what_a_queued_campaign_shares_with_others_projects_it_again():
    """A queued campaign reads the ClusterQueue it waits for, which no campaign owns: when the queue
    is made inactive and active again, the campaign behind it says so, although none of its own
    objects changed."""
    world = start()
    first = project_again(world.snapshot(), world.now, None)
    behind = next(c for c in first.campaigns if c.name == "land-survey-1900")
    assert behind.queue.kind == "waiting" and behind.queue.ahead == 2
    world.put("cluster_queues", o.cluster_queue(active=False))
    stopped = project_again(world.snapshot(), world.now, first)
    assert next(c for c in stopped.campaigns if c.name == "land-survey-1900").queue.kind == "inadmissible"
    world.put("cluster_queues", o.cluster_queue())
    again = project_again(world.snapshot(), world.now, stopped)
    assert "land-survey-1900" in again.projected  # inadmissible does not read the clock: the queue changed
    assert next(c for c in again.campaigns if c.name == "land-survey-1900").queue.kind == "waiting"
    assert again.campaigns == project(world.snapshot(), world.now)


def test_the_clock_alone_changes_what_a_fresh_campaign_says():
    world = start()
    first = project_again(world.snapshot(), world.now, None)
    fresh = next(c for c in first.campaigns if c.name == "tax-rolls-1910")
    assert fresh.queue.kind in ("no_workload_yet", "not_looked_at")
    world.now += timedelta(minutes=5)
    later = project_again(world.snapshot(), world.now, first)
    assert next(c for c in later.campaigns if c.name == "tax-rolls-1910").queue.kind == "kueue_silent"
    assert later.campaigns == project(world.snapshot(), world.now)


def test_the_clock_alone_finds_the_first_in_line_waiting_too_long():
    world = start()
    first = project_again(world.snapshot(), world.now, None)
    deed = next(c for c in first.campaigns if c.name == "deed-index-1920")
    assert deed.queue.kind == "waiting" and deed.queue.ahead == 0
    world.now += timedelta(minutes=2)
    later = project_again(world.snapshot(), world.now, first)
    assert next(c for c in later.campaigns if c.name == "deed-index-1920").queue.kind == "kueue_silent"
    assert later.campaigns == project(world.snapshot(), world.now)


def test_another_namespace_is_projected_afresh():
    world = start()
    first = project_again(world.snapshot(), world.now, None)
    first.namespace = "elsewhere"
    again = project_again(world.snapshot(), world.now, first)
    assert again.reused == 0


# --- the pod index --------------------------------------------------------------------------------


def test_the_pod_tables_of_jobs_whose_pods_stayed_are_the_very_tables_of_before():
    world = start()
    first = build_index(world.snapshot())
    pod = copy.deepcopy(world.lists["pods"]["parish-records-1870-10-f10ff"])
    pod["status"]["phase"] = "Failed"
    world.put("pods", pod)
    world.put("pods", o.campaign_pod("poll-tax-1810-part2", 5, suffix="new05", uid=f"{SPLIT_UID[:-1]}2"))
    again = build_index(world.snapshot(), first)
    assert_same_index(again, build_index(world.snapshot()))
    changed = {"parish-records-1870", "poll-tax-1810-part2"}
    assert changed <= set(first.pods_by_job) | {"poll-tax-1810-part2"}
    for job, table in again.pods_by_job.items():
        assert (table is first.pods_by_job.get(job)) == (job not in changed), job
    assert again.pods_by_job["parish-records-1870"][10] == [pod]
    assert first.pods_by_job["parish-records-1870"][10] != [pod]  # the older table was left as it was


def test_pods_in_another_order_or_one_pod_twice_are_placed_from_nothing():
    world = start()
    snapshot = world.snapshot()
    first = build_index(snapshot)
    shuffled = Snapshot(**{**vars(snapshot), "pods": list(reversed(snapshot.pods))})
    assert_same_index(build_index(shuffled, first), build_index(shuffled))
    twice = Snapshot(**{**vars(snapshot), "pods": [*snapshot.pods, snapshot.pods[0]]})
    doubled = build_index(twice, first)
    assert_same_index(doubled, build_index(twice))
    assert_same_index(build_index(snapshot, doubled), first)  # and the next one is placed from nothing too
