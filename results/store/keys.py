"""Key rules for the results bucket, and results URL <-> key.

A key arrives as the raw, still percent-encoded part of a request path after
``/results/``. It is decoded exactly once. Anything that could step outside the
served namespaces, or that a store might read differently from us, is refused
before the store is asked: an encoded ``/`` or ``\\``, empty, ``.`` or ``..``
segments, control characters, bad escapes, and keys outside ``<ns>/...``.
"""

import re
from urllib.parse import quote, unquote_to_bytes

from django.conf import settings

from core.contract import LEGACY_LOG_PREFIX

# S3 keys are at most 1024 bytes of UTF-8.
MAX_KEY_BYTES = 1024
# The older writers put run logs at the top of the bucket, outside any namespace.
LEGACY_PREFIXES = (LEGACY_LOG_PREFIX,)

_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class KeyRefused(ValueError):
    """The path cannot name a results key; the store is never asked about it."""


def served_namespaces():
    """Namespaces whose prefix ``<ns>/`` the proxy serves."""
    names = {settings.HTRFLOW_RESULTS_NAMESPACE, *settings.HTRFLOW_NAMESPACES}
    return sorted(name for name in names if name)


def _decode_segment(raw_segment):
    if _BAD_ESCAPE.search(raw_segment):
        raise KeyRefused("a percent sign that does not start an escape")
    try:
        decoded = unquote_to_bytes(raw_segment).decode("utf-8")
    except UnicodeDecodeError:
        raise KeyRefused("bytes that are not UTF-8") from None
    if "/" in decoded or "\\" in decoded:
        raise KeyRefused("an encoded slash or backslash")
    if decoded in ("", ".", ".."):
        raise KeyRefused("an empty, '.' or '..' segment")
    if _CONTROL.search(decoded):
        raise KeyRefused("a control character")
    return decoded


def key_from_raw_path(raw_key):
    """Decode a raw (percent-encoded) key path once and apply every key rule.

    Returns the key the store is asked for, or raises KeyRefused.
    """
    if not isinstance(raw_key, str) or not raw_key:
        raise KeyRefused("no key")
    if _CONTROL.search(raw_key) or "\\" in raw_key:
        raise KeyRefused("a control character or backslash")
    segments = [_decode_segment(segment) for segment in raw_key.split("/")]
    key = "/".join(segments)
    if len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise KeyRefused("longer than a store key may be")
    if not _is_served(key, segments):
        raise KeyRefused("outside the served namespaces")
    return key


def _is_served(key, segments):
    if len(segments) < 2:
        return False
    if any(key.startswith(prefix) for prefix in LEGACY_PREFIXES):
        return len(segments) >= 4
    return segments[0] in served_namespaces()


def is_valid_key(key):
    """True when a decoded key obeys the rules (used before building URLs)."""
    try:
        return key_from_raw_path(quote_key(key)) == key
    except KeyRefused:
        return False


def quote_key(key):
    """Percent-encode each segment of a key (volume ids included) for a URL path."""
    return "/".join(quote(segment, safe="") for segment in key.split("/"))


def results_base():
    """Browser-facing base of the results proxy, without a trailing slash."""
    return settings.HTRFLOW_RESULTS_URL or "/results"


def url_for_key(key):
    """The browser-facing URL of a results key."""
    return f"{results_base()}/{quote_key(key)}"
