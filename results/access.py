"""What each account may see of the campaigns: proved against the store, and proved again.

``HTRFLOW_CARDS_FOR`` says who sees what:

- ``store-accounts``: every campaign, to any account the store accepts (a store only we use).
- ``namespace-readers`` (the default): an account that may read under the results namespace
  (``<HTRFLOW_RESULTS_NAMESPACE>/``) sees every campaign. Any other account sees exactly the
  campaigns whose results prefix (``<ns>/<pipeline>/``) it may read: a project's own account sees
  its own campaigns, an account that may read nothing sees none.

A proof is kept per account in each process and is good for ``HTRFLOW_ACCESS_SECONDS`` (five
minutes by default). Past half of that, a request is answered from it while it is proved again in
the background; past all of it, the request waits for the new proof, so an account whose rights
were taken away stops seeing campaigns within that time. The login's own proof is the first one.
Every probe is one ranged GET of the prefix (and one listing of it when the GET is refused),
taken from the person's store budget (``results.budget``): prefixes the budget does not grant now
are proved a few seconds later, so 40 or 400 campaigns never cost more than a person may read.
While the store cannot answer, the last proof stands; an account the store no longer knows sees
nothing, and its session ends.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render

from results import budget, store
from results.outcomes import Outcome, StoreError

logger = logging.getLogger(__name__)

READS_PER_PROBE = 2  # a ranged GET, and a listing when the GET is refused
# Prefixes probed in one renewal: the person's whole budget less the namespace's own probe (49: 40
# campaigns of 40 pipelines are proved at once; the rest of a larger archive a budget window later).
PROBED_AT_ONCE = (budget.BUDGET_READS - READS_PER_PROBE) // READS_PER_PROBE
MOST_ACCOUNTS = 10_000
_clock = time.time  # the proofs' clock (tests move it on)


@dataclass(frozen=True)
class Access:
    """What one account was last proved to read."""

    everything: bool = False
    readable: frozenset[str] = frozenset()  # results prefixes "<ns>/<pipeline>/" it may read
    proved: dict[str, float] = field(default_factory=dict, compare=False)  # prefix -> when it was asked
    proved_at: float = 0.0  # when the account as a whole was last proved
    ended: bool = False  # the store no longer knows the account

    def sees(self, results_prefix: str) -> bool:
        return self.everything or (bool(results_prefix) and results_prefix in self.readable)

    @property
    def nothing(self) -> bool:
        return not self.everything and not self.readable


EVERYTHING = Access(everything=True)


def recheck_seconds() -> float:
    return float(settings.HTRFLOW_ACCESS_SECONDS)


def _key_of(access_key: str, secret_key: str) -> str:
    return hashlib.sha256(f"{access_key}\0{secret_key}".encode()).hexdigest()



class _Proofs:
    """The last proof of each account in this process, renewed at most once at a time per account."""

    def __init__(self):
        self._entries: OrderedDict[str, Access] = OrderedDict()
        self._proving: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="access")

    def get(self, key: str) -> Access | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: str, access: Access) -> None:
        with self._lock:
            self._entries[key] = access
            self._entries.move_to_end(key)
            while len(self._entries) > MOST_ACCOUNTS:
                self._entries.popitem(last=False)

    def prove_now(self, key: str, prove: Callable[[], Access], wait: float) -> Access | None:
        """Prove in this thread, or wait (at most ``wait`` s) for the proof another thread is making."""
        with self._lock:
            running = self._proving.get(key)
            if running is None:
                running = self._proving[key] = threading.Event()
                mine = True
            else:
                mine = False
        if not mine:
            running.wait(wait)
            return self.get(key)
        try:
            access = prove()
            self.put(key, access)
            return access
        finally:
            with self._lock:
                self._proving.pop(key, None)
            running.set()

    def prove_later(self, key: str, prove: Callable[[], Access]) -> None:
        with self._lock:
            if key in self._proving:
                return
            self._proving[key] = threading.Event()

        def run():
            try:
                self.put(key, prove())
            except Exception:  # noqa: BLE001 - a background proof must never take the process down
                logger.exception("Proving an account's access in the background failed.")
            finally:
                with self._lock:
                    event = self._proving.pop(key, None)
                if event is not None:
                    event.set()

        self._pool.submit(run)

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_proofs = _Proofs()
_probes = ThreadPoolExecutor(max_workers=4, thread_name_prefix="access-probe")  # prefixes of one proof at once


def clear_cache() -> None:
    """Forget every proof (tests start from nothing)."""
    _proofs.clear()


def forget(access_key: str, secret_key: str) -> None:
    """Forget one account's proof: a new login proves it anew."""
    _proofs.forget(_key_of(access_key, secret_key))


def access_of(request, prefixes: Callable[[], Iterable[str]]) -> Access:
    """What the request's account may see now. ``prefixes`` gives the results prefixes of the campaigns
    the site shows (asked only when the account does not read the whole namespace)."""
    current = getattr(request, "results_session", None)
    if current is None:
        return Access()
    if settings.HTRFLOW_CARDS_FOR == "store-accounts":
        return EVERYTHING
    key, now, interval = _key_of(current.access_key, current.secret_key), _clock(), recheck_seconds()
    person = budget.person_named(current.user)
    known = _proofs.get(key)
    if known is None and current.reads_namespace is True and now - current.issued_at < interval:
        known = Access(everything=True, proved_at=float(current.issued_at))  # the login proved it
        _proofs.put(key, known)

    def prove():
        return _prove(current, person, prefixes, known, _clock())

    if known is None or now - known.proved_at >= interval:
        proved = _proofs.prove_now(key, prove, wait=2 * float(settings.HTRFLOW_S3_TIMEOUT) + 1)
        return proved or known or Access()
    unproved = not known.everything and _has_unproved(known, prefixes)
    if now - known.proved_at >= interval / 2 or (unproved and now - known.proved_at >= budget.BUDGET_SECONDS):
        _proofs.prove_later(key, prove)
    return known


def _has_unproved(known: Access, prefixes: Callable[[], Iterable[str]]) -> bool:
    return any(prefix not in known.proved for prefix in prefixes())


def _prove(current, person: str, prefixes: Callable[[], Iterable[str]], known: Access | None, now: float) -> Access:
    """Ask the store what the account may read; on trouble, what was known stands."""
    if budget.reads.take(person, READS_PER_PROBE) < READS_PER_PROBE:
        return known or Access()
    try:
        if store.prove_account(current.access_key, current.secret_key, ask_listing=True):
            return Access(everything=True, proved_at=now)
        return _prove_prefixes(current, person, list(dict.fromkeys(prefixes())), known, now)
    except StoreError as error:
        if error.outcome is Outcome.SESSION_ENDED:
            return Access(ended=True, proved_at=now)
        logger.warning("What an account may read could not be proved again (%s); its last proof stands.",
                       error.outcome.value)
        return known or Access()


def _prove_prefixes(current, person: str, prefixes: list[str], known: Access | None, now: float) -> Access:
    """Probe the prefixes asked longest ago (never asked first), as many as the budget grants."""
    before = known if known is not None and not known.everything else Access()
    proved = {p: at for p, at in before.proved.items() if p in prefixes}
    readable = {p for p in before.readable if p in proved}
    order = sorted(prefixes, key=lambda p: proved.get(p, 0.0))[:PROBED_AT_ONCE]
    granted = budget.reads.take(person, READS_PER_PROBE * len(order)) // READS_PER_PROBE
    asked = order[:granted]
    answers = _probes.map(lambda prefix: store.may_read_prefix(current.access_key, current.secret_key, prefix), asked)
    for prefix, may_read in zip(asked, answers, strict=True):
        if may_read:
            readable.add(prefix)
        else:
            readable.discard(prefix)
        proved[prefix] = now
    return Access(readable=frozenset(readable), proved=proved, proved_at=now)


# --- what a person who may see nothing is told -----------------------------------------------------


def refusal_sentence(request) -> str:
    namespace = settings.HTRFLOW_RESULTS_NAMESPACE
    return (
        f"Your store account may not read this site's results (under {namespace}/), so this site shows "
        f"you no campaigns. Ask an operator to let your account read {namespace}/, or log in with another account."
    )


def refused(request):
    """The answer to a person who may see no campaign: a page (403), a poll that reloads the page into
    the sentence, or 403 JSON from the read API. It never names a campaign."""
    sentence = refusal_sentence(request)
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": sentence, "reason": "not_a_namespace_reader"}, status=403)
    elif getattr(request, "htmx", False):
        response = HttpResponse(sentence, status=403, content_type="text/plain; charset=utf-8")
        response["HX-Refresh"] = "true"
    else:
        response = render(request, "results/cards_refused.html", {"sentence": sentence}, status=403)
    response["Cache-Control"] = "private, no-store"
    return response
