"""Why a volume stopped, read from its pod (campaigns/domain/projection/reasons.py, contracts §2).

Each test states one rule of that reading: which evidence wins (the wrapper's termination message, a failed
init container, the pod's own reason, the wrapper's exit), how the wrapper's JSON message is read and where
it is read as plain text instead, and the failure class each kind of evidence means. Pods are plain dicts in
the shapes the kubelet writes, or the contract's samples; every assertion is on the whole reason.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaigns.domain.projection.reasons import (
    MESSAGE_JSON_MOST,
    classify_text,
    container_message,
    container_status,
    message_reason,
    reason_from_pod,
)
from campaigns.models import TEXT_LIMIT, VolumeReason
from core.bounded_json import DEFAULT_MAX_DEPTH
from tests.campaigns.domain.diagnosis.samples import gave_up_pod, load

POD = "parish-records-1870-4-x7k2p"
FINISHED = "2026-09-24T08:30:00Z"
FINISHED_AT = datetime(2026, 9, 24, 8, 30, tzinfo=UTC)
EARLIER = "2026-09-24T07:10:00Z"
EARLIER_AT = datetime(2026, 9, 24, 7, 10, tzinfo=UTC)


def wrapper_json(stage="stream", permanent=False, error="page 0005: upload failed") -> str:
    """The wrapper's termination message as it writes it (json.dumps with default separators)."""
    return json.dumps({"stage": stage, "permanent": permanent, "error": error})


def ended(exit_code=1, reason="Error", message=None, finished=FINISHED) -> dict:
    """A container's ``terminated`` block; ``None`` leaves a field out."""
    block = {"exitCode": exit_code, "reason": reason, "message": message, "finishedAt": finished}
    return {key: value for key, value in block.items() if value is not None}


def container(name="wrapper", state=None, last=None) -> dict:
    status = {"name": name, "ready": False, "restartCount": 0 if last is None else 1}
    if state is not None:
        status["state"] = {"terminated": state}
    if last is not None:
        status["lastState"] = {"terminated": last}
    return status


def pod(*, wrapper=None, inits=(), reason=None, message=None, name=POD) -> dict:
    """A campaign pod that stopped: its wrapper's status, its init containers' statuses, its own reason."""
    status = {"phase": "Failed"}
    if reason is not None:
        status["reason"] = reason
    if message is not None:
        status["message"] = message
    if inits:
        status["initContainerStatuses"] = list(inits)
    if wrapper is not None:
        status["containerStatuses"] = [wrapper]
    return {"metadata": {"name": name, "namespace": "htr-batch"}, "status": status}


def fields(reason: VolumeReason | None) -> dict | None:
    return None if reason is None else vars(reason).copy()


# --- 1. the wrapper's termination message ------------------------------------------------------------------


def test_the_wrapper_json_message_gives_stage_permanence_error_and_its_class():
    made = pod(wrapper=container(state=ended(1, "Error", wrapper_json("stream", False, "page 0005: upload failed"))))
    assert fields(reason_from_pod(made)) == {
        "stage": "stream",
        "permanent": False,
        "error": "page 0005: upload failed",
        "kind": "transient",
        "exit_code": 1,
        "pod_name": POD,
        "container": "wrapper",
        "source": "message",
        "finished_at": FINISHED_AT,
    }


def test_a_permanent_setup_failure_is_told_apart_from_other_permanent_ones():
    setup = pod(wrapper=container(state=ended(13, "Error", wrapper_json("setup", True, "HTTP 404 on the manifest"))))
    load_ = pod(wrapper=container(state=ended(13, "Error", wrapper_json("load", True, "bad pipeline"))))
    assert (reason_from_pod(setup).kind, reason_from_pod(setup).permanent) == ("setup_permanent", True)
    assert (reason_from_pod(load_).kind, reason_from_pod(load_).stage) == ("permanent", "load")


def test_the_last_message_is_read_when_the_current_state_says_nothing():
    made = pod(
        wrapper=container(
            state=ended(1, "Error", "   \n", finished=FINISHED),
            last=ended(13, "Error", wrapper_json("config", True, "PIPELINE_URL is not set"), finished=EARLIER),
        )
    )
    assert fields(reason_from_pod(made)) == {
        "stage": "config",
        "permanent": True,
        "error": "PIPELINE_URL is not set",
        "kind": "config",
        "exit_code": 13,
        "pod_name": POD,
        "container": "wrapper",
        "source": "last_message",
        "finished_at": EARLIER_AT,
    }


def test_a_restarted_wrapper_with_only_a_last_state_reads_that():
    made = pod(wrapper={**container(last=ended(1, "Error", "connection reset")), "state": {"waiting": {}}})
    reason = reason_from_pod(made)
    assert (reason.source, reason.error, reason.kind, reason.exit_code) == (
        "last_message",
        "connection reset",
        "transient",
        1,
    )


def test_an_empty_current_terminated_block_falls_back_to_the_last_one():
    made = pod(
        wrapper={"name": "wrapper", "state": {"terminated": {}}, "lastState": {"terminated": ended(1, "Error", "x")}}
    )
    assert (reason_from_pod(made).source, reason_from_pod(made).error) == ("last_message", "x")


def test_the_current_message_wins_over_the_last_one():
    made = pod(wrapper=container(state=ended(1, "Error", "now", finished=FINISHED), last=ended(13, "Error", "then")))
    reason = reason_from_pod(made)
    assert (reason.source, reason.error, reason.exit_code, reason.finished_at) == ("message", "now", 1, FINISHED_AT)


def test_a_blank_last_message_leaves_the_current_state_to_speak_by_its_exit():
    made = pod(wrapper=container(state=ended(2, "Error", "  "), last=ended(13, "Error", " \n ")))
    assert fields(reason_from_pod(made)) == {
        "stage": None,
        "permanent": None,
        "error": "Error, exit code 2",
        "kind": "unknown",
        "exit_code": 2,
        "pod_name": POD,
        "container": "wrapper",
        "source": "exit",
        "finished_at": FINISHED_AT,
    }


def test_another_container_s_message_is_not_the_wrapper_s():
    sidecar = container("uploader", state=ended(1, "Error", "sidecar broke"))
    made = pod()
    made["status"]["containerStatuses"] = ["not a status", sidecar]
    assert reason_from_pod(made) is None


def test_plain_text_messages_keep_their_text_trimmed_and_have_no_stage():
    made = pod(wrapper=container(state=ended(1, "Error", "\n  Traceback: boom  \n")))
    reason = reason_from_pod(made)
    assert (reason.stage, reason.permanent, reason.error, reason.kind) == (None, None, "Traceback: boom", "transient")


@pytest.mark.parametrize(
    ("message", "stage", "permanent", "error"),
    [
        ('  {"stage": "verify", "permanent": false, "error": "x"}', "verify", False, "x"),  # leading space
        ('{"stage": "", "permanent": true, "error": "e"}', None, True, "e"),  # an empty stage is no stage
        ('{"stage": 5, "permanent": "true", "error": "e"}', None, None, "e"),  # wrong types are not read
        ('{"stage": "load", "permanent": 1, "error": null}', "load", None, ""),  # 1 is not a bool; null is ""
        ('{"stage": "load", "error": {"code": 7}}', "load", None, '{"code": 7}'),  # other JSON kept as JSON
        ('{"stage": "load", "error": 404}', "load", None, "404"),
        ('{"stage": "load", "error": false}', "load", None, "false"),
        ("{}", None, None, ""),
        ('{"stage": "load", "error": "e"', None, None, '{"stage": "load", "error": "e"'),  # not JSON: text
        ("{not json}", None, None, "{not json}"),
        ('["stage", "load"]', None, None, '["stage", "load"]'),  # JSON, but not the wrapper's
    ],
)
def test_the_wrapper_json_fields_are_read_only_in_their_own_types(message, stage, permanent, error):
    made = pod(wrapper=container(state=ended(2, "Error", message)))
    reason = reason_from_pod(made)
    assert (reason.stage, reason.permanent, reason.error, reason.source) == (stage, permanent, error, "message")


def test_the_stage_is_cut_to_40_characters_and_the_error_to_the_text_limit():
    exactly = pod(wrapper=container(state=ended(1, "Error", wrapper_json("s" * 40, False, "e" * TEXT_LIMIT))))
    over = pod(wrapper=container(state=ended(1, "Error", wrapper_json("s" * 41, False, "e" * (TEXT_LIMIT + 1)))))
    assert (reason_from_pod(exactly).stage, reason_from_pod(exactly).error) == ("s" * 40, "e" * TEXT_LIMIT)
    assert reason_from_pod(over).stage == "s" * 39 + "…"
    assert reason_from_pod(over).error == "e" * (TEXT_LIMIT - 1) + "…"


def test_a_plain_text_message_is_cut_to_the_text_limit():
    made = pod(wrapper=container(state=ended(1, "Error", "x" * (TEXT_LIMIT + 1))))
    assert reason_from_pod(made).error == "x" * (TEXT_LIMIT - 1) + "…"


def _json_of_length(length: int) -> str:
    head = '{"stage": "stream", "permanent": false, "error": "'
    return head + "e" * (length - len(head) - 2) + '"}'


def test_a_json_message_is_read_up_to_16_kib_and_as_text_past_it():
    at_most = _json_of_length(MESSAGE_JSON_MOST)
    past = _json_of_length(MESSAGE_JSON_MOST + 1)
    assert MESSAGE_JSON_MOST == 16 * 1024 and len(at_most) == MESSAGE_JSON_MOST and len(past) == MESSAGE_JSON_MOST + 1
    read = reason_from_pod(pod(wrapper=container(state=ended(1, "Error", at_most))))
    as_text = reason_from_pod(pod(wrapper=container(state=ended(1, "Error", past))))
    assert (read.stage, read.permanent, read.error) == ("stream", False, "e" * (TEXT_LIMIT - 1) + "…")
    assert (as_text.stage, as_text.permanent) == (None, None)
    assert as_text.error == past[: TEXT_LIMIT - 1] + "…"


def test_json_nested_past_the_depth_limit_is_read_as_text():
    within = '{"stage": "load", "error": ' + "[" * (DEFAULT_MAX_DEPTH - 1) + "]" * (DEFAULT_MAX_DEPTH - 1) + "}"
    past = '{"stage": "load", "error": ' + "[" * DEFAULT_MAX_DEPTH + "]" * DEFAULT_MAX_DEPTH + "}"
    assert reason_from_pod(pod(wrapper=container(state=ended(1, "Error", within)))).stage == "load"
    as_text = reason_from_pod(pod(wrapper=container(state=ended(1, "Error", past))))
    assert (as_text.stage, as_text.error) == (None, past)


def test_a_message_without_exit_code_or_finish_time_leaves_them_unknown():
    made = pod(wrapper=container(state={"reason": "Error", "message": wrapper_json(), "exitCode": "1"}))
    reason = reason_from_pod(made)
    assert (reason.exit_code, reason.finished_at, reason.kind) == (None, None, "transient")


def test_a_boolean_exit_code_is_not_an_exit_code():
    made = pod(wrapper=container(state={"exitCode": True, "reason": "Error", "message": "boom"}))
    assert reason_from_pod(made).exit_code is None


@pytest.mark.parametrize(
    "evidence",
    [
        {"wrapper": container(state=ended(1, "Error", "e"))},
        {"inits": [container("warmup-wait", state=ended(13, "Error", None))]},
        {"reason": "Evicted", "message": "low memory"},
        {"wrapper": container(state=ended(137, "OOMKilled", None))},
    ],
    ids=["message", "init", "pod_reason", "exit"],
)
def test_the_pod_name_is_cut_to_253_characters_whichever_evidence_speaks(evidence):
    exactly = reason_from_pod(pod(name="p" * 253, **evidence))
    over = reason_from_pod(pod(name="p" * 254, **evidence))
    assert exactly.pod_name == "p" * 253
    assert over.pod_name == "p" * 252 + "…"


# --- the failure class of a wrapper's reason ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "pod_reason", "kind"),
    [
        # The pod's own reason says who stopped it, whatever the wrapper wrote or exited with.
        (ended(143, "Error", wrapper_json("stream", False, "SIGTERM")), "DeadlineExceeded", "deadline"),
        (ended(143, "Error", wrapper_json("stream", False, "SIGTERM")), "Evicted", "evicted"),
        (ended(137, "OOMKilled", "killed"), "Evicted", "evicted"),
        # Exit 143, or the error SIGTERM: stopped (drain, pause).
        (ended(143, "Error", wrapper_json("stream", False, "stopping")), "", "sigterm"),
        (ended(143, "Error", wrapper_json("stream", False, "stopping")), "Terminated", "sigterm"),
        (ended(1, "Error", wrapper_json("stream", False, " SIGTERM\n")), "", "sigterm"),
        (ended(None, "Error", "SIGTERM"), "", "sigterm"),
        # Out of memory: the kubelet's reason, or exit 137 where the wrapper named no stage.
        (ended(1, "OOMKilled", wrapper_json("load", False, "killed")), "", "oom"),
        (ended(137, "Error", "Killed"), "", "oom"),
        # The wrapper wrote SIGTERM and was then killed at the end of its grace period: still stopped.
        (ended(137, "Error", "SIGTERM"), "", "sigterm"),
        (ended(1, "OOMKilled", " SIGTERM"), "", "sigterm"),
        (ended(137, "Error", wrapper_json("load", False, "killed")), "", "transient"),
        (ended(137, "Error", wrapper_json("load", True, "killed")), "", "permanent"),
        # Otherwise the wrapper's own fields.
        (ended(13, "Error", wrapper_json("verify", True, "verify failed: 2 missing")), "", "verify"),
        (ended(1, "Error", wrapper_json("stream", None, "odd")), "", "transient"),
        (ended(13, "Error", "plain"), "", "permanent"),
        (ended(2, "Error", "plain"), "", "unknown"),
    ],
)
def test_the_class_of_a_wrapper_reason(state, pod_reason, kind):
    made = pod(wrapper=container(state=state), reason=pod_reason)
    reason = reason_from_pod(made)
    assert (reason.kind, reason.source) == (kind, "message")


# --- 2. a failed init container ---------------------------------------------------------------------------------


def test_the_warmup_wait_sample_gave_up_on_the_marker():
    reason = reason_from_pod(gave_up_pod())
    assert fields(reason) == {
        "stage": None,
        "permanent": True,
        "error": "no warm-up marker at /data/warmup/swe-lines-v3.done after 900s: "
        "the pipeline's warm-up Job has not finished",
        "kind": "warmup_marker",
        "exit_code": 13,
        "pod_name": "court-rolls-1650-2-7hq4z",
        "container": "warmup-wait",
        "source": "init",
        "finished_at": datetime(2026, 9, 24, 6, 35, 14, tzinfo=UTC),
    }


def test_warmup_wait_exit_13_without_its_line_is_still_the_marker():
    made = pod(inits=[container("warmup-wait", state=ended(13, "Error", None))])
    assert fields(reason_from_pod(made)) == {
        "stage": None,
        "permanent": True,
        "error": "init container warmup-wait exited with code 13",
        "kind": "warmup_marker",
        "exit_code": 13,
        "pod_name": POD,
        "container": "warmup-wait",
        "source": "init",
        "finished_at": FINISHED_AT,
    }


@pytest.mark.parametrize(
    ("name", "code", "message", "permanent", "kind"),
    [
        ("warmup-wait", 1, "sh: sleep: not found", None, "transient"),  # not 13: not the marker
        ("setup-cache", 13, "", True, "permanent"),  # 13 from another init container: permanent, not the marker
        ("setup-cache", 2, "no warm-up marker at /data/warmup/x.done after 60s", None, "warmup_marker"),
        ("setup-cache", 2, "", None, "unknown"),
        # The marker line names the cause, whatever else stopped the container.
        ("setup-cache", 137, "no warm-up marker at /data/warmup/x.done after 60s", None, "warmup_marker"),
        ("warmup-wait", 143, "no warm-up marker at /data/warmup/x.done after 900s", None, "warmup_marker"),
        ("setup-cache", 137, "", None, "oom"),
        ("setup-cache", 143, "", None, "sigterm"),
        ("setup-cache", 1, "OOMKilled while copying", None, "oom"),
    ],
)
def test_the_class_of_a_failed_init_container(name, code, message, permanent, kind):
    made = pod(inits=[container(name, state=ended(code, "Error", message or None))])
    reason = reason_from_pod(made)
    error = message or f"init container {name} exited with code {code}"
    assert (reason.error, reason.exit_code, reason.container, reason.permanent, reason.kind, reason.source) == (
        error,
        code,
        name,
        permanent,
        kind,
        "init",
    )


def test_an_init_container_stopped_with_its_pod_gets_the_pod_s_reason():
    made = pod(inits=[container("warmup-wait", state=ended(143, "Error", None))], reason="DeadlineExceeded")
    assert (reason_from_pod(made).kind, reason_from_pod(made).source) == ("deadline", "init")


def test_init_containers_that_succeeded_or_never_ran_say_nothing_and_the_first_failed_one_speaks():
    made = pod(
        inits=[
            "not a status",
            container("fetch", state=ended(0, "Completed", None)),
            {"name": "no-state"},
            container("copy", last=ended(3, "Error", "disk full")),
            container("warmup-wait", state=ended(13, "Error", None)),
        ]
    )
    reason = reason_from_pod(made)
    assert (reason.container, reason.error, reason.exit_code, reason.kind) == ("copy", "disk full", 3, "unknown")


def test_an_init_container_without_a_finish_time_or_a_name():
    made = pod(inits=[{"state": {"terminated": {"exitCode": 4, "message": "  \n"}}}])
    assert fields(reason_from_pod(made)) == {
        "stage": None,
        "permanent": None,
        "error": "init container  exited with code 4",
        "kind": "unknown",
        "exit_code": 4,
        "pod_name": POD,
        "container": "",
        "source": "init",
        "finished_at": None,
    }


def test_an_init_container_name_is_cut_to_63_characters():
    exactly = reason_from_pod(pod(inits=[container("i" * 63, state=ended(2, "Error", "e"))]))
    over = reason_from_pod(pod(inits=[container("i" * 64, state=ended(2, "Error", "e"))]))
    assert exactly.container == "i" * 63
    assert over.container == "i" * 62 + "…"


def test_the_wrapper_message_wins_over_a_failed_init_container_and_the_pod_reason():
    made = pod(
        wrapper=container(state=ended(1, "Error", wrapper_json("publish", False, "upload failed"))),
        inits=[container("warmup-wait", state=ended(13, "Error", "no warm-up marker at /data/warmup/x.done"))],
        reason="Evicted",
        message="The node was low on resource: memory.",
    )
    reason = reason_from_pod(made)
    assert (reason.source, reason.container, reason.stage, reason.kind) == ("message", "wrapper", "publish", "evicted")


def test_the_marker_line_of_an_init_container_names_the_cause_even_on_an_evicted_pod():
    line = "no warm-up marker at /data/warmup/swe-lines-v2.done after 600s: the pipeline's warm-up Job has not finished"
    made = pod(inits=[container("warmup-wait", state=ended(2, "Error", line))], reason="Evicted", message="low memory")
    reason = reason_from_pod(made)
    assert (reason.kind, reason.error, reason.permanent, reason.source) == ("warmup_marker", line, None, "init")


def test_a_failed_init_container_wins_over_the_pod_reason():
    made = pod(
        inits=[container("warmup-wait", state=ended(13, "Error", None))],
        reason="Evicted",
        message="The node was low on resource: ephemeral-storage.",
    )
    reason = reason_from_pod(made)
    assert (reason.source, reason.kind) == ("init", "warmup_marker")


# --- 3. the pod's own reason -------------------------------------------------------------------------------------


def test_an_evicted_pod():
    made = pod(reason="Evicted", message="The node was low on resource: memory. Threshold quantity: 100Mi.")
    assert fields(reason_from_pod(made)) == {
        "stage": None,
        "permanent": None,
        "error": "The node was low on resource: memory. Threshold quantity: 100Mi.",
        "kind": "evicted",
        "exit_code": None,
        "pod_name": POD,
        "container": "",
        "source": "pod_reason",
        "finished_at": None,
    }


def test_a_pod_past_its_deadline_without_a_message_says_its_reason():
    made = pod(reason="DeadlineExceeded", wrapper=container(state=ended(143, "Error", None)))
    assert fields(reason_from_pod(made)) == {
        "stage": None,
        "permanent": None,
        "error": "DeadlineExceeded",
        "kind": "deadline",
        "exit_code": 143,
        "pod_name": POD,
        "container": "wrapper",
        "source": "pod_reason",
        "finished_at": None,
    }


def test_a_pod_past_its_deadline_whose_wrapper_exited_cleanly_keeps_exit_code_0():
    made = pod(
        reason="DeadlineExceeded",
        message="Pod was active on the node longer than specified deadline",
        wrapper=container(state=ended(0, "Completed", None)),
    )
    reason = reason_from_pod(made)
    assert (reason.error, reason.exit_code, reason.container, reason.kind) == (
        "Pod was active on the node longer than specified deadline",
        0,
        "wrapper",
        "deadline",
    )


def test_another_pod_reason_with_a_message_is_evidence_of_an_unknown_class():
    made = pod(reason="NodeLost", message="Node gpu-node-02 which was running pod is unresponsive")
    reason = reason_from_pod(made)
    assert (reason.error, reason.kind, reason.source, reason.container) == (
        "Node gpu-node-02 which was running pod is unresponsive",
        "unknown",
        "pod_reason",
        "",
    )


def test_another_pod_reason_without_a_message_or_a_message_without_reason_is_no_evidence():
    assert reason_from_pod(pod(reason="NodeLost")) is None
    assert reason_from_pod(pod(message="something happened")) is None


def test_the_pod_message_is_cut_to_the_text_limit():
    made = pod(reason="Evicted", message="m" * (TEXT_LIMIT + 1))
    assert reason_from_pod(made).error == "m" * (TEXT_LIMIT - 1) + "…"


# --- 4. the wrapper's exit --------------------------------------------------------------------------------------


def test_an_out_of_memory_kill_without_a_message():
    made = pod(wrapper=container(state=ended(137, "OOMKilled", None)))
    assert fields(reason_from_pod(made)) == {
        "stage": None,
        "permanent": None,
        "error": "OOMKilled, exit code 137",
        "kind": "oom",
        "exit_code": 137,
        "pod_name": POD,
        "container": "wrapper",
        "source": "exit",
        "finished_at": FINISHED_AT,
    }


@pytest.mark.parametrize(
    ("state", "error", "kind"),
    [
        (ended(143, "Error", None), "Error, exit code 143", "sigterm"),
        (ended(13, "", None), "terminated, exit code 13", "permanent"),
        (ended(1, "Completed", None), "Completed, exit code 1", "transient"),
        (ended(0, "Error", None), "Error, exit code 0", "unknown"),
        ({"reason": "ContainerCannotRun"}, "ContainerCannotRun, exit code None", "unknown"),
    ],
)
def test_the_exit_of_the_wrapper(state, error, kind):
    reason = reason_from_pod(pod(wrapper=container(state=state)))
    assert (reason.error, reason.kind, reason.source, reason.container) == (error, kind, "exit", "wrapper")


@pytest.mark.parametrize(
    "made",
    [
        pod(),
        pod(wrapper=container(state=ended(0, "Completed", None))),
        pod(wrapper=container(state={"reason": "Completed"})),
        pod(wrapper=container(state={"exitCode": 0})),
        pod(wrapper={"name": "wrapper", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}),
        {"metadata": {"name": POD}},
        {},
    ],
    ids=["no-status", "completed", "completed-no-code", "exit-0-no-reason", "waiting", "no-status-at-all", "empty"],
)
def test_a_pod_that_says_nothing_has_no_reason(made):
    assert reason_from_pod(made) is None


def test_the_warm_up_pod_sample_reads_its_own_container():
    _job, warmup_pod = load("warmup-job-failed.yaml")
    status = container_status(warmup_pod, "warmup")
    term, which, message = container_message(status)
    reason = message_reason(term, which, message, warmup_pod, "warmup")
    assert (reason.stage, reason.permanent, reason.exit_code, reason.container, reason.source) == (
        "warmup",
        True,
        13,
        "warmup",
        "message",
    )
    assert reason.error.startswith("404 Client Error.") and reason.finished_at == datetime(
        2026, 9, 24, 6, 12, 3, tzinfo=UTC
    )
    assert reason_from_pod(warmup_pod) is None  # no wrapper, no init container, no pod reason: nothing for a volume


# --- the readers the other modules use ----------------------------------------------------------------------------


def test_container_status_finds_by_name_in_the_list_asked_for():
    wrapper = container("wrapper", state=ended(1))
    init = container("wrapper", state=ended(13))  # an init container of the same name is another container
    made = pod(wrapper=wrapper, inits=[init])
    assert container_status(made, "wrapper") is made["status"]["containerStatuses"][0]
    assert container_status(made, "wrapper", init=True) is made["status"]["initContainerStatuses"][0]
    assert container_status(made, "warmup-wait", init=True) == {}
    assert container_status({"status": {"containerStatuses": "bad"}}, "wrapper") == {}


def test_container_message_answers_nothing_for_a_container_that_never_ended():
    assert container_message({"name": "wrapper", "state": {"running": {}}}) == ({}, "", "")


def test_container_message_says_which_state_spoke():
    now, then = ended(1, "Error", "now"), ended(1, "Error", "then")
    assert container_message(container(state=now, last=then)) == (now, "state", "now")
    assert container_message(container(last=then)) == (then, "last", "then")
    blank = ended(1, "Error", " ")
    assert container_message(container(state=blank, last=then)) == (then, "last", "then")
    assert container_message(container(state=blank)) == (blank, "state", " ")
    assert container_message(container(state=blank, last={"message": None})) == (blank, "state", " ")


# --- classify_text: the class from the wrapper's fields or from plain text alone -------------------------------


@pytest.mark.parametrize(
    ("error", "stage", "permanent", "exit_code", "kind"),
    [
        # The warm-up marker first, whatever else is said.
        ("no warm-up marker at /data/warmup/x.done after 900s", "config", True, 13, "warmup_marker"),
        ("init: no warm-up marker", None, None, None, "warmup_marker"),
        ("no warmup marker", None, None, None, "unknown"),
        # Then a configuration problem, then a verify failure.
        ("verify failed: 2 missing", "config", True, 13, "config"),
        ("anything", "verify", False, 1, "verify"),
        ("verify failed: all 3 processed pages failed", None, None, None, "verify"),
        ("verify failed: 2 missing, 1 failed missing=[0012, 0044]", "stream", False, 1, "verify"),
        ("page verify failed", None, None, None, "unknown"),
        ("Verify failed", None, None, None, "unknown"),
        ("verify failed", None, None, None, "verify"),
        # Stopped, or out of memory, from the text alone.
        ("SIGTERM", "stream", True, 13, "sigterm"),
        ("\tSIGTERM \n", None, None, None, "sigterm"),
        ("SIGTERM received", None, None, None, "unknown"),
        ("sigterm", None, None, None, "unknown"),
        ("OOMKilled", "load", True, 13, "oom"),
        ("container was OOMKilled", None, None, None, "oom"),
        ("oomkilled", None, None, None, "unknown"),
        # The wrapper's permanence, or its exit code when it said none.
        ("HTTP 404", "setup", True, 13, "setup_permanent"),
        ("HTTP 404", "setup", None, 13, "setup_permanent"),
        ("HTTP 503", "setup", False, 1, "transient"),
        ("HTTP 503", "setup", None, 1, "transient"),
        ("HTTP 503", "setup", None, None, "unknown"),
        ("manifest fetch failed: HTTP 410", None, None, None, "setup_permanent"),
        ("manifest fetch failed: HTTP 410", None, None, 1, "transient"),
        ("manifest fetch failed: HTTP 503", None, False, None, "transient"),
        ("manifest fetch failed: HTTP 404", None, True, None, "permanent"),
        ("the manifest fetch failed", None, None, None, "unknown"),
        ("bad pipeline", "load", True, 1, "permanent"),  # the wrapper's word wins over its exit code
        ("upload failed", "publish", False, 13, "transient"),
        ("bad pipeline", None, None, 13, "permanent"),
        ("upload failed", None, None, 1, "transient"),
        ("", None, None, 2, "unknown"),
        ("", None, None, 0, "unknown"),
        ("", None, None, None, "unknown"),
    ],
)
def test_classify_text(error, stage, permanent, exit_code, kind):
    assert classify_text(error, stage=stage, permanent=permanent, exit_code=exit_code) == kind


def test_classify_text_of_plain_text_alone():
    assert classify_text("verify failed: 1 missing") == "verify"
    assert classify_text("no warm-up marker") == "warmup_marker"
    assert classify_text("whatever") == "unknown"
    assert classify_text(None) == "unknown"
    assert classify_text(None, stage="config") == "config"
    assert classify_text(None, permanent=True) == "permanent"


# --- anything at all in a termination message -----------------------------------------------------------------

HOSTILE = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="utf-8", max_codepoint=0x9F), max_size=300),  # controls, DEL, C1
    st.builds(lambda body: "{" + body, st.text(alphabet='{}[]":,\\ ntrue0', max_size=400)),  # broken JSON
    st.builds(lambda n: '{"error": ' + "[" * n + "]" * n + "}", st.integers(0, 3 * DEFAULT_MAX_DEPTH)),
    st.builds(lambda n: "x" * n, st.sampled_from([TEXT_LIMIT - 1, TEXT_LIMIT, TEXT_LIMIT + 1, 5 * TEXT_LIMIT])),
    st.builds(
        lambda stage, error: json.dumps({"stage": stage, "permanent": True, "error": error}),
        st.text(max_size=80),
        st.one_of(st.text(max_size=80), st.none(), st.integers(), st.lists(st.integers(), max_size=3)),
    ),
)


@given(HOSTILE)
def test_any_message_gives_a_bounded_reason_of_a_known_class(message):
    made = pod(wrapper=container(state=ended(1, "Error", message)))
    reason = reason_from_pod(made)
    if not message.strip():
        assert reason is not None and reason.source == "exit"
        return
    assert reason.source == "message" and reason.pod_name == POD and reason.exit_code == 1
    assert len(reason.error) <= TEXT_LIMIT and reason.error == reason.error.strip()
    assert reason.stage is None or len(reason.stage) <= 40
    assert reason.permanent in (None, True, False)
    assert reason.kind in {
        "warmup_marker",
        "config",
        "verify",
        "sigterm",
        "oom",
        "setup_permanent",
        "permanent",
        "transient",
        "unknown",
    }
    if not message.strip().startswith("{"):
        assert (reason.stage, reason.permanent) == (None, None)
        assert reason.error == message.strip()[:TEXT_LIMIT] or reason.error.endswith("…")
