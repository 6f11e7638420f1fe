"""How long a campaign's pods wait for the warm-up marker, and since when each waits (contracts §2, §8).

The limit is read from the campaign Job's own ``warmup-wait`` init container (its ``/bin/sh -c``
script, in ``command`` or ``args``, or an env variable the script names), else from a pod's exit-13
line (``no warm-up marker at … after <N>s``); only then is it the default 900 s. A pod whose
``warmup-wait`` is running is waiting, not running: it gives up at its start plus the limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.objects import (
    as_int,
    as_list,
    as_str,
    container,
    container_status,
    env_entry,
    get_path,
    labels_of,
    name_of,
    node_of,
    ref,
    template_spec,
)
from campaigns.models import parse_time
from campaigns.models.findings import NOBODY, Fact, Finding, Subject, values
from core.contract import LABEL_COMPLETION_INDEX

DEFAULT_WAIT_SECONDS = 900
MAX_WAIT_SECONDS = 10**7  # larger is not a limit anyone set (115 days): read as no limit found
SCRIPT_LIMIT = 20_000  # characters of a script searched at most
WAIT_CONTAINER = "warmup-wait"

# `[ "$n" -le 900 ]` (or -lt); the limit as a variable: `-le "$WARMUP_WAIT_SECONDS"`, `-le ${LIMIT}`.
_LITERAL = re.compile(r"-l[et]\s+\"?(\d{1,8})\"?")
_VARIABLE = re.compile(r"-l[et]\s+\"?\$\{?([A-Za-z_][A-Za-z0-9_]{0,63})\}?\"?")
_AFTER = re.compile(r"after (\d{1,8})s")
_MESSAGE = re.compile(r"no warm-up marker at \S+ after (\d{1,8})s")
_ENV_NAMES = ("WARMUP_WAIT_SECONDS", "WARMUP_WAIT", "WAIT_SECONDS")


@dataclass(frozen=True)
class WaitLimit:
    seconds: int
    source: str  # "command" | "args" | "env" | "message" | "default"
    fact: Fact | None = None  # where it was read; None for the default


@dataclass(frozen=True)
class WaitingPod:
    pod: str
    index: int | None
    node: str
    since: datetime | None  # the warmup-wait container's start
    gives_up_at: datetime | None  # since + the limit


def _seconds(text: str) -> int | None:
    number = as_int(text)
    return number if number is not None and 0 < number <= MAX_WAIT_SECONDS else None


def _env_limit(job: str, spec: dict, names: Sequence[str]) -> WaitLimit | None:
    for name in names:
        entry = env_entry(spec, name)
        seconds = _seconds(as_str(entry.get("value"))) if entry else None
        if seconds is not None:
            field = f"spec.template.spec.initContainers[{WAIT_CONTAINER}].env[{name}]"
            return WaitLimit(seconds, "env", Fact(ref("Job", job), field, entry.get("value")))
    return None


def _script_limit(job: str, wait: dict) -> WaitLimit | None:
    for part in ("command", "args"):
        text = "\n".join(s for s in as_list(wait.get(part)) if isinstance(s, str))[:SCRIPT_LIMIT]
        field = f"spec.template.spec.initContainers[{WAIT_CONTAINER}].{part}"
        variable = _VARIABLE.search(text)
        if variable:
            found = _env_limit(job, wait, (variable.group(1),))
            assigned = re.search(rf"\b{variable.group(1)}=\"?(\d{{1,8}})\b", text)
            if found is None and assigned and _seconds(assigned.group(1)) is not None:
                found = WaitLimit(_seconds(assigned.group(1)), part, Fact(ref("Job", job), field, assigned.group(0)))
            if found is not None:
                return found
        for pattern in (_LITERAL, _AFTER):
            match = pattern.search(text)
            if match and _seconds(match.group(1)) is not None:
                return WaitLimit(_seconds(match.group(1)), part, Fact(ref("Job", job), field, match.group(0)))
    return None


def wait_limit(campaign_job: dict | None, messages: Sequence[tuple[str, str]] = ()) -> WaitLimit:
    """The campaign's marker wait limit in seconds and where it was read.

    ``messages`` are (pod name, termination message) of pods whose warmup-wait gave up.
    """
    job = name_of(campaign_job)
    wait = container(template_spec(campaign_job), WAIT_CONTAINER, init=True)
    found = _script_limit(job, wait) if wait else None
    found = found or (_env_limit(job, wait, _ENV_NAMES) if wait else None)
    if found is not None:
        return found
    for pod, message in messages:
        match = _MESSAGE.search(as_str(message)[:SCRIPT_LIMIT])
        if match and _seconds(match.group(1)) is not None:
            field = f"status.initContainerStatuses[{WAIT_CONTAINER}].state.terminated.message"
            return WaitLimit(_seconds(match.group(1)), "message", Fact(ref("Pod", pod), field, match.group(0)))
    return WaitLimit(DEFAULT_WAIT_SECONDS, "default")


def waiting_pods(pods: Sequence[dict], limit: WaitLimit) -> tuple[WaitingPod, ...]:
    """The pods whose warmup-wait init container is running, each with since when and until when."""
    waiting = []
    for pod in pods:
        running = get_path(container_status(pod, WAIT_CONTAINER, init=True), "state", "running")
        if not isinstance(running, dict):
            continue
        since = parse_time(running.get("startedAt"))
        waiting.append(
            WaitingPod(
                pod=name_of(pod),
                index=as_int(labels_of(pod).get(LABEL_COMPLETION_INDEX)),
                node=node_of(pod),
                since=since,
                gives_up_at=since + timedelta(seconds=limit.seconds) if since is not None else None,
            )
        )
    return tuple(sorted(waiting, key=lambda w: (w.index is None, w.index or 0, w.pod)))


def waiting_finding(namespace: str, campaign: str, job: dict, pods: Sequence[dict], limit: WaitLimit) -> Finding | None:
    """``warmup.waiting``: the Job's pods wait for the marker (nobody acts while the warm-up runs)."""
    waiting = waiting_pods(pods, limit)
    if not waiting:
        return None
    field = f"status.initContainerStatuses[{WAIT_CONTAINER}].state.running.startedAt"
    evidence = tuple(Fact(ref("Pod", w.pod), field, w.since) for w in waiting)
    starts = [w.since for w in waiting if w.since is not None]
    ends = [w.gives_up_at for w in waiting if w.gives_up_at is not None]
    return Finding(
        code=codes.WARMUP_WAITING,
        subject=Subject("campaign", namespace, campaign=campaign or name_of(job)),
        actor=NOBODY,
        values=values(
            job=name_of(job),
            pods=len(waiting),
            limit_seconds=limit.seconds,
            limit_source=limit.source,
            first_gives_up_at=min(ends) if ends else None,
            waiting=tuple((w.pod, w.index, w.node, w.since, w.gives_up_at) for w in waiting),
        ),
        evidence=((limit.fact,) if limit.fact else ()) + evidence,
        since=min(starts) if starts else None,
    )
