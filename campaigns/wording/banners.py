"""The banners over a page: an older state of the cluster shown (since when, and why), and a
namespace that could not be read at all.

The causes are ``campaigns.cluster.kube``'s; they are spelled out here so wording needs nothing but the
standard library. Each says a different thing to look at: ``down`` nothing takes the connection (the API
server is off or restarting), ``slow`` it takes the connection but does not answer in time, ``broken``
it answers with errors (5xx), ``throttled`` it turns reads away as too many (429), ``refused`` it
refuses this site's account (401/403); any other (``unreachable``) is a network that does not get there.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core import times

# The banner's opening for each cause (the sentence after it says what the page shows meanwhile).
_OPENINGS = {
    # Translators: {at} is when the trouble began (14:02 CET); {ago} how long ago (3 min ago).
    "down": gettext_lazy("The cluster has not been taking connections since {at} ({ago})."),
    # Translators: {at} is when the trouble began (14:02 CET); {ago} how long ago (3 min ago).
    "refused": gettext_lazy("The cluster has refused this site's reads since {at} ({ago})."),
    # Translators: {at} is when the trouble began (14:02 CET); {ago} how long ago (3 min ago).
    "throttled": gettext_lazy("The cluster has been turning this site's reads away as too many since {at} ({ago})."),
    # Translators: {at} is when the trouble began (14:02 CET); {ago} how long ago (3 min ago).
    "slow": gettext_lazy("The cluster has been too slow to answer since {at} ({ago})."),
    # Translators: {at} is when the trouble began (14:02 CET); {ago} how long ago (3 min ago).
    "broken": gettext_lazy("The cluster has been answering with errors since {at} ({ago})."),
}
# Translators: {at} is when the trouble began (14:02 CET); {ago} how long ago (3 min ago).
_UNREACHABLE = gettext_lazy("Could not reach the cluster since {at} ({ago}).")


def stale_banner(since: datetime, now: datetime | None = None, cause: str = "unreachable") -> str:
    """'Could not reach the cluster since 14:02 CET (3 min ago)…' for a page showing an older state; the time
    in the reader's zone, with its day when that is not today's."""
    now = now or datetime.now(UTC)
    minutes = max(0, int((now - since).total_seconds() // 60))
    if minutes < 1:
        ago = _("less than a minute ago")
    else:
        # Translators: how long ago the cluster was last read, in whole minutes (3 min ago).
        ago = ngettext("{minutes} min ago", "{minutes} min ago", minutes).format(minutes=minutes)
    opening = _OPENINGS.get(cause, _UNREACHABLE).format(at=times.moment(since, now), ago=ago)
    then = _("What you see is the last state read before then; it will update by itself once the cluster answers.")
    return " ".join((opening, then))


def namespace_problem(namespace: str, sentence: str, several: bool) -> str:
    """Why a namespace could not be read; named when the site shows several."""
    if not several:
        return str(sentence)
    # Translators: {namespace} is a Kubernetes namespace's name; {problem} the sentence saying why it could not
    # be read.
    return _("Namespace {namespace}: {problem}").format(namespace=namespace, problem=sentence)
