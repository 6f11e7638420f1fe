"""The failed-login counters hold whole numbers only: a value planted in Redis or in the pod's file is
never unpickled, only reset with one warning (a real redis-server, a real SQLite file)."""

import logging
import os
import pickle
import sqlite3
import time

import pytest
import redis
from django.test import RequestFactory

from results.accounts import counters, login, ratelimit
from results.store import s3 as store
from results.store.outcomes import Outcome, StoreError

pytestmark = pytest.mark.usefixtures("session_key_file")

factory = RequestFactory()
ADDRESS = "203.0.113.70"


class CreatesAFile:
    """A pickle that creates ``path`` when it is loaded: what an attacker would plant."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def planted_pickle(path):
    return pickle.dumps(CreatesAFile(path))


def test_the_planted_pickle_would_run_if_it_were_ever_loaded(tmp_path):
    """The payload the other tests plant is live: loading it creates its file."""
    witness = tmp_path / "witness"
    pickle.loads(planted_pickle(witness)).close()
    assert witness.exists()


@pytest.fixture
def wrong_passwords(monkeypatch, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (3, 900)
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (100, 900)

    def prove(access_key, secret_key, **options):
        raise StoreError(Outcome.SESSION_ENDED)

    monkeypatch.setattr(store, "prove_account", prove)


def wrong_login():
    return login.attempt(factory.post("/results/_login", REMOTE_ADDR=ADDRESS), "alice", "guess").status


def counter_keys():
    """Every key a wrong login for alice from ADDRESS reads or raises."""
    bucket, user = ratelimit.address_bucket(ADDRESS), "alice"
    return [
        ratelimit._key("address", bucket),
        ratelimit._key("user-here", user, bucket),
        ratelimit._key("user", user),
        ratelimit._key("known", user, bucket),
    ]


def corrupt_warnings(caplog):
    return [r for r in caplog.records if r.levelno == logging.WARNING and "not a whole number" in r.getMessage()]


def assert_counts_start_again(caplog, marker):
    """After the plant: no file, one warning per planted key, and the user limit counts from zero."""
    with caplog.at_level(logging.WARNING, logger="results.accounts.counters"):
        assert wrong_login() == 401
    assert not marker.exists()
    assert len(corrupt_warnings(caplog)) == len(counter_keys())
    caplog.clear()
    assert [wrong_login() for _ in range(3)] == [401, 401, 429]
    assert corrupt_warnings(caplog) == []
    assert not marker.exists()


def test_a_pickle_planted_in_redis_is_reset_with_a_warning_and_never_loaded(
    redis_url, settings, wrong_passwords, caplog, tmp_path
):
    settings.HTRFLOW_REDIS_URL = redis_url
    marker = tmp_path / "planted-pickle-ran"
    client = redis.Redis.from_url(redis_url)
    for key in counter_keys():
        client.set(counters.REDIS_PREFIX + key, planted_pickle(marker), ex=900)
    assert_counts_start_again(caplog, marker)
    user_here = counters.REDIS_PREFIX + counter_keys()[1]
    assert client.get(user_here) == b"3"  # three failures; the refused attempt gave its count back
    assert 890 < client.ttl(user_here) <= 900


def test_values_of_other_redis_types_or_without_an_expiry_are_reset_too(redis_url, settings, wrong_passwords, caplog):
    settings.HTRFLOW_REDIS_URL = redis_url
    client = redis.Redis.from_url(redis_url)
    address_key, user_here, ceiling, known = (counters.REDIS_PREFIX + key for key in counter_keys())
    client.rpush(address_key, "1", "2")
    client.set(user_here, "2.5")
    client.set(ceiling, "7")  # a whole number, but planted without an expiry
    client.hset(known, "a", "1")
    with caplog.at_level(logging.WARNING, logger="results.accounts.counters"):
        assert wrong_login() == 401
    assert len(corrupt_warnings(caplog)) == 3
    assert client.get(address_key) == b"1" and client.get(user_here) == b"1"
    assert client.get(ceiling) == b"8" and 0 < client.ttl(ceiling) <= 900
    assert client.exists(known) == 0


def plant_in_the_file(state, rows):
    """What someone who could write the pod's file might do: a table without STRICT, holding ``rows``."""
    with sqlite3.connect(state / counters.FILE_NAME) as connection:
        connection.execute("DROP TABLE IF EXISTS counters")
        connection.execute("CREATE TABLE counters (key TEXT PRIMARY KEY, value, expires)")
        connection.executemany("INSERT INTO counters VALUES (?, ?, ?)", rows)
    connection.close()


def test_a_pickle_planted_in_the_pod_file_is_reset_with_a_warning_and_never_loaded(
    settings, wrong_passwords, caplog, tmp_path
):
    settings.HTRFLOW_REDIS_URL = ""
    settings.HTRFLOW_STATE_DIR = str(tmp_path / "state")
    assert wrong_login() == 401  # the app has made its file and opened it
    marker = tmp_path / "planted-pickle-ran"
    plant_in_the_file(tmp_path / "state", [(key, planted_pickle(marker), time.time() + 900) for key in counter_keys()])
    assert_counts_start_again(caplog, marker)


def test_text_or_a_bad_expiry_planted_in_the_pod_file_is_reset_too(settings, wrong_passwords, caplog, tmp_path):
    settings.HTRFLOW_REDIS_URL = ""
    settings.HTRFLOW_STATE_DIR = str(tmp_path / "state")
    os.makedirs(settings.HTRFLOW_STATE_DIR, mode=0o700)
    address_key, user_here, ceiling, known = counter_keys()
    plant_in_the_file(tmp_path / "state", [
        (address_key, "5", time.time() + 900),
        (user_here, 2, "tomorrow"),
        (ceiling, 2**63 - 1, time.time() + 900),
        (known, 1.0, time.time() + 900),
    ])
    with caplog.at_level(logging.WARNING, logger="results.accounts.counters"):
        assert wrong_login() == 401
    assert len(corrupt_warnings(caplog)) == 4
    file_counters = counters.counters()
    assert [file_counters.get(key) for key in counter_keys()] == [1, 1, 1, None]


def test_the_pod_file_refuses_anything_but_integers(tmp_path):
    file_counters = counters.FileCounters(str(tmp_path / "state"))
    file_counters.put("n", 3, 60)
    with sqlite3.connect(tmp_path / "state" / counters.FILE_NAME) as connection:
        for value in (planted_pickle(tmp_path / "x"), "three", 2.5):
            with pytest.raises(sqlite3.IntegrityError):
                connection.execute("UPDATE counters SET value = ? WHERE key = 'n'", (value,))
    connection.close()
    assert file_counters.get("n") == 3
