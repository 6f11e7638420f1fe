"""A volume's attempts from the snapshot's pods (campaigns/domain/projection/attempts.py): its own Job and
completion index only, oldest first, with node, times, how each ended and why a failed one stopped."""

from __future__ import annotations

from datetime import UTC, datetime

from campaigns.domain.projection.attempts import FAILED, RUNNING, volume_attempts
from campaigns.models import Volume
from tests.campaigns.cluster.test_kube import campaign_pod


def pod(job, index, phase, started, *, name, node="gpu-node-01", ended=None, message=""):
    made = campaign_pod(job, index, phase=phase)
    made["metadata"]["name"] = name
    made["spec"]["nodeName"] = node
    made["status"]["startTime"] = started
    if ended:
        terminated = {"exitCode": 1, "reason": "Error", "finishedAt": ended, "message": message}
        made["status"]["containerStatuses"] = [{"name": "wrapper", "state": {"terminated": terminated}}]
    return made


def test_the_attempts_are_the_volume_s_own_pods_oldest_first():
    volume = Volume(index=2, id="C3", job="parish", namespace="htr-batch", pipeline="swe-lines-v2")
    pods = [
        pod("parish", 2, "Running", "2026-09-24T09:00:00Z", name="parish-2-b", node="gpu-node-02"),
        pod("parish", 2, "Failed", "2026-09-24T08:00:00Z", name="parish-2-a", ended="2026-09-24T08:30:00Z",
            message="transient failure in stream: page 0005: upload failed"),
        pod("parish", 1, "Running", "2026-09-24T08:00:00Z", name="parish-1-a"),  # another volume
        pod("other", 2, "Running", "2026-09-24T08:00:00Z", name="other-2-a"),  # another Job
    ]
    attempts = volume_attempts(pods, volume)
    assert [a.pod for a in attempts] == ["parish-2-a", "parish-2-b"]
    first, second = attempts
    assert first.outcome == FAILED and first.ended_at == datetime(2026, 9, 24, 8, 30, tzinfo=UTC)
    assert first.reason is not None and first.reason.pod_name == "parish-2-a"
    assert second.outcome == RUNNING and second.node == "gpu-node-02" and second.ended_at is None
    assert second.started_at == datetime(2026, 9, 24, 9, 0, tzinfo=UTC)
