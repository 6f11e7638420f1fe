"""The one gate in front of every view that shows campaign data.

``campaigns/urls.py`` puts every one of its views behind ``gated`` (all but the API's version,
which names no campaign), so a new view cannot forget it. The gate works out what the person's
store account may see (``results.access``) and leaves it on the request as ``campaign_access``;
the reading functions (``campaigns.views.read_cluster``/``find_campaign``) take it and drop every
campaign it does not cover, so a campaign the account may not read answers exactly as an invented
name does. A person who may see no campaign at all gets the refusal sentence from every view.
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings

from campaigns import kube
from results import access


def known_prefixes() -> list[str]:
    """The results prefixes of the campaigns in the current reading of every shown namespace."""
    prefixes = []
    for namespace in settings.HTRFLOW_NAMESPACES:
        try:
            reading = kube.read_namespace(namespace)
        except kube.ClusterUnavailable:
            continue
        prefixes.extend(c.results_prefix for c in reading.campaigns if c.results_prefix)
    return prefixes


def campaign_view(view):
    """Run ``view`` with ``request.campaign_access`` set, or answer with the refusal when it covers nothing."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        allowed = access.access_of(request, known_prefixes)
        if allowed.ended:
            request.results_session_ended = True
        if allowed.nothing:
            return access.refused(request)
        request.campaign_access = allowed
        return view(request, *args, **kwargs)

    wrapper.campaign_gate = True
    return wrapper


def gated(patterns):
    """The URL patterns with every view behind the gate."""
    for pattern in patterns:
        pattern.callback = campaign_view(pattern.callback)
    return patterns
