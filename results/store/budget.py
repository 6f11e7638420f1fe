"""Store reads each person may make: one budget for every read done on their behalf in the background
or for a page (progress files, re-proving what the account may read).

``BUDGET_READS`` per sliding ``BUDGET_SECONDS`` per person, however many tabs and cards they have open
(the existing front end's bound). A person is the user name they logged in with, hashed.
"""

from __future__ import annotations

import hashlib
import threading
import time

BUDGET_READS = 100
BUDGET_SECONDS = 5.0


def person_of(request) -> str:
    session = getattr(request, "results_session", None)
    return person_named(getattr(session, "user", None) or "")


def person_named(user: str) -> str:
    return hashlib.sha256(str(user).encode()).hexdigest()[:24]


class Budget:
    """Store reads each person may still make now: ``BUDGET_READS`` per sliding ``BUDGET_SECONDS``."""

    def __init__(self):
        self._spent: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def take(self, person: str, wanted: int) -> int:
        """Reserve up to ``wanted`` reads for ``person``; how many were granted."""
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._spent.get(person, ()) if now - t < BUDGET_SECONDS]
            granted = max(0, min(wanted, BUDGET_READS - len(recent)))
            recent.extend([now] * granted)
            if recent:
                self._spent[person] = recent
            else:
                self._spent.pop(person, None)
            if len(self._spent) > 10_000:  # forget people who have not read for a while
                self._spent = {k: v for k, v in self._spent.items() if now - v[-1] < BUDGET_SECONDS}
            return granted

    def clear(self) -> None:
        with self._lock:
            self._spent.clear()


reads = Budget()
