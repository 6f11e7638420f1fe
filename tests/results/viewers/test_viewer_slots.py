"""Viewers share the worker fairly: one person may have only so many viewer requests served at once
(results/viewers/slots.py), counted in the storage every process shares; past it, 429 with a sentence."""

from __future__ import annotations

import threading

import pytest
from django.test import Client
from redis.exceptions import RedisError

from results.accounts import counters, ratelimit
from results.accounts.counters import FileCounters, RedisCounters
from results.store.budget import person_named
from results.store.reader import ResultsReader
from results.viewers import slots
from tests.fixtures.session import login_as

HELD = "held-view"


@pytest.fixture(autouse=True)
def clean_slots(settings):
    settings.HTRFLOW_VIEWS_PER_PERSON = 2
    slots.forget()
    ratelimit.reset()
    yield
    slots.forget()
    ratelimit.reset()


class Gate:
    """Holds every store read made from a thread named ``HELD`` until ``open()``; counts who is waiting."""

    def __init__(self, monkeypatch):
        self.waiting = 0
        self._opened = threading.Event()
        self._condition = threading.Condition()
        real_get = ResultsReader.get

        def get(reader, key, **options):
            if threading.current_thread().name == HELD:
                with self._condition:
                    self.waiting += 1
                    self._condition.notify_all()
                self._opened.wait(timeout=30)
            return real_get(reader, key, **options)

        monkeypatch.setattr(ResultsReader, "get", get)

    def wait_for(self, count):
        with self._condition:
            assert self._condition.wait_for(lambda: self.waiting >= count, timeout=30)

    def open(self):
        self._opened.set()


def client_of(account) -> Client:
    client = Client()
    login_as(client, account)
    return client


def held_requests(client, paths):
    """Each path asked for in a thread of its own (held at the gate); the answers land in the list."""
    answers = []
    threads = [threading.Thread(target=lambda path=path: answers.append(client.get(path)), name=HELD) for path in paths]
    for thread in threads:
        thread.start()
    return threads, answers


def test_past_the_limit_a_persons_viewer_request_gets_429_and_another_person_is_served(
    store, volume, session_key_file, monkeypatch
):
    gate = Gate(monkeypatch)
    full, limited = client_of(store.accounts["full"]), client_of(store.accounts["limited"])
    person = person_named(store.accounts["full"].username)
    threads, answers = held_requests(full, [f"/log?log={volume['log']}", f"/alto?src={volume['alto']}"])
    try:
        gate.wait_for(2)
        assert slots.open_slots(person) == 2

        refused = full.get(f"/alto/text?src={volume['alto']}")
        assert refused.status_code == 429
        assert refused["Retry-After"] == str(slots.RETRY_AFTER_SECONDS)
        assert slots.refusal_sentence() in refused.content.decode()
        assert "You are already opening 2 viewer pages at once" in refused.content.decode()
        found = full.get(f"/log/find?log={volume['log']}&q=page", HTTP_ACCEPT="application/json")
        assert (found.status_code, found.json()) == (429, {"detail": slots.refusal_sentence()})

        # Someone else is not held back by it.
        assert limited.get(f"/log?log={volume['log']}").status_code == 200
    finally:
        gate.open()
        for thread in threads:
            thread.join(30)
    assert sorted(answer.status_code for answer in answers) == [200, 200]
    assert slots.open_slots(person) == 0
    assert full.get(f"/alto/text?src={volume['alto']}").status_code == 200


def test_a_slot_is_given_back_when_the_view_fails(store, volume, session_key_file, monkeypatch):
    full = client_of(store.accounts["full"])
    person = person_named(store.accounts["full"].username)

    def broken(reader, key, **options):
        raise RuntimeError("a fault inside the view")

    monkeypatch.setattr(ResultsReader, "get", broken)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            full.get(f"/log?log={volume['log']}")
        assert slots.open_slots(person) == 0
    monkeypatch.undo()
    assert full.get(f"/log?log={volume['log']}").status_code == 200


def test_refused_addresses_and_logins_take_no_slot(store, volume, session_key_file):
    full = client_of(store.accounts["full"])
    for _ in range(3):
        assert full.get("/log?log=https://elsewhere.example/x.txt").status_code == 400
    assert Client().get(f"/log?log={volume['log']}").status_code == 302
    assert slots.open_slots(person_named(store.accounts["full"].username)) == 0


@pytest.fixture(params=["pod", "redis"])
def two_processes(request, settings, tmp_path, monkeypatch):
    """Two counter objects on one storage, as two processes (or two replicas) hold them; ``use(n)`` makes
    this process count with the n-th."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        settings.HTRFLOW_REDIS_URL = url
        made = [RedisCounters(url, 2.0), RedisCounters(url, 2.0)]
    else:
        settings.HTRFLOW_REDIS_URL = ""
        made = [FileCounters(tmp_path / "state"), FileCounters(tmp_path / "state")]
    current = {"counters": made[0]}
    monkeypatch.setattr(counters, "counters", lambda: current["counters"])
    return lambda number: current.update(counters=made[number])


def test_the_limit_holds_across_processes_sharing_the_storage(two_processes):
    two_processes(0)
    first, second = slots.take("alice"), slots.take("alice")
    assert first and second and first.shared
    two_processes(1)
    assert slots.take("alice") is None
    assert slots.take("bob") is not None
    two_processes(0)
    slots.give_back(first)
    two_processes(1)
    third = slots.take("alice")
    assert third is not None and slots.open_slots("alice") == 2


def test_an_abandoned_count_in_redis_expires(redis_url, settings, redis_server):
    settings.HTRFLOW_REDIS_URL = redis_url
    assert slots.take("carol") is not None  # never given back: its process was killed mid-request
    left = int(redis_server.command("PTTL", counters.REDIS_PREFIX + "viewer-slots:carol").lstrip(b":"))
    assert 0 < left <= slots.SLOT_SECONDS * 1000


class _Unreachable:
    def __init__(self):
        self.calls = 0

    def add(self, key, delta, window):
        self.calls += 1
        raise RedisError("no answer")

    get = add


def test_while_the_storage_does_not_answer_slots_are_counted_in_this_process(monkeypatch, caplog):
    unreachable = _Unreachable()
    with monkeypatch.context() as patched:
        patched.setattr(counters, "counters", lambda: unreachable)
        taken = [slots.take("dave"), slots.take("dave")]
        assert all(slot is not None and not slot.shared for slot in taken)
        assert slots.take("dave") is None
        for slot in taken:
            slots.give_back(slot)
        assert slots.open_slots("dave") == 0
    # Asked once, then left alone until STORAGE_RETRY_SECONDS have passed; said once in the log.
    assert unreachable.calls == 1
    assert caplog.text.count("viewer requests are counted per process") == 1
