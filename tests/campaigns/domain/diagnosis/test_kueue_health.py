"""Kueue's own controller: down, missing, running, or not readable (said as such, never as running)."""

from __future__ import annotations

from datetime import UTC, datetime

from campaigns.domain.diagnosis.kueue_health import KueueHealth, kueue_health
from campaigns.models.findings import EQUAL, OPERATOR, Check, Command, Fact, Finding, Subject
from tests.campaigns.domain.diagnosis import samples as s

DEPLOYMENT = "Deployment/kueue-system/kueue-controller-manager"
POD = "Pod/kueue-system/kueue-controller-manager-6c9f8d7b5d-x2k4p"
SITE = Subject("site", "htr-batch")


def _crashlooping() -> tuple[list[dict], list[dict]]:
    """kueue-system once its controller crashloops: the Deployment unavailable, the pod in CrashLoopBackOff."""
    deployments, pods = s.kueue_objects()
    status = deployments[0]["status"]
    del status["readyReplicas"], status["availableReplicas"]
    status["unavailableReplicas"] = 1
    status["conditions"][0].update(
        status="False",
        reason="MinimumReplicasUnavailable",
        message="Deployment does not have minimum availability.",
        lastTransitionTime="2026-09-24T08:02:11Z",
    )
    pod_status = pods[0]["status"]
    pod_status["conditions"][1].update(
        status="False", reason="ContainersNotReady", lastTransitionTime="2026-09-24T08:01:40Z"
    )
    pod_status["containerStatuses"][0].update(
        ready=False,
        started=False,
        restartCount=14,
        state={
            "waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=manager"}
        },
        lastState={"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2026-09-24T08:55:02Z"}},
    )
    return deployments, pods


def test_kueue_down_names_the_crashlooping_pod_its_restarts_and_since_when():
    deployments, pods = _crashlooping()

    health = kueue_health("htr-batch", "kueue-system", deployments, pods)

    since = datetime(2026, 9, 24, 8, 1, 40, tzinfo=UTC)
    assert health == KueueHealth(
        finding=Finding(
            code="kueue.down",
            subject=SITE,
            actor=OPERATOR,
            values=(
                ("deployment", "kueue-controller-manager"),
                ("kueue_namespace", "kueue-system"),
                ("pods", (("kueue-controller-manager-6c9f8d7b5d-x2k4p", "manager", "CrashLoopBackOff", 14, since),)),
                ("ready_replicas", 0),
                ("replicas", 1),
                ("restarts", 14),
            ),
            evidence=(
                Fact(DEPLOYMENT, "status.conditions[Available].status", "False"),
                Fact(DEPLOYMENT, "status.readyReplicas", 0),
                Fact(DEPLOYMENT, "spec.replicas", 1),
                Fact(
                    DEPLOYMENT, "status.conditions[Available].message", "Deployment does not have minimum availability."
                ),
                Fact(POD, "status.containerStatuses[manager].state.waiting.reason", "CrashLoopBackOff"),
                Fact(POD, "status.containerStatuses[manager].restartCount", 14),
            ),
            fix=(
                Command(
                    "kueue.logs",
                    ("kubectl", "-n", "kueue-system", "logs", "deploy/kueue-controller-manager", "--tail=100"),
                ),
                Command(
                    "kueue.restart",
                    ("kubectl", "-n", "kueue-system", "rollout", "restart", "deployment/kueue-controller-manager"),
                ),
            ),
            since=since,
        )
    )


def test_kueue_missing_when_its_namespace_holds_no_controller():
    health = kueue_health("htr-batch", "kueue-system", [], [])

    assert health == KueueHealth(
        finding=Finding(
            code="kueue.missing",
            subject=SITE,
            values=(
                ("deployment", "kueue-controller-manager"),
                ("deployments", ()),
                ("kueue_namespace", "kueue-system"),
            ),
            evidence=(Fact("Namespace/kueue-system", "deployments", ()),),
            fix=(
                Command("inspect.kueue", ("kubectl", "-n", "kueue-system", "get", "deployments,pods")),
                Command(
                    "inspect.kueue_anywhere",
                    ("kubectl", "get", "deployments", "-A", "-l", "control-plane=controller-manager"),
                ),
            ),
        )
    )


def test_kueue_running_is_a_check_and_not_readable_is_said_as_such():
    deployments, pods = s.kueue_objects()

    assert kueue_health("htr-batch", "kueue-system", deployments, pods) == KueueHealth(
        checks=(
            Check(
                "kueue_running",
                EQUAL,
                (
                    Fact(DEPLOYMENT, "status.conditions[Available].status", "True"),
                    Fact(DEPLOYMENT, "status.readyReplicas", 1),
                    Fact(DEPLOYMENT, "spec.replicas", 1),
                    Fact(DEPLOYMENT, "status.conditions[Available].message", "Deployment has minimum availability."),
                ),
            ),
        )
    )
    assert kueue_health("htr-batch", "kueue-system", None, None) == KueueHealth(
        not_read=(
            Fact(DEPLOYMENT, "status", "not_readable"),
            Fact("Pod/kueue-system/kueue-controller-manager-*", "control-plane=controller-manager", "not_readable"),
        )
    )
