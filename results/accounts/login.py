"""One login attempt, shared by the JSON endpoint and the no-JavaScript form.

Order matters: a refused Origin, a bad shape or a rate limit never reaches the
store; the store is asked once otherwise (a ranged GET of ``<ns>/``), and with
``HTRFLOW_CARDS_FOR=namespace-readers`` once more (a listing of ``<ns>/``) when that
GET was refused, to learn whether the account may read the namespace at all.
"""

import base64
import hashlib
import logging
import re
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_lazy

from core import bounded_json
from results.accounts import device, forwarded, ratelimit, session
from results.accounts.login_log import login_ended
from results.store import s3 as store
from results.store.outcomes import TLS, Outcome, StoreError

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 16 * 1024
# A login body is one flat object; anything nested deeper is refused before it is parsed.
MAX_BODY_DEPTH = 4
MAX_USERNAME = 256
MAX_PASSWORD = 1024

# What each refusal says; evaluated when a refusal is made, in the reader's language.
SENTENCES = {
    "origin": gettext_lazy(
        "This login was refused because the page was not opened at the site's own address. "
        "An operator must have the front proxy pass on X-Forwarded-Proto and X-Forwarded-Host "
        "and set HTRFLOW_TRUSTED_HOPS to the number of proxies."
    ),
    "too_large": gettext_lazy(
        "That login is far too long to be real (over 16 KiB); check what was pasted into the fields."
    ),
    "too_deep": gettext_lazy(
        "The login was not understood: it must be one JSON object with a user name and a password, "
        "not data nested many levels deep."
    ),
    "too_many_fields": gettext_lazy(
        "That login form sent far more fields than the form has; reload the page and try again."
    ),
    "malformed": gettext_lazy(
        "The login was not understood: it needs a user name of 1 to 256 characters "
        "and a password of 1 to 1024 characters."
    ),
    "wrong": gettext_lazy("Wrong user name or password."),
    "unreachable": gettext_lazy(
        "The results store could not be reached; try again later, or ask an operator to check S3_ENDPOINT."
    ),
    "no_reason": gettext_lazy(
        "The results store refused without giving a reason; the bucket or namespace is probably set wrongly "
        "(S3_BUCKET, HTRFLOW_RESULTS_NAMESPACE)."
    ),
    "timeout": gettext_lazy("The results store did not answer in time; try again shortly."),
    "not_configured": gettext_lazy(
        "The results service cannot hold sessions yet (its session key is missing); tell an operator."
    ),
    # A form without a valid CSRF token: the login form here, any other form through CSRF_FAILURE_VIEW.
    "form": gettext_lazy("This form came from another site or an old page; reload the page and try again."),
}

_REASON_OF_OUTCOME = {
    Outcome.SESSION_ENDED: "wrong",
    Outcome.NO_REASON: "no_reason",
    Outcome.UNREACHABLE: "unreachable",
    Outcome.TIMEOUT: "timeout",
}
_STATUS = {
    "origin": 403,
    "too_large": 413,
    "too_deep": 422,
    "too_many_fields": 400,
    "malformed": 422,
    "rate_limited": 429,
    "wrong": 401,
    "unreachable": 502,
    "no_reason": 502,
    "timeout": 504,
    "not_configured": 503,
    "limits_unavailable": 503,
}


@dataclass(frozen=True)
class LoginAnswer:
    """What a login attempt came to. ``reason`` is None on success."""

    reason: str | None = None
    sentence: str = ""
    retry_after: int | None = None
    user: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    reads_namespace: bool | None = None

    @property
    def ok(self):
        return self.reason is None

    @property
    def status(self):
        return 204 if self.ok else _STATUS[self.reason]


def refused(reason, sentence=None, retry_after=None):
    return LoginAnswer(reason=reason, sentence=str(sentence or SENTENCES[reason]), retry_after=retry_after)


def parse_json_body(request):
    """(username, password) from a JSON body, or a refused LoginAnswer.

    A body too large or nested too deep to read is refused before it is parsed, and counted by the
    login limits (``refused_unread``)."""
    if declared_length(request) > MAX_BODY_BYTES:
        return refused_unread(request, "too_large")
    body = read_capped_body(request, MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        return refused_unread(request, "too_large")
    try:
        data = bounded_json.loads(body.decode("utf-8"), max_bytes=MAX_BODY_BYTES, max_depth=MAX_BODY_DEPTH)
    except bounded_json.JsonTooDeep:
        return refused_unread(request, "too_deep")
    except ValueError:  # not UTF-8 (UnicodeDecodeError), or not JSON
        return refused("malformed")
    if not isinstance(data, dict) or set(data) != {"username", "password"}:
        return refused("malformed")
    return check_shape(data["username"], data["password"])


def refused_unread(request, reason):
    """A login refused before it could be read (``too_large``, ``too_deep``, ``too_many_fields``), counted
    as a failed login from its address: otherwise such bodies could be sent without end, past every
    limit. At the address's limit the answer is the limit's instead (429).

    Only a request that carries the site's own Origin is counted (the JSON endpoint refuses any other
    before this; the form may come without one): another site's page could otherwise have its visitors'
    browsers send such forms and fill their addresses' counts, a lock-out no wrong password allows."""
    if not forwarded.origin_is_own(request):
        return refused(reason)
    address = forwarded.client_address(request)
    try:
        refusal = ratelimit.count_unread(address)
    except ratelimit.LimitsUnavailable:  # logged there; the body is refused all the same
        refusal = None
    if refusal:
        login_ended(address, "", "rate_limited", limit=refusal.scope)
        return refused("rate_limited", refusal.sentence, refusal.retry_after)
    login_ended(address, "", reason)
    return refused(reason)


def read_capped_body(request, limit):
    """At most ``limit`` bytes of the request body, whether or not a Content-Length was sent.

    Django reads a body without Content-Length as empty. A chunked body (Transfer-Encoding:
    chunked) has none, and the server (gunicorn) hands it on de-chunked in ``wsgi.input``,
    so it is read from there, never more than ``limit`` bytes. Only a server that says it
    ends the stream (``wsgi.input_terminated``) is read that way: Django's development server
    passes the raw chunks on and would block, so there the body counts as empty.
    """
    if request.META.get("CONTENT_LENGTH") or "chunked" not in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        return request.read(limit)
    if not request.META.get("wsgi.input_terminated"):
        return b""
    stream = request.META.get("wsgi.input")
    parts, size = [], 0
    while stream is not None and size < limit:
        part = stream.read(limit - size)
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def declared_length(request):
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def check_shape(username, password):
    """(username, password) when both are plain text of allowed length, else a refused LoginAnswer."""
    if not isinstance(username, str) or not isinstance(password, str):
        return refused("malformed")
    if not (1 <= len(username) <= MAX_USERNAME and 1 <= len(password) <= MAX_PASSWORD):
        return refused("malformed")
    if not (_is_plain_text(username) and _is_plain_text(password)):
        return refused("malformed")
    return username, password


_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _is_plain_text(text):
    """True when ``text`` encodes as UTF-8 (no lone surrogates) and holds no control characters.

    Checked before the rate limits and the store: a lone surrogate cannot be encoded for
    signing or hashing at all, and a line break or other control character in a user name
    or password is never what a person meant (the store would only answer it with a puzzle).
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return _CONTROL_CHARACTERS.search(text) is None


def derive_keys(username, password):
    """Store keys from what a person typed, per HTRFLOW_KEY_DERIVATION."""
    if settings.HTRFLOW_KEY_DERIVATION == "hcp":
        access_key = base64.b64encode(username.encode("utf-8")).decode("ascii")
        secret_key = hashlib.md5(password.encode("utf-8")).hexdigest()  # noqa: S324 - HCP's own scheme
        return access_key, secret_key
    return username, password


def attempt(request, username, password):
    """Prove the account (rate limits first). The Origin and shape were checked by the caller.

    The attempt is reserved against the failed-login limits before the store is asked, so
    parallel attempts cannot get past a limit together (see ``results.accounts.ratelimit``). A browser
    holding a valid device cookie for this name is counted per device (``results.accounts.device``); the
    caller gives the browser that cookie on success (``remember_device``).
    """
    address = forwarded.client_address(request)
    try:
        refusal, reservation = ratelimit.reserve(address, username, device=device.device_for(request, username))
    except ratelimit.LimitsUnavailable as unavailable:
        return refused("limits_unavailable", str(unavailable))
    if refusal:
        login_ended(address, username, "rate_limited", limit=refusal.scope)
        return refused("rate_limited", refusal.sentence, refusal.retry_after)
    try:
        answer = _prove(username, password)
    except BaseException:
        ratelimit.release(reservation)
        raise
    login_ended(address, username, answer.reason or "accepted")
    if answer.ok:
        ratelimit.succeeded(reservation)
    elif answer.reason != "wrong":
        ratelimit.release(reservation)
    return answer


def remember_device(response, request, answer):
    """After a successful attempt: the device cookie that exempts this browser from strangers' lock-outs."""
    device.remember(response, request, answer.user)


def _prove(username, password):
    """Ask the store once; a LoginAnswer. A wrong account keeps its rate-limit reservation."""
    try:
        session.load_key()
    except session.SessionKeyError as error:
        logger.error("%s", error)
        return refused("not_configured")
    access_key, secret_key = derive_keys(username, password)
    try:
        reads_namespace = store.prove_account(
            access_key, secret_key, ask_listing=settings.HTRFLOW_CARDS_FOR == "namespace-readers"
        )
    except StoreError as error:
        reason = _REASON_OF_OUTCOME.get(error.outcome, "no_reason")
        if reason == "wrong":
            return refused("wrong")
        logger.warning("Login could not be checked: %s", error.outcome.value)
        sentence = error.sentence if reason == "unreachable" and error.cause == TLS else None
        return refused(reason, sentence)
    return LoginAnswer(user=username, access_key=access_key, secret_key=secret_key, reads_namespace=reads_namespace)


def origin_refusal(request):
    """A refused LoginAnswer when the Origin is not the site's own, else None."""
    if forwarded.origin_is_own(request):
        return None
    logger.info("Login or logout refused: Origin is not the site's own address.")
    return refused("origin")
