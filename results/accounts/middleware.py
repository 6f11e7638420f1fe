"""The results session on every request, and "every page needs a session".

Sets ``request.results_session`` (a ``ResultsSession`` with ``.user``, or None).
Without a session, pages redirect to ``/login?next=<path>``, HTMX requests get an
``HX-Redirect`` to it (so no login page is swapped into a card), and the read API
under ``/api/`` answers 401 JSON. The login and logout pages, the health check,
static files, the scripts' words (/jsi18n/) and the results routes (which answer their own 401) are exempt.
With a session, every answer that sets no caching policy of its own gets
``Cache-Control: private, no-store``.
"""

from urllib.parse import quote

from django.http import HttpResponse, HttpResponseRedirect, JsonResponse

from results.accounts import session
from results.store.outcomes import Outcome, StoreError

# /feed/token.atom: a feed reader with a feed token and no session (results/accounts/feeds.py).
# /jsi18n/: what the scripts say (Django's JavaScript catalogue), which the login page's script needs too.
EXEMPT_PATHS = {"/login", "/logout", "/healthz", "/favicon.ico", "/feed/token.atom", "/jsi18n/"}
EXEMPT_PREFIXES = ("/static/", "/results/")


def is_exempt(path):
    return path in EXEMPT_PATHS or path.startswith(EXEMPT_PREFIXES)


def login_url(request):
    return "/login?next=" + quote(request.get_full_path(), safe="/")


class ResultsSessionMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.results_session = session.session_from_request(request)
        request.results_session_ended = False
        if request.results_session is None and not is_exempt(request.path_info):
            return login_refusal(request)
        response = self.get_response(request)
        if request.results_session is not None and not response.has_header("Cache-Control"):
            # Pages shown to a logged-in person are private: not in shared caches, and not left in the
            # browser's cache or back-forward cache after logout. Answers with a policy of their own
            # (raw files revalidate with ETags) keep it.
            response["Cache-Control"] = "private, no-store"
        if request.results_session_ended and not response.has_header("HX-Redirect"):
            # The store stopped accepting the account during this request: the cookie is useless now.
            session.end(response, request)
        return response


def login_refusal(request):
    """Send a person without a usable session to log in: a redirect, an htmx redirect, or 401 JSON from
    the read API; a cookie that came with the request is cleared."""
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": StoreError(Outcome.NO_SESSION).sentence}, status=401)
    elif getattr(request, "htmx", False):
        response = HttpResponse(status=401)
        response["HX-Redirect"] = login_url(request)
    else:
        response = HttpResponseRedirect(login_url(request))
    response["Cache-Control"] = "private, no-store"
    if session.cookie_name(request) in request.COOKIES:
        session.end(response, request)
    return response
