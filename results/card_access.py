"""Who may see the campaign cards (``HTRFLOW_CARDS_FOR``), and what the others are told.

- ``store-accounts``: anyone logged in, i.e. any account the results store accepts.
- ``namespace-readers`` (the default): only an account that proved at login that it may read
  under the results namespace (``<HTRFLOW_RESULTS_NAMESPACE>/``: a GET there that was not
  refused, or a listing there). On a store shared by many tenants, "the store accepts it"
  is true of every tenant; reading the namespace is what makes someone one of ours.

Campaign views wear ``@cards_for_readers``. A person who may not see cards gets a sentence,
never a campaign name: a page of its own (403), an htmx poll a 403 that reloads the page into
that sentence, and the read API 403 JSON ``{"detail": sentence}``.
"""

from functools import wraps

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render


def may_see_cards(request):
    current = getattr(request, "results_session", None)
    if current is None:
        return False
    if settings.HTRFLOW_CARDS_FOR == "store-accounts":
        return True
    return current.reads_namespace is True


def refusal_sentence(request):
    namespace = settings.HTRFLOW_RESULTS_NAMESPACE
    current = getattr(request, "results_session", None)
    if current is not None and current.reads_namespace is None:
        return (
            "This site now shows campaigns only to accounts that may read its results, and your login "
            "was not checked for that: log out and log in again."
        )
    return (
        f"Your store account may not read this site's results (under {namespace}/), so this site shows "
        f"you no campaigns. Ask an operator to let your account read {namespace}/, or log in with another account."
    )


def cards_for_readers(view):
    """Run ``view`` only for a person who may see campaign cards; everyone else gets the sentence."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if may_see_cards(request):
            return view(request, *args, **kwargs)
        return _refused(request)

    return wrapper


def _refused(request):
    sentence = refusal_sentence(request)
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": sentence, "reason": "not_a_namespace_reader"}, status=403)
    elif getattr(request, "htmx", False):
        # A card or list poll: not swapped (4xx); the page reloads and shows the sentence in full.
        response = HttpResponse(sentence, status=403, content_type="text/plain; charset=utf-8")
        response["HX-Refresh"] = "true"
    else:
        response = render(request, "results/cards_refused.html", {"sentence": sentence}, status=403)
    response["Cache-Control"] = "private, no-store"
    return response
