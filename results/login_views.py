"""Login, logout and the session: the JSON endpoints scripts use and the login page people use."""

import re
from urllib.parse import urlsplit

from django.core.exceptions import TooManyFieldsSent
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.encoding import iri_to_uri
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from results.accounts import login, session
from results.store.outcomes import Outcome, StoreError

# --- JSON endpoints -------------------------------------------------------------------------


def _json_refusal(answer):
    response = JsonResponse({"error": answer.sentence, "reason": answer.reason}, status=answer.status)
    if answer.retry_after:
        response["Retry-After"] = str(answer.retry_after)
    return response


@csrf_exempt
@require_http_methods(["POST"])
def api_login(request):
    """POST /results/_login with JSON {"username", "password"}: 204 and a session cookie."""
    answer = login.origin_refusal(request)
    if answer is None:
        parsed = login.parse_json_body(request)
        answer = parsed if isinstance(parsed, login.LoginAnswer) else login.attempt(request, *parsed)
    if not answer.ok:
        return _json_refusal(answer)
    response = HttpResponse(status=204)
    session.start(response, request, answer.user, answer.access_key, answer.secret_key, answer.reads_namespace)
    login.remember_device(response, request, answer)
    return response


@csrf_exempt
@require_http_methods(["POST"])
def api_logout(request):
    """POST /results/_logout: 204 and the cookie cleared (Origin-checked)."""
    refusal = login.origin_refusal(request)
    if refusal:
        return _json_refusal(refusal)
    response = HttpResponse(status=204)
    session.end(response, request)
    return response


@require_http_methods(["GET", "HEAD"])
def api_session(request):
    """GET /results/_session: {"user": ...} or 401."""
    current = getattr(request, "results_session", None)
    if current is None:
        response = JsonResponse({"error": StoreError(Outcome.NO_SESSION).sentence}, status=401)
    else:
        response = JsonResponse({"user": current.user})
    response["Cache-Control"] = "private, no-store"
    return response


# --- the login page ---------------------------------------------------------------------------


def safe_next(value):
    """``value`` as a URL-encoded path on this site (never //x, /\\x, a scheme or /login itself), else "/".

    Characters beyond ASCII are percent-encoded as UTF-8 (``iri_to_uri``): the answer goes into a
    Location or HX-Redirect header, and a header cannot carry them as they are (U+2028 broke
    gunicorn's answer; other non-Latin-1 text became a MIME-encoded word no browser reads as a URL).
    """
    if not isinstance(value, str) or not value.startswith("/") or len(value) > 2000:
        return "/"
    if value.startswith("//") or value.startswith("/\\") or re.search(r"[\x00-\x20\x7f\\]", value):
        return "/"
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return "/"
    if parts.path.rstrip("/") in ("/login", "/logout") or parts.path.startswith("/results/_"):
        return "/"
    return iri_to_uri(value)


def _render_login(request, next_url, answer=None, username=""):
    status = 200 if answer is None else answer.status
    # After logging out, say so: the person sees the login form and knows why.
    logged_out = answer is None and request.GET.get("logged_out") == "1"
    context = {"next": next_url, "answer": answer, "username": username, "logged_out": logged_out}
    if request.htmx:
        # htmx swaps only successful answers; the status codes stay on the JSON endpoint for scripts.
        response = render(request, "results/login_card.html", context)
    else:
        response = render(request, "results/login.html", context, status=status)
    if answer is not None and answer.retry_after:
        response["Retry-After"] = str(answer.retry_after)
    response["Cache-Control"] = "private, no-store"
    patch_vary_headers(response, ["HX-Request"])
    return response


@csrf_exempt
@ensure_csrf_cookie
@require_http_methods(["GET", "HEAD", "POST"])
def login_page(request):
    """The login form: a plain POST without JavaScript, the same POST through htmx with it."""
    if request.method != "POST":
        return _render_login(request, safe_next(request.GET.get("next")))
    if login.declared_length(request) > login.MAX_BODY_BYTES:
        # Refused before the body is parsed at all, and counted by the login limits.
        return _render_login(request, safe_next(request.GET.get("next")), login.refused_unread(request, "too_large"))
    try:
        request.POST  # noqa: B018 - parsed here, where a form of too many fields can be answered as a login
    except TooManyFieldsSent:
        refusal = login.refused_unread(request, "too_many_fields")
        return _render_login(request, safe_next(request.GET.get("next")), refusal)
    next_url = safe_next(request.POST.get("next"))
    answer = _form_login(request)
    if not answer.ok:
        username = request.POST.get("username", "") if answer.reason not in ("too_large", "malformed") else ""
        return _render_login(request, next_url, answer, username=username)
    if request.htmx:
        response = HttpResponse(status=200, headers={"HX-Redirect": next_url})
    else:
        response = HttpResponseRedirect(next_url, status=303)
    session.start(response, request, answer.user, answer.access_key, answer.secret_key, answer.reads_namespace)
    login.remember_device(response, request, answer)
    return response


def _form_login(request):
    if request.META.get("HTTP_ORIGIN"):
        refusal = login.origin_refusal(request)
        if refusal:
            return refusal
    if CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {}) is not None:
        return login.refused("origin", login.SENTENCES["form"])
    shape = login.check_shape(request.POST.get("username"), request.POST.get("password"))
    if isinstance(shape, login.LoginAnswer):
        return shape
    return login.attempt(request, *shape)


@require_http_methods(["GET", "HEAD", "POST"])
def logout_page(request):
    """POST /logout (the header's button, CSRF-protected): end the session and go to the login page."""
    if request.method == "POST":
        response = HttpResponseRedirect("/login?logged_out=1", status=303)
        session.end(response, request)
        return response
    current = getattr(request, "results_session", None)
    response = render(request, "results/logout.html", {"results_user": current.user if current else ""})
    response["Cache-Control"] = "private, no-store"
    return response


# --- files ------------------------------------------------------------------------------------
