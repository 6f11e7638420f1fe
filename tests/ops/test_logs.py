"""Log lines: the request id, JSON lines, and outages as one warning per change of state."""

from __future__ import annotations

import json
import logging
import re

import pytest

from core.outages import Outage
from htrbrowser import logs
from results.store import watch as store_watch
from tests.campaigns.web.test_views import add_campaign, prepared_cluster
from tests.fixtures.session import login_as
from tests.fixtures.waiting import wait_until


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture(autouse=True)
def fresh_outages():
    for outage in logs._answers.values():
        outage.reset()
    store_watch.store_outage.reset()
    yield


def test_a_plain_request_id_is_kept_and_sent_back(client):
    response = client.get("/healthz", headers={"X-Request-ID": "abc-123.def:4"})
    assert response["X-Request-ID"] == "abc-123.def:4"


@pytest.mark.parametrize("sent", ["x" * 129, "two words", "line\nbreak", "<script>", ""])
def test_a_request_id_that_is_not_a_short_plain_token_is_replaced(client, sent):
    response = client.get("/healthz", headers={"X-Request-ID": sent})
    made = response["X-Request-ID"]
    assert made != sent and logs.REQUEST_ID.fullmatch(made)


def test_the_request_line_has_method_path_status_duration_and_id_but_never_the_query(client, caplog):
    caplog.set_level(logging.INFO, logger="htrbrowser.requests")
    client.get("/login?next=/secret-place&token=hunter2", headers={"X-Request-ID": "line-1"})
    (line,) = [r for r in caplog.records if r.name == "htrbrowser.requests"]
    assert (line.method, line.path, line.status) == ("GET", "/login", 200)
    assert line.duration_ms >= 0 and line.request_id == "line-1"
    assert "hunter2" not in line.getMessage() and "secret-place" not in line.getMessage()


def test_a_json_line_is_one_object_with_the_request_fields_and_extras():
    formatter = logs.JsonFormatter()
    record = logging.LogRecord(
        "results.accounts.login", logging.INFO, __file__, 1, "Login accepted for %r.", ("ann",), None
    )
    record.request_id = "rid-7"
    record.user = "ann"
    entry = json.loads(formatter.format(record))
    assert entry["message"] == "Login accepted for 'ann'."
    assert (entry["level"], entry["logger"]) == ("INFO", "results.accounts.login")
    assert (entry["request_id"], entry["user"]) == ("rid-7", "ann")
    assert entry["time"].endswith("+00:00")


def test_an_outage_is_one_warning_when_it_starts_and_one_when_it_ends(caplog):
    outage = Outage("test thing", logging.getLogger("tests.outage"))
    caplog.set_level(logging.WARNING, logger="tests.outage")
    for _ in range(5):
        outage.failing("The thing could not be reached.")
    for _ in range(5):
        outage.working()
    messages = [r.getMessage() for r in caplog.records if r.name == "tests.outage"]
    assert messages[0] == "test thing failing: The thing could not be reached."
    assert messages[1].startswith("test thing working again")
    assert len(messages) == 2


def test_many_502_answers_during_a_cluster_outage_log_one_warning_and_no_errors(
    cluster, client, store, session_key_file, caplog
):
    login_as(client, store.accounts["full"])
    add_campaign(cluster, "outaged", volume_ids=["A1"], completed="")
    caplog.set_level(logging.INFO)
    fault = cluster.inject_fault(r"/jobs", status=503)
    for _ in range(6):
        assert client.get("/campaigns/htr-batch/outaged/card", headers={"HX-Request": "true"}).status_code == 502
    fault.remove()
    # The board's informer asks again after a pause that grows with each failure: wait for it.
    wait_until(
        lambda: client.get("/campaigns/htr-batch/outaged/card", headers={"HX-Request": "true"}).status_code == 200,
        timeout=30,
        interval=0.2,
        what="the cluster read again after the outage",
    )
    answers = [r for r in caplog.records if r.name == "htrbrowser.answers"]
    assert [r.state for r in answers] == ["failing", "working"]
    assert "The cluster's API answered 503" in answers[0].sentence
    assert not [r for r in caplog.records if r.name == "django.request"]


def test_a_store_outage_is_one_warning_with_the_sentence_people_see(client, store, session_key_file, caplog, settings):
    login_as(client, store.accounts["full"])
    settings.S3_ENDPOINT = "http://127.0.0.1:9"  # nothing listens there
    from results.store import s3 as store_module

    store_module.forget_clients()
    caplog.set_level(logging.WARNING, logger="results.store.s3")
    for _ in range(4):
        assert client.get("/results/htr-batch/anything.json").status_code == 502
    failing = [r for r in caplog.records if r.name == "results.store.s3" and getattr(r, "state", "") == "failing"]
    assert len(failing) == 1
    assert failing[0].sentence == "The results store could not be reached."
    store_module.forget_clients()


# --- one line per request, whatever its path holds ------------------------------------------------


def logged_line(client, path: str, formatter: logging.Formatter) -> str:
    """What the console would write for the request line of ``path``."""
    lines = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(formatter.format(record))
    handler.addFilter(logs.RequestIdFilter())
    logs.requests_log.addHandler(handler)
    try:
        client.get(path)
    finally:
        logs.requests_log.removeHandler(handler)
    (line,) = lines
    return line


FORGING_PATHS = [  # (path asked, path as decoded, path as the plain line shows it)
    (
        "/x%0aINFO%20htrbrowser.requests%20FORGED",
        "/x\nINFO htrbrowser.requests FORGED",
        r"/x\nINFO htrbrowser.requests FORGED",
    ),
    ("/x%0d%0aINFO%20FORGED", "/x\r\nINFO FORGED", r"/x\r\nINFO FORGED"),
    ("/x%E2%80%A8INFO%20FORGED", "/x\u2028INFO FORGED", r"/x\u2028INFO FORGED"),
    ("/x%C2%85%7F%1b[2J", "/x\x85\x7f\x1b[2J", r"/x\x85\x7f\x1b[2J"),
    ("/x%E2%80%AEgpj.exe", "/x\u202egpj.exe", r"/x\u202Egpj.exe"),
]


@pytest.mark.parametrize(("asked", "decoded", "shown"), FORGING_PATHS)
def test_a_path_with_line_breaks_is_one_plain_log_line_with_the_breaks_escaped(client, asked, decoded, shown):
    line = logged_line(client, asked, logs.PlainFormatter())
    assert len(line.splitlines()) == 1 and line.endswith(" ms")
    assert f"]: GET {shown} " in line


@pytest.mark.parametrize(("asked", "decoded", "shown"), FORGING_PATHS)
def test_a_json_line_holds_the_path_as_it_was_asked_on_one_line(client, asked, decoded, shown):
    line = logged_line(client, asked, logs.JsonFormatter())
    assert len(line.splitlines()) == 1
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202e]", line)
    assert json.loads(line)["path"] == decoded
