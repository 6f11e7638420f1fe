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
- ``feed:speaks:<person>``: the language and time zone the feed speaks, those of the session that made the
  address (``Speaks``), as codes of their names, kept as long as the token; a token made before they were kept,
  or a name the site no longer knows, speaks the site's defaults (``HTRFLOW_LANGUAGE``, ``HTRFLOW_TIME_ZONE``);
- ``feed:rights:<person>``: ``check * 4 + scope``, where ``check`` is when the rights were written
  (milliseconds) and ``scope`` 2 for every campaign, 1 for the whole results namespace, 0 for the
  listed prefixes only;
- ``feed:reads:<person>:<prefix hash>``: ``check`` of the write that found this results prefix
  readable; one from an older write counts for nothing, so a prefix no longer readable needs no delete;
- ``feed:noticed:<event hash>``: when the site first noticed a campaign event it had no time for.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from zoneinfo import available_timezones

from django.conf import settings
from django.utils import translation
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.formats import localize
from django.utils.translation import gettext_lazy, ngettext
from redis.exceptions import RedisError

from core import times
from core.zones import known_zone
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

# The refusals, said when a refusal is answered, in the language then active.
FORGED = gettext_lazy(
    "This feed address is not one this site made (it may have been cut short or mistyped). Log in to the "
    "site and copy your feed's address from its Feed page."
)
REPLACED = gettext_lazy(
    "This feed address was turned off or replaced by a newer one, so it shows nothing any more. Log in to "
    "the site and copy your feed's current address from its Feed page."
)
UNAVAILABLE = gettext_lazy(
    "Your feed cannot be shown right now because the site's shared state did not answer; your feed reader "
    "will try again later. If it lasts, tell an operator (HTRFLOW_REDIS_URL or HTRFLOW_STATE_DIR)."
)


def rights_too_old(hours: float) -> str:
    hours = float(hours)
    # A plural form is chosen by a whole number: 1.5 hours reads as many.
    count = int(hours) if hours.is_integer() else 2
    return ngettext(
        # Translators: {hours} is a number of hours (HTRFLOW_FEED_RIGHTS_HOURS), such as 24 or 1.5.
        "This feed is paused: what your store account may see was last checked more than {hours} hour ago "
        "(or never). Open the site and log in once, and the feed goes on from then.",
        "This feed is paused: what your store account may see was last checked more than {hours} hours ago "
        "(or never). Open the site and log in once, and the feed goes on from then.",
        count,
    ).format(hours=localize(int(hours) if hours.is_integer() else hours))


class FeedRefused(Exception):
    """A feed request that cannot be answered: ``str()`` is the sentence (said when asked for), ``status`` the
    HTTP status."""

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


def new_token(user: str, access: Access, speaks: Speaks | None = None) -> str:
    """Make a new token for the person (the old one stops working) and remember ``access`` for it now; its
    feed speaks ``speaks`` (the site's defaults when None)."""
    person = person_of(user)
    number = secrets.randbits(59) or 1
    try:
        store = counters.counters()
        # Before the number: a new address never speaks the old one's language, even for a moment.
        store.put(f"feed:speaks:{person}", _speaks_value(known_speaks(speaks or site_speaks())), TOKEN_KEEP_SECONDS)
        store.put(f"feed:token:{person}", number, TOKEN_KEEP_SECONDS)
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
        counters.counters().delete(f"feed:speaks:{person}")
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


# --- the language and zone a token's feed speaks ----------------------------------------------------

_LANGUAGE_BITS, _ZONE_BITS = 16, 43  # together under 2**59: a counter's whole number holds both


@dataclass(frozen=True)
class Speaks:
    """The language (a code of ``settings.LANGUAGES``) and time zone (a tz database name) a feed speaks."""

    language: str
    zone: str


def site_speaks() -> Speaks:
    """The site's defaults: ``HTRFLOW_LANGUAGE`` and ``HTRFLOW_TIME_ZONE``."""
    return Speaks(settings.LANGUAGE_CODE, settings.HTRFLOW_TIME_ZONE)


def speaks_now() -> Speaks:
    """The language and zone active now: a request's, LocaleMiddleware's and ReaderZoneMiddleware's."""
    language = translation.get_language() or ""
    if language not in _languages().values():
        language = language.split("-")[0]  # sv-se: sv
    return known_speaks(Speaks(language, times.zone_label()))


def known_speaks(speaks: Speaks) -> Speaks:
    """``speaks`` with a language not in ``settings.LANGUAGES``, or a zone not in the tz database, replaced by
    the site's default."""
    default = site_speaks()
    return Speaks(
        speaks.language if speaks.language in _languages().values() else default.language,
        speaks.zone if known_zone(speaks.zone) else default.zone,
    )


def speaks_of(person: str) -> Speaks:
    """What the person's feed speaks: what was kept with their token; the site's defaults for a token made
    before that was kept, and for a name the site no longer knows (each on its own). Raises FeedRefused (503)."""
    try:
        value = counters.counters().get(f"feed:speaks:{person}")
    except STORAGE_ERRORS as error:
        raise _unavailable(error) from None
    default = site_speaks()
    if value is None or value < 0:
        return default
    zone_code, language_code = divmod(value, 2**_LANGUAGE_BITS)
    return Speaks(_languages().get(language_code, default.language), _zone_names().get(zone_code, default.zone))


def _speaks_value(speaks: Speaks) -> int:
    return _code("zone", speaks.zone, _ZONE_BITS) * 2**_LANGUAGE_BITS + _code("lang", speaks.language, _LANGUAGE_BITS)


def _code(kind: str, name: str, bits: int) -> int:
    """A name as a whole number of ``bits`` bits (a hash): read back by looking it up among the names known."""
    digest = hashlib.blake2b(name.encode(), digest_size=8, person=b"htr-feed-" + kind.encode()).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


def _languages() -> dict[int, str]:
    return {_code("lang", code, _LANGUAGE_BITS): code for code, _name in settings.LANGUAGES}


@cache
def _zone_names() -> dict[int, str]:
    """Every zone of the tz database by its code (some 600: no two share one in 43 bits, a test checks)."""
    return {_code("zone", name, _ZONE_BITS): name for name in available_timezones() if known_zone(name)}


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
        spoken = store.get(f"feed:speaks:{person}")
        if spoken is not None:  # kept as long as the token it belongs to
            store.put(f"feed:speaks:{person}", spoken, TOKEN_KEEP_SECONDS)
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
