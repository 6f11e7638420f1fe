"""Whether Kueue's own controller runs (contracts §8), checked before any Workload reason: while it
is down no Workload condition changes and new Jobs get no Workload, so every reason it wrote is stale.

The controller is Deployment ``kueue-controller-manager`` in Kueue's namespace (``kueue-system`` unless
the installation chose another), its pods labelled ``control-plane=controller-manager``. Reading that
namespace is optional: what was not read is a ``not_read`` fact naming what would have been read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.commands import (
    KUEUE_CONTROLLER,
    kubectl,
    kueue_deployments,
    kueue_logs,
    kueue_restart,
)
from campaigns.domain.diagnosis.objects import (
    NOT_READABLE,
    as_int,
    as_list,
    as_str,
    by_name,
    condition,
    get_path,
    labels_of,
    name_of,
    ref,
)
from campaigns.models import bounded, parse_time
from campaigns.models.findings import EQUAL, OPERATOR, Check, Command, Fact, Finding, Subject, values

CONTROLLER_LABEL = ("control-plane", "controller-manager")
# A container waiting for one of these is starting, not failing.
_STARTING = ("ContainerCreating", "PodInitializing")


@dataclass(frozen=True)
class KueueHealth:
    finding: Finding | None = None  # kueue.down or kueue.missing; None when it runs or could not be read
    checks: tuple[Check, ...] = ()  # read and found running: a cause ruled out for the queue's findings
    not_read: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class _PodTrouble:
    pod: str
    container: str
    reason: str  # CrashLoopBackOff, ImagePullBackOff, ... or "NotReady"
    restarts: int
    since: datetime | None


def _controller(deployments: list[dict]) -> dict | None:
    found = by_name(deployments, KUEUE_CONTROLLER)
    if found is not None:
        return found
    for deployment in deployments:
        if isinstance(deployment, dict) and labels_of(deployment).get(CONTROLLER_LABEL[0]) == CONTROLLER_LABEL[1]:
            return deployment
    return None


def _controller_pods(pods: list[dict]) -> list[dict]:
    return [
        pod
        for pod in pods
        if isinstance(pod, dict)
        and (
            labels_of(pod).get(CONTROLLER_LABEL[0]) == CONTROLLER_LABEL[1]
            or name_of(pod).startswith(f"{KUEUE_CONTROLLER}-")
        )
    ]


def _ready(pod: dict) -> bool:
    cond = condition(pod, "Ready")
    return cond is not None and cond.get("status") == "True"


def _trouble(pod: dict) -> _PodTrouble | None:
    """Why a controller pod is not ready: its first container waiting (CrashLoopBackOff, …), with restarts."""
    if _ready(pod):
        return None
    cond = condition(pod, "Ready") or {}
    since = parse_time(cond.get("lastTransitionTime"))
    statuses = [s for s in as_list(get_path(pod, "status", "containerStatuses")) if isinstance(s, dict)]
    for status in statuses:
        reason = as_str(get_path(status, "state", "waiting", "reason"))
        if reason and reason not in _STARTING:
            restarts = as_int(status.get("restartCount")) or 0
            return _PodTrouble(
                name_of(pod), bounded(as_str(status.get("name")), 63), bounded(reason, 80), restarts, since
            )
    restarts = max((as_int(s.get("restartCount")) or 0 for s in statuses), default=0)
    return _PodTrouble(name_of(pod), "", "NotReady", restarts, since)


def _deployment_facts(kueue_namespace: str, deployment: dict) -> tuple[tuple[Fact, ...], bool, datetime | None]:
    """(facts read, whether it is down, since when) of the controller's Deployment."""
    name = ref("Deployment", f"{kueue_namespace}/{name_of(deployment)}")
    available = condition(deployment, "Available") or {}
    ready = as_int(get_path(deployment, "status", "readyReplicas")) or 0
    replicas = as_int(get_path(deployment, "spec", "replicas"))
    facts = (
        Fact(name, "status.conditions[Available].status", available.get("status")),
        Fact(name, "status.readyReplicas", ready),
        Fact(name, "spec.replicas", replicas),
    )
    if available.get("reason") or available.get("message"):
        facts += (Fact(name, "status.conditions[Available].message", bounded(as_str(available.get("message")))),)
    down = available.get("status") == "False" or ready == 0
    since = parse_time(available.get("lastTransitionTime")) if available.get("status") == "False" else None
    return facts, down, since


def kueue_health(
    namespace: str, kueue_namespace: str, deployments: list[dict] | None, pods: list[dict] | None
) -> KueueHealth:
    """``kueue.down``, ``kueue.missing``, or the checks that found Kueue running (``namespace`` is the
    release's; ``deployments`` and ``pods`` are Kueue's namespace's, None when not readable)."""
    not_read = []
    if deployments is None:
        not_read.append(Fact(ref("Deployment", f"{kueue_namespace}/{KUEUE_CONTROLLER}"), "status", NOT_READABLE))
    if pods is None:
        selector = "=".join(CONTROLLER_LABEL)
        not_read.append(Fact(ref("Pod", f"{kueue_namespace}/{KUEUE_CONTROLLER}-*"), selector, NOT_READABLE))
    controller = _controller(as_list(deployments)) if deployments is not None else None
    controller_pods = _controller_pods(as_list(pods))
    subject = Subject("site", namespace)
    if deployments is not None and controller is None and not controller_pods:
        names = tuple(sorted(name_of(d) for d in deployments if isinstance(d, dict)))
        missing = Finding(
            code=codes.KUEUE_MISSING,
            subject=subject,
            values=values(kueue_namespace=kueue_namespace, deployment=KUEUE_CONTROLLER, deployments=names),
            evidence=(Fact(f"Namespace/{kueue_namespace}", "deployments", names),),
            not_read=tuple(not_read),
            fix=(kueue_deployments(kueue_namespace), _find_kueue()),
        )
        return KueueHealth(finding=missing, not_read=tuple(not_read))
    if controller is None and pods is None:
        return KueueHealth(not_read=tuple(not_read))
    return _judge(subject, kueue_namespace, controller, controller_pods, tuple(not_read))


def _find_kueue() -> Command:
    """Where Kueue runs, if not in the namespace this site was told."""
    selector = "=".join(CONTROLLER_LABEL)
    return Command(code="inspect.kueue_anywhere", argv=kubectl("", "get", "deployments", "-A", "-l", selector))


def _judge(subject: Subject, kueue_namespace: str, controller, controller_pods, not_read) -> KueueHealth:
    facts: tuple[Fact, ...] = ()
    down, since = False, None
    if controller is not None:
        facts, down, since = _deployment_facts(kueue_namespace, controller)
    troubles = [t for t in (_trouble(pod) for pod in controller_pods) if t is not None]
    for trouble in troubles:
        pod = ref("Pod", f"{kueue_namespace}/{trouble.pod}")
        field = f"status.containerStatuses[{trouble.container}]" if trouble.container else "status.conditions[Ready]"
        facts += (
            Fact(pod, f"{field}.state.waiting.reason", trouble.reason),
            Fact(pod, f"{field}.restartCount", trouble.restarts),
        )
    if controller is None:
        down = not any(_ready(pod) for pod in controller_pods)
    if not down:
        running = facts if controller is None else facts[: len(facts) - 2 * len(troubles)]
        return KueueHealth(checks=(Check("kueue_running", EQUAL, running),), not_read=not_read)
    starts = [t.since for t in troubles if t.since is not None] + ([since] if since else [])
    finding = Finding(
        code=codes.KUEUE_DOWN,
        subject=subject,
        actor=OPERATOR,
        values=values(
            kueue_namespace=kueue_namespace,
            deployment=name_of(controller) if controller is not None else KUEUE_CONTROLLER,
            ready_replicas=as_int(get_path(controller, "status", "readyReplicas")) or 0,
            replicas=as_int(get_path(controller, "spec", "replicas")),
            pods=tuple((t.pod, t.container, t.reason, t.restarts, t.since) for t in troubles),
            restarts=max((t.restarts for t in troubles), default=0),
        ),
        evidence=facts,
        not_read=not_read,
        fix=(kueue_logs(kueue_namespace), kueue_restart(kueue_namespace, name_of(controller) or KUEUE_CONTROLLER)),
        since=min(starts) if starts else None,
    )
    return KueueHealth(finding=finding, not_read=not_read)
