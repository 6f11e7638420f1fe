"""How many viewer requests one person may have served at once, across every process of the site.

A viewer request (a run log page, its polls, "show earlier", search and find; an ALTO page or its text)
reads up to several MiB from the store and parses and renders it: it holds a thread, and the CPU, for as
long as that takes. Past ``per_person()`` at once (setting ``HTRFLOW_VIEWS_PER_PERSON``, 3 by default) a
person's next one is refused with 429, a sentence and a ``Retry-After``, so one person, or one script,
cannot take the worker from everyone else. A person is the user name they logged in with, hashed
(``results.store.budget.person_of``), as for downloads.

A slot is held only while a request is served: ``take`` before the view, ``give_back`` after it, however
it ended. Light polls count like any other request while they run: a live log's poll takes milliseconds
every 3 s, so an open tab holds a slot for a sliver of the time and does not keep its person from opening
a page, while a poll that reads a whole log (``after=0``) costs as much as a page and must count.

The counts are kept where the failed-login limits are (``results.accounts.counters``): in Redis when
``HTRFLOW_REDIS_URL`` is set, so a person is held to the same number whichever replica answers, else in the
pod's SQLite file shared by its workers. A person's counter expires ``SLOT_SECONDS`` after it was made, so
a process killed mid-request (gunicorn's timeout) cannot leave a slot taken for longer than that; the count
is deleted whenever it falls back to 0. (A counter that expires while requests are still being served
forgets them: for a moment the person may have more than the limit, never fewer.) While the storage does not
answer, slots are counted in this process alone, and the storage is asked again ``STORAGE_RETRY_SECONDS``
later: a stopped Redis slows no view by its timeout more than once in that time, and refuses none.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import ngettext

from core.outages import Outage
from results.accounts import counters
from results.accounts.ratelimit import STORAGE_ERRORS

RETRY_AFTER_SECONDS = 5
SLOT_SECONDS = 120
STORAGE_RETRY_SECONDS = 30.0
_KEY_PREFIX = "viewer-slots:"

storage_outage = Outage("Shared storage of the viewer limits")


def per_person() -> int:
    return int(getattr(settings, "HTRFLOW_VIEWS_PER_PERSON", 3))


def refusal_sentence() -> str:
    most = per_person()
    return ngettext(
        # Translators: {count} is how many viewer pages one person may open at once; {seconds} a number of seconds.
        "You are already opening {count} viewer page at once, as many as one person may; "
        "try again in {seconds} seconds, when it has finished.",
        "You are already opening {count} viewer pages at once, as many as one person may; "
        "try again in {seconds} seconds, when one of them has finished.",
        most,
    ).format(count=most, seconds=RETRY_AFTER_SECONDS)


@dataclass(frozen=True)
class Slot:
    """One viewer request being served for ``person``; ``shared`` when counted in the shared storage."""

    person: str
    shared: bool


class _LocalCounts:
    """Slots counted in this process alone, while the shared storage does not answer."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()

    def take(self, person: str, allowed: int) -> bool:
        with self._lock:
            if self._open[person] >= allowed:
                return False
            self._open[person] += 1
            return True

    def give_back(self, person: str) -> None:
        with self._lock:
            self._open[person] -= 1
            if self._open[person] <= 0:
                del self._open[person]

    def count(self, person: str) -> int:
        with self._lock:
            return self._open[person]

    def clear(self) -> None:
        with self._lock:
            self._open.clear()


_local = _LocalCounts()
_storage_failed_at: float | None = None


def take(person: str) -> Slot | None:
    """A slot for ``person``, or None when they already hold all of theirs."""
    allowed = per_person()
    if _storage_usable():
        try:
            counts = counters.counters()
            count, _ = counts.add(_KEY_PREFIX + person, 1, SLOT_SECONDS)
            if count > allowed:
                counts.add(_KEY_PREFIX + person, -1, SLOT_SECONDS)
                return None
            _storage_answered()
            return Slot(person, shared=True)
        except STORAGE_ERRORS as error:
            _storage_failing(error)
    return Slot(person, shared=False) if _local.take(person, allowed) else None


def give_back(slot: Slot) -> None:
    """The request has been served: its slot is free (in the storage it was taken from)."""
    if not slot.shared:
        _local.give_back(slot.person)
        return
    try:
        counters.counters().add(_KEY_PREFIX + slot.person, -1, SLOT_SECONDS)
    except STORAGE_ERRORS as error:  # the counter expires SLOT_SECONDS after it was made
        _storage_failing(error)


def open_slots(person: str) -> int:
    """How many viewer requests ``person`` has being served now, in the storage this process uses."""
    if _storage_usable():
        try:
            return counters.counters().get(_KEY_PREFIX + person) or 0
        except STORAGE_ERRORS as error:
            _storage_failing(error)
    return _local.count(person)


def forget() -> None:
    """Count no open slots in this process, and ask the storage again at once (tests; the storage's own
    counts go with ``results.accounts.ratelimit.reset``)."""
    global _storage_failed_at
    _local.clear()
    _storage_failed_at = None
    storage_outage.working()


def _storage_usable() -> bool:
    return _storage_failed_at is None or time.monotonic() - _storage_failed_at >= STORAGE_RETRY_SECONDS


def _storage_answered() -> None:
    global _storage_failed_at
    if _storage_failed_at is not None:
        _storage_failed_at = None
        storage_outage.working()


def _storage_failing(error: BaseException) -> None:
    global _storage_failed_at
    _storage_failed_at = time.monotonic()
    where = "Redis (HTRFLOW_REDIS_URL)" if settings.HTRFLOW_REDIS_URL else "the state folder (HTRFLOW_STATE_DIR)"
    storage_outage.failing(
        f"{where} did not answer ({type(error).__name__}); viewer requests are counted per process until it does."
    )
