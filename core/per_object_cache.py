"""Memory worked out from an object, kept exactly as long as that object lives.

Some answers are worked out once per object the reading made (a campaign's status-record writes, a
campaign's line of the list) and asked for again while the object is current. Kept in a plain dict
with a weak reference to check against, an entry outlived its object: every reading that replaced a
campaign left the old one's entry behind, and the dict grew for as long as the process ran, to its
cap (at the soak's rate of change, about an hour and tens of MB). Here an entry goes when its object is
collected, so what is kept follows the objects alive now, not the time since start. The cap remains
as a backstop. This module imports nothing of the project.

Not `weakref.WeakKeyDictionary`: a campaign is a dataclass compared by value, so it cannot be a key,
and one campaign has several entries (one per set of list options), each under a key of its own.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable


class WhileAlive:
    """key -> value, each entry valid for one object (by identity) and dropped when it is collected."""

    def __init__(self, most: int):
        self.most = most
        self._entries: dict[Hashable, tuple[weakref.ref, object]] = {}
        # Re-entrant: an object may be collected, and its callback run, in a thread already holding it.
        self._lock = threading.RLock()

    def get(self, key: Hashable, owner: object, default=None):
        """The value kept under ``key`` for this very ``owner``; ``default`` when none is."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry[0]() is not owner:
            return default
        return entry[1]

    def put(self, key: Hashable, owner: object, value) -> None:
        """Keep ``value`` under ``key`` while ``owner`` lives (an entry for an earlier owner is replaced)."""
        reference = weakref.ref(owner, self._forgetter(key))
        with self._lock:
            if key not in self._entries and len(self._entries) >= self.most:
                self._entries.clear()
            self._entries[key] = (reference, value)

    def _forgetter(self, key: Hashable):
        def forget(reference: weakref.ref) -> None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None and entry[0] is reference:
                    del self._entries[key]

        return forget

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
