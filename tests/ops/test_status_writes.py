"""Status records written safely: one writer (a Lease), resourceVersion on every patch, only our records."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import timezone

from campaigns.cluster import reading, sources, status_lease, status_records, writes
from campaigns.domain.projection import project
from tests.campaigns.cluster.test_kube import NS, campaign_job, campaign_record, workload
from tests.fixtures.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent.parent
NAME = "raced"
RECORD = f"campaign-{NAME}-status"
UID = "6f3c2b9e-8d41-4a57-b0e2-1c9a7d5e3f80"
VOLUMES = 30


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0
    settings.HTRFLOW_KUBE_TIMEOUT = 2.0
    settings.HTRFLOW_WRITE_STATUS = True
    kube_module_reset()
    yield kube
    kube_module_reset()


def kube_module_reset():
    reading.clear_cache()
    status_records.forget()


def put_campaign(double, done: int, *, finished: bool = False):
    completed = f"0-{done - 1}" if done else ""
    job = campaign_job(NAME, UID, volumes=VOLUMES, completed=completed, active=0 if finished else 2)
    if finished:
        job["status"]["completionTime"] = "2026-09-24T09:00:00Z"
        job["status"]["conditions"] = [
            {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": "2026-09-24T09:00:00Z"},
            {"type": "Complete", "status": "True", "lastTransitionTime": "2026-09-24T09:00:00Z"},
        ]
    double.put(job)
    double.put(campaign_record(NAME, [f"V{i:03d}" for i in range(VOLUMES)]))
    double.put(workload(NAME, UID))


def read():
    """A fresh snapshot read with one list per source (no board: the board would write by itself)."""
    from campaigns.cluster.board import Reading

    snapshot = sources.fetch_snapshot(NS)
    return Reading(NS, snapshot), project(snapshot, timezone.now())


def write_now():
    """One write pass from a fresh snapshot (each snapshot is written from once)."""
    return status_records.keep_current(*read())


def stored(double):
    return double.get("v1", "ConfigMap", NS, RECORD)


def planted(data):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": RECORD,
            "namespace": NS,
            "labels": {"htrflow.riksarkivet.se/kind": "status", "htrflow.riksarkivet.se/managed-by": "converter"},
        },
        "data": data,
    }


# --- provenance ---------------------------------------------------------------------------------


def test_a_new_record_carries_our_provenance_and_the_writer_holds_the_lease(cluster):
    put_campaign(cluster, 3)
    assert write_now() == 1
    record = stored(cluster)
    assert record["data"]["volumesDone"] == "3"
    assert status_records.is_ours(record)
    lease = cluster.get("coordination.k8s.io/v1", "Lease", NS, status_lease.LEASE_NAME)
    assert lease["spec"]["holderIdentity"].endswith(f"-{os.getpid()}")


def test_a_planted_record_with_the_live_jobs_uid_is_reported_once_and_never_merged(cluster, caplog):
    put_campaign(cluster, 5)
    cluster.put(planted({"phase": "Failed", "volumesDone": "0", "jobUid": UID}))
    before = stored(cluster)
    caplog.set_level(logging.WARNING, logger="campaigns.cluster.status_records")
    assert write_now() == 0
    assert write_now() == 0
    after = stored(cluster)
    assert after["data"] == before["data"]
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert not [method for method, path, _ in cluster.calls if method in ("PATCH", "PUT") and "configmaps" in path]
    assert status_records.foreign_records(NS) == {RECORD}
    warnings = [r for r in caplog.records if "not written by this site" in r.getMessage()]
    assert len(warnings) == 1


def test_our_record_is_patched_with_the_resource_version_it_was_read_at(cluster):
    put_campaign(cluster, 2)
    write_now()
    put_campaign(cluster, 4)
    write_now()
    patches = [
        query for method, path, query in cluster.calls if method == "PATCH" and path.endswith(RECORD)
    ]
    assert len(patches) == 1
    assert stored(cluster)["data"]["volumesDone"] == "4"


def test_a_conflict_is_never_overwritten_and_the_next_reading_writes_from_the_newer_record(cluster):
    put_campaign(cluster, 2)
    write_now()
    put_campaign(cluster, 6)
    status_records.forget()
    reading, campaigns = read()
    # Another writer changes the record after this snapshot was read: this one's patch must not win blindly.
    cluster.patch("v1", "ConfigMap", NS, RECORD, {"data": {"resultsBase": "https://elsewhere.example/results"}})
    cluster.reset_calls()
    assert status_records.keep_current(reading, campaigns) == 0
    conflicts = [c for c in cluster.calls if c[0] == "PATCH" and c[1].endswith(RECORD)]
    assert len(conflicts) == 1  # refused (409) at the version it was worked out from
    assert stored(cluster)["data"]["volumesDone"] == "2"
    status_records.forget()
    assert write_now() == 1  # the next reading holds the newer record and writes from it
    data = stored(cluster)["data"]
    assert data["volumesDone"] == "6"


def test_a_snapshot_older_than_the_record_does_not_move_it_backwards(cluster):
    put_campaign(cluster, 2)
    status_records.forget()
    old_reading, old_campaigns = read()  # done = 2
    put_campaign(cluster, 9)
    write_now()  # the record now says 9
    assert status_records.keep_current(old_reading, old_campaigns) == 0
    assert stored(cluster)["data"]["volumesDone"] == "9"


# --- one writer ---------------------------------------------------------------------------------


def lease_held_by(double, holder, seconds=30):
    double.put(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": status_lease.LEASE_NAME, "namespace": NS},
            "spec": {
                "holderIdentity": holder,
                "leaseDurationSeconds": seconds,
                "renewTime": "2026-12-02T10:00:00.000000Z",
            },
        }
    )


def test_while_another_process_holds_the_lease_nothing_is_written(cluster):
    put_campaign(cluster, 3)
    lease_held_by(cluster, "other-pod-7")
    assert write_now() == 0
    assert stored(cluster) is None


def test_a_lease_left_unrenewed_for_its_duration_is_taken_over(cluster, monkeypatch):
    lease_held_by(cluster, "gone-pod-7", seconds=30)
    clock = [1000.0]
    monkeypatch.setattr(status_lease.time, "monotonic", lambda: clock[0])
    assert status_lease.hold(NS, identity="me-1") is False
    clock[0] += 31  # the holder's record has not changed for longer than its lease
    assert status_lease.hold(NS, identity="me-1") is True
    lease = cluster.get("coordination.k8s.io/v1", "Lease", NS, status_lease.LEASE_NAME)
    assert lease["spec"]["holderIdentity"] == "me-1"
    assert lease["spec"]["leaseTransitions"] == 1


def test_of_two_processes_taking_a_free_lease_one_wins(cluster):
    assert status_lease.hold(NS, identity="first-1") is True
    status_lease.forget()  # a second process: it has seen nothing yet
    assert status_lease.hold(NS, identity="second-2") is False
    lease = cluster.get("coordination.k8s.io/v1", "Lease", NS, status_lease.LEASE_NAME)
    assert lease["spec"]["holderIdentity"] == "first-1"


def test_an_update_with_an_old_resource_version_answers_conflict(cluster):
    status_lease.hold(NS, identity="first-1")
    lease = cluster.get("coordination.k8s.io/v1", "Lease", NS, status_lease.LEASE_NAME)
    cluster.patch("coordination.k8s.io/v1", "Lease", NS, status_lease.LEASE_NAME, {"spec": {"holderIdentity": "x"}})
    with pytest.raises(writes.Conflict):
        writes.update_lease(NS, status_lease.LEASE_NAME, lease)


# --- two processes racing -------------------------------------------------------------------------


def test_two_processes_racing_on_one_record_never_move_it_backwards(cluster, tmp_path, monkeypatch):
    put_campaign(cluster, 1)
    versions = []
    original = cluster._store

    def recording(resource, obj, existing):
        if resource.plural == "configmaps" and obj["metadata"]["name"] == RECORD:
            versions.append(dict(obj.get("data") or {}))
        return original(resource, obj, existing)

    monkeypatch.setattr(cluster, "_store", recording)
    stop = tmp_path / "stop"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "KUBECONFIG": str(cluster.kubeconfig_path),
        "HTRFLOW_NAMESPACES": NS,
        "HTRFLOW_RESULTS_NAMESPACE": NS,
        "HTRFLOW_SNAPSHOT_SECONDS": "0",
        "HTRFLOW_WRITE_STATUS": "true",
    }
    writers = [  # a quick writer and a slow one, whose snapshots are often older than the record
        subprocess.Popen([sys.executable, "-m", "tests.ops.race_writer", str(stop), *pause], cwd=ROOT, env=env)
        for pause in (("0", "0.05"), ("0.5", "0.9"))
    ]
    try:
        wait_until(lambda: versions, timeout=30, what="the writers to start and write the record")
        for done in range(2, VOLUMES + 1):
            put_campaign(cluster, done, finished=done == VOLUMES)
            # Each change reaches the record (the quick writer's) before the next is made, while the slow
            # writer keeps writing from older snapshots.
            wait_until(
                lambda done=done: any(v.get("volumesDone") == str(done) for v in versions),
                what=f"{done} volumes done written",
            )
        stop.write_text("stop")
        for writer in writers:
            assert writer.wait(timeout=60) == 0
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
    done_counts = [int(v["volumesDone"]) for v in versions if v.get("volumesDone")]
    phases = [v.get("phase") for v in versions]
    assert len(versions) >= 3, "the racing writers wrote too little to test anything"
    assert done_counts == sorted(done_counts)
    assert done_counts[-1] == VOLUMES
    if "Succeeded" in phases:
        assert all(p == "Succeeded" for p in phases[phases.index("Succeeded") :])
    assert phases[-1] == "Succeeded"
