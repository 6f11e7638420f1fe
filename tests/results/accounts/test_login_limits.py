"""Failed-login limits under concurrency, and why they are no lock-out tool."""

import threading

import pytest
from django.test import RequestFactory

from results.accounts import login, ratelimit
from results.store import s3 as store
from results.store.outcomes import Outcome, StoreError

pytestmark = pytest.mark.usefixtures("session_key_file")

factory = RequestFactory()
PARALLEL_ATTEMPTS = 40


def request_from(address):
    return factory.post("/results/_login", REMOTE_ADDR=address)


class GatedWrongStore:
    """A store that refuses every account, but only once every attempt has either reached it or been
    turned away: so all attempts are in flight together, whatever the thread scheduling."""

    def __init__(self, expected):
        self.expected = expected
        self.calls = 0
        self.turned_away = 0
        self.condition = threading.Condition()

    def prove_account(self, access_key, secret_key, **options):
        with self.condition:
            self.calls += 1
            self.condition.notify_all()
            self.condition.wait_for(lambda: self.calls + self.turned_away >= self.expected, timeout=10)
        raise StoreError(Outcome.SESSION_ENDED)

    def note_answer(self, answer):
        if answer.reason == "rate_limited":
            with self.condition:
                self.turned_away += 1
                self.condition.notify_all()


def test_parallel_wrong_logins_never_reach_the_store_more_often_than_the_limit(monkeypatch, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (5, 600)
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (100, 600)
    gated = GatedWrongStore(PARALLEL_ATTEMPTS)
    monkeypatch.setattr(store, "prove_account", gated.prove_account)
    answers = []

    def one_attempt():
        answer = login.attempt(request_from("203.0.113.40"), "alice", "guess")
        gated.note_answer(answer)
        answers.append(answer.status)

    threads = [threading.Thread(target=one_attempt) for _ in range(PARALLEL_ATTEMPTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert gated.calls == 5
    assert sorted(answers) == [401] * 5 + [429] * (PARALLEL_ATTEMPTS - 5)


def test_parallel_wrong_logins_from_one_address_stop_at_the_address_limit(monkeypatch, settings):
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (7, 600)
    gated = GatedWrongStore(PARALLEL_ATTEMPTS)
    monkeypatch.setattr(store, "prove_account", gated.prove_account)

    def one_attempt(number):
        gated.note_answer(login.attempt(request_from("203.0.113.41"), f"user-{number}", "guess"))

    threads = [threading.Thread(target=one_attempt, args=(number,)) for number in range(PARALLEL_ATTEMPTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert gated.calls == 7


def test_an_attempt_the_store_could_not_judge_does_not_count_as_a_failure(monkeypatch, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 600)

    def unreachable(access_key, secret_key, **options):
        raise StoreError(Outcome.UNREACHABLE)

    monkeypatch.setattr(store, "prove_account", unreachable)
    for _ in range(5):
        assert login.attempt(request_from("203.0.113.42"), "alice", "pw").status == 502


def test_a_success_forgets_the_failures_of_that_name_from_that_address(monkeypatch, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (3, 600)
    outcomes = iter([StoreError(Outcome.SESSION_ENDED)] * 2 + [None] + [StoreError(Outcome.SESSION_ENDED)] * 3)

    def scripted(access_key, secret_key, **options):
        outcome = next(outcomes)
        if outcome is not None:
            raise outcome

    monkeypatch.setattr(store, "prove_account", scripted)
    statuses = [login.attempt(request_from("203.0.113.43"), "alice", "pw").status for _ in range(7)]
    assert statuses == [401, 401, 204, 401, 401, 401, 429]


# --- no lock-out tool ----------------------------------------------------------------------


@pytest.fixture
def accepts_only(monkeypatch):
    """A store that accepts exactly one password for every user name."""

    def install(right_password):
        def prove(access_key, secret_key, **options):
            if secret_key != right_password:
                raise StoreError(Outcome.SESSION_ENDED)

        monkeypatch.setattr(store, "prove_account", prove)

    return install


def test_failures_from_elsewhere_do_not_lock_the_owner_out(accepts_only, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (5, 900)
    accepts_only("right")
    attacker = request_from("198.51.100.66")
    statuses = [login.attempt(attacker, "alice", "guess").status for _ in range(8)]
    assert statuses == [401] * 5 + [429] * 3
    # The owner, from their own address, still gets in with the right password.
    assert login.attempt(request_from("203.0.113.10"), "alice", "right").ok


def test_the_attacker_is_held_back_even_with_the_right_password(accepts_only, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (5, 900)
    accepts_only("right")
    attacker = request_from("198.51.100.67")
    for _ in range(5):
        login.attempt(attacker, "alice", "guess")
    answer = login.attempt(attacker, "alice", "right")
    assert answer.status == 429
    assert answer.sentence == (
        "Too many failed logins for this user name from your address; wait 15 minutes before trying again."
    )


def test_failures_for_one_name_from_many_addresses_meet_a_higher_ceiling(accepts_only, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 900)
    settings.HTRFLOW_LOGIN_USER_CEILING = (6, 600)
    accepts_only("right")
    for number in range(3):
        for _ in range(2):
            assert login.attempt(request_from(f"198.51.100.{number}"), "alice", "guess").status == 401
    answer = login.attempt(request_from("203.0.113.11"), "alice", "right")
    assert answer.status == 429
    assert 580 <= answer.retry_after <= 600
    assert answer.sentence == (
        "Too many failed logins for this user name from many addresses; wait 10 minutes before trying again."
    )
    # Other names are not held back by it.
    assert login.attempt(request_from("203.0.113.11"), "bob", "right").ok


def test_the_ceiling_is_well_above_one_addresss_limit():
    per_address, _ = ratelimit.USER_LIMIT
    ceiling, _ = ratelimit.USER_CEILING
    assert ceiling >= 5 * per_address
