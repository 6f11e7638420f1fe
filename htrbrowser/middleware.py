"""Site-wide middleware: the address behind trusted proxies, headers every page carries, and requests
marked while in their views."""

from campaigns.cluster import gc_tuning
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
