"""The site's own address and the client's address, as far as trusted front proxies vouch.

``HTRFLOW_TRUSTED_HOPS`` (setting ``TRUSTED_HOPS``) says how many front proxies stand
before us. Only then are ``X-Forwarded-Proto``, ``X-Forwarded-Host`` and
``X-Forwarded-For`` believed, and only the entries those proxies wrote: counting from
the right, since every proxy appends. Anything further left came from the client.
"""

import re
from urllib.parse import urlsplit

from django.conf import settings

_DEFAULT_PORTS = {"http": "80", "https": "443"}


def trusted_hops():
    return int(getattr(settings, "TRUSTED_HOPS", 0) or 0)


def _forwarded_entry(request, header):
    """The entry the outermost trusted proxy wrote in a comma-separated X-Forwarded-* header."""
    hops = trusted_hops()
    raw = request.META.get(header, "")
    if not hops or not raw:
        return None
    entries = [entry.strip() for entry in raw.split(",")]
    entry = entries[max(0, len(entries) - hops)]
    return entry or None


def adopt_forwarded(request):
    """Make the request's scheme and host the ones the outermost trusted proxy reported.

    The one place that reads X-Forwarded-Proto and X-Forwarded-Host: it rewrites
    ``wsgi.url_scheme`` and ``HTTP_HOST`` in ``request.META`` (the WSGI environ), so
    Django (``is_secure``, ``get_host``, CSRF, redirects, cookie names) and the Origin
    check all see the same address. ``htrbrowser.middleware.ForwardedHeadersMiddleware``
    calls it first thing; calling it again does nothing. With no trusted hops it changes
    nothing at all.
    """
    meta = request.META
    if meta.get(_ADOPTED):
        return
    meta[_ADOPTED] = True
    scheme = (_forwarded_entry(request, "HTTP_X_FORWARDED_PROTO") or "").lower()
    if scheme in _DEFAULT_PORTS:
        meta["wsgi.url_scheme"] = scheme
    host = _forwarded_entry(request, "HTTP_X_FORWARDED_HOST")
    if host:
        meta["HTTP_HOST"] = host


_ADOPTED = "htrflow.forwarded_adopted"


def site_origin(request):
    """The site's own origin, e.g. ``https://htr.example.org`` (no default port)."""
    adopt_forwarded(request)
    scheme = "https" if request.is_secure() else "http"
    host = request.META.get("HTTP_HOST") or ""
    if not host:
        host = request.META.get("SERVER_NAME", "")
        port = str(request.META.get("SERVER_PORT", ""))
        if port and port != _DEFAULT_PORTS[scheme]:
            host = f"{host}:{port}"
    return normalise_origin(f"{scheme}://{host}")


def normalise_origin(origin):
    """Lower-case scheme and host, default port dropped; None for anything that is not an origin."""
    if not origin or origin == "null":
        return None
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.username or parts.password or parts.query or parts.fragment:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is not None and str(port) != _DEFAULT_PORTS[parts.scheme]:
        host = f"{host}:{port}"
    return f"{parts.scheme}://{host}"


def origin_is_own(request):
    """True when the request's Origin header names this site."""
    presented = normalise_origin(request.META.get("HTTP_ORIGIN", ""))
    return presented is not None and presented == site_origin(request)


def client_address(request):
    """The client's address: the right-most X-Forwarded-For entry a trusted proxy wrote, without a port."""
    vouched = _forwarded_entry(request, "HTTP_X_FORWARDED_FOR")
    hops = trusted_hops()
    entries = [e for e in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if e.strip()]
    if vouched and len(entries) >= hops:
        return _without_port(vouched)
    return request.META.get("REMOTE_ADDR", "") or "unknown"


_WITH_PORT = re.compile(r"\[(?P<v6>[^\]]+)\](?::\d{1,5})?|(?P<v4>[0-9.]+):\d{1,5}")


def _without_port(entry):
    """``198.51.100.50:1234``, ``[2001:db8::5]:443`` and ``[2001:db8::5]`` as the bare address.

    Some proxies write the client's port, or IPv6 brackets, into X-Forwarded-For; the same client
    must count as one whatever its port. Anything else is kept as written.
    """
    match = _WITH_PORT.fullmatch(entry)
    if match is None:
        return entry
    return match.group("v6") or match.group("v4")
