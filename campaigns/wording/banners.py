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

_OPENINGS = {
    "down": "The cluster has not been taking connections since {at}",
    "refused": "The cluster has refused this site's reads since {at}",
    "throttled": "The cluster has been turning this site's reads away as too many since {at}",
    "slow": "The cluster has been too slow to answer since {at}",
    "broken": "The cluster has been answering with errors since {at}",
}
_UNREACHABLE = "Could not reach the cluster since {at}"


def stale_banner(since: datetime, now: datetime | None = None, cause: str = "unreachable") -> str:
    """'Could not reach the cluster since 14:02 UTC (3 min ago)…' for a page showing an older state."""
    now = now or datetime.now(UTC)
    minutes = max(0, int((now - since).total_seconds() // 60))
    ago = "less than a minute ago" if minutes < 1 else f"{minutes} min ago"
    at = f"{since.astimezone(UTC):%H:%M} UTC ({ago})"
    opening = _OPENINGS.get(cause, _UNREACHABLE).format(at=at)
    return (
        f"{opening}. What you see is the last state read before then; "
        "it will update by itself once the cluster answers."
    )


def namespace_problem(namespace: str, sentence: str, several: bool) -> str:
    """Why a namespace could not be read; named when the site shows several."""
    return f"Namespace {namespace}: {sentence}" if several else sentence
