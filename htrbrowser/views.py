"""Site-wide views: the error pages (the probes are in htrbrowser/probes.py)."""

from django.shortcuts import render

from results import login


def not_found(request, exception=None):
    return render(request, "errors/404.html", status=404)


def server_error(request):
    return render(request, "errors/500.html", status=500)


def csrf_failure(request, reason=""):
    """A form without a valid CSRF token (another site's, or a page left open too long): 403 in our words.

    Django's ``reason`` is for developers and is not shown.
    """
    response = render(request, "errors/403_csrf.html", {"sentence": login.SENTENCES["form"]}, status=403)
    response["Cache-Control"] = "no-store"
    return response
