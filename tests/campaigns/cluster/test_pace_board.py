"""The board keeps pace across readings and restarts, through the real client against the API double.

The board hangs each campaign's pace on it after every projection; the Lease holder writes the
timeline into the first part's status record (key ``pace``); a process started later (the boards
stopped, as a restart does) begins from that record, and a campaign whose Job was reaped keeps it.
"""

from __future__ import annotations

import json

import pytest

from campaigns.cluster import board, status_records
from tests.campaigns.cluster.test_kube import NS, campaign_job, campaign_record, workload
from tests.fixtures.waiting import wait_until

NAME = "paced"
UID = "0b6c9d2e-5f14-4a8b-9c3d-7e2f1a0b4c55"
RECORD = f"campaign-{NAME}-status"


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_KUBE_TIMEOUT = 3.0
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.05
    settings.HTRFLOW_WRITE_STATUS = True
    kube.bookmark_seconds = 0.1
    board.stop_all()
    status_records.forget()
    yield kube
    board.stop_all()
    status_records.forget()


def put_job(double, done: int):
    job = campaign_job(NAME, UID, volumes=20, completed=f"0-{done - 1}" if done else "", active=2)
    double.put(job)
    return job


def stored_points(double) -> list:
    record = double.get("v1", "ConfigMap", NS, RECORD) or {}
    text = (record.get("data") or {}).get("pace")
    return json.loads(text)["points"] if text else []


def test_the_timeline_is_written_to_the_status_record_and_a_restarted_board_starts_from_it(cluster):
    double = cluster
    put_job(double, 3)
    double.put(campaign_record(NAME, [f"P{i:02d}" for i in range(20)]))
    double.put(workload(NAME, UID))
    first = board.settle(NS).find(NAME)
    assert first.pace is not None and first.pace.timeline.finished == 3
    assert wait_until(lambda: [p[1] for p in stored_points(double)] == [3], what="the point 3 stored")
    put_job(double, 5)
    assert wait_until(lambda: [p[1] for p in stored_points(double)] == [3, 5], what="the points 3 and 5 stored")
    kept = stored_points(double)

    board.stop_all()  # a restart: nothing in memory, only what the record kept
    again = board.settle(NS).find(NAME)
    assert [[int(p.at.timestamp()), p.finished] for p in again.pace.timeline.points] == kept
    assert again.pace.pace.since_start is not None  # the Job started months ago: a pace, however slow

    double.delete("batch/v1", "Job", NS, NAME)  # reaped by its TTL: the records stay
    gone = wait_until(
        lambda: next((c for c in board.settle(NS).campaigns if c.name == NAME and c.job_gone), None),
        what="the campaign shown with its Job gone",
    )
    assert [p.finished for p in gone.pace.timeline.points] == [3, 5]
    assert gone.pace.forecast is None and not gone.stalled
