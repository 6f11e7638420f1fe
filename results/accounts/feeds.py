"""A person's feed address: a revocable token, and the rights it may show, kept where the limits are kept.

A feed reader or a mail client cannot log in, so the campaign feed (``campaigns.web.feed_views``) also
answers a per-person **feed token** in its address. The token carries no store credential and
cannot be turned into one: it is ``<person>.<number>.<mac>``, where ``person`` is a keyed hash of the
store user name, ``number`` a random number the site keeps for that person, and ``mac`` an HMAC of
both under ``DJANGO_SECRET_KEY``. A token whose MAC does not verify is forged (no state is read for
it); one whose number is not the person's current number was replaced or turned off. Making a new
address replaces the number, so the old address stops working at once on every replica; turning
the feed off deletes it. A new ``DJANGO_SECRET_KEY`` voids every address.

What may a token-only request show? It has no credential to prove anything with, so it shows what
the person's own account was last proved to read (``results.store.access``) when they used the site
with a session: every campaign view's gate hands its proof to ``remember``, which writes it here
(at most every few minutes while it stays the same, at once when it changes, so rights that shrink
shrink the feed at the person's next visit). The rights are kept ``HTRFLOW_FEED_RIGHTS_HOURS``; older
than that the feed is refused with a sentence until the person uses the site again. An account
the store no longer knows loses its remembered rights at once.

Everything is kept as whole numbers in ``results.accounts.counters`` (Redis with ``HTRFLOW_REDIS_URL``,
shared by every replica; otherwise the SQLite file of one pod, so with several replicas and no
Redis each pod keeps its own and an address made on one pod is unknown to the others). Keys:

- ``feed:token:<person>``: the current random number (59 bits), kept a year past its last use;
- ``feed:rights:<person>``: ``check * 4 + scope``, where ``check`` is when the rights were written
  (milliseconds) and ``scope`` 2 for every campaign, 1 for the whole results namespace, 0 for the
  listed prefixes only;
- ``feed:reads:<person>:<prefix hash>``: ``check`` of the write that found this results prefix
  readable; one from an older write counts for nothing, so a prefix no longer readable needs no delete;
- ``feed:noticed:<event hash>``: when the site first noticed a campaign event it had no time for.
"""

from __future__ import annotations

import logging
import re
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac
from redis.exceptions import RedisError

from results.accounts import counters
from results.store.access import Access

logger = logging.getLogger(__name__)

STORAGE_ERRORS = (RedisError, sqlite3.Error, OSError)
TOKEN_KEEP_SECONDS = 366 * 24 * 3600  # a token unused (its person never seen) this long is forgotten
NOTICED_KEEP_SECONDS = 90 * 24 * 3600
REMEMBER_EVERY_SECONDS = 600.0  # unchanged rights are written again at most this often per process
RETRY_SECONDS = 60.0  # after the shared state did not answer, a visit tries again after this long
MOST_PEOPLE = 10_000
SCOPE_PREFIXES, SCOPE_NAMESPACE, SCOPE_EVERYTHING = 0, 1, 2
_TOKEN = re.compile(r"([0-9a-f]{32})\.([0-9a-f]{1,15})\.([0-9a-f]{32})")
_clock = time.time  # tests move it on

FORGED = (
    "This feed address is not one this site made (it may have been cut short or mistyped). Log in to the "
    "site and copy your feed's address from its Feed page."
)
REPLACED = (
    "This feed address was turned off or replaced by a newer one, so it shows nothing any more. Log in to "
    "the site and copy your feed's current address from its Feed page."
)
UNAVAILABLE = (
    "Your feed cannot be shown right now because the site's shared state did not answer; your feed reader "
    "will try again later. If it lasts, tell an operator (HTRFLOW_REDIS_URL or HTRFLOW_STATE_DIR)."
)


def rights_too_old(hours: float) -> str:
    return (
        f"This feed is paused: what your store account may see was last checked more than {hours:g} hours ago "
        "(or never). Open the site and log in once, and the feed goes on from then."
    )


class FeedRefused(Exception):
    """A feed request that cannot be answered: ``str()`` is the sentence, ``status`` the HTTP status."""

    def __init__(self, sentence: str, status: int):
        super().__init__(sentence)
        self.status = status


def rights_seconds() -> float:
    return float(settings.HTRFLOW_FEED_RIGHTS_HOURS) * 3600


def person_of(user: str) -> str:
    """A keyed hash of the store user name: names no one without ``DJANGO_SECRET_KEY``. The name is taken
    exactly as the session holds it (store accounts may tell case apart)."""
    return salted_hmac("results.feeds.person", user, algorithm="sha256").hexdigest()[:32]


def _mac(person: str, number: int) -> str:
    return salted_hmac("results.feeds.token", f"{person}.{number:x}", algorithm="sha256").hexdigest()[:32]


def _token_text(person: str, number: int) -> str:
    return f"{person}.{number:x}.{_mac(person, number)}"


def _unavailable(error: Exception) -> FeedRefused:
    where = "Redis (HTRFLOW_REDIS_URL)" if settings.HTRFLOW_REDIS_URL else f"the folder {settings.HTRFLOW_STATE_DIR}"
    logger.warning("The feed's shared state cannot be read from %s: %s", where, type(error).__name__)
    return FeedRefused(UNAVAILABLE, 503)


# --- the token -------------------------------------------------------------------------------------


def token_for(user: str) -> str:
    """The person's current feed token, or "" when they have none. Raises FeedRefused (503)."""
    person = person_of(user)
    try:
        number = counters.counters().get(f"feed:token:{person}")
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    return _token_text(person, number) if number is not None and number > 0 else ""


def new_token(user: str, access: Access) -> str:
    """Make a new token for the person (the old one stops working) and remember ``access`` for it now."""
    person = person_of(user)
    number = secrets.randbits(59) or 1
    try:
        counters.counters().put(f"feed:token:{person}", number, TOKEN_KEEP_SECONDS)
        _write_rights(person, access, _clock())
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    _forget_local(person)
    return _token_text(person, number)


def turn_off(user: str) -> None:
    """The person's feed address stops working; no new one is made."""
    person = person_of(user)
    try:
        counters.counters().delete(f"feed:token:{person}")
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    _forget_local(person)


def holder_of(token: str) -> str:
    """The person a token was made for, when it is their current one. Raises FeedRefused: 403 for a token
    this site did not make (no shared state is read for it), 410 for one replaced or turned off, 503."""
    found = _TOKEN.fullmatch(token or "")
    if found is None:
        raise FeedRefused(FORGED, 403)
    person, number_text, mac = found.groups()
    number = int(number_text, 16)
    if not constant_time_compare(mac, _mac(person, number)):
        raise FeedRefused(FORGED, 403)
    try:
        current = counters.counters().get(f"feed:token:{person}")
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    if current is None or current != number:  # the MAC is verified: the number is the token's own
        raise FeedRefused(REPLACED, 410)
    return person


# --- the rights a token may show -------------------------------------------------------------------


def _scope_of(access: Access) -> int:
    if access.everywhere:
        return SCOPE_EVERYTHING
    return SCOPE_NAMESPACE if access.everything_under else SCOPE_PREFIXES


def _prefix_key(person: str, prefix: str) -> str:
    return f"feed:reads:{person}:{salted_hmac('results.feeds.prefix', prefix, algorithm='sha256').hexdigest()[:24]}"


def _write_rights(person: str, access: Access, now: float) -> None:
    """The prefixes first, then the record that makes them count: a reader never sees half a write."""
    store, keep = counters.counters(), rights_seconds()
    check = int(now * 1000)
    for prefix in sorted(access.readable):
        store.put(_prefix_key(person, prefix), check, keep)
    store.put(f"feed:rights:{person}", check * 4 + _scope_of(access), keep)


@dataclass(frozen=True)
class Remembered:
    """The rights last written for a person, as a token-only request may use them."""

    person: str
    check: int  # milliseconds
    scope: int

    def access(self, prefixes) -> Access:
        """An ``Access`` covering what was remembered, asked only about the results ``prefixes`` the
        reading knows (one shared-state read per prefix the scope does not already cover)."""
        if self.scope == SCOPE_EVERYTHING:
            # remembered under HTRFLOW_CARDS_FOR=store-accounts: worth nothing once the site is stricter
            return Access(everywhere=True) if settings.HTRFLOW_CARDS_FOR == "store-accounts" else Access()
        under = f"{settings.HTRFLOW_RESULTS_NAMESPACE}/" if self.scope == SCOPE_NAMESPACE else ""
        store, readable = counters.counters(), set()
        try:
            for prefix in sorted(set(prefixes)):
                if prefix and not (under and prefix.startswith(under)):
                    if store.get(_prefix_key(self.person, prefix)) == self.check:
                        readable.add(prefix)
        except STORAGE_ERRORS as error:
            raise _unavailable(error) from None
        return Access(everything_under=under, readable=frozenset(readable))


def rights_of(person: str) -> Remembered:
    """The rights remembered for ``person``. Raises FeedRefused (403) when none are kept or they are older
    than ``HTRFLOW_FEED_RIGHTS_HOURS``, 503 when the shared state does not answer."""
    try:
        value = counters.counters().get(f"feed:rights:{person}")
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    if value is None or value < 0:
        raise FeedRefused(rights_too_old(settings.HTRFLOW_FEED_RIGHTS_HOURS), 403)
    check, scope = divmod(value, 4)
    if _clock() * 1000 - check > rights_seconds() * 1000:
        raise FeedRefused(rights_too_old(settings.HTRFLOW_FEED_RIGHTS_HOURS), 403)
    return Remembered(person=person, check=check, scope=scope)


# --- remembering at each visit ---------------------------------------------------------------------

_seen: OrderedDict[str, tuple[object, float]] = OrderedDict()  # person -> (what was written, when)
_seen_lock = threading.Lock()


def _forget_local(person: str) -> None:
    with _seen_lock:
        _seen.pop(person, None)


def clear_cache() -> None:
    """Forget what this process wrote (tests start from nothing)."""
    with _seen_lock:
        _seen.clear()


def remember(current, access: Access) -> None:
    """Keep what a visit with a session proved of the person's rights, for their feed token. Cheap when
    nothing changed (no I/O); never raises: a page must not fail because the feed's state did not answer.

    ``current`` is the request's ``ResultsSession`` (or None). An account the store no longer knows
    loses its remembered rights; a proof not made (the store did not answer) changes nothing.
    """
    if current is None or not access.known:
        return
    person, now = person_of(current.user), _clock()
    shown = "ended" if access.ended else (access.everywhere, access.everything_under, access.readable)
    with _seen_lock:
        last = _seen.get(person)
        if last is not None and last[0] == shown and now - last[1] < REMEMBER_EVERY_SECONDS:
            return
        _seen[person] = (shown, now)
        _seen.move_to_end(person)
        while len(_seen) > MOST_PEOPLE:
            _seen.popitem(last=False)
    try:
        store = counters.counters()
        if access.ended:
            store.delete(f"feed:rights:{person}")
            return
        number = store.get(f"feed:token:{person}")
        if number is None:
            return  # no feed address: nothing to keep (making one writes the rights at once)
        _write_rights(person, access, now)
        store.put(f"feed:token:{person}", number, TOKEN_KEEP_SECONDS)
    except STORAGE_ERRORS as error:
        logger.warning("A visit's rights could not be kept for the person's feed: %s", type(error).__name__)
        with _seen_lock:
            _seen[person] = (None, now - REMEMBER_EVERY_SECONDS + RETRY_SECONDS)


# --- when an event was first noticed -----------------------------------------------------------------


def noticed_at(event: str) -> float:
    """When the site first noticed ``event`` (a campaign event it knows no time of), shared by every
    replica; now, when the shared state does not answer (the entry's time may then move once)."""
    key = f"feed:noticed:{salted_hmac('results.feeds.event', event, algorithm='sha256').hexdigest()[:32]}"
    now = _clock()
    try:
        store = counters.counters()
        found = store.get(key)
        if found is not None and 0 < found <= now + 60:
            return float(found)
        store.put(key, int(now), NOTICED_KEEP_SECONDS)
    except STORAGE_ERRORS as error:
        logger.warning("When a campaign event was first noticed could not be kept: %s", type(error).__name__)
    return float(int(now))
