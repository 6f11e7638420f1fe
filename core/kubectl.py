"""kubectl lines an operator can paste, built in one place.

Presentation, not the htrflow-batch contract: which commands help is this site's choice. They select
by the contract's label keys, so a renamed label changes every line at once.
"""

from __future__ import annotations

from core.contract import LABEL_COMPLETION_INDEX, LABEL_JOB_NAME


def kubectl(*words: str, namespace: str = "") -> str:
    """``kubectl [-n <namespace>] <words…>``; no ``-n`` for cluster-wide objects or an unknown namespace."""
    return " ".join(("kubectl", *(("-n", namespace) if namespace else ()), *words))


def job_pods(job: str) -> str:
    """The label selector of a Job's pods."""
    return f"{LABEL_JOB_NAME}={job}"


def volume_pods(job: str, index: int) -> str:
    """The label selector of the pods that ran one index of a Job."""
    return f"{LABEL_JOB_NAME}={job},{LABEL_COMPLETION_INDEX}={index}"


def volume_commands(namespace: str, job: str, index: int) -> list[str]:
    """Where a volume's pods are and what their wrapper said last."""
    selector = volume_pods(job, index)
    return [
        kubectl("get", "pods", "-l", selector, namespace=namespace),
        kubectl("logs", "-l", selector, "-c", "wrapper", "--tail=200", namespace=namespace),
    ]
