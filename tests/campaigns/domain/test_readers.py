"""The projection's small readers of Kubernetes objects: whatever a field holds, they answer a value of the
type asked for (never an exception), read a condition by its type, and decide what counts as a Job's end."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.domain.projection.jobs import job_phase
from campaigns.domain.projection.readers import (
    annotations_of,
    any_condition_true,
    as_int,
    condition,
    condition_true,
    created_time,
    earliest,
    labels_of,
    latest,
    metadata_of,
    name_of,
    newest_first,
    true_failure_condition,
)
from campaigns.models import FAILED, QUEUED, RUNNING, SUCCEEDED


def job(*conditions: tuple[str, object], created: object = None, **metadata) -> dict:
    """A Job with these (type, status) conditions, in this order."""
    if created is not None:
        metadata["creationTimestamp"] = created
    return {
        "metadata": metadata,
        "status": {
            "conditions": [{"type": kind, "status": status, "reason": kind + "Reason"} for kind, status in conditions]
        },
    }


# --- numbers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (7, 7),
        (0, 0),
        (-3, -3),
        (10**15, 10**15),  # a number given as a number has no length limit
        ("7", 7),
        (" 42\n", 42),
        ("-5", -5),
        ("  -5 ", -5),
        ("0", 0),
        ("00012", 12),
        ("12345678901", 12345678901),  # 11 characters: read
        ("-1234567890", -1234567890),  # 11 characters with its sign: read
        ("  12345678901  ", 12345678901),  # the blanks around it do not count
    ],
)
def test_a_whole_number_is_read_from_an_int_or_its_decimal_text(value, number):
    assert as_int(value) == number
    assert as_int(value, default=99) == number


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,  # a bool is an int to Python, never a count to Kubernetes
        False,
        1.0,
        2.5,
        "",
        "   ",
        "-",
        "--5",  # two signs
        "- 5",
        "+5",
        "1.5",
        "1e3",
        "0x10",
        "1_000",
        "5 5",
        "²",  # a digit to str.isdigit, not a number to int()
        "123456789012",  # 12 characters: refused, however it is written
        "-12345678901",
        "\x005",
        "5\x7f",
        [5],
        {"count": 5},
    ],
)
def test_anything_else_is_the_default_never_an_exception(value):
    assert as_int(value) == 0
    assert as_int(value, default=-1) == -1
    assert as_int(value, 17) == 17


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.from_regex(r"\s*-{0,3}[0-9²³¹٣]{0,14}\s*"))
def test_any_text_at_all_reads_as_a_number_or_the_default(text):
    """Control characters, signs, Unicode digits and overlong numbers included."""
    number = as_int(text, default=-999_999_999_999)
    assert type(number) is int
    if number != -999_999_999_999:
        assert str(number) == str(int(text.strip()))
        assert len(text.strip()) < 12


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(10**11), max_value=10**12), st.sampled_from(["", " ", "\t", "\n "]))
def test_a_number_written_out_is_read_back_up_to_eleven_characters(number, blank):
    written = f"{blank}{number}{blank}"
    expected = number if len(str(number)) < 12 else -1
    assert as_int(written, default=-1) == expected


# --- metadata -----------------------------------------------------------------------------------------------


def test_metadata_is_read_when_it_is_a_dict_and_empty_otherwise():
    meta = {
        "name": "court-rolls-1650",
        "labels": {"app": "htrflow"},
        "annotations": {"htrflow.riksarkivet.se/campaign": "court-rolls-1650"},
        "creationTimestamp": "2026-09-24T06:20:00Z",
    }
    obj = {"metadata": meta}
    assert metadata_of(obj) is meta
    assert name_of(obj) == "court-rolls-1650"
    assert labels_of(obj) == {"app": "htrflow"}
    assert annotations_of(obj) == {"htrflow.riksarkivet.se/campaign": "court-rolls-1650"}
    assert created_time(obj) == datetime(2026, 9, 24, 6, 20, tzinfo=UTC)
    for odd in (None, "x", [], {"metadata": None}, {"metadata": ["name"]}, {"metadata": "court-rolls-1650"}):
        assert (metadata_of(odd), name_of(odd), labels_of(odd), annotations_of(odd), created_time(odd)) == (
            {},
            "",
            {},
            {},
            None,
        )
    wrong = {"metadata": {"name": 7, "labels": ["app"], "annotations": "a=b", "creationTimestamp": "yesterday"}}
    assert (name_of(wrong), labels_of(wrong), annotations_of(wrong), created_time(wrong)) == ("", {}, {}, None)


# --- conditions ---------------------------------------------------------------------------------------------


def test_a_condition_is_found_by_its_type_wherever_it_stands():
    obj = job(("Suspended", "False"), ("Complete", "True"), ("Failed", "False"))
    assert condition(obj, "Complete") == {"type": "Complete", "status": "True", "reason": "CompleteReason"}
    assert condition(obj, "Failed")["status"] == "False"
    assert condition(obj, "Suspended")["reason"] == "SuspendedReason"
    assert condition(obj, "FailureTarget") is None
    assert condition(obj, "complete") is None  # types are read as written


def test_the_first_condition_of_a_type_is_the_one_read():
    obj = job(("Complete", "False"), ("Complete", "True"))
    assert condition(obj, "Complete")["status"] == "False"
    assert not condition_true(obj, "Complete")


def test_odd_conditions_are_passed_over():
    obj = {"status": {"conditions": ["Complete", None, {"status": "True"}, {"type": "Complete", "status": "True"}]}}
    assert condition(obj, "Complete") == {"type": "Complete", "status": "True"}
    for odd in ({}, {"status": None}, {"status": {"conditions": {"type": "Complete"}}}, None, "Complete"):
        assert condition(odd, "Complete") is None
        assert not condition_true(odd, "Complete")


@pytest.mark.parametrize(
    ("status", "true"),
    [("True", True), ("False", False), ("Unknown", False), ("true", False), (True, False), (None, False)],
)
def test_a_condition_is_true_only_when_its_status_says_True(status, true):
    assert condition_true(job(("Complete", status)), "Complete") is true
    assert any_condition_true(job(("Failed", status)), ("Complete", "Failed")) is true


def test_any_condition_true_looks_at_every_type_named():
    obj = job(("Complete", "False"), ("SuccessCriteriaMet", "True"))
    assert any_condition_true(obj, ("Complete", "SuccessCriteriaMet"))
    assert any_condition_true(obj, ("SuccessCriteriaMet",))
    assert not any_condition_true(obj, ("Complete",))
    assert not any_condition_true(obj, ())


@pytest.mark.parametrize(
    ("conditions", "found"),
    [
        ([("Failed", "True")], "FailedReason"),
        ([("FailureTarget", "True")], "FailureTargetReason"),  # Kubernetes 1.31+, just before Failed
        ([("FailureTarget", "True"), ("Failed", "True")], "FailedReason"),  # Failed first, wherever it stands
        ([("Failed", "False"), ("FailureTarget", "True")], "FailureTargetReason"),
        ([("Failed", "False"), ("FailureTarget", "False")], None),
        ([("Complete", "True"), ("SuccessCriteriaMet", "True")], None),
        ([("Failed", "Unknown")], None),
        ([], None),
    ],
)
def test_a_jobs_failure_is_its_true_failed_or_failure_target_condition(conditions, found):
    cond = true_failure_condition(job(*conditions))
    assert (cond["reason"] if cond else None) == found


# --- times --------------------------------------------------------------------------------------------------


def test_newest_first_puts_objects_without_a_creation_time_last_as_they_came():
    objects = [
        job(name="no-time-1"),
        job(created="1970-01-01T00:00:01Z", name="first-second"),
        job(created="2026-09-24T06:20:00Z", name="newest"),
        job(created="not a time", name="no-time-2"),
        job(created="2026-09-24T06:19:59+00:00", name="a-second-before"),
        job(created="2026-09-24T08:19:59+02:00", name="same-moment-in-another-zone"),
    ]
    assert [name_of(o) for o in newest_first(objects)] == [
        "newest",
        "a-second-before",
        "same-moment-in-another-zone",
        "first-second",
        "no-time-1",
        "no-time-2",
    ]
    assert newest_first([]) == []
    assert newest_first(iter(objects[:2])) == [objects[1], objects[0]]


def test_earliest_and_latest_pass_over_unknown_times():
    one, two, three = (datetime(2026, 9, 24, hour, tzinfo=UTC) for hour in (6, 7, 8))
    assert earliest([two, None, one, three]) == one
    assert latest([two, None, three, one]) == three
    assert earliest(iter([None, two])) == two and latest(iter([two, None])) == two
    assert earliest([None, None]) is None and latest([None]) is None
    assert earliest([]) is None and latest([]) is None


@pytest.mark.parametrize(
    ("conditions", "phase"),
    [
        ([("Complete", "True")], SUCCEEDED),
        ([("SuccessCriteriaMet", "True")], SUCCEEDED),  # Kubernetes 1.31+, just before Complete
        ([("SuccessCriteriaMet", "True"), ("FailureTarget", "True")], SUCCEEDED),  # success is read first
        ([("Failed", "True")], FAILED),
        ([("FailureTarget", "True")], FAILED),  # Kubernetes 1.31+, just before Failed
        (
            [("Complete", "False"), ("SuccessCriteriaMet", "False"), ("Failed", "False"), ("FailureTarget", "False")],
            RUNNING,
        ),
        ([("Suspended", "True"), ("Failed", "Unknown")], QUEUED),
    ],
)
def test_a_jobs_end_is_told_by_either_of_its_success_or_failure_conditions(conditions, phase):
    assert job_phase(job(*conditions), set()) == phase
