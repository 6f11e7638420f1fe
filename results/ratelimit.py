"""Limits on failed logins: per client address, per user name from one address, and per user name.

Three counts, each a fixed window:

- per client address (``ADDRESS_LIMIT``): one address guessing many names;
- per user name *from one address* (``USER_LIMIT``): one address guessing one name;
- per user name from everywhere (``USER_CEILING``): many addresses guessing one name.

Why the per-name limit is keyed by address too: a limit per name alone is a lock-out
tool. Anyone who knows a user name could send five wrong passwords from anywhere and
keep its owner out, right password included. Keyed by (name, address), failures from
the attacker's address hold back only that address; the owner, from their own, still
gets in. The ceiling per name still bounds guessing spread over many addresses, and it
sits well above one address's limit, so reaching it takes failures from many addresses
(at least ``USER_CEILING / USER_LIMIT`` of them), not a handful of requests.

Each attempt is *reserved* before the store is asked: under one lock, every count is
checked and, when none is at its limit, every count is raised at once. So parallel
attempts cannot all pass a check before any failure is recorded. Afterwards the caller
settles the reservation: a wrong account keeps it (it was a failure), a success forgets
the name's failures from that address and gives the rest back, and an attempt the store
could not judge (unreachable, timeout) gives everything back.

Counts live in this process (each replica keeps its own), bounded in size.
"""

import math
import threading
import time
from dataclasses import dataclass

from django.conf import settings

# (failures allowed, window seconds); settings may override for a deployment or a test.
ADDRESS_LIMIT = (20, 15 * 60)
USER_LIMIT = (5, 15 * 60)
USER_CEILING = (50, 15 * 60)
MAX_ENTRIES = 10_000


@dataclass(frozen=True)
class Refusal:
    """Which limit refused and for how long."""

    scope: str  # "address", "user" (this name from this address) or "user_everywhere"
    retry_after: int

    @property
    def sentence(self):
        wait = _wait_words(self.retry_after)
        if self.scope == "user":
            return f"Too many failed logins for this user name from your address; wait {wait} before trying again."
        if self.scope == "user_everywhere":
            return f"Too many failed logins for this user name from many addresses; wait {wait} before trying again."
        return f"Too many failed logins from your address; wait {wait} before trying again."


@dataclass(frozen=True)
class Reservation:
    """One attempt, counted in advance as a failure under each of its names."""

    address: str
    user_here: tuple
    user: str


def _wait_words(seconds):
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


class FailureCounter:
    """Failures per name in fixed windows: {name: (window_end, count)}.

    Not locked itself: the module's lock guards every counter, so a reservation
    across several counters is one step.
    """

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._counts = {}

    def blocked_for(self, name, limit):
        """Seconds until ``name`` may try again, or 0 when it may try now."""
        allowed, _window = limit
        window_end, count = self._counts.get(name, (0.0, 0))
        now = self._clock()
        if now >= window_end or count < allowed:
            return 0
        return max(1, math.ceil(window_end - now))

    def fail(self, name, limit):
        _allowed, window = limit
        now = self._clock()
        window_end, count = self._counts.get(name, (0.0, 0))
        if now >= window_end:
            window_end, count = now + window, 0
        self._counts[name] = (window_end, count + 1)
        if len(self._counts) > MAX_ENTRIES:
            self._prune(now)

    def give_back(self, name):
        """Undo one ``fail`` (an attempt that turned out not to be a failure)."""
        window_end, count = self._counts.get(name, (0.0, 0))
        if count > 1:
            self._counts[name] = (window_end, count - 1)
        else:
            self._counts.pop(name, None)

    def clear(self, name):
        self._counts.pop(name, None)

    def reset(self):
        self._counts.clear()

    def _prune(self, now):
        for name in [name for name, (end, _count) in self._counts.items() if end <= now]:
            del self._counts[name]
        while len(self._counts) > MAX_ENTRIES:
            self._counts.pop(next(iter(self._counts)))


_lock = threading.Lock()
_addresses = FailureCounter()
_users_here = FailureCounter()
_users = FailureCounter()


def _limits():
    return (
        tuple(getattr(settings, "HTRFLOW_LOGIN_ADDRESS_LIMIT", ADDRESS_LIMIT)),
        tuple(getattr(settings, "HTRFLOW_LOGIN_USER_LIMIT", USER_LIMIT)),
        tuple(getattr(settings, "HTRFLOW_LOGIN_USER_CEILING", USER_CEILING)),
    )


def _user_name(username):
    return username.strip().casefold()


def reserve(address, username):
    """Count an attempt before the store is asked: ``(None, Reservation)``, or ``(Refusal, None)`` at a limit."""
    address_limit, user_limit, ceiling = _limits()
    user = _user_name(username)
    reservation = Reservation(address=address, user_here=(user, address), user=user)
    with _lock:
        checks = (
            ("address", _addresses, address, address_limit),
            ("user", _users_here, reservation.user_here, user_limit),
            ("user_everywhere", _users, user, ceiling),
        )
        for scope, counter, name, limit in checks:
            wait = counter.blocked_for(name, limit)
            if wait:
                return Refusal(scope, wait), None
        for _scope, counter, name, limit in checks:
            counter.fail(name, limit)
    return None, reservation


def succeeded(reservation):
    """The account was right: forget this name's failures from this address; the attempt was no failure."""
    with _lock:
        _users_here.clear(reservation.user_here)
        _addresses.give_back(reservation.address)
        _users.give_back(reservation.user)


def release(reservation):
    """The store could not judge the attempt: it does not count."""
    with _lock:
        _addresses.give_back(reservation.address)
        _users_here.give_back(reservation.user_here)
        _users.give_back(reservation.user)


def reset():
    """Forget every count (tests)."""
    with _lock:
        for counter in (_addresses, _users_here, _users):
            counter.reset()
