"""The in-process reader: the same account and the same outcomes as the file route, without HTTP."""

import json

import pytest
from django.test import RequestFactory

from results.accounts import session
from results.store.reader import Outcome, ResultsReader, StoreError, reader_for


@pytest.fixture
def reader_as(store):
    def make(name):
        account = store.accounts[name]
        return ResultsReader(session.ResultsSession(account.username, account.access_key, account.secret_key, 0))

    return make


@pytest.fixture
def run_log(store, store_prefix):
    key = store_prefix + "status/logs/p/v.txt"
    store.put(key, b"line one\nline two\nline three\n", "text/plain")
    return key


def test_a_whole_small_object_is_read(reader_as, run_log):
    blob = reader_as("full").get(run_log)
    assert blob.body == b"line one\nline two\nline three\n"
    assert (blob.start, blob.end, blob.size) == (0, len(blob.body) - 1, len(blob.body))
    assert blob.complete and blob.etag and blob.last_modified is not None
    assert blob.content_type == "text/plain"


def test_a_slice_and_a_tail_are_read_with_the_whole_size(reader_as, run_log):
    reader = reader_as("full")
    middle = reader.get(run_log, start=5, end=7)
    assert (middle.body, middle.start, middle.end, middle.size) == (b"one", 5, 7, 29)
    tail = reader.get(run_log, suffix=6)
    assert (tail.body, tail.start, tail.end) == (b"three\n", 23, 28)
    assert not tail.complete


def test_reads_are_clipped_to_max_bytes(reader_as, run_log):
    reader = reader_as("full")
    head = reader.get(run_log, max_bytes=4)
    assert (head.body, head.size, head.complete) == (b"line", 29, False)
    open_ended = reader.get(run_log, start=9, max_bytes=4)
    assert (open_ended.body, open_ended.start, open_ended.end) == (b"line", 9, 12)


def test_head_tells_the_size_without_a_body(reader_as, run_log):
    blob = reader_as("full").head(run_log)
    assert (blob.body, blob.size) == (b"", 29)


def test_json_is_parsed_and_bad_json_is_a_value_error(reader_as, store, store_prefix):
    store.put(store_prefix + "good.json", json.dumps({"stage": "done"}))
    store.put(store_prefix + "bad.json", b"{not json")
    reader = reader_as("full")
    assert reader.get_json(store_prefix + "good.json") == {"stage": "done"}
    with pytest.raises(ValueError):
        reader.get_json(store_prefix + "bad.json")
    with pytest.raises(ValueError):
        reader.get_json(store_prefix + "good.json", max_bytes=3)


@pytest.mark.parametrize(
    "name, key_suffix, outcome, status",
    [
        ("outsider", "status/logs/p/v.txt", Outcome.FORBIDDEN, 403),
        ("full", "missing.json", Outcome.NOT_FOUND, 404),
    ],
)
def test_store_refusals_are_outcomes(reader_as, run_log, store_prefix, name, key_suffix, outcome, status):
    with pytest.raises(StoreError) as caught:
        reader_as(name).get(store_prefix + key_suffix)
    assert (caught.value.outcome, caught.value.status) == (outcome, status)
    assert caught.value.sentence


def test_keys_breaking_the_rules_are_refused_without_asking(reader_as):
    for key in ("htr-batch/../x", "elsewhere/p/x.json", "htr-batch//x"):
        with pytest.raises(StoreError) as caught:
            reader_as("full").get(key)
        assert caught.value.outcome is Outcome.BAD_KEY


def test_an_unsatisfiable_slice_is_416(reader_as, run_log):
    with pytest.raises(StoreError) as caught:
        reader_as("full").get(run_log, start=500, end=600)
    assert (caught.value.outcome, caught.value.status) == (Outcome.UNSATISFIABLE, 416)


def test_an_unknown_account_ends_the_session_and_marks_the_request(store, store_prefix, run_log):
    request = RequestFactory().get("/")
    request.results_session = session.ResultsSession("gone", "NO-SUCH-KEY", "nothing", 0)
    request.results_session_ended = False
    reader = reader_for(request)
    with pytest.raises(StoreError) as caught:
        reader.get(run_log)
    assert (caught.value.outcome, caught.value.status) == (Outcome.SESSION_ENDED, 401)
    assert request.results_session_ended is True


def test_unreachable_and_timeout_outcomes(reader_as, run_log, settings, closed_port_endpoint, hung_endpoint):
    settings.S3_ENDPOINT = closed_port_endpoint
    with pytest.raises(StoreError) as caught:
        reader_as("full").get(run_log)
    assert (caught.value.outcome, caught.value.status) == (Outcome.UNREACHABLE, 502)
    settings.S3_ENDPOINT = hung_endpoint
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    with pytest.raises(StoreError) as caught:
        reader_as("full").get(run_log)
    assert (caught.value.outcome, caught.value.status) == (Outcome.TIMEOUT, 504)


def test_a_bare_403_is_no_reason(reader_as, settings, bare_403_endpoint):
    settings.S3_ENDPOINT = bare_403_endpoint
    with pytest.raises(StoreError) as caught:
        reader_as("full").get("htr-batch/p/v/progress.json")
    assert (caught.value.outcome, caught.value.status) == (Outcome.NO_REASON, 502)


def test_reader_for_is_none_without_a_session_and_the_persons_reader_with_one(results_client, store):
    request = RequestFactory().get("/")
    request.results_session = None
    assert reader_for(request) is None
    request.results_session = session.ResultsSession("full-reader", "a", "b", 0)
    assert reader_for(request).user == "full-reader"
    assert "b" not in repr(reader_for(request)).replace("full-reader", "")


def test_the_outcome_values_are_stable_strings():
    assert {o.value for o in Outcome} == {
        "no_session",
        "session_ended",
        "forbidden",
        "not_found",
        "bad_key",
        "unsatisfiable",
        "no_reason",
        "unreachable",
        "timeout",
        "too_many_downloads",
    }
    assert Outcome.FORBIDDEN == "forbidden"
