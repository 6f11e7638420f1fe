"""The marker wait limit, read from the objects (never fixed text), and the pods waiting in warmup-wait."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from campaigns.domain.diagnosis.wait import WaitingPod, WaitLimit, wait_limit, waiting_finding, waiting_pods
from campaigns.models.findings import NOBODY, Fact, Finding, Subject
from tests.campaigns.domain.diagnosis import samples as s

WAIT = "spec.template.spec.initContainers[warmup-wait]"
EXIT13 = (
    "no warm-up marker at /data/warmup/swe-lines-v3.done after 1200s: the pipeline's warm-up Job has not finished\n"
)


def _wait_container(job: dict) -> dict:
    return job["spec"]["template"]["spec"]["initContainers"][0]


def test_wait_limit_from_the_warmup_wait_script():
    assert wait_limit(s.campaign_job()) == WaitLimit(
        900, "command", Fact("Job/court-rolls-1650", f"{WAIT}.command", "-le 900")
    )


def test_wait_limit_from_the_script_in_args_and_from_the_env_it_names():
    job = s.campaign_job()
    wait = _wait_container(job)
    script = wait["command"].pop()
    wait["args"] = [script.replace("900", "1800")]
    assert wait_limit(job) == WaitLimit(1800, "args", Fact("Job/court-rolls-1650", f"{WAIT}.args", "-le 1800"))

    wait["args"] = [script.replace("-le 900 ]", '-le "$WARMUP_WAIT_SECONDS" ]')]
    wait["env"] = [{"name": "WARMUP_WAIT_SECONDS", "value": "2700"}]
    assert wait_limit(job) == WaitLimit(
        2700, "env", Fact("Job/court-rolls-1650", f"{WAIT}.env[WARMUP_WAIT_SECONDS]", "2700")
    )


def test_wait_limit_from_the_exit13_line_then_the_default():
    job = s.campaign_job()
    del job["spec"]["template"]["spec"]["initContainers"]
    messages = [("court-rolls-1650-2-7hq4z", EXIT13)]

    assert wait_limit(job, messages) == WaitLimit(
        1200,
        "message",
        Fact(
            "Pod/court-rolls-1650-2-7hq4z",
            "status.initContainerStatuses[warmup-wait].state.terminated.message",
            "no warm-up marker at /data/warmup/swe-lines-v3.done after 1200s",
        ),
    )
    assert wait_limit(job) == WaitLimit(900, "default")
    assert wait_limit(None, [("p", "a pod said something else")]) == WaitLimit(900, "default")


def _waiting_pod(name: str, index: str, started: str) -> dict:
    """The exit-13 sample as it read while its warmup-wait was still waiting (Init:0/1)."""
    pod = copy.deepcopy(s.gave_up_pod())
    pod["metadata"]["name"] = name
    pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] = index
    pod["status"]["phase"] = "Pending"
    pod["status"]["initContainerStatuses"][0]["state"] = {"running": {"startedAt": started}}
    pod["status"]["initContainerStatuses"][0]["started"] = True
    return pod


def test_warmup_waiting_says_since_when_each_pod_waits_and_when_it_gives_up():
    job = s.campaign_job()
    _wait_container(job)["command"][2] = _wait_container(job)["command"][2].replace("900", "1800")
    pods = [
        _waiting_pod("court-rolls-1650-3-k2j9d", "3", "2026-09-24T06:21:00Z"),
        _waiting_pod("court-rolls-1650-2-7hq4z", "2", "2026-09-24T06:20:13Z"),
        s.gave_up_pod(),
    ]
    limit = wait_limit(job)

    finding = waiting_finding("htr-batch", "court-rolls-1650", job, pods, limit)

    first, second = datetime(2026, 9, 24, 6, 20, 13, tzinfo=UTC), datetime(2026, 9, 24, 6, 21, tzinfo=UTC)
    first_end, second_end = datetime(2026, 9, 24, 6, 50, 13, tzinfo=UTC), datetime(2026, 9, 24, 6, 51, tzinfo=UTC)
    assert waiting_pods(pods, limit) == (
        WaitingPod("court-rolls-1650-2-7hq4z", 2, "gpu-node-01", first, first_end),
        WaitingPod("court-rolls-1650-3-k2j9d", 3, "gpu-node-01", second, second_end),
    )
    started = "status.initContainerStatuses[warmup-wait].state.running.startedAt"
    assert finding == Finding(
        code="warmup.waiting",
        subject=Subject("campaign", "htr-batch", campaign="court-rolls-1650"),
        actor=NOBODY,
        values=(
            ("first_gives_up_at", first_end),
            ("job", "court-rolls-1650"),
            ("limit_seconds", 1800),
            ("limit_source", "command"),
            ("pods", 2),
            (
                "waiting",
                (
                    ("court-rolls-1650-2-7hq4z", 2, "gpu-node-01", first, first_end),
                    ("court-rolls-1650-3-k2j9d", 3, "gpu-node-01", second, second_end),
                ),
            ),
        ),
        evidence=(
            Fact("Job/court-rolls-1650", f"{WAIT}.command", "-le 1800"),
            Fact("Pod/court-rolls-1650-2-7hq4z", started, first),
            Fact("Pod/court-rolls-1650-3-k2j9d", started, second),
        ),
        since=first,
    )
    assert waiting_finding("htr-batch", "court-rolls-1650", job, [s.gave_up_pod()], limit) is None
