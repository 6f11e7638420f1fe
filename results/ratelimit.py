"""Limits on failed logins, per client address and per user name.

Each limit counts failures in a fixed window; once a count reaches its limit,
further attempts are refused until the window ends, without asking the store.
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
MAX_ENTRIES = 10_000


@dataclass(frozen=True)
class Refusal:
    """Which limit refused and for how long."""

    scope: str  # "address" or "user"
    retry_after: int

    @property
    def sentence(self):
        wait = _wait_words(self.retry_after)
        if self.scope == "user":
            return f"Too many failed logins for this user name; wait {wait} before trying again."
        return f"Too many failed logins from your address; wait {wait} before trying again."


def _wait_words(seconds):
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


class FailureCounter:
    """Failures per name in fixed windows: {name: (window_end, count)}."""

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._counts = {}
        self._lock = threading.Lock()

    def blocked_for(self, name, limit):
        """Seconds until ``name`` may try again, or 0 when it may try now."""
        allowed, _window = limit
        with self._lock:
            window_end, count = self._counts.get(name, (0.0, 0))
            now = self._clock()
            if now >= window_end or count < allowed:
                return 0
            return max(1, math.ceil(window_end - now))

    def fail(self, name, limit):
        _allowed, window = limit
        with self._lock:
            now = self._clock()
            window_end, count = self._counts.get(name, (0.0, 0))
            if now >= window_end:
                window_end, count = now + window, 0
            self._counts[name] = (window_end, count + 1)
            if len(self._counts) > MAX_ENTRIES:
                self._prune(now)

    def clear(self, name):
        with self._lock:
            self._counts.pop(name, None)

    def reset(self):
        with self._lock:
            self._counts.clear()

    def _prune(self, now):
        for name in [name for name, (end, _count) in self._counts.items() if end <= now]:
            del self._counts[name]
        while len(self._counts) > MAX_ENTRIES:
            self._counts.pop(next(iter(self._counts)))


_addresses = FailureCounter()
_users = FailureCounter()


def _limits():
    return (
        tuple(getattr(settings, "HTRFLOW_LOGIN_ADDRESS_LIMIT", ADDRESS_LIMIT)),
        tuple(getattr(settings, "HTRFLOW_LOGIN_USER_LIMIT", USER_LIMIT)),
    )


def _user_name(username):
    return username.strip().casefold()


def check(address, username):
    """A Refusal when either limit is reached, else None."""
    address_limit, user_limit = _limits()
    wait = _addresses.blocked_for(address, address_limit)
    if wait:
        return Refusal("address", wait)
    wait = _users.blocked_for(_user_name(username), user_limit)
    if wait:
        return Refusal("user", wait)
    return None


def record_failure(address, username):
    address_limit, user_limit = _limits()
    _addresses.fail(address, address_limit)
    _users.fail(_user_name(username), user_limit)


def record_success(username):
    _users.clear(_user_name(username))


def reset():
    """Forget every count (tests)."""
    _addresses.reset()
    _users.reset()
