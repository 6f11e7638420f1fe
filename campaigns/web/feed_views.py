"""The campaign feed (Atom 1.0, RFC 4287) and the page where a person gets, copies and revokes its address.

Two ways in, one feed (``campaigns.presentation.feed`` decides the entries):

- ``/feed.atom`` with the session, behind the gate like every campaign view (what the account may
  see is proved as for any page);
- ``/feed/token.atom?token=...`` for feed readers and mail clients that cannot log in. It is not
  behind the gate, because it has no session: the token (``results.accounts.feeds``) names its person,
  and what it shows is what that person's account was last proved to read at a visit with a session,
  for at most ``HTRFLOW_FEED_RIGHTS_HOURS``. The token sits in the query, which the site's request log
  leaves out; a proxy in front of the site may still log it (docs/security.md, "The feed and its tokens").

Every refusal is one sentence in plain text with its status (403 forged or paused, 410 replaced, 503
when the shared state or the cluster does not answer), never a 500.
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe

from campaigns.cluster.reading import read_cluster
from campaigns.presentation import feed as presentation
from campaigns.presentation.cards import detail_url, volume_page_href
from campaigns.web.gate import known_results
from campaigns.wording import feed as words
from results.accounts import feeds

ATOM = "application/atom+xml; charset=utf-8"
DONE = {
    "new": gettext_lazy("A new feed address was made. Any address you had before no longer works."),
    "off": gettext_lazy("Your feed address was turned off. It no longer works; you can make a new one at any time."),
}
NO_SUCH_BUTTON = gettext_lazy("That is not something this page can do; reload the page and try again.")
CLUSTER_UNREAD = gettext_lazy(
    "The feed cannot be made now because the cluster could not be read; your reader will try again."
)


@require_safe
def session_feed(request):
    """The person's feed, with their session (behind the gate)."""
    person = feeds.person_of(request.results_session.user)
    return _feed(request, person, request.build_absolute_uri(reverse("campaign_feed")))


@require_safe
def token_feed(request):
    """The person's feed by their feed token: what their account was last proved to read."""
    token = request.GET.get("token", "")
    try:
        person = feeds.holder_of(token)
        speaks = feeds.speaks_of(person)
    except feeds.FeedRefused as refused:  # no person yet: said in the language the request asks for
        return _refusal(str(refused), refused.status)
    # A feed reader sends no cookie and its own Accept-Language: the feed speaks as its address was made to.
    with translation.override(speaks.language), timezone.override(ZoneInfo(speaks.zone)):
        try:
            remembered = feeds.rights_of(person)
            known = known_results(with_samples=False)
            if known is None:
                response = _refusal(CLUSTER_UNREAD, 503)
            else:
                request.campaign_access = remembered.access(known.keys())
                response = _feed(request, person, request.build_absolute_uri(_token_address(token)))
        except feeds.FeedRefused as refused:
            response = _refusal(str(refused), refused.status)
    response["Content-Language"] = speaks.language  # LocaleMiddleware would name the request's language
    return response


def _whole_if_it_is(number: float) -> int | float:
    """A number as a sentence counts it: 24, not 24.0 (a plural form needs a number, not text)."""
    return int(number) if number.is_integer() else number


@require_http_methods(["GET", "HEAD", "POST"])
def feed_page(request):
    """Where a logged-in person sees their feed address, copies it, makes a new one or turns it off."""
    user = request.results_session.user
    context = {"done": DONE.get(request.GET.get("done", "")), "error": "", "address": "",
               "session_address": request.build_absolute_uri(reverse("campaign_feed")),
               "hours": _whole_if_it_is(float(settings.HTRFLOW_FEED_RIGHTS_HOURS))}
    status = 200
    try:
        if request.method == "POST":
            action = request.POST.get("action", "")
            if action == "new":
                feeds.new_token(user, request.campaign_access, feeds.speaks_now())
            elif action == "off":
                feeds.turn_off(user)
            else:
                context.update(error=NO_SUCH_BUTTON, done=None)
                return render(request, "campaigns/feed_page.html", context, status=400)
            response = HttpResponse(status=303)
            response["Location"] = reverse("campaign_feed_page") + "?" + urlencode({"done": action})
            return response
        token = feeds.token_for(user)
        if token:
            context["speaks"] = _speaks_words(feeds.speaks_of(feeds.person_of(user)))
    except feeds.FeedRefused as refused:
        context.update(error=str(refused), done=None)
        status = refused.status
        token = ""
    if token:
        context["address"] = request.build_absolute_uri(_token_address(token))
    return render(request, "campaigns/feed_page.html", context, status=status)


def _speaks_words(speaks: feeds.Speaks) -> dict:
    """The language and zone a feed address speaks, as the page names them: the language in its own words
    (Svenska, English), the zone by its tz database name."""
    names = dict(settings.LANGUAGES)
    return {"language": names.get(speaks.language, speaks.language), "zone": speaks.zone}


def discovery_address(request) -> str:
    """The feed address a page offers to browsers and feed readers (``<link rel="alternate">``): the person's
    token address when they have one, so a reader that cannot log in can follow it, else the feed with the
    session. A shared state that does not answer leaves the session's address."""
    user = getattr(getattr(request, "results_session", None), "user", "")
    if not user:
        return ""
    try:
        token = feeds.token_for(user)
    except feeds.FeedRefused:
        token = ""
    return request.build_absolute_uri(_token_address(token) if token else reverse("campaign_feed"))


def _volume_address(request, campaign, volume) -> str:
    """A volume's page as a feed reader follows it (absolute), or "" for an id no address can carry."""
    href = volume_page_href(campaign, volume)
    return request.build_absolute_uri(href) if href else ""


def _token_address(token: str) -> str:
    return reverse("campaign_feed_by_token") + "?" + urlencode({"token": token})


def _feed(request, person: str, self_url: str) -> HttpResponse:
    now = timezone.now()
    state = read_cluster(request, now)
    if state.nothing_read:
        return _refusal(" ".join(state.problems) or CLUSTER_UNREAD, 503)
    try:
        entries = presentation.entries(
            state.campaigns, now, lambda campaign: request.build_absolute_uri(detail_url(campaign)), feeds.noticed_at,
            volume_url=lambda campaign, volume: _volume_address(request, campaign, volume),
        )
    except feeds.FeedRefused as refused:
        return _refusal(str(refused), refused.status)
    context = {
        "id": presentation.feed_id(person),
        "title": words.FEED_TITLE,
        "subtitle": words.FEED_SUBTITLE,
        "updated": presentation.atom_time(max((entry.updated for entry in entries), default=now)),
        "self_url": self_url,
        "site_url": request.build_absolute_uri("/"),
        "entries": entries,
    }
    body = render_to_string("campaigns/feed.atom", context, request=None).encode()
    etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(body, content_type=ATOM)
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    response["X-Robots-Tag"] = "noindex"
    return response


def _refusal(sentence: str, status: int) -> HttpResponse:
    response = HttpResponse(str(sentence) + "\n", status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "private, no-store"
    if status == 503:
        response["Retry-After"] = "60"
    return response
