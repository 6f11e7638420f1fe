"""Limits on failed logins, counted in storage every process of the site shares.

Three counts, each a fixed window that starts with its first failure:

- per client address (``ADDRESS_LIMIT``): one address guessing many names;
- per user name *from one address* (``USER_LIMIT``): one address guessing one name;
- per user name from addresses it has never logged in from (``USER_CEILING``): many
  addresses guessing one name.

An "address" is an IPv4 address or an IPv6 /64: one client is usually handed a whole /64,
so counting its addresses one by one would never limit it, and 40 of them could each
make four guesses.

Why the per-name limit is keyed by address too: a limit per name alone is a lock-out
tool. Anyone who knows a user name could send five wrong passwords from anywhere and
keep its owner out, right password included. Keyed by (name, address), failures from
the attacker's address hold back only that address. The ceiling per name bounds
guessing spread over many addresses, and it does not apply to an address the name has
logged in from before (remembered for ``KNOWN_ADDRESS_SECONDS`` after each success):
so however many addresses guess, the owner still gets in from where they usually do.

Each attempt is *reserved* before the store is asked: every count it belongs to is
raised first (an atomic increment in the shared storage), and when any of them went
over its limit, all of them are given back and the attempt is refused. Parallel
attempts, in one process or in many, cannot all pass a check before any failure is
recorded. Afterwards the caller settles the reservation: a wrong account keeps it (it
was a failure), a success forgets the name's failures from that address, remembers the
address, and gives the rest back, and an attempt the store could not judge
(unreachable, timeout) gives everything back.

The counts live in Django's ``shared`` cache (see ``htrbrowser/settings.py``): Redis when
``HTRFLOW_REDIS_URL`` is set, else ``results.pod_cache`` for the workers of one pod. Keys
hold hashes, never user names or addresses.
"""

import hashlib
import ipaddress
import logging
import math
import sqlite3
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# (failures allowed, window seconds); settings may override for a deployment or a test.
ADDRESS_LIMIT = (20, 15 * 60)
USER_LIMIT = (5, 15 * 60)
USER_CEILING = (50, 15 * 60)
KNOWN_ADDRESS_SECONDS = 60 * 24 * 3600
CACHE_ALIAS = "shared"
_KEY_PREFIX = "login-limit"
STORAGE_ERRORS = (RedisError, sqlite3.Error, OSError)


class LimitsUnavailable(Exception):
    """The shared storage of the counts did not answer; ``str()`` is a sentence for the person."""


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
    """One attempt, counted in advance as a failure under each of its counters."""

    address_key: str
    user_here_key: str
    ceiling_key: str | None  # None: this name has logged in from this address before
    known_key: str
    windows: tuple  # (key, window seconds) for every raised counter


def _wait_words(seconds):
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


def address_bucket(address):
    """What one client counts as: an IPv4 address, or the /64 an IPv6 address belongs to."""
    try:
        parsed = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return address
    if parsed.version == 6 and parsed.ipv4_mapped:
        return str(parsed.ipv4_mapped)
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def _user_name(username):
    return username.strip().casefold()


def _key(scope, *parts):
    digest = hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:40]
    return f"{_KEY_PREFIX}:{scope}:{digest}"


def _limits():
    return (
        tuple(getattr(settings, "HTRFLOW_LOGIN_ADDRESS_LIMIT", ADDRESS_LIMIT)),
        tuple(getattr(settings, "HTRFLOW_LOGIN_USER_LIMIT", USER_LIMIT)),
        tuple(getattr(settings, "HTRFLOW_LOGIN_USER_CEILING", USER_CEILING)),
    )


def _cache():
    return caches[CACHE_ALIAS]


# --- one fixed-window counter in the shared cache --------------------------------------------


def _raise_count(cache, key, window):
    """Count one more failure under ``key``; returns the count, this one included.

    The window's end is kept beside the count (``<key>:ends``), so a refusal can say how long
    to wait. Redis's INCR on a key that expired a moment before creates it without an expiry;
    a count of 1 is therefore given its window again, so no count outlives its window.
    """
    ends_key = key + ":ends"
    cache.add(ends_key, time.time() + window, window)
    cache.add(key, 0, window)
    try:
        count = cache.incr(key)
    except ValueError:  # the window ended between add and incr
        cache.add(key, 0, window)
        count = cache.incr(key)
    if count == 1:
        cache.touch(key, _seconds_left(cache, key, window))
    return count


def _give_back(cache, key, window):
    try:
        count = cache.decr(key)
    except ValueError:  # the window has ended: nothing left to give back
        return
    if count <= 0:
        cache.touch(key, _seconds_left(cache, key, window))


def _seconds_left(cache, key, window):
    ends = cache.get(key + ":ends")
    if ends is None:
        return window
    return max(1, math.ceil(ends - time.time()))


# --- reservations ------------------------------------------------------------------------------


def reserve(address, username):
    """Count an attempt before the store is asked: ``(None, Reservation)``, or ``(Refusal, None)`` at a limit.

    Raises LimitsUnavailable when the shared storage does not answer: then nobody is let
    through unchecked.
    """
    address_limit, user_limit, ceiling = _limits()
    bucket, user = address_bucket(address), _user_name(username)
    known_key = _key("known", user, bucket)
    checks = [
        ("address", _key("address", bucket), address_limit),
        ("user", _key("user-here", user, bucket), user_limit),
    ]
    try:
        cache = _cache()
        known = cache.get(known_key) is not None
        if not known:
            checks.append(("user_everywhere", _key("user", user), ceiling))
        raised = []
        for scope, key, (allowed, window) in checks:
            count = _raise_count(cache, key, window)
            raised.append((key, window))
            if count > allowed:
                for raised_key, raised_window in raised:
                    _give_back(cache, raised_key, raised_window)
                return Refusal(scope, _seconds_left(cache, key, window)), None
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    return None, Reservation(
        address_key=checks[0][1],
        user_here_key=checks[1][1],
        ceiling_key=checks[2][1] if len(checks) > 2 else None,
        known_key=known_key,
        windows=tuple(raised),
    )


def succeeded(reservation):
    """The account was right: forget this name's failures from this address, remember the address,
    and give the other counts back. A storage failure here is logged: the login stands."""
    try:
        cache = _cache()
        cache.delete(reservation.user_here_key)
        remembered = int(getattr(settings, "HTRFLOW_LOGIN_KNOWN_SECONDS", KNOWN_ADDRESS_SECONDS))
        cache.set(reservation.known_key, 1, remembered)
        for key, window in reservation.windows:
            if key != reservation.user_here_key:
                _give_back(cache, key, window)
    except STORAGE_ERRORS as error:
        logger.warning("A successful login could not be noted in the shared login limits: %s", type(error).__name__)


def release(reservation):
    """The store could not judge the attempt: it does not count."""
    try:
        cache = _cache()
        for key, window in reservation.windows:
            _give_back(cache, key, window)
    except STORAGE_ERRORS as error:
        logger.warning("A login attempt could not be given back to the shared login limits: %s", type(error).__name__)


def reset():
    """Forget every count and known address (tests; on Redis this empties the configured database)."""
    _cache().clear()


def _unavailable(error):
    where = "Redis (HTRFLOW_REDIS_URL)" if settings.HTRFLOW_REDIS_URL else f"the folder {settings.HTRFLOW_STATE_DIR}"
    logger.warning("The failed-login limits cannot be read from %s: %s", where, type(error).__name__)
    if settings.HTRFLOW_REDIS_URL:
        return LimitsUnavailable(
            "Logins are paused because the site's shared login limits (Redis) did not answer; "
            "try again shortly, or tell an operator to check HTRFLOW_REDIS_URL."
        )
    return LimitsUnavailable(
        "Logins are paused because the site cannot write its login limits; "
        "tell an operator to give it a writable HTRFLOW_STATE_DIR."
    )
