"""How many files one person may be downloading from this process at once.

A download holds one of the server's threads for as long as the client takes to read it: on a slow
link, minutes. Past `per_person()` downloads at once (setting `HTRFLOW_DOWNLOADS_PER_PERSON`, 4 by
default) a person's next one is refused with 429 and a `Retry-After`, so one person, or one script,
cannot take the threads that pages and probes need. The count is per process on purpose: it guards
this process's threads, which another replica's downloads do not hold.
"""

from __future__ import annotations

import threading
from collections import Counter

from django.conf import settings

RETRY_AFTER_SECONDS = 10

_lock = threading.Lock()
_open: Counter[str] = Counter()


def per_person() -> int:
    return int(getattr(settings, "HTRFLOW_DOWNLOADS_PER_PERSON", 4))


def take(person: str) -> bool:
    """A download slot for ``person``, or False when they already hold all of theirs."""
    with _lock:
        if _open[person] >= per_person():
            return False
        _open[person] += 1
        return True


def give_back(person: str) -> None:
    with _lock:
        _open[person] -= 1
        if _open[person] <= 0:
            del _open[person]


def open_downloads(person: str) -> int:
    with _lock:
        return _open[person]


def forget() -> None:
    """Count no open downloads (for tests, whose responses may be dropped without being closed)."""
    with _lock:
        _open.clear()
