"""The address rule of the log and ALTO viewers.

The viewers are given full URLs (``/log?log=<url>``), but they read only files of the results
store, in-process, with the person's own session. A URL becomes a store key only when it lies
under the results base: the same scheme, host and port (default ports normalised), and a path
that continues the base path on a segment boundary after percent-decoding and resolving ``.``
and ``..``. Anything else is refused with a sentence that says what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from results.store import keys

DEFAULT_PORTS = {"http": 80, "https": 443}
OPERATOR_FIX = gettext_lazy(
    "If the link came from a run, the run was published under a different base than this site reads: "
    "the chart's resultsUrl and converter.yaml's results_url must be equal."
)
# Characters that have no business in a results address, raw or percent-encoded.
_FORBIDDEN_RAW = re.compile(r"[\x00-\x20\x7f\\]")
_ENCODED_SEPARATOR = re.compile(r"%(2f|5c)", re.IGNORECASE)
_ENCODED_CONTROL = re.compile(r"%(0[0-9a-f]|1[0-9a-f]|7f)", re.IGNORECASE)


class AddressRefused(ValueError):
    """An address the viewers will not read. ``sentence`` is for people, ``fix`` for operators."""

    def __init__(self, sentence: str, fix: str = OPERATOR_FIX):
        super().__init__(sentence)
        self.sentence = str(sentence)
        self.fix = str(fix)


@dataclass(frozen=True)
class ResultsBase:
    """The results base, parsed once: where results addresses must point."""

    scheme: str
    host: str
    port: int
    segments: tuple[str, ...]
    url: str

    def url_for_key(self, key: str) -> str:
        """The browser-facing URL of a key (volume ids and other names percent-encoded)."""
        return self.url + "/" + "/".join(quote(part, safe="") for part in key.split("/"))


SITE_OWN_RESULTS = ResultsBase(scheme="http", host="this-site.invalid", port=80, segments=("results",), url="/results")


def results_base(request=None) -> ResultsBase:
    """The configured base, or this site's own ``/results`` when the setting is empty."""
    configured = getattr(settings, "HTRFLOW_RESULTS_URL", "") or ""
    if not configured:
        origin = request.build_absolute_uri("/") if request is not None else "http://localhost/"
        configured = origin.rstrip("/") + "/results"
    parts = urlsplit(configured)
    scheme = parts.scheme.lower()
    segments = tuple(_normalised_segments(parts.path))
    return ResultsBase(
        scheme=scheme,
        host=(parts.hostname or "").lower(),
        port=parts.port if parts.port is not None else DEFAULT_PORTS.get(scheme, 0),
        segments=segments,
        url=f"{parts.scheme}://{parts.netloc}" + "".join("/" + quote(s, safe="") for s in segments),
    )


def key_for_address(address: str, request=None, base: ResultsBase | None = None) -> str:
    """The store key an address names, or ``AddressRefused`` with a sentence saying why not.

    A path-absolute address (``/results/...``) names this site's own results proxy.
    """
    base = base or results_base(request)
    address = (address or "").strip()
    if not address:
        raise AddressRefused(_("No address was given: the link should carry the address of a results file."), fix="")
    if len(address) > 4096:
        raise AddressRefused(_("The address is too long to be a results file address."))
    if _FORBIDDEN_RAW.search(address):
        raise AddressRefused(
            _("The address contains a backslash, a space or a control character, which results addresses never do.")
        )
    if address.startswith("/") and not address.startswith("//"):
        # A site-relative address names this site's own results proxy, whatever the configured base.
        base = SITE_OWN_RESULTS
        address = f"http://{SITE_OWN_RESULTS.host}{address}"
    parts = _split(address)
    _check_origin(parts, base)
    if parts.query or parts.fragment or "?" in address or "#" in address:
        raise AddressRefused(_("The address carries a query or a fragment (after ? or #); results addresses do not."))
    if _ENCODED_SEPARATOR.search(parts.path) or _ENCODED_CONTROL.search(parts.path):
        raise AddressRefused(
            _(
                "The address hides a slash, a backslash or a control character in percent-encoding (such as %2F), "
                "which could point somewhere other than it seems; it is refused."
            )
        )
    segments = _normalised_segments(parts.path)
    prefix = list(base.segments)
    if segments[: len(prefix)] != prefix or len(segments) <= len(prefix):
        raise AddressRefused(
            # Translators: {base} is an address, such as https://example.org/results/.
            _("The address is not under the results base {base}, so this site will not read it.").format(
                base=base.url + "/"
            )
        )
    key = "/".join(segments[len(prefix) :])
    _check_key(key)
    return key


def _split(address: str):
    try:
        parts = urlsplit(address)
        parts.port  # noqa: B018 - a malformed port raises here
    except ValueError:
        raise AddressRefused(_("The address is not a well-formed URL.")) from None
    return parts


def _check_origin(parts, base: ResultsBase) -> None:
    scheme = parts.scheme.lower()
    shown = {"base": base.url + "/", "scheme": scheme, "base_scheme": base.scheme}
    if scheme not in DEFAULT_PORTS:
        if not scheme:
            # Translators: {base} is an address, such as https://example.org/results/.
            raise AddressRefused(_("The address uses no scheme; results are read only from {base}.").format(**shown))
        # Translators: {scheme} is a URL scheme (ftp, file); {base} an address, such as https://example.org/results/.
        raise AddressRefused(_("The address uses {scheme}; results are read only from {base}.").format(**shown))
    if "@" in parts.netloc:
        raise AddressRefused(
            _("The address carries a user name or password before an @, which results addresses never do.")
        )
    host = (parts.hostname or "").lower()
    port = parts.port if parts.port is not None else DEFAULT_PORTS[scheme]
    if host != base.host:
        if not host:
            # Translators: {base} is an address, such as https://example.org/results/.
            raise AddressRefused(_("The address points at no host, not at the results base {base}.").format(**shown))
        raise AddressRefused(
            # Translators: {host} is a host name; {base} an address, such as https://example.org/results/.
            _("The address points at {host}, not at the results base {base}.").format(host=host, **shown)
        )
    if scheme != base.scheme:
        raise AddressRefused(
            # Translators: {scheme} and {base_scheme} are http or https; {base} an address.
            _("The address uses {scheme}, but the results base {base} uses {base_scheme}.").format(**shown)
        )
    if port != base.port:
        raise AddressRefused(
            # Translators: {port} is a port number; {base} an address, such as https://example.org/results/.
            _("The address points at port {port}, not at the results base {base}.").format(port=port, **shown)
        )


def _normalised_segments(path: str) -> list[str]:
    """Percent-decode each segment once and resolve ``.`` and ``..`` (which never climb above the root)."""
    out: list[str] = []
    raw = path.split("/")
    trailing_slash = len(raw) > 1 and raw[-1] == ""
    for index, piece in enumerate(raw):
        try:
            segment = unquote(piece, errors="strict") if "%" in piece else piece
        except UnicodeDecodeError:
            raise AddressRefused(_("The address has percent-encoding that is not valid UTF-8.")) from None
        if segment in ("", "."):
            if segment == "" and 0 < index < len(raw) - 1:
                raise AddressRefused(_("The address has an empty name between two slashes (//)."))
            continue
        if segment == "..":
            if out:
                out.pop()
            continue
        out.append(segment)
    if trailing_slash and out:
        out.append("")
    return out


def _check_key(key: str) -> None:
    if key.endswith("/") or not key:
        raise AddressRefused(_("The address names a folder, not a file."), fix="")
    if not keys.is_valid_key(key):
        raise AddressRefused(
            _("The address is under the results base but does not name a file in a namespace this site serves."),
        )
