"""The one gate in front of every view that shows campaign data.

``campaigns/urls.py`` puts every one of its views behind ``gated`` (all but the API's version,
which names no campaign), so a new view cannot forget it. The gate works out what the person's
store account may see (``results.store.access``) and leaves it on the request as ``campaign_access``;
the reading functions (``campaigns.cluster.reading.read_cluster``/``find_campaign``) take it and drop every
campaign it does not cover, so a campaign the account may not read answers exactly as an invented
name does. A person who may see no campaign at all gets the refusal sentence from every view; one
whose access could not be checked (the store did not answer) is told that instead; one whose
account the store no longer knows is sent to log in again.
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_lazy

from campaigns.cluster import kube, reading
from campaigns.models import Campaign
from results.accounts import feeds
from results.accounts.middleware import login_refusal
from results.store import access

NOT_CHECKED = gettext_lazy(
    "Which campaigns your store account may see could not be checked, because the results store did "
    "not answer in time; try again in a minute. If it lasts, an operator should check the store (S3_ENDPOINT)."
)
NOT_CHECKED_SECONDS = 30


def refusal_sentence() -> str:
    # Translators: {namespace} is the results store's folder of this site's results (htr-batch), said with a
    # slash after it; keep it as it is.
    said = gettext("Your store account may not read this site's results (under {namespace}/), so this site shows "
                   "you no campaigns. Ask an operator to let your account read {namespace}/, or log in with another "
                   "account.")
    return said.format(namespace=settings.HTRFLOW_RESULTS_NAMESPACE)


def sample_keys(campaign: Campaign, most: int = access.SAMPLES_PER_PREFIX) -> tuple[str, ...]:
    """Progress files of volumes that have started (so they exist), at most ``most`` of them."""
    keys: list[str] = []
    for state in ("done", "failed", "active"):
        page, _matching = campaign.volumes.select(state, "", 0, most - len(keys))
        keys.extend(volume.progress_key for volume in page)
        if len(keys) >= most:
            break
    return tuple(keys)


def known_results(with_samples: bool = True) -> access.Results:
    """What the current reading knows of the campaigns' results: prefix -> a few keys known to exist
    there (none without ``with_samples``, which only lists the prefixes). None when no shown namespace
    could be read."""
    results: dict[str, tuple[str, ...]] = {}
    read_any = False
    for namespace in settings.HTRFLOW_NAMESPACES:
        try:
            current = reading.read_namespace(namespace)
        except kube.ClusterUnavailable:
            continue
        read_any = True
        for campaign in current.campaigns:
            prefix = campaign.results_prefix
            if not prefix:
                continue
            have = results.get(prefix, ())
            if with_samples and len(have) < access.SAMPLES_PER_PREFIX:
                have = have + sample_keys(campaign, access.SAMPLES_PER_PREFIX - len(have))
            results[prefix] = have
    return results if read_any else None


def _first_readings() -> None:
    """Wait for each shown namespace's first reading as a page does (at once once there is one). The
    access proof reads it within the store's budget (HTRFLOW_STORE_WAIT_SECONDS), which is for the
    store: at 200 campaigns the first reading takes most of a minute after a start, and a first page
    was told the store had not answered in time (503) while the cluster was still being read."""
    for namespace in reading.served_namespaces():
        try:
            reading.read_namespace(namespace)
        except kube.ClusterUnavailable:
            continue  # the page says so; the proof meets the same


def campaign_view(view):
    """Run ``view`` with ``request.campaign_access`` set, or answer with why it cannot be shown."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        once: dict[bool, access.Results] = {}

        def results(with_samples: bool = True) -> access.Results:
            if with_samples not in once:
                once[with_samples] = known_results(with_samples)
            return once[with_samples]

        _first_readings()  # before the store's budget starts: see there
        allowed = access.access_of(request, results)
        feeds.remember(request.results_session, allowed)  # what a feed token may show follows each visit
        if allowed.ended:
            request.results_session_ended = True
            return login_refusal(request)
        if not allowed.known:
            return _answer(request, str(NOT_CHECKED), 503, "access_not_checked", retry_after=NOT_CHECKED_SECONDS)
        if allowed.nothing:
            return _answer(request, refusal_sentence(), 403, "not_a_namespace_reader")
        request.campaign_access = allowed
        return view(request, *args, **kwargs)

    wrapper.campaign_gate = True
    return wrapper


def gated(patterns):
    """The URL patterns with every view behind the gate."""
    for pattern in patterns:
        pattern.callback = campaign_view(pattern.callback)
    return patterns


def _answer(request, sentence: str, status: int, reason: str, retry_after: int | None = None):
    """A page (``status``), a poll that reloads the page into the sentence, or JSON from the read API.
    It never names a campaign."""
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": sentence, "reason": reason}, status=status)
    elif getattr(request, "htmx", False):
        response = HttpResponse(sentence, status=status, content_type="text/plain; charset=utf-8")
        if status == 403:
            response["HX-Refresh"] = "true"  # the page reloads and shows the sentence in full
    else:
        response = render(request, "results/cards_refused.html", {"sentence": sentence}, status=status)
    response["Cache-Control"] = "private, no-store"
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response
