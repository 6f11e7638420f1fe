"""What both viewers share: reading the results address a request names, with the person's own store
session, and the page that says why a file cannot be shown.

Every viewer view is wrapped in ``reads``: it is called only for a logged-in person and an address under
the results base (``results.store.addresses``), while that person has a viewer slot (``results.viewers.slots``:
past their number at once, 429 and a sentence), and an ended session anywhere inside it sends the person to
log in and back.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from urllib.parse import quote, urlencode, urlsplit

from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from results.accounts.middleware import login_url
from results.store.addresses import AddressRefused, ResultsBase, key_for_address, results_base
from results.store.budget import person_of
from results.store.reader import Outcome, StoreError, reader_for
from results.viewers import slots

LOG_SENTENCES = {
    Outcome.FORBIDDEN: gettext_lazy(
        "Your store account may not read this volume's results, so its run log cannot be shown."
    ),
    Outcome.NOT_FOUND: gettext_lazy(
        "There is no run log at this address yet. The volume may not have started, or its log was "
        "written under another address."
    ),
    Outcome.UNREACHABLE: gettext_lazy(
        "The results store could not be reached, so the log cannot be shown. Try again in a minute."
    ),
    Outcome.TIMEOUT: gettext_lazy(
        "The results store did not answer in time, so the log cannot be shown. Try again in a minute."
    ),
}


def operator_fix(error: StoreError, key: str) -> str:
    """What an operator can check for a refused read: the account may read other volumes, not this one."""
    if error.outcome is not Outcome.FORBIDDEN:
        return ""
    return _(
        # Translators: words for operators after "For operators:"; {key} is a file's key in the store.
        "the store's policy for this account denies reading {key}. If this person should see this "
        "volume, let the account read its prefix."
    ).format(key=key)


class LoginAgain(Exception):
    """The store no longer accepts the session: send the person to log in and come back."""


def sentence_for(error: StoreError, sentences: dict) -> str:
    """The sentence for a failed read; an ended session instead leaves the view for the login page."""
    if error.outcome in (Outcome.SESSION_ENDED, Outcome.NO_SESSION):
        raise LoginAgain()
    return str(sentences.get(error.outcome, error.sentence))


def _login_response(request):
    """To the login page and back: for a poll, back to the page it polls for, not the fragment."""
    if getattr(request, "htmx", False):
        response = HttpResponse(status=401)
        page = urlsplit(request.htmx.current_url or "")
        back = (page.path or "/") + (f"?{page.query}" if page.query else "")
        response["HX-Redirect"] = "/login?next=" + quote(back if _is_local_path(back) else "/", safe="/")
        return response
    return HttpResponseRedirect(login_url(request))


def _is_local_path(path: str) -> bool:
    return path.startswith("/") and not path.startswith("//") and "\\" not in path


def problem_page(request, title: str, sentence: str, fix: str = "", status: int = 400, address: str = "", **extra):
    context = {"title": title, "sentence": sentence, "fix": fix, "address": address, **extra}
    return render(request, "viewers/problem.html", context, status=status)


@dataclass(frozen=True)
class Target:
    """The results file a viewer request names: read with ``reader`` at ``key``; ``address`` as given."""

    reader: object
    base: ResultsBase
    key: str
    address: str


def reads(param: str, title: str):
    """Decorate a viewer that reads the results address in ``request.GET[param]``.

    The view is called as ``view(request, target)`` only for a logged-in person and an address under
    the results base, and only while the person holds a viewer slot, given back when the view returns
    or raises; a refused address gets its sentence, a person with all their slots taken a 429, and an
    ended session anywhere inside the view (``LoginAgain``) sends the person to log in and back.
    """

    def decorate(view):
        @require_GET
        @functools.wraps(view)
        def wrapped(request):
            address = request.GET.get(param, "")
            reader = reader_for(request)
            if reader is None:
                return _login_response(request)
            base = results_base(request)
            try:
                key = key_for_address(address, request, base)
            except AddressRefused as refused:
                return problem_page(request, title, refused.sentence, refused.fix, 400, address)
            slot = slots.take(person_of(request))
            if slot is None:
                return _too_many_views(request, title, address)
            try:
                return view(request, Target(reader, base, key, address))
            except LoginAgain:
                return _login_response(request)
            finally:
                slots.give_back(slot)

        return wrapped

    return decorate


def _too_many_views(request, title: str, address: str):
    """429 for a person already at their number of viewer requests: JSON for find, a page otherwise (a poll
    that gets it backs off and asks again, static/js/campaigns.js)."""
    sentence = slots.refusal_sentence()
    if "json" in request.META.get("HTTP_ACCEPT", ""):
        response = JsonResponse({"detail": sentence}, status=429)
    else:
        response = problem_page(request, title, sentence, status=429, address=address)
    response["Retry-After"] = str(slots.RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "private, no-store"
    return response


def viewer_link(path: str, **params) -> str:
    return path + "?" + urlencode({k: v for k, v in params.items() if v not in (None, "", False)})


def positive_int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 10**9 else None


def finite_number(value) -> float | None:
    """A JSON number as a float; None for anything else (booleans, infinities, text)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)
