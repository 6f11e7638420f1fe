"""Why a volume stopped (contracts §2): reading pod and container terminations.

First evidence wins: the wrapper's termination message (JSON or plain text), then a failed init
container, then the pod's own reason, then the wrapper's exit. ``classify_text`` decides the
failure class from the wrapper's fields or from plain text alone.
"""

from __future__ import annotations

import json

from campaigns.domain.projection.readers import as_dict, as_list, as_str, get_path, name_of
from campaigns.models import (
    VolumeReason,
    bounded,
    parse_time,
)
from core import bounded_json

# A termination message read as JSON at most: the kubelet keeps 4 KiB of one, and the wrapper writes far
# less. Longer text, or JSON nested past ``bounded_json.DEFAULT_MAX_DEPTH``, is read as plain text.
MESSAGE_JSON_MOST = 16 * 1024


def _terminated(status: dict) -> tuple[dict, str]:
    """The terminated block of a container status: its current state first, else its last state."""
    current = as_dict(get_path(status, "state", "terminated"))
    if current:
        return current, "state"
    last = as_dict(get_path(status, "lastState", "terminated"))
    if last:
        return last, "last"
    return {}, ""


def container_message(status: dict) -> tuple[dict, str, str]:
    """(terminated block, "state" or "last", its message): the current message, else the last one's."""
    term, which = _terminated(status)
    message = as_str(term.get("message"))
    if not message.strip() and which == "state":
        last = as_dict(get_path(status, "lastState", "terminated"))
        if as_str(last.get("message")).strip():
            return last, "last", as_str(last.get("message"))
    return term, which, message


def message_reason(term: dict, which: str, message: str, pod: dict, container: str) -> VolumeReason:
    """A reason from a container's termination message (JSON from the wrapper, or plain text)."""
    stage, permanent, error = _parse_message(message)
    return VolumeReason(
        stage=stage,
        permanent=permanent,
        error=error,
        exit_code=_exit_code(term),
        pod_name=bounded(name_of(pod), 253),
        container=container,
        source="message" if which == "state" else "last_message",
        finished_at=parse_time(term.get("finishedAt")),
    )


def container_status(pod: dict, name: str, init: bool = False) -> dict:
    key = "initContainerStatuses" if init else "containerStatuses"
    for status in as_list(get_path(pod, "status", key)):
        if isinstance(status, dict) and status.get("name") == name:
            return status
    return {}


def _parse_message(message: str) -> tuple[str | None, bool | None, str]:
    """(stage, permanent, error) from a wrapper/warm-up termination message; plain text as error."""
    text = message.strip()
    if text.startswith("{"):
        try:
            data = bounded_json.loads(text, max_bytes=MESSAGE_JSON_MOST)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            stage = data.get("stage")
            permanent = data.get("permanent")
            error = data.get("error")
            return (
                bounded(stage, 40) if isinstance(stage, str) and stage else None,
                permanent if isinstance(permanent, bool) else None,
                bounded(error if isinstance(error, str) else ("" if error is None else json.dumps(error))),
            )
    return None, None, bounded(text)


def reason_from_pod(pod: dict) -> VolumeReason | None:
    """Why the pod's volume stopped, first evidence wins (contracts §2); None when it says nothing."""
    pod_name = bounded(name_of(pod), 253)
    pod_reason = as_str(get_path(pod, "status", "reason"))
    pod_message = as_str(get_path(pod, "status", "message"))
    term, which, message = container_message(container_status(pod, "wrapper"))
    if message.strip():
        reason = message_reason(term, which, message, pod, "wrapper")
        reason.kind = _kind(reason, pod_reason, as_str(term.get("reason")))
        return reason
    for init in as_list(get_path(pod, "status", "initContainerStatuses")):
        if not isinstance(init, dict):
            continue
        init_term, _ = _terminated(init)
        code = _exit_code(init_term)
        if code:
            name = bounded(as_str(init.get("name")), 63)
            error = bounded(as_str(init_term.get("message"))) or f"init container {name} exited with code {code}"
            reason = VolumeReason(
                error=error,
                exit_code=code,
                pod_name=pod_name,
                container=name,
                source="init",
                permanent=True if code == 13 else None,
                finished_at=parse_time(init_term.get("finishedAt")),
            )
            reason.kind = "warmup_marker" if _is_marker_timeout(name, code, error) else _kind(reason, pod_reason, "")
            return reason
    if pod_reason in POD_REASON_KINDS or (pod_reason and pod_message):
        reason = VolumeReason(
            error=bounded(pod_message) or pod_reason,
            pod_name=pod_name,
            source="pod_reason",
            exit_code=_exit_code(term) if term else None,
            container="wrapper" if term else "",
        )
        reason.kind = POD_REASON_KINDS.get(pod_reason, "unknown")
        return reason
    if term:
        code = _exit_code(term)
        term_reason = as_str(term.get("reason"))
        if code or (term_reason and term_reason != "Completed"):
            reason = VolumeReason(
                error=bounded(f"{term_reason or 'terminated'}, exit code {code}"),
                exit_code=code,
                pod_name=pod_name,
                container="wrapper",
                source="exit",
                finished_at=parse_time(term.get("finishedAt")),
            )
            reason.kind = _kind(reason, pod_reason, term_reason)
            return reason
    return None


# A pod's own status.reason that says why its volume stopped, and the failure class it means.
POD_REASON_KINDS = {"Evicted": "evicted", "DeadlineExceeded": "deadline"}


def _exit_code(term: dict) -> int | None:
    code = term.get("exitCode") if isinstance(term, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _is_marker_timeout(container: str, code: int | None, error: str) -> bool:
    return "no warm-up marker" in error or (container == "warmup-wait" and code == 13)


def _kind(reason: VolumeReason, pod_reason: str, term_reason: str) -> str:
    """The failure class of a reason (contracts §2), before the retrying/final distinction."""
    if pod_reason in POD_REASON_KINDS:  # a SIGTERM (exit 143) too: the pod's reason says who sent it
        return POD_REASON_KINDS[pod_reason]
    if reason.exit_code == 143 or (reason.error or "").strip() == "SIGTERM":
        return "sigterm"
    if term_reason == "OOMKilled" or (reason.exit_code == 137 and not reason.stage):
        return "oom"
    return classify_text(reason.error, stage=reason.stage, permanent=reason.permanent, exit_code=reason.exit_code)


def classify_text(
    error: str, stage: str | None = None, permanent: bool | None = None, exit_code: int | None = None
) -> str:
    """The failure class from the wrapper's fields, or from plain text alone (status records)."""
    error = error or ""
    if "no warm-up marker" in error:
        return "warmup_marker"
    if stage == "config":
        return "config"
    if stage == "verify" or error.startswith("verify failed"):
        return "verify"
    if error.strip() == "SIGTERM":
        return "sigterm"
    if "OOMKilled" in error:
        return "oom"
    if permanent is None and exit_code == 13:
        permanent = True
    if permanent is None and exit_code == 1:
        permanent = False
    if stage == "setup" and permanent:
        return "setup_permanent"
    if permanent is None and error.startswith("manifest fetch failed"):
        return "setup_permanent"
    if permanent is True:
        return "permanent"
    if permanent is False:
        return "transient"
    return "unknown"
