"""Site-wide middleware: the address behind trusted proxies, headers every page carries, requests
marked while in their views, and the reader's time zone."""

from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from campaigns.cluster import gc_tuning
from core.zones import known_zone
from results.accounts.forwarded import adopt_forwarded

# Pages load only our own scripts, styles and images; the ALTO viewer also shows
# page images from the archive's image server, hence img-src allows https: and http:.
PAGE_CSP = (
    "default-src 'self'; img-src 'self' data: https: http:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # The results proxy sets its own, stricter policy on raw files.
        response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        return response


class ForwardedHeadersMiddleware:
    """First in the chain: scheme and host come from the trusted proxies' entries (``results.accounts.forwarded``).

    Django's own ``SECURE_PROXY_SSL_HEADER`` / ``USE_X_FORWARDED_HOST`` are not used: they read
    the left-most X-Forwarded-Proto entry (which the client controls when a proxy appends) and the
    whole X-Forwarded-Host header, so the site's address would be decided two different ways.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        adopt_forwarded(request)
        return self.get_response(request)


class InViewMiddleware:
    """Marks a request while its view runs, so the board sets a reading aside from Python's collector
    only when no request holds part of it (`campaigns.cluster.gc_tuning.serving`). After the probes
    and static files, which hold no reading; a streamed body is sent after this returns."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with gc_tuning.serving():
            return self.get_response(request)


# The cookie static/js/zone.js sets from what the browser reports (Intl.DateTimeFormat's time zone).
ZONE_COOKIE = "tz"


def reader_zone_name(request) -> str:
    """The zone the reader's browser reported, when it is one of the tz database's; else the site's default
    (HTRFLOW_TIME_ZONE). Whatever else the cookie holds is ignored."""
    reported = request.COOKIES.get(ZONE_COOKIE, "")
    if known_zone(reported):
        return reported
    return settings.HTRFLOW_TIME_ZONE


class ReaderZoneMiddleware:
    """Makes the reader's zone Django's current time zone for the request, so core.times says every time in it.

    Activated and left active, as LocaleMiddleware leaves the language: a streamed body is written after this
    returns, and each request of the thread activates its own zone first."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.activate(ZoneInfo(reader_zone_name(request)))
        return self.get_response(request)
