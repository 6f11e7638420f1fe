"""Failed-login limits shared by every process: the pod-local SQLite store and Redis.

In-process tests run against both storages; the served tests start two app processes (the
Dockerfile's gunicorn, two workers each) that share one storage, and send each attempt to
one or the other: the limits hold whichever process answers.
"""

import json
import multiprocessing

import pytest
import requests
from django.test import RequestFactory

from results.accounts import login, ratelimit
from results.accounts.counters import FileCounters
from results.store import s3 as store
from results.store.outcomes import Outcome, StoreError

pytestmark = pytest.mark.usefixtures("session_key_file")

factory = RequestFactory()


@pytest.fixture(params=["pod", "redis"])
def shared_storage(request, settings, tmp_path):
    """The limits' storage for one test: a fresh pod-local folder, or the test Redis emptied."""
    if request.param == "redis":
        settings.HTRFLOW_REDIS_URL = request.getfixturevalue("redis_url")
    else:
        settings.HTRFLOW_REDIS_URL = ""
        settings.HTRFLOW_STATE_DIR = str(tmp_path / "state")
    return request.param


@pytest.fixture
def accepts_only(monkeypatch):
    def install(right_password):
        def prove(access_key, secret_key, **options):
            if secret_key != right_password:
                raise StoreError(Outcome.SESSION_ENDED)
            return True

        monkeypatch.setattr(store, "prove_account", prove)

    return install


def attempt(address, username, password):
    return login.attempt(factory.post("/results/_login", REMOTE_ADDR=address), username, password)


def test_addresses_of_one_ipv6_slash_64_count_as_one_client(shared_storage, accepts_only, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (5, 900)
    accepts_only("right")
    statuses = [attempt(f"2001:db8:7:8::{number:x}", "alice", "guess").status for number in range(1, 7)]
    assert statuses == [401] * 5 + [429]
    # Another /64 is another client.
    assert attempt("2001:db8:7:9::1", "alice", "right").ok


def test_many_names_from_one_slash_64_meet_the_address_limit(shared_storage, accepts_only, settings):
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (20, 900)
    accepts_only("right")
    statuses = [attempt(f"2001:db8:7:8::{number:x}", f"name-{number}", "guess").status for number in range(1, 50)]
    assert statuses[:20] == [401] * 20
    assert set(statuses[20:]) == {429}


def test_guesses_from_many_addresses_do_not_lock_the_owner_out_of_an_address_used_before(
    shared_storage, accepts_only, settings
):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (4, 900)
    settings.HTRFLOW_LOGIN_USER_CEILING = (12, 900)
    accepts_only("right")
    assert attempt("203.0.113.20", "alice", "right").ok
    for number in range(3):
        for _ in range(4):
            assert attempt(f"198.51.100.{number}", "alice", "guess").status == 401
    # The ceiling is reached: a new address is refused even with the right password...
    refused = attempt("203.0.113.99", "alice", "right")
    assert (refused.status, refused.reason) == (429, "rate_limited")
    assert "from many addresses" in refused.sentence
    # ...but the owner, from the address they logged in from before, still gets in.
    assert attempt("203.0.113.20", "alice", "right").ok


def test_an_address_used_before_is_still_held_to_its_own_limit(shared_storage, accepts_only, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (3, 900)
    accepts_only("right")
    assert attempt("203.0.113.21", "alice", "right").ok
    statuses = [attempt("203.0.113.21", "alice", "guess").status for _ in range(4)]
    assert statuses == [401, 401, 401, 429]


def test_no_count_is_lost_when_processes_increment_together(tmp_path):
    location = str(tmp_path / "state")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_increment_many, args=(location, 200)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 4
    assert FileCounters(location).get("n") == 800


def _increment_many(location, times):
    counters = FileCounters(location)
    for _ in range(times):
        counters.add("n", 1, 600)


def test_the_pod_store_forgets_what_has_expired_and_never_creates_a_count_by_giving_one_back(tmp_path):
    counters = FileCounters(str(tmp_path / "state"))
    counters.put("gone", 1, -1)
    assert counters.get("gone") is None
    assert counters.add("gone", -1, 60) == (0, 0.0)
    assert counters.get("gone") is None
    count, left = counters.add("gone", 1, 60)
    assert count == 1 and 59 < left <= 60
    assert counters.add("gone", 1, 60)[0] == 2
    assert counters.add("gone", -1, 60)[0] == 1
    assert counters.add("gone", -1, 60)[0] == 0
    assert counters.get("gone") is None


def test_a_redis_that_does_not_answer_pauses_logins_with_a_sentence(settings, closed_port_endpoint, store_calls):
    settings.HTRFLOW_REDIS_URL = closed_port_endpoint.replace("http://", "redis://")
    settings.HTRFLOW_REDIS_TIMEOUT = 1
    answer = attempt("203.0.113.30", "alice", "pw")
    assert answer.status == 503
    assert answer.sentence == (
        "Logins are paused because the site's shared login limits (Redis) did not answer; "
        "try again shortly, or tell an operator to check HTRFLOW_REDIS_URL."
    )
    assert store_calls == []


def test_an_unwritable_state_folder_pauses_logins_with_a_sentence(settings, tmp_path, store_calls):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    settings.HTRFLOW_REDIS_URL = ""
    settings.HTRFLOW_STATE_DIR = str(blocked / "state")
    answer = attempt("203.0.113.31", "alice", "pw")
    assert answer.status == 503
    assert "HTRFLOW_STATE_DIR" in answer.sentence
    assert store_calls == []


# --- two app processes, served as the Dockerfile serves them ------------------------------


_connections = {}


def served_login(base, username, password, client_address):
    """A JSON login sent to one server as if from ``client_address`` (through one trusted proxy)."""
    browser = _connections.setdefault(base, requests.Session())
    browser.cookies.clear()
    answer = browser.post(
        base + "/results/_login",
        data=json.dumps({"username": username, "password": password}),
        headers={"Origin": base, "Content-Type": "application/json", "X-Forwarded-For": client_address},
        timeout=15,
    )
    return answer.status_code


@pytest.fixture(params=["pod", "redis"])
def two_processes(request, gunicorn, store, tmp_path):
    """Two app servers (gunicorn, two workers each) sharing one storage of the limits."""
    shared = {"HTRFLOW_STATE_DIR": str(tmp_path / "one-pod")}
    if request.param == "redis":
        shared = {"HTRFLOW_REDIS_URL": request.getfixturevalue("redis_url")}
    common = dict(
        S3_ENDPOINT=store.endpoint, S3_BUCKET=store.bucket, HTRFLOW_RESULTS_NAMESPACE=store.namespace,
        HTRFLOW_HTTPS="false", HTRFLOW_TRUSTED_HOPS="1", **shared,
    )
    yield gunicorn.many(2, collect_static=False, **common)
    for browser in _connections.values():
        browser.close()
    _connections.clear()


def test_the_limits_hold_whichever_process_answers(two_processes, store):
    first, second = two_processes
    owner = store.accounts["full"]
    # The sixth wrong password for one name from one address is refused by either process.
    statuses = [served_login((first, second)[n % 2], owner.username, "guess", "203.0.113.50") for n in range(5)]
    assert statuses == [401] * 5
    assert served_login(first, owner.username, "guess", "203.0.113.50") == 429
    assert served_login(second, owner.username, owner.password, "203.0.113.50") == 429
    # A /64 counts as one address.
    statuses = [
        served_login((first, second)[n % 2], owner.username, "guess", f"2001:db8:5:6::{n + 1:x}") for n in range(6)
    ]
    assert statuses == [401] * 5 + [429]

    # The owner is not locked out of an address used before by guesses spread over processes and
    # addresses, though a new address meets the ceiling.
    owner = store.accounts["limited"]
    assert served_login(first, owner.username, owner.password, "203.0.113.60") == 204
    ceiling, _window = ratelimit.USER_CEILING
    per_address, _window = ratelimit.USER_LIMIT
    for number in range(ceiling // per_address):
        for attempt_number in range(per_address):
            server = (first, second)[attempt_number % 2]
            assert served_login(server, owner.username, "guess", f"198.51.100.{number + 1}") == 401
    assert served_login(second, owner.username, owner.password, "203.0.113.61") == 429
    assert served_login(second, owner.username, owner.password, "203.0.113.60") == 204
