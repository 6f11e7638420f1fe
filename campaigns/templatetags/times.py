"""Template filters that say a time in the reader's zone and language (core.times does the saying).

``{% load times %}`` then ``{{ at|moment }}`` (``14:02 CET`` today, ``5 Dec 14:02 CET`` another day),
``{{ at|moment:now }}`` (today as of ``now``), ``{{ at|clock:now }}`` (``16:15 CET today``), ``{{ at|day }}``
(``5 Dec 2026``) and ``{% zone_label %}`` (``Europe/Stockholm``); ``{{ at|utc_iso }}`` is the machine's
form (``2026-12-05T20:43:39Z``) for a ``<time datetime>`` attribute, UTC whatever zone the page speaks in. The
filters live in this app only because ``core`` is no Django app; any template may load them. A value that is
no aware datetime gives an empty string (``moment`` of None gives the words for an unknown time), never an
error on a page.
"""

from datetime import datetime

from django import template
from django.utils import timezone

from campaigns.models import utc_iso as utc_text
from core import times

register = template.Library()


def _aware(value) -> bool:
    return isinstance(value, datetime) and timezone.is_aware(value)


@register.filter
def moment(value, now=None) -> str:
    """The time to the minute, with its day unless it is today's (as of ``now``, else of the current time)."""
    if value is None:
        return times.moment(None)
    if not _aware(value):
        return ""
    return times.moment(value, now if _aware(now) else timezone.now())


@register.filter
def clock(value, now=None) -> str:
    """A forecast's time with ``today``/``tomorrow`` relative to ``now`` (else the current time)."""
    if not _aware(value):
        return ""
    return times.clock(value, now if _aware(now) else timezone.now())


@register.filter
def day(value) -> str:
    """The date alone."""
    return times.day(value) if _aware(value) else ""


@register.filter
def utc_iso(value) -> str:
    """The time as ISO 8601 in UTC, to the second (``2026-12-05T20:43:39Z``): a ``<time datetime>`` attribute is
    for machines and stays UTC, where ``|date:'c'`` would give the reader's zone now that one is active."""
    return utc_text(value) if _aware(value) else ""


@register.simple_tag
def zone_label() -> str:
    """The reader's zone's name, for a note saying which zone the times are in."""
    return times.zone_label()
