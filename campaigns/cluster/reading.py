"""The cluster as the campaign views read it: the board's current reading of each shown namespace,
less the campaigns the person may not see (as the gate, campaigns/web/gate.py, proved), and an
unreadable cluster as sentences. Every view reads through here; nothing here renders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings

from campaigns.cluster import board, kube, redaction
from campaigns.domain.projection import sort_campaigns
from campaigns.models import Campaign
from campaigns.wording.banners import namespace_problem
from results.store.access import Access

DNS_LABEL = re.compile(r"^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$")


def read_namespace(namespace: str) -> board.Reading:
    """The current reading of one namespace, kept by the board's watches. Raises kube.ClusterUnavailable."""
    return board.reading(namespace)


def clear_cache() -> None:
    """Forget every watch, reading and client (tests re-point the settings between cases)."""
    board.stop_all()
    kube.close_clients()


@dataclass
class ClusterState:
    """Everything the cluster said, for every served namespace."""

    campaigns: list[Campaign] = field(default_factory=list)
    banners: list[str] = field(default_factory=list)  # an older snapshot is shown
    problems: list[str] = field(default_factory=list)  # a namespace could not be read at all
    stale: bool = False
    readings: list = field(default_factory=list)  # board.Reading of each namespace read

    @property
    def nothing_read(self) -> bool:
        return bool(self.problems) and not self.campaigns and len(self.problems) >= len(served_namespaces())


def served_namespaces() -> list[str]:
    return list(settings.HTRFLOW_NAMESPACES)


def shown_to(request) -> Access:
    """What the request's person may see: the gate (campaigns/web/gate.py) left it on the request. A view
    that is not behind the gate shows nothing."""
    return getattr(request, "campaign_access", None) or Access()


def read_cluster(request, now, namespaces: list[str] | None = None) -> ClusterState:
    """The current reading of each namespace (projected once per change by `campaigns.cluster.board`), less
    the campaigns the person may not see; an unreadable cluster becomes sentences."""
    allowed = shown_to(request)
    state = ClusterState()
    for namespace in namespaces or served_namespaces():
        try:
            reading = read_namespace(namespace)
        except kube.ClusterUnavailable as trouble:
            state.problems.append(namespace_problem(namespace, trouble.sentence, len(served_namespaces()) > 1))
            continue
        state.readings.append(reading)
        state.campaigns.extend(visible_campaigns(reading.campaigns, allowed))
        banner = reading.banner(now)
        if banner:
            state.stale = True
            if banner not in state.banners:
                state.banners.append(banner)
    state.campaigns = sort_campaigns(state.campaigns, now)
    return state


def visible_campaigns(
    campaigns: list[Campaign], allowed: Access, among: list[Campaign] | None = None
) -> list[Campaign]:
    """The campaigns the person may see, as they may see them: when some campaigns of the namespace
    (``among``, by default these) are hidden from them, their names are taken out of the others'
    queue sentences (``campaigns.cluster.redaction``)."""
    among = campaigns if among is None else among
    seen = [c for c in among if allowed.sees(c.results_prefix, c.namespace)]
    if len(seen) == len(among):
        return [c for c in campaigns if allowed.sees(c.results_prefix, c.namespace)]
    seen_jobs = redaction.job_names(seen)
    return redaction.shown([c for c in campaigns if allowed.sees(c.results_prefix, c.namespace)], seen_jobs)


def find_campaign(request, namespace: str, name: str, now) -> tuple[Campaign | None, ClusterState]:
    """One campaign of the current reading (a lookup: the board projected it already), when the person
    may see it; one they may not see is not found, exactly as an invented name."""
    state = ClusterState()
    if namespace not in served_namespaces() or not DNS_LABEL.match(name or ""):
        return None, state
    try:
        reading = read_namespace(namespace)
    except kube.ClusterUnavailable as trouble:
        state.problems.append(trouble.sentence)
        return None, state
    state.readings.append(reading)
    banner = reading.banner(now)
    if banner:
        state.stale = True
        state.banners.append(banner)
    campaign = reading.find(name)
    if campaign is not None:
        campaign = next(iter(visible_campaigns([campaign], shown_to(request), among=reading.campaigns)), None)
    if campaign is not None:
        state.campaigns.append(campaign)
    return campaign, state
