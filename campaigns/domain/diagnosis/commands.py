"""Every step of every fix, built in one place, with each name filled in.

A step is a :class:`Command`: ``argv`` for a command an operator runs as it stands, or ``change`` for an
edit to a file or object (pairs naming the file or object, the key or field and the value), worded
when a page is rendered. The card, the operator details and the volume page all take their steps
from here, so one cause never has two fixes.
"""

from __future__ import annotations

import json
from typing import Any

from campaigns.models.findings import Command
from core.contract import LABEL_MANAGED_BY

WARMUP_SELECTOR = f"app=htrflow-warmup,{LABEL_MANAGED_BY}=converter"
KUEUE_CONTROLLER = "kueue-controller-manager"

# Step codes (what a step does), worded at render time.
APPLY = Command(code="campaigns.apply", argv=("htrflow-campaigns", "apply"))


def kubectl(namespace: str, *words: str) -> tuple[str, ...]:
    """``kubectl [-n <namespace>] <words…>`` as argv; no ``-n`` for cluster-scoped objects."""
    return ("kubectl", *(("-n", namespace) if namespace else ()), *words)


def change(code: str, **pairs: Any) -> Command:
    """An edit, as data: ``file`` or ``object``, then ``key`` or ``field``, then the values (in this order)."""
    return Command(code=code, change=tuple(pairs.items()))


def delete_warmup_job(namespace: str, job: str) -> Command:
    """An unchanged apply leaves a Complete warm-up alone: deleting it makes the next apply warm up again."""
    return Command(code="warmup.delete_job", argv=kubectl(namespace, "delete", "job", job))


def delete_all_warmup_jobs(namespace: str) -> Command:
    """Every warm-up Job the converter made, so that all of them warm a new cache volume."""
    return Command(code="warmup.delete_all_jobs", argv=kubectl(namespace, "delete", "jobs", "-l", WARMUP_SELECTOR))


def redo_warmup(namespace: str, job: str) -> tuple[Command, ...]:
    return (delete_warmup_job(namespace, job), APPLY)


def warmup_logs(namespace: str, job: str) -> Command:
    return Command(code="inspect.warmup_logs", argv=kubectl(namespace, "logs", f"job/{job}", "--tail=50"))


def describe_workload(namespace: str, workload: str) -> Command:
    return Command(code="inspect.workload", argv=kubectl(namespace, "describe", "workload", workload))


def get_resource_flavor(flavor: str) -> Command:
    return Command(code="inspect.resource_flavor", argv=kubectl("", "get", "resourceflavor", flavor, "-o", "yaml"))


def get_cluster_queue(cluster_queue: str) -> Command:
    return Command(code="inspect.cluster_queue", argv=kubectl("", "get", "clusterqueue", cluster_queue, "-o", "yaml"))


def get_local_queues(namespace: str) -> Command:
    return Command(code="inspect.local_queues", argv=kubectl(namespace, "get", "localqueues"))


def resume_queue(namespace: str, kind: str, name: str) -> Command:
    """A stopped LocalQueue or ClusterQueue admits again once its stopPolicy is None."""
    words = ("patch", kind.lower(), name, "--type=merge", "-p", '{"spec":{"stopPolicy":"None"}}')
    return Command(code=f"queue.resume_{kind.lower()}", argv=kubectl(namespace if kind == "LocalQueue" else "", *words))


def kueue_logs(kueue_namespace: str) -> Command:
    return Command(code="kueue.logs", argv=kubectl(kueue_namespace, "logs", f"deploy/{KUEUE_CONTROLLER}", "--tail=100"))


def kueue_restart(kueue_namespace: str, deployment: str = KUEUE_CONTROLLER) -> Command:
    return Command(
        code="kueue.restart", argv=kubectl(kueue_namespace, "rollout", "restart", f"deployment/{deployment}")
    )


def kueue_deployments(kueue_namespace: str) -> Command:
    return Command(code="inspect.kueue", argv=kubectl(kueue_namespace, "get", "deployments,pods"))


def cache_debug_pod(namespace: str, claim: str, node: str = "") -> Command:
    """The guide's debug pod that mounts the whole cache claim at /data; pinned to ``node`` when given
    (a ReadWriteOnce volume can be mounted only on the node that holds it)."""
    spec: dict[str, Any] = {"nodeName": node} if node else {}
    spec["containers"] = [
        {
            "name": "debug",
            "image": "busybox",
            "command": ["sh"],
            "stdin": True,
            "tty": True,
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        }
    ]
    spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    overrides = json.dumps({"spec": spec}, separators=(",", ":"))
    in_namespace = ("-n", namespace) if namespace else ()
    words = ("--rm", "-it", "--restart=Never", "--image=busybox", f"--overrides={overrides}")
    return Command(code="cache.debug_pod", argv=("kubectl", "run", "htr-cache-debug", *in_namespace, *words))
