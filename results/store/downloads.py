"""How many files one person may be downloading from this process at once.

A download holds one of the server's threads for as long as the client takes to read it: on a slow
link, minutes. Past `per_person()` downloads at once (setting `HTRFLOW_DOWNLOADS_PER_PERSON`, 4 by
default) a person's next one is refused with 429 and a `Retry-After`, so one person, or one script,
cannot take the threads that pages and probes need. The count is per process on purpose: it guards
this process's threads, which another replica's downloads do not hold.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator

from django.conf import settings

logger = logging.getLogger(__name__)

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


class SlotStream:
    """A download's chunks as the response streams them, holding the person's slot: closing it (at the end,
    when the client goes, or when the response is dropped unread) closes the source once and gives the slot
    back. A failure once the answer has started can only stop it early, and is logged with ``what``.
    ``next_chunk`` is how the next chunk is had (a subclass may read it under the request's language)."""

    def __init__(self, chunks: Iterator[bytes], close_source: Callable[[], object] | None, person: str, what: str):
        self._chunks, self._close_source, self._person, self._what = chunks, close_source, person, what
        self._closed = False
        self._lock = threading.Lock()

    def next_chunk(self) -> bytes | None:
        return next(self._chunks, None)

    def __iter__(self):
        try:
            while (chunk := self.next_chunk()) is not None:
                yield chunk
        except Exception as error:  # noqa: BLE001 - the answer has started: all that is left is to stop early
            logger.warning("Streaming %s stopped early: %s", self._what, type(error).__name__)
        finally:
            self.close()

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            if self._close_source is not None:
                self._close_source()
        finally:
            give_back(self._person)
