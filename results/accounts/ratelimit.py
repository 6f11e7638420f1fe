"""Limits on failed logins, counted in storage every process of the site shares.

Four counts, each a fixed window that starts with its first failure:

- per client address (``ADDRESS_LIMIT``): one address guessing many names;
- per user name *from one address* (``USER_LIMIT``): one address guessing one name;
- per user name from addresses it has never logged in from (``USER_CEILING``): many
  addresses guessing one name;
- per device (``DEVICE_LIMIT``): a browser that holds a valid device cookie for the name it
  tries (``results.accounts.device``) is counted here, and only here.

An "address" is an IPv4 address or an IPv6 /64: one client is usually handed a whole /64,
so counting its addresses one by one would never limit it, and 40 of them could each
make four guesses.

Why the per-name limit is keyed by address too: a limit per name alone is a lock-out
tool. Anyone who knows a user name could send five wrong passwords from anywhere and
keep its owner out, right password included. Keyed by (name, address), failures from
the attacker's address hold back only that address. The ceiling per name bounds
guessing spread over many addresses, and it does not apply to an address the name has
logged in from before (remembered for ``KNOWN_ADDRESS_SECONDS`` after each success).

The address counts can still be filled by strangers: guesses from many /64s reach the ceiling
for a name on every new address, and guesses from behind a shared address (a NAT, an office)
fill that address's counts for everyone behind it. So, as OWASP recommends against lock-out
attacks, a browser that has logged in as a name gets a signed device cookie, and its attempts for
that name count only against its own per-device limit: its owner gets in whatever strangers do,
while guesses from unknown browsers stay limited as above.

Each attempt is *reserved* before the store is asked: every count it belongs to is
raised first (an atomic increment in the shared storage), and when any of them went
over its limit, all of them are given back and the attempt is refused. Parallel
attempts, in one process or in many, cannot all pass a check before any failure is
recorded. Afterwards the caller settles the reservation: a wrong account keeps it (it
was a failure), a success forgets the name's failures from that address (or device), remembers
the address, and gives the rest back, and an attempt the store could not judge
(unreachable, timeout) gives everything back. A login too large or nested too deep to be read names
no user; it is counted as a failure from its address alone (``count_unread``).

The counts are whole numbers in ``results.accounts.counters``: Redis when ``HTRFLOW_REDIS_URL`` is set,
else a SQLite file in ``HTRFLOW_STATE_DIR`` for the workers of one pod. Keys hold hashes, never
user names or addresses.
"""

import hashlib
import ipaddress
import logging
import math
import sqlite3
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from redis.exceptions import RedisError

from results.accounts import counters

logger = logging.getLogger(__name__)

# (failures allowed, window seconds); settings may override for a deployment or a test.
ADDRESS_LIMIT = (20, 15 * 60)
USER_LIMIT = (5, 15 * 60)
USER_CEILING = (50, 15 * 60)
DEVICE_LIMIT = (5, 15 * 60)
# All device cookies of one name together: whoever once logged in as it and kept many cookies gets no
# more guesses than this (its owner's browser is held back only by someone who knew the password).
DEVICES_CEILING = (20, 15 * 60)
KNOWN_ADDRESS_SECONDS = 60 * 24 * 3600
_KEY_PREFIX = "login-limit"
STORAGE_ERRORS = (RedisError, sqlite3.Error, OSError)


class LimitsUnavailable(Exception):
    """The shared storage of the counts did not answer; ``str()`` is a sentence for the person."""


@dataclass(frozen=True)
class Refusal:
    """Which limit refused and for how long."""

    # "address", "user" (this name from this address), "user_everywhere", "device" (this name from this
    # browser) or "user_devices" (this name from every browser holding a device cookie for it)
    scope: str
    retry_after: int

    @property
    def sentence(self):
        template = _LIMIT_SENTENCES.get(self.scope, _LIMIT_SENTENCES["address"])
        return template.format(wait=_wait_words(self.retry_after))


# What each limit says, in the reader's language when it is said.
_LIMIT_SENTENCES = {
    "user": gettext_lazy(
        # Translators: {wait} is how long to wait, such as "40 seconds" or "15 minutes".
        "Too many failed logins for this user name from your address; wait {wait} before trying again."
    ),
    "user_everywhere": gettext_lazy(
        # Translators: {wait} is how long to wait, such as "40 seconds" or "15 minutes".
        "Too many failed logins for this user name from many addresses; wait {wait} before trying again."
    ),
    "device": gettext_lazy(
        # Translators: {wait} is how long to wait, such as "40 seconds" or "15 minutes".
        "Too many failed logins for this user name from this browser; wait {wait} before trying again."
    ),
    "user_devices": gettext_lazy(
        # Translators: {wait} is how long to wait, such as "40 seconds" or "15 minutes".
        "Too many failed logins for this user name from browsers it logged in from; wait {wait} before trying again."
    ),
    "address": gettext_lazy(
        # Translators: {wait} is how long to wait, such as "40 seconds" or "15 minutes".
        "Too many failed logins from your address; wait {wait} before trying again."
    ),
}


@dataclass(frozen=True)
class Reservation:
    """One attempt, counted in advance as a failure under each of its counters."""

    forget_key: str  # forgotten on success: this name from this address, or from this device
    known_key: str  # set on success: this name has logged in from this address
    raised: tuple  # (key, window seconds) for every raised counter


def _wait_words(seconds):
    if seconds < 90:
        # Translators: how long to wait, said in "wait {wait} before trying again".
        return ngettext("{count} second", "{count} seconds", seconds).format(count=seconds)
    minutes = math.ceil(seconds / 60)
    # Translators: how long to wait, said in "wait {wait} before trying again".
    return ngettext("{count} minute", "{count} minutes", minutes).format(count=minutes)


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


def normalised_name(username):
    """A user name as the limits (and the device cookie) count it: trimmed and case-folded."""
    return username.strip().casefold()


def _key(scope, *parts):
    digest = hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:40]
    return f"{_KEY_PREFIX}:{scope}:{digest}"


def _limit(name, default):
    return tuple(getattr(settings, name, default))


# --- reservations ------------------------------------------------------------------------------


def reserve(address, username, device=None):
    """Count an attempt before the store is asked: ``(None, Reservation)``, or ``(Refusal, None)`` at a limit.

    ``device`` is the id of a valid device cookie for this user name (``results.accounts.device``), or
    None: with one, the attempt counts against that device's limit only.

    Raises LimitsUnavailable when the shared storage does not answer: then nobody is let
    through unchecked.
    """
    bucket, user = address_bucket(address), normalised_name(username)
    known_key = _key("known", user, bucket)
    try:
        counts = counters.counters()
        if device:
            forget_key = _key("device", user, device)
            checks = [
                ("device", forget_key, _limit("HTRFLOW_LOGIN_DEVICE_LIMIT", DEVICE_LIMIT)),
                ("user_devices", _key("devices", user), _limit("HTRFLOW_LOGIN_DEVICES_CEILING", DEVICES_CEILING)),
            ]
        else:
            forget_key = _key("user-here", user, bucket)
            checks = [
                ("address", _key("address", bucket), _limit("HTRFLOW_LOGIN_ADDRESS_LIMIT", ADDRESS_LIMIT)),
                ("user", forget_key, _limit("HTRFLOW_LOGIN_USER_LIMIT", USER_LIMIT)),
            ]
            if counts.get(known_key) is None:
                ceiling = _limit("HTRFLOW_LOGIN_USER_CEILING", USER_CEILING)
                checks.append(("user_everywhere", _key("user", user), ceiling))
        raised = []
        for scope, key, (allowed, window) in checks:
            count, seconds_left = counts.add(key, 1, window)
            raised.append((key, window))
            if count > allowed:
                for raised_key, raised_window in raised:
                    counts.add(raised_key, -1, raised_window)
                return Refusal(scope, max(1, math.ceil(seconds_left))), None
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    return None, Reservation(forget_key=forget_key, known_key=known_key, raised=tuple(raised))


def count_unread(address):
    """Count a login that could not be read at all (too large, nested too deep) as a failure from
    ``address``: it names no user, so only the address's count is raised, and it is kept.

    ``None``, or a ``Refusal`` when the address was already at its limit (the count is then given back, as
    ``reserve`` does). Raises LimitsUnavailable when the shared storage does not answer.
    """
    key = _key("address", address_bucket(address))
    allowed, window = _limit("HTRFLOW_LOGIN_ADDRESS_LIMIT", ADDRESS_LIMIT)
    try:
        counts = counters.counters()
        count, seconds_left = counts.add(key, 1, window)
        if count > allowed:
            counts.add(key, -1, window)
            return Refusal("address", max(1, math.ceil(seconds_left)))
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    return None


def succeeded(reservation):
    """The account was right: forget this name's failures from this address (or device), remember the
    address, and give the other counts back. A storage failure here is logged: the login stands."""
    try:
        counts = counters.counters()
        counts.delete(reservation.forget_key)
        remembered = int(getattr(settings, "HTRFLOW_LOGIN_KNOWN_SECONDS", KNOWN_ADDRESS_SECONDS))
        counts.put(reservation.known_key, 1, remembered)
        for key, window in reservation.raised:
            if key != reservation.forget_key:
                counts.add(key, -1, window)
    except STORAGE_ERRORS as error:
        logger.warning("A successful login could not be noted in the shared login limits: %s", type(error).__name__)


def release(reservation):
    """The store could not judge the attempt: it does not count."""
    try:
        counts = counters.counters()
        for key, window in reservation.raised:
            counts.add(key, -1, window)
    except STORAGE_ERRORS as error:
        logger.warning("A login attempt could not be given back to the shared login limits: %s", type(error).__name__)


def reset():
    """Forget every count and known address (tests)."""
    counters.counters().clear()


def _unavailable(error):
    where = "Redis (HTRFLOW_REDIS_URL)" if settings.HTRFLOW_REDIS_URL else f"the folder {settings.HTRFLOW_STATE_DIR}"
    reason = str(error) if isinstance(error, counters.UnsafeStateFolder) else type(error).__name__
    logger.warning("The failed-login limits cannot be read from %s: %s", where, reason)
    if settings.HTRFLOW_REDIS_URL:
        return LimitsUnavailable(
            _(
                "Logins are paused because the site's shared login limits (Redis) did not answer; "
                "try again shortly, or tell an operator to check HTRFLOW_REDIS_URL."
            )
        )
    return LimitsUnavailable(
        _(
            "Logins are paused because the site cannot write its login limits; "
            "tell an operator to give it a private, writable HTRFLOW_STATE_DIR."
        )
    )
