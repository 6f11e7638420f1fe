"""What each account may see of the campaigns: proved against the store, and proved again.

``HTRFLOW_CARDS_FOR`` says who sees what:

- ``store-accounts``: every campaign, to any account the store accepts (a store only we use).
- ``namespace-readers`` (the default): an account that may read under the results namespace
  (``<HTRFLOW_RESULTS_NAMESPACE>/``) sees every campaign there. Any other campaign (one of
  another namespace, or every campaign for an account below the namespace) is seen when the
  account may read its results prefix ``<ns>/<pipeline>/``.

How a prefix is proved. A read of an object known to exist there (a started volume's
``progress.json``) settles it: allowed or refused. Where no object is known, a ranged GET of the
prefix key itself is asked: an answer other than "access denied" (the key, or "no such key") is
taken as leave to read, and a refused GET is followed by one listing. The namespace is proved
the same way, and then every known object of its pipelines is read once: S3 also answers "no
such key" to an account that may only list, so one refusal there means the account reads only
part of the namespace.

A proof is kept per account in each process and is good for ``HTRFLOW_ACCESS_SECONDS`` (five
minutes by default). Past half of that, a request is answered from it while it is proved again
in the background; past all of it, the request waits for the new proof, so an account whose
rights were taken away stops seeing campaigns within that time. Each prefix's proof ages on its
own. A proof is always made in the background: a request waits for it at most
``HTRFLOW_STORE_WAIT_SECONDS``, and when a slow store has not answered by then, it is answered from
the last proof (however old) while the new one is under way; the proof lands for the next request.
An account with no proof yet has nothing to answer from: its first page waits as long as a store
call may take (``HTRFLOW_S3_TIMEOUT``), and only past that is told the check could not be made. The
probes come out of the person's store budget (``results.store.budget``); prefixes the budget does
not grant now are proved a few seconds later.

While the store cannot be asked (down, slow, the budget spent), the last proof stands for
``RETRY_SECONDS`` before it is asked again; with no proof at all, the login's own proof of the
namespace is used, else the person is told the check could not be made (never that the account
may read nothing). An account the store no longer knows sees nothing, and its session ends.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from django.conf import settings

from results.store import budget
from results.store import s3 as store
from results.store.outcomes import Outcome, StoreError

logger = logging.getLogger(__name__)

READS_PER_PROBE = 2  # a ranged GET, and a listing when the GET is refused
# Prefixes probed in one renewal: the person's whole budget less the namespace's own probe (49: 40
# campaigns of 40 pipelines are proved at once; the rest of a larger archive a budget window later).
PROBED_AT_ONCE = (budget.BUDGET_READS - READS_PER_PROBE) // READS_PER_PROBE
RETRY_SECONDS = 15.0  # after the store could not be asked, the last proof is used this long
MOST_ACCOUNTS = 10_000
_clock = time.time  # the proofs' clock (tests move it on)

# What the reading knows of the campaigns' results: prefix -> keys of a few objects known to exist under
# it (of different volumes; none when none is known). None: the cluster could not be read.
Results = Mapping[str, tuple[str, ...]] | None
SAMPLES_PER_PREFIX = 3


@dataclass(frozen=True)
class Access:
    """What one account was last proved to read."""

    everything_under: str = ""  # "<ns>/" when the account may read the whole results namespace
    everywhere: bool = False  # HTRFLOW_CARDS_FOR=store-accounts: every campaign
    readable: frozenset[str] = frozenset()  # other results prefixes "<ns>/<pipeline>/" it may read
    proved: Mapping[str, float] = field(default_factory=dict, compare=False)  # prefix -> when asked
    proved_at: float = 0.0  # when the account as a whole was last proved
    known: bool = True  # False: nothing could be proved yet (the store did not answer)
    ended: bool = False  # the store no longer knows the account
    retry_at: float = 0.0  # after the store could not be asked: when to ask again

    def sees(self, results_prefix: str, namespace: str = "") -> bool:
        """Whether a campaign with this results prefix (in this namespace) may be shown. A campaign with
        no pipeline, so no results, is shown to readers of its whole namespace."""
        if self.everywhere:
            return True
        if self.everything_under and (results_prefix or f"{namespace}/").startswith(self.everything_under):
            return True
        return bool(results_prefix) and results_prefix in self.readable

    @property
    def nothing(self) -> bool:
        return self.known and not self.ended and not self.everywhere and not self.everything_under and not self.readable


EVERYTHING = Access(everywhere=True)


def _namespace_prefix() -> str:
    return f"{settings.HTRFLOW_RESULTS_NAMESPACE}/"


def _key_of(access_key: str, secret_key: str) -> str:
    return hashlib.sha256(f"{access_key}\0{secret_key}".encode()).hexdigest()


class _Proofs:
    """The last proof of each account in this process, renewed at most once at a time per account."""

    def __init__(self):
        self._entries: OrderedDict[str, Access] = OrderedDict()
        self._proving: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._generation = 0  # bumped by clear(): a proof that began before lands nowhere
        # Under a slow store a proof takes a few store answers (seconds): enough threads that people
        # logging in together are not proved one after another.
        self._pool = ThreadPoolExecutor(max_workers=6, thread_name_prefix="access")

    def get(self, key: str) -> Access | None:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
            return self._entries.get(key)

    def put(self, key: str, access: Access, generation: int | None = None) -> None:
        with self._lock:
            if generation is not None and generation != self._generation:
                return
            self._entries[key] = access
            self._entries.move_to_end(key)
            while len(self._entries) > MOST_ACCOUNTS:
                self._entries.popitem(last=False)

    def _claim(self, key: str) -> tuple[threading.Event, int] | None:
        """The event of a proof this thread now starts, or None when one is under way already."""
        with self._lock:
            if key in self._proving:
                return None
            event = self._proving[key] = threading.Event()
            return event, self._generation

    def _done(self, key: str, event: threading.Event) -> None:
        with self._lock:
            if self._proving.get(key) is event:
                del self._proving[key]
        event.set()

    def prove_within(self, key: str, prove: Callable[[], Access], wait: float) -> Access | None:
        """Start proving (unless a proof is under way) and wait at most ``wait`` s for it: the new proof,
        or None when it has not landed by then (it goes on, and lands for a later request)."""
        self.prove_later(key, prove)
        with self._lock:
            running = self._proving.get(key)
        if running is None or running.wait(wait):
            return self.get(key)
        return None

    def prove_later(self, key: str, prove: Callable[[], Access]) -> None:
        claimed = self._claim(key)
        if claimed is None:
            return
        event, generation = claimed

        def run():
            try:
                self.put(key, prove(), generation)
            except Exception:  # noqa: BLE001 - a background proof must never take the process down
                logger.exception("Proving an account's access in the background failed.")
            finally:
                self._done(key, event)

        self._pool.submit(run)

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._proving.clear()
            self._generation += 1


_proofs = _Proofs()
_probes = ThreadPoolExecutor(max_workers=8, thread_name_prefix="access-probe")  # prefixes of one proof at once


def clear_cache() -> None:
    """Forget every proof (tests start from nothing)."""
    _proofs.clear()


def forget(access_key: str, secret_key: str) -> None:
    """Forget one account's proof: a new login proves it anew."""
    _proofs.forget(_key_of(access_key, secret_key))


def sees_now(request, results_prefix: str, namespace: str = "") -> bool:
    """Whether the request's account was last proved to read ``results_prefix`` (no store call): the
    proof this process holds, else the login's proof of the whole namespace. For pages outside the
    campaign views (the viewers' breadcrumbs), which must not name a campaign the person may not see."""
    current = getattr(request, "results_session", None)
    if current is None:
        return False
    if settings.HTRFLOW_CARDS_FOR == "store-accounts":
        return True
    known = _proofs.get(_key_of(current.access_key, current.secret_key))
    if known is not None and known.known:
        return known.sees(results_prefix, namespace)
    return current.reads_namespace is True and results_prefix.startswith(_namespace_prefix())


def access_of(request, results: Callable[..., Results]) -> Access:
    """What the request's account may see now. ``results(with_samples)`` tells what the reading knows of
    the campaigns' results (see ``Results``); the samples are asked for only when a proof is made."""
    current = getattr(request, "results_session", None)
    if current is None:
        return Access()
    if settings.HTRFLOW_CARDS_FOR == "store-accounts":
        return EVERYTHING
    key, now, interval = _key_of(current.access_key, current.secret_key), _clock(), float(
        settings.HTRFLOW_ACCESS_SECONDS
    )
    known = _proofs.get(key)

    def prove():
        return _prove(current, results, known, _clock())

    if known is None or (now - known.proved_at >= interval and now >= known.retry_at):
        # Waited for within a page's budget; past it, the last proof answers now. An account with no
        # proof yet has nothing to answer from, so its first page waits for the store as long as one
        # store call may take, and only a store slower than that is told "not checked".
        wait = float(settings.HTRFLOW_STORE_WAIT_SECONDS)
        if known is None:
            wait = max(wait, float(settings.HTRFLOW_S3_TIMEOUT) + 1.0)
        fresh = _proofs.prove_within(key, prove, wait)
        return fresh or known or Access(known=False)
    if now >= known.retry_at and (now - known.proved_at >= interval / 2 or _unproved(known, results)):
        _proofs.prove_later(key, prove)
    return known


def _unproved(known: Access, results: Callable[..., Results]) -> bool:
    """Prefixes of the reading this proof has not asked about yet (and a budget window has passed)."""
    if _clock() - known.proved_at < budget.BUDGET_SECONDS:
        return False
    return any(not known.sees(p) and p not in known.proved for p in (results(False) or {}))


def _prove(current, results: Callable[..., Results], known: Access | None, now: float) -> Access:
    """Ask the store what the account may read; when it cannot be asked, what was known stands."""
    person = budget.person_named(current.user)
    try:
        if budget.reads.take(person, READS_PER_PROBE) < READS_PER_PROBE:
            raise _NotNow("the person's store budget is spent")
        reading = results()
        everything_under = _prove_namespace(current, person, reading)
        return _prove_prefixes(current, person, reading, everything_under, known, now)
    except StoreError as error:
        if error.outcome is Outcome.SESSION_ENDED:
            return Access(ended=True, proved_at=now)
        logger.warning("What an account may read could not be proved (%s); its last proof stands.",
                       error.outcome.value)
    except _NotNow as reason:
        logger.info("What an account may read is proved later: %s.", reason)
    return _last_proof(current, known, now)


class _NotNow(Exception):
    """The store is not asked now."""


def _last_proof(current, known: Access | None, now: float) -> Access:
    retry_at = now + RETRY_SECONDS
    if known is not None and known.known:
        return replace(known, retry_at=retry_at)
    if current.reads_namespace is True:  # the login proved the namespace
        return Access(everything_under=_namespace_prefix(), retry_at=retry_at)
    return Access(known=False, retry_at=retry_at)


def _prove_namespace(current, person: str, reading: Results) -> str:
    """``"<ns>/"`` when the account may read the whole results namespace, else ``""``: the namespace's
    key is not refused, and no pipeline under it refuses every object of it that was read."""
    namespace = _namespace_prefix()
    if not store.may_read_prefix(current.access_key, current.secret_key, namespace):
        return ""
    sampled = [samples for prefix, samples in (reading or {}).items() if samples and prefix.startswith(namespace)]
    if budget.reads.take(person, len(sampled)) < len(sampled):
        raise _NotNow("the person's store budget does not cover the namespace's pipelines")
    verdicts = _probes.map(lambda samples: _read_samples(current, person, samples), sampled)
    return "" if any(verdict is False for verdict in verdicts) else namespace


def _read_samples(current, person: str, samples: tuple[str, ...]) -> bool | None:
    """True when any of these objects may be read, False when every one answered was refused, None when
    none was there. The first read is paid for by the caller; each further one is taken from the budget
    (a volume denied on its own does not make its whole pipeline unreadable)."""
    refused = False
    for number, key in enumerate(samples):
        if number and budget.reads.take(person, 1) < 1:
            raise _NotNow("the person's store budget does not cover another object")
        answer = store.may_read_key(current.access_key, current.secret_key, key)
        if answer:
            return True
        refused = refused or answer is False
    return False if refused else None


def _prove_prefixes(current, person, reading: Results, everything_under: str, known: Access | None, now) -> Access:
    """Probe the prefixes the namespace does not cover, those asked longest ago first, as many as the
    budget grants. Each prefix's proof lasts the interval; an older one is dropped."""
    interval = float(settings.HTRFLOW_ACCESS_SECONDS)
    before = known if known is not None and known.known else Access()
    proved = {p: at for p, at in before.proved.items() if now - at < interval}
    readable = {p for p in before.readable if p in proved}
    if reading is None:  # the cluster could not be read: nothing new to ask about
        return Access(everything_under=everything_under, readable=frozenset(readable), proved=proved, proved_at=now)
    wanted = [p for p in reading if not (everything_under and p.startswith(everything_under))]
    proved = {p: at for p, at in proved.items() if p in reading}
    readable &= set(proved)
    order = sorted(wanted, key=lambda p: proved.get(p, 0.0))[:PROBED_AT_ONCE]
    granted = budget.reads.take(person, READS_PER_PROBE * len(order)) // READS_PER_PROBE
    asked = order[:granted]
    answers = _probes.map(lambda prefix: _may_read(current, person, prefix, reading[prefix]), asked)
    for prefix, may_read in zip(asked, answers, strict=True):
        (readable.add if may_read else readable.discard)(prefix)
        proved[prefix] = now
    return Access(everything_under=everything_under, readable=frozenset(readable), proved=proved, proved_at=now)


def _may_read(current, person: str, prefix: str, samples: tuple[str, ...]) -> bool:
    """Objects known to exist settle it; without them (or when none is there) the prefix itself is asked."""
    verdict = _read_samples(current, person, samples) if samples else None
    if verdict is not None:
        return verdict
    return bool(store.may_read_prefix(current.access_key, current.secret_key, prefix))
