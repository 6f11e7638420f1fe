"""Who may see which campaigns (results/store/access.py), rule by rule, against a store double that answers
at once: what a proof says, when it is made again, what stands while the store cannot be asked, and what the
person's store budget lets it ask. The pages behind the gate are tested in tests/campaigns/web/test_card_access.py
(against the S3 double); these tests reach every rule in a few milliseconds each."""

from __future__ import annotations

import logging
import threading

import pytest
from django.test import RequestFactory

from results.accounts.session import ResultsSession
from results.store import access, budget
from results.store.access import EVERYTHING, Access
from results.store.outcomes import Outcome, StoreError
from tests.fixtures.waiting import wait_until

NS = "htr-batch"
MINE = f"{NS}/mine/"
THEIRS = f"{NS}/theirs/"
OTHER_NS = "elsewhere/p/"
USER = "someone"
PERSON = budget.person_named(USER)
AK, SK = "AKEXAMPLE", "secret"
ACCOUNT = access._key_of(AK, SK)
NOW = 1_000_000.0
INTERVAL = 300.0


class Store:
    """The store double: what each prefix and each object answers (True, False, None, or a StoreError
    raised), and every question asked, in order."""

    def __init__(self):
        self.prefixes: dict[str, object] = {}
        self.keys: dict[str, object] = {}
        self.asked: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def _answer(self, kind, table, access_key, secret_key, name, default):
        assert (access_key, secret_key) == (AK, SK)  # always asked with the person's own account
        with self.lock:
            self.asked.append((kind, name))
        answer = table.get(name, default)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def may_read_prefix(self, access_key, secret_key, prefix):
        return self._answer("prefix", self.prefixes, access_key, secret_key, prefix, False)

    def may_read_key(self, access_key, secret_key, key):
        return self._answer("key", self.keys, access_key, secret_key, key, None)

    def of(self, kind):
        return sorted(name for asked, name in self.asked if asked == kind)


class Budget:
    """The person's store budget: ``left`` reads (None: any number), every ``take`` kept."""

    def __init__(self, left=None):
        self.left = left
        self.taken: list[tuple[str, int]] = []

    def take(self, person, wanted):
        granted = wanted if self.left is None else max(0, min(wanted, self.left))
        if self.left is not None:
            self.left -= granted
        self.taken.append((person, wanted))
        return granted

    def clear(self):
        self.taken.clear()


class Reading:
    """What the reading knows of the campaigns' results; each call kept (with or without samples)."""

    def __init__(self, results):
        self.results = results
        self.calls: list[bool] = []

    def __call__(self, with_samples=True):
        self.calls.append(with_samples)
        if self.results is None:
            return None
        return {p: (s if with_samples else ()) for p, s in self.results.items()}


@pytest.fixture(autouse=True)
def _settings(settings):
    settings.HTRFLOW_RESULTS_NAMESPACE = NS
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    settings.HTRFLOW_ACCESS_SECONDS = INTERVAL
    settings.HTRFLOW_STORE_WAIT_SECONDS = 2.0
    settings.HTRFLOW_S3_TIMEOUT = 5.0
    access.clear_cache()
    yield
    access.clear_cache()


@pytest.fixture
def clock(monkeypatch):
    now = [NOW]
    monkeypatch.setattr(access, "_clock", lambda: now[0])
    return now


@pytest.fixture
def store(monkeypatch):
    double = Store()
    monkeypatch.setattr(access.store, "may_read_prefix", double.may_read_prefix)
    monkeypatch.setattr(access.store, "may_read_key", double.may_read_key)
    return double


@pytest.fixture
def reads(monkeypatch):
    double = Budget()
    monkeypatch.setattr(budget, "reads", double)
    return double


def session(reads_namespace=None):
    return ResultsSession(USER, AK, SK, issued_at=0, reads_namespace=reads_namespace)


def request_as(reads_namespace=None):
    request = RequestFactory().get("/")
    request.results_session = session(reads_namespace)
    return request


def put(proof: Access):
    access._proofs.put(ACCOUNT, proof)


def assert_same(got: Access, expected: Access):
    """Every field, the proof times (left out of ``==``) included."""
    assert got == expected
    assert dict(got.proved) == dict(expected.proved)


# --- what a proof lets a person see -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "namespace", "seen"),
    [
        (MINE, "", True),
        (f"{NS}/a/b/", "", True),
        ("", NS, True),  # a campaign with no pipeline is shown to readers of its whole namespace
        ("", "elsewhere", False),
        ("", "", False),
        (f"{NS}-evil/p/", "", False),  # the namespace ends at its slash
        (NS, "", False),
        (OTHER_NS, NS, False),  # the prefix, when there is one, decides
    ],
)
def test_a_reader_of_the_namespace_sees_every_campaign_under_it_and_nothing_else(prefix, namespace, seen):
    assert Access(everything_under=f"{NS}/").sees(prefix, namespace) is seen


@pytest.mark.parametrize(
    ("prefix", "seen"),
    [(MINE, True), (THEIRS, False), (f"{MINE}sub/", False), (MINE[:-1], False), ("", False), (OTHER_NS, True)],
)
def test_a_reader_of_some_prefixes_sees_exactly_those(prefix, seen):
    proof = Access(readable=frozenset({MINE, OTHER_NS, ""}))
    assert proof.sees(prefix, NS) is seen


def test_everything_is_seen_only_with_the_store_accounts_rule():
    assert EVERYTHING.everywhere and EVERYTHING.sees("", "") and EVERYTHING.sees(OTHER_NS)
    assert not Access().sees(MINE, NS) and not Access().sees("", NS)


@pytest.mark.parametrize(
    ("proof", "nothing"),
    [
        (Access(), True),
        (Access(proved={MINE: NOW}, proved_at=NOW, retry_at=NOW), True),
        (Access(known=False), False),  # not proved: never said to read nothing
        (Access(ended=True), False),
        (Access(everywhere=True), False),
        (Access(everything_under=f"{NS}/"), False),
        (Access(readable=frozenset({MINE})), False),
    ],
)
def test_only_a_proof_that_found_nothing_readable_says_nothing(proof, nothing):
    assert proof.nothing is nothing


def test_a_proof_is_kept_by_both_keys_of_the_account_never_by_its_secret():
    assert ACCOUNT == access._key_of(AK, SK)
    assert len({access._key_of("a", "bc"), access._key_of("ab", "c"), access._key_of("a", "bd"),
                access._key_of("b", "bc")}) == 4
    assert SK not in ACCOUNT and AK not in ACCOUNT and len(ACCOUNT) == 64


# --- the proofs this process keeps ----------------------------------------------------------------------


def test_a_proof_is_kept_until_forgotten_and_clear_forgets_every_one():
    put(Access(readable=frozenset({MINE})))
    access._proofs.put("another", Access())
    assert access._proofs.get(ACCOUNT) == Access(readable=frozenset({MINE}))
    access.forget(AK, SK)
    assert access._proofs.get(ACCOUNT) is None and access._proofs.get("another") == Access()
    access.clear_cache()
    assert access._proofs.get("another") is None


def test_forgetting_an_account_never_proved_is_harmless():
    access.forget("never-logged-in", "x")  # a logout before any proof was made
    access._proofs.forget("unknown")
    assert access._proofs.get(access._key_of("never-logged-in", "x")) is None


def test_at_most_so_many_accounts_are_kept_the_least_recently_used_dropped(monkeypatch):
    monkeypatch.setattr(access, "MOST_ACCOUNTS", 3)
    proofs = access._Proofs()
    for name in "abc":
        proofs.put(name, Access(everything_under=name))
    assert proofs.get("a") is not None  # read: now the most recently used
    proofs.put("d", Access())
    assert [proofs.get(n) is not None for n in "abcd"] == [True, False, True, True]
    proofs.put("c", Access(everything_under="c2"))  # put again: the most recent, nothing dropped
    assert [proofs.get(n) is not None for n in "acd"] == [True, True, True]
    proofs.put("e", Access())
    assert [proofs.get(n) is not None for n in "acde"] == [False, True, True, True]


def test_ten_thousand_accounts_are_kept_and_one_more_drops_the_oldest():
    assert access.MOST_ACCOUNTS == 10_000
    proofs = access._Proofs()
    for number in range(10_000):
        proofs.put(str(number), Access())
    assert proofs.get("0") is not None  # read: now the most recent
    proofs.put("new", Access())
    assert proofs.get("1") is None and proofs.get("0") is not None and proofs.get("new") is not None


def test_a_proof_begun_before_the_cache_was_cleared_lands_nowhere():
    proofs = access._Proofs()
    event, generation = proofs._claim("k")
    proofs.clear()
    proofs.put("k", Access(everything_under="x/"), generation)
    assert proofs.get("k") is None
    _event, current = proofs._claim("k")
    proofs.put("k", Access(everything_under="y/"), current)
    assert proofs.get("k") == Access(everything_under="y/")
    _event, begun = proofs._claim("later")  # under way, then the cache is cleared again
    proofs.clear()
    assert proofs._claim("later") is not None  # a cleared cache has no proof under way
    proofs.put("later", Access(everything_under="z/"), begun)
    assert proofs.get("later") is None


def test_one_proof_at_a_time_per_account():
    proofs = access._Proofs()
    first = proofs._claim("k")
    assert first is not None and proofs._claim("k") is None and proofs._claim("other") is not None
    stale = threading.Event()
    proofs._done("k", stale)  # not the proof under way: it stays claimed
    assert stale.is_set() and proofs._claim("k") is None
    proofs._done("k", first[0])
    assert first[0].is_set() and proofs._claim("k") is not None


def test_a_proof_that_lands_within_the_wait_answers_and_one_that_does_not_lands_later():
    proofs = access._Proofs()
    assert proofs.prove_within("k", lambda: Access(everything_under="a/"), 5) == Access(everything_under="a/")
    release = threading.Event()
    calls = []

    def slow():
        calls.append(1)
        release.wait(10)
        return Access(everything_under="b/")

    assert proofs.prove_within("k", slow, 0.01) is None
    assert proofs.prove_within("k", slow, 0.01) is None  # under way: not begun again
    release.set()
    wait_until(lambda: proofs.get("k") == Access(everything_under="b/"), what="the slow proof to land")
    assert calls == [1]


def test_a_proof_that_fails_is_logged_and_lets_the_next_one_begin(caplog):
    proofs = access._Proofs()

    def broken():
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="results.store.access"):
        assert proofs.prove_within("k", broken, 5) is None
    assert "Proving an account's access in the background failed." in caplog.text
    assert proofs.prove_within("k", lambda: Access(everything_under="c/"), 5) == Access(everything_under="c/")


# --- sees_now: the viewers' breadcrumbs, without a store call ---------------------------------------------


def test_without_a_session_nothing_is_seen_now():
    assert access.sees_now(RequestFactory().get("/"), MINE) is False


def test_with_the_store_accounts_rule_everything_is_seen_now(settings):
    settings.HTRFLOW_CARDS_FOR = "store-accounts"
    assert access.sees_now(request_as(False), OTHER_NS) is True


@pytest.mark.parametrize(
    ("reads_namespace", "prefix", "seen"),
    [(True, MINE, True), (True, OTHER_NS, False), (True, f"{NS}-evil/p/", False), (False, MINE, False),
     (None, MINE, False)],
)
def test_with_no_proof_the_logins_proof_of_the_namespace_answers(reads_namespace, prefix, seen):
    assert access.sees_now(request_as(reads_namespace), prefix) is seen


def test_a_proof_answers_before_the_login(store):
    put(Access(readable=frozenset({THEIRS})))
    assert access.sees_now(request_as(True), MINE) is False  # the login said yes; the proof says no
    assert access.sees_now(request_as(False), THEIRS) is True
    put(Access(everything_under=f"{NS}/"))
    assert access.sees_now(request_as(False), "", NS) is True
    put(Access(known=False))  # nothing proved: the login answers
    assert access.sees_now(request_as(True), MINE) is True and access.sees_now(request_as(False), MINE) is False
    assert store.asked == []


# --- access_of: when a proof is made ------------------------------------------------------------------------


def test_without_a_session_nothing_is_proved_or_seen(store):
    request = RequestFactory().get("/")
    assert_same(access.access_of(request, Reading({MINE: ()})), Access())
    assert store.asked == []


def test_with_the_store_accounts_rule_every_account_sees_everything(settings, store):
    settings.HTRFLOW_CARDS_FOR = "store-accounts"
    assert access.access_of(request_as(False), Reading({MINE: ()})) is EVERYTHING
    assert store.asked == []


def test_the_first_request_waits_for_the_proof(store, reads, clock):
    store.prefixes[MINE] = True
    reading = Reading({MINE: (), THEIRS: ()})
    proof = access.access_of(request_as(), reading)
    assert_same(proof, Access(readable=frozenset({MINE}), proved={MINE: NOW, THEIRS: NOW}, proved_at=NOW))
    assert access._proofs.get(ACCOUNT) is proof
    assert store.of("prefix") == [f"{NS}/", MINE, THEIRS]


class Spy:
    """Stands in for the proofs' ``prove_within`` and ``prove_later``: keeps how each was asked."""

    def __init__(self, answer=None):
        self.answer = answer
        self.within: list[float] = []
        self.later = 0

    def prove_within(self, key, prove, wait):
        assert key == ACCOUNT
        self.within.append(wait)
        return self.answer

    def prove_later(self, key, prove):
        assert key == ACCOUNT
        self.later += 1


@pytest.fixture
def spy(monkeypatch):
    spied = Spy()
    monkeypatch.setattr(access._proofs, "prove_within", spied.prove_within)
    monkeypatch.setattr(access._proofs, "prove_later", spied.prove_later)
    return spied


@pytest.mark.parametrize(("store_wait", "timeout", "wait"), [(2.0, 5.0, 6.0), (9.0, 5.0, 9.0), (6.0, 5.0, 6.0)])
def test_an_account_never_proved_waits_as_long_as_one_store_call_may_take(settings, spy, store_wait, timeout, wait):
    settings.HTRFLOW_STORE_WAIT_SECONDS = store_wait
    settings.HTRFLOW_S3_TIMEOUT = timeout
    answer = access.access_of(request_as(), Reading({}))
    assert spy.within == [wait] and spy.later == 0
    assert answer == Access(known=False) and answer.known is False  # the store did not answer in time


LAST = Access(readable=frozenset({MINE}), proved={MINE: NOW}, proved_at=NOW)


@pytest.mark.parametrize(
    ("age", "waited", "later"),
    [
        (0.0, False, False),
        (INTERVAL / 2 - 0.01, False, False),
        (INTERVAL / 2, False, True),  # past half the interval: answered now, proved again behind it
        (INTERVAL - 0.01, False, True),
        (INTERVAL, True, False),  # the whole interval: this request waits for the new proof
        (INTERVAL * 10, True, False),
    ],
)
def test_a_proof_is_renewed_behind_the_request_past_half_its_interval_and_waited_for_past_all(
    clock, spy, age, waited, later
):
    put(LAST)
    clock[0] = NOW + age
    answer = access.access_of(request_as(), Reading({MINE: ()}))
    assert spy.within == ([2.0] if waited else [])  # a known proof waits only the page's budget
    assert spy.later == (1 if later else 0)
    assert answer is LAST  # the new proof did not land in time: the last one answers


def test_a_new_proof_that_lands_in_time_answers(clock, spy):
    put(LAST)
    spy.answer = Access(everything_under=f"{NS}/")
    clock[0] = NOW + INTERVAL
    assert access.access_of(request_as(), Reading({})) is spy.answer


@pytest.mark.parametrize(("until_retry", "asked"), [(0.01, False), (0.0, True)])
def test_after_the_store_could_not_be_asked_the_last_proof_stands_until_its_retry_time(clock, spy, until_retry,
                                                                                         asked):
    put(Access(readable=frozenset({MINE}), proved_at=NOW, retry_at=NOW + INTERVAL + 10))
    clock[0] = NOW + INTERVAL + 10 - until_retry
    access.access_of(request_as(), Reading({MINE: ()}))
    assert spy.within == ([2.0] if asked else []) and spy.later == 0


@pytest.mark.parametrize(("until_retry", "asked"), [(0.01, False), (0.0, True)])
def test_a_renewal_behind_the_request_also_waits_for_the_retry_time(clock, spy, until_retry, asked):
    put(Access(readable=frozenset({MINE}), proved_at=NOW, retry_at=NOW + 200))
    clock[0] = NOW + 200 - until_retry
    access.access_of(request_as(), Reading({MINE: ()}))
    assert spy.later == (1 if asked else 0) and spy.within == []


@pytest.mark.parametrize(
    ("age", "prefixes", "later"),
    [
        (budget.BUDGET_SECONDS, {MINE: (), "htr-batch/new/": ()}, True),  # a prefix this proof never asked about
        (budget.BUDGET_SECONDS - 0.01, {MINE: (), "htr-batch/new/": ()}, False),  # within the budget's window
        (budget.BUDGET_SECONDS, {MINE: (), THEIRS: ()}, False),  # asked (and refused) already
        (budget.BUDGET_SECONDS, {MINE: ()}, False),
        (budget.BUDGET_SECONDS, None, False),  # the cluster could not be read
    ],
)
def test_a_prefix_new_to_the_proof_is_proved_behind_the_request_a_budget_window_later(clock, spy, age, prefixes,
                                                                                        later):
    put(Access(readable=frozenset({MINE}), proved={MINE: NOW, THEIRS: NOW}, proved_at=NOW))
    clock[0] = NOW + age
    reading = Reading(prefixes)
    access.access_of(request_as(), reading)
    assert spy.later == (1 if later else 0) and spy.within == []
    assert set(reading.calls) <= {False}  # only the prefixes are asked for: no samples without a proof


def test_a_prefix_seen_through_the_namespace_needs_no_proof_of_its_own(clock, spy):
    put(Access(everything_under=f"{NS}/", proved_at=NOW))
    clock[0] = NOW + budget.BUDGET_SECONDS
    access.access_of(request_as(), Reading({"htr-batch/new/": ()}))
    assert spy.later == 0


# --- _prove: asking the store ---------------------------------------------------------------------------------


def test_a_namespace_reader_is_proved_with_the_namespace_alone(store, reads):
    store.prefixes[f"{NS}/"] = True
    reading = Reading({MINE: (), THEIRS: (), OTHER_NS: ()})
    store.prefixes[OTHER_NS] = True
    proof = access._prove(session(), reading, None, NOW)
    assert_same(proof, Access(everything_under=f"{NS}/", readable=frozenset({OTHER_NS}), proved={OTHER_NS: NOW},
                              proved_at=NOW))
    assert store.of("prefix") == sorted([f"{NS}/", OTHER_NS])  # the namespace's own prefixes not asked one by one
    # the namespace's probe, no object of its pipelines known, then one other prefix's probe
    assert reads.taken == [(PERSON, 2), (PERSON, 0), (PERSON, 2)]
    assert reading.calls == [True]


def test_a_spent_budget_asks_nothing_and_the_last_proof_stands(store, reads, caplog):
    reads.left = 1
    known = Access(readable=frozenset({MINE}), proved={MINE: NOW - 10}, proved_at=NOW - 10)
    with caplog.at_level(logging.INFO, logger="results.store.access"):
        proof = access._prove(session(), Reading({MINE: ()}), known, NOW)
    assert "What an account may read is proved later: the person's store budget is spent." in caplog.text
    assert_same(proof, Access(readable=frozenset({MINE}), proved={MINE: NOW - 10}, proved_at=NOW - 10,
                              retry_at=NOW + 15))
    assert store.asked == [] and reads.taken == [(PERSON, 2)]


def test_a_budget_with_exactly_one_probe_left_is_enough_to_begin(store, reads):
    reads.left = 2
    store.prefixes[f"{NS}/"] = True
    proof = access._prove(session(), Reading({}), None, NOW)
    assert proof.everything_under == f"{NS}/" and proof.retry_at == 0.0


def test_an_account_the_store_no_longer_knows_sees_nothing(store, reads):
    store.prefixes[f"{NS}/"] = StoreError(Outcome.SESSION_ENDED)
    proof = access._prove(session(True), Reading({MINE: ()}), LAST, NOW)
    assert_same(proof, Access(ended=True, proved_at=NOW))
    assert not proof.sees(MINE) and not proof.nothing


@pytest.mark.parametrize("outcome", [Outcome.UNREACHABLE, Outcome.TIMEOUT, Outcome.NO_REASON, Outcome.FORBIDDEN])
def test_a_store_that_cannot_be_asked_leaves_the_last_proof_standing_a_while(store, reads, caplog, outcome):
    store.prefixes[f"{NS}/"] = StoreError(outcome)
    with caplog.at_level(logging.WARNING, logger="results.store.access"):
        proof = access._prove(session(), Reading({MINE: ()}), LAST, NOW)
    assert_same(proof, Access(readable=frozenset({MINE}), proved={MINE: NOW}, proved_at=NOW, retry_at=NOW + 15))
    assert f"could not be proved ({outcome.value}); its last proof stands." in caplog.text


def test_the_store_failing_on_a_prefix_leaves_the_last_proof_standing(store, reads):
    store.prefixes[f"{NS}/"] = False
    store.prefixes[THEIRS] = StoreError(Outcome.TIMEOUT)
    proof = access._prove(session(), Reading({MINE: (), THEIRS: ()}), LAST, NOW + 1)
    assert_same(proof, replace_retry(LAST, NOW + 16))


def replace_retry(proof: Access, retry_at: float) -> Access:
    return Access(everything_under=proof.everything_under, readable=proof.readable, proved=dict(proof.proved),
                  proved_at=proof.proved_at, retry_at=retry_at)


@pytest.mark.parametrize(
    ("reads_namespace", "expected"),
    [
        (True, Access(everything_under=f"{NS}/", retry_at=NOW + 15)),  # the login proved the namespace
        (False, Access(known=False, retry_at=NOW + 15)),
        (None, Access(known=False, retry_at=NOW + 15)),
    ],
)
@pytest.mark.parametrize("known", [None, Access(known=False, everything_under="x/")])
def test_with_no_proof_to_stand_the_login_answers_or_nothing_is_known(store, reads, reads_namespace, expected, known):
    store.prefixes[f"{NS}/"] = StoreError(Outcome.UNREACHABLE)
    assert_same(access._prove(session(reads_namespace), Reading({MINE: ()}), known, NOW), expected)


def test_the_retry_time_is_fifteen_seconds():
    assert access.RETRY_SECONDS == 15.0
    assert access._last_proof(session(), LAST, NOW).retry_at == NOW + 15


# --- the namespace -------------------------------------------------------------------------------------------------


def test_an_account_refused_the_namespace_is_proved_prefix_by_prefix(store, reads):
    store.prefixes[MINE] = True
    proof = access._prove(session(), Reading({MINE: (), THEIRS: ()}), None, NOW)
    assert proof.everything_under == "" and proof.readable == {MINE}
    assert store.of("key") == []


def test_the_namespace_is_read_only_when_every_pipeline_read_under_it_allows_it(store, reads):
    """S3 says "no such key" to an account that may only list: one refused object under the namespace means
    the account reads only part of it."""
    store.prefixes[f"{NS}/"] = True
    store.keys.update({f"{MINE}V1/progress.json": True, f"{THEIRS}V1/progress.json": False,
                       f"{THEIRS}V2/progress.json": False, f"{OTHER_NS}V1/progress.json": False})
    store.prefixes[MINE] = False  # asked only if its objects did not settle it
    reading = Reading({
        MINE: (f"{MINE}V1/progress.json",),
        THEIRS: (f"{THEIRS}V1/progress.json", f"{THEIRS}V2/progress.json"),
        f"{NS}/nothing-known/": (),
        OTHER_NS: (f"{OTHER_NS}V1/progress.json",),
    })
    proof = access._prove(session(), reading, None, NOW)
    assert proof.everything_under == ""
    assert proof.readable == {MINE}
    # The namespace's pipelines with objects: one read each (paid up front), one more for the second object.
    assert reads.taken[:3] == [(PERSON, 2), (PERSON, 2), (PERSON, 1)]


def test_objects_not_there_do_not_refuse_the_namespace(store, reads):
    store.prefixes[f"{NS}/"] = True
    reading = Reading({MINE: (f"{MINE}V1/progress.json", f"{MINE}V2/progress.json"), OTHER_NS: ("x",)})
    proof = access._prove(session(), reading, None, NOW)
    assert proof.everything_under == f"{NS}/"
    assert store.of("key") == sorted([f"{MINE}V1/progress.json", f"{MINE}V2/progress.json", "x"])


def test_objects_of_other_namespaces_say_nothing_of_this_one(store, reads):
    store.prefixes[f"{NS}/"] = True
    store.keys.update({f"{MINE}V1/progress.json": True, f"{OTHER_NS}V1/progress.json": False})
    reading = Reading({MINE: (f"{MINE}V1/progress.json",), OTHER_NS: (f"{OTHER_NS}V1/progress.json",)})
    proof = access._prove(session(), reading, None, NOW)
    assert proof.everything_under == f"{NS}/" and proof.readable == frozenset()
    assert reads.taken[:2] == [(PERSON, 2), (PERSON, 1)]  # one read: the namespace's own pipeline


def test_an_allowed_object_settles_its_pipeline_whatever_came_before(store, reads):
    store.prefixes[f"{NS}/"] = True
    store.keys.update({f"{MINE}V1/progress.json": False, f"{MINE}V2/progress.json": True})
    reading = Reading({MINE: (f"{MINE}V1/progress.json", f"{MINE}V2/progress.json", f"{MINE}V3/progress.json")})
    assert access._prove(session(), reading, None, NOW).everything_under == f"{NS}/"
    assert store.of("key") == [f"{MINE}V1/progress.json", f"{MINE}V2/progress.json"]  # the third not asked


def test_the_namespaces_samples_must_fit_the_budget(store, reads):
    store.prefixes[f"{NS}/"] = True
    reads.left = 3  # the namespace's probe, then one of the two pipelines' reads
    reading = Reading({MINE: ("a",), THEIRS: ("b",)})
    proof = access._prove(session(True), reading, None, NOW)
    assert_same(proof, Access(everything_under=f"{NS}/", retry_at=NOW + 15))  # the login's proof, asked again soon
    assert store.of("key") == [] and reads.taken == [(PERSON, 2), (PERSON, 2)]


def test_a_further_object_must_fit_the_budget(store, reads):
    store.prefixes[f"{NS}/"] = True
    store.keys["a"] = None
    reads.left = 3  # the namespace's probe and the pipeline's first read, not its second
    proof = access._prove(session(), Reading({MINE: ("a", "b")}), None, NOW)
    assert_same(proof, Access(known=False, retry_at=NOW + 15))
    assert store.of("key") == ["a"]


# --- prefixes ---------------------------------------------------------------------------------------------------------


def test_a_prefix_with_objects_is_settled_by_them_and_one_without_by_the_prefix(store, reads):
    store.keys.update({"m1": None, "m2": True, "t1": False, "z1": None})
    store.prefixes.update({MINE: False, THEIRS: True, "htr-batch/z/": True, "htr-batch/e/": True})
    reading = Reading({MINE: ("m1", "m2"), THEIRS: ("t1",), "htr-batch/z/": ("z1",), "htr-batch/e/": ()})
    proof = access._prove(session(), reading, None, NOW)
    assert proof.readable == {MINE, "htr-batch/z/", "htr-batch/e/"}
    # THEIRS's refused object settles it; z's object was not there, so the prefix itself was asked
    assert store.of("prefix") == sorted([f"{NS}/", "htr-batch/z/", "htr-batch/e/"])


def test_a_prefix_the_store_answers_none_for_is_not_readable(store, reads):
    store.prefixes[MINE] = None
    assert access._prove(session(), Reading({MINE: ()}), None, NOW).readable == frozenset()


def test_at_most_forty_nine_prefixes_are_probed_at_once_those_asked_longest_ago_first(store, reads):
    assert access.READS_PER_PROBE == 2 and access.PROBED_AT_ONCE == 49
    prefixes = [f"{NS}/p{n:02d}/" for n in range(60)]
    for prefix in prefixes:
        store.prefixes[prefix] = True
    proved = {prefix: NOW - 100 + n for n, prefix in enumerate(prefixes[:30])}  # p00 asked longest ago
    known = Access(readable=frozenset(prefixes[:30]), proved=proved, proved_at=NOW - 100)
    proof = access._prove(session(), Reading({p: () for p in prefixes}), known, NOW)
    asked = set(store.of("prefix")) - {f"{NS}/"}
    assert asked == set(prefixes[30:]) | set(prefixes[:19])  # never asked first, then the oldest proofs
    assert reads.taken == [(PERSON, 2), (PERSON, 98)]
    assert proof.readable == set(prefixes)
    assert dict(proof.proved) == {**proved, **dict.fromkeys(asked, NOW)}


def test_prefixes_the_budget_does_not_grant_are_left_for_later(store, reads):
    reads.left = 2 + 5  # the namespace's probe, then two prefixes (and one read over)
    store.prefixes.update({MINE: True, THEIRS: True, "htr-batch/c/": True})
    proof = access._prove(session(), Reading({MINE: (), THEIRS: (), "htr-batch/c/": ()}), None, NOW)
    assert len(proof.proved) == 2 and len(proof.readable) == 2
    assert reads.taken == [(PERSON, 2), (PERSON, 6)]


def test_a_prefix_proof_lasts_the_interval_and_is_dropped_after(store, reads):
    known = Access(readable=frozenset({MINE, THEIRS}), proved={MINE: NOW - INTERVAL + 0.01, THEIRS: NOW - INTERVAL},
                   proved_at=NOW - 1)
    reads.left = 2  # nothing can be probed now
    proof = access._prove(session(), Reading(None), known, NOW)
    assert proof.readable == {MINE} and dict(proof.proved) == {MINE: NOW - INTERVAL + 0.01}


def test_a_refused_prefix_is_no_longer_readable_and_a_gone_one_is_forgotten(store, reads):
    store.prefixes.update({MINE: False})
    known = Access(readable=frozenset({MINE, THEIRS}), proved={MINE: NOW - 50, THEIRS: NOW - 50}, proved_at=NOW - 50)
    proof = access._prove(session(), Reading({MINE: ()}), known, NOW)
    assert_same(proof, Access(readable=frozenset(), proved={MINE: NOW}, proved_at=NOW))


def test_a_proof_that_was_not_known_is_not_built_on(store, reads):
    known = Access(known=False, readable=frozenset({MINE}), proved={MINE: NOW - 1})
    reads.left = 2
    proof = access._prove(session(), Reading({MINE: ()}), known, NOW)
    assert_same(proof, Access(proved_at=NOW))


def test_when_the_cluster_cannot_be_read_the_proved_prefixes_are_kept(store, reads):
    store.prefixes[f"{NS}/"] = True
    known = Access(readable=frozenset({OTHER_NS, THEIRS}), proved={OTHER_NS: NOW - 10}, proved_at=NOW - 10)
    proof = access._prove(session(), Reading(None), known, NOW)
    assert_same(proof, Access(everything_under=f"{NS}/", readable=frozenset({OTHER_NS}), proved={OTHER_NS: NOW - 10},
                              proved_at=NOW))
    assert store.of("prefix") == [f"{NS}/"]


def test_the_namespace_reader_still_proves_prefixes_of_other_namespaces(store, reads):
    store.prefixes.update({f"{NS}/": True, OTHER_NS: False})
    proof = access._prove(session(), Reading({MINE: (), OTHER_NS: ()}), None, NOW)
    assert proof.sees(MINE) and not proof.sees(OTHER_NS) and dict(proof.proved) == {OTHER_NS: NOW}


# --- the whole way, through the proofs' own threads ------------------------------------------------------------------


def test_revoked_rights_are_seen_once_the_interval_has_passed(store, reads, clock):
    store.prefixes[f"{NS}/"] = True
    reading = Reading({MINE: ()})
    assert access.access_of(request_as(), reading).sees(MINE)
    store.prefixes[f"{NS}/"] = False
    clock[0] = NOW + INTERVAL - 1
    store.asked.clear()
    late = access.access_of(request_as(), reading)  # answered from the last proof, proved again behind it
    assert late.sees(MINE)
    wait_until(lambda: not access._proofs._proving, what="the renewal behind the request")
    clock[0] = NOW + INTERVAL
    assert not access.access_of(request_as(), reading).sees(MINE)
    assert ("prefix", f"{NS}/") in store.asked

