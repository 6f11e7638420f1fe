"""Site-wide views: the error pages (the probes are in htrbrowser/probes.py)."""

from django.http import JsonResponse
from django.shortcuts import render

from results.accounts import login


def _api_error(status: int, sentence: str) -> JsonResponse:
    """The read API's errors are JSON ``{"detail": …}`` even where no API view answers."""
    response = JsonResponse({"detail": sentence}, status=status)
    response["Cache-Control"] = "private, no-store"
    return response


def not_found(request, exception=None):
    if request.path_info.startswith("/api/"):
        return _api_error(404, "There is no such address in the read API; see /api/v1/jobs.")
    return render(request, "errors/404.html", status=404)


def server_error(request):
    if request.path_info.startswith("/api/"):
        return _api_error(500, "The read API failed to answer; the server log says why.")
    return render(request, "errors/500.html", status=500)


def csrf_failure(request, reason=""):
    """A form without a valid CSRF token (another site's, or a page left open too long): 403 in our words.

    Django's ``reason`` is for developers and is not shown.
    """
    response = render(request, "errors/403_csrf.html", {"sentence": login.SENTENCES["form"]}, status=403)
    response["Cache-Control"] = "no-store"
    return response
