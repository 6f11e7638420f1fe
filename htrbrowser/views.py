"""Site-wide views: the error pages (the probes are in htrbrowser/probes.py)."""

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from results.accounts import login


def _api_error(status: int, sentence: str) -> JsonResponse:
    """The read API's errors are JSON ``{"detail": …}`` even where no API view answers."""
    response = JsonResponse({"detail": sentence}, status=status)
    response["Cache-Control"] = "private, no-store"
    return response


def not_found(request, exception=None):
    if request.path_info.startswith("/api/"):
        return _api_error(404, _("There is no such address in the read API; see /api/v1/jobs."))
    return render(request, "errors/404.html", status=404)


def bad_request(request, exception=None):
    """A request Django refused before any view read it: a foreign Host, too many query parameters or
    form fields, a body too large. One sentence of the product's own; never the request's own text."""
    sentence = _bad_request_sentence(exception)
    if request.path_info.startswith("/api/"):
        return _api_error(400, sentence)
    response = render(request, "errors/400.html", {"sentence": sentence}, status=400)
    response["Cache-Control"] = "no-store"
    return response


def _bad_request_sentence(exception) -> str:
    if isinstance(exception, DisallowedHost):
        return _(
            "This site does not answer to the host name this request was sent to; use the site's own address."
        )
    if isinstance(exception, TooManyFieldsSent):
        return _(
            # Translators: {most} is how many query parameters or form fields a request may carry.
            "This request carries more than {most} query parameters or form fields, far more than any page of "
            "this site sends; open the page again from a link on the site."
        ).format(most=settings.DATA_UPLOAD_MAX_NUMBER_FIELDS)
    if isinstance(exception, RequestDataTooBig):
        return _("This request is larger than any this site accepts; open the page again from a link on the site.")
    return _("This request was not understood; open the page again from a link on the site.")


def server_error(request):
    if request.path_info.startswith("/api/"):
        return _api_error(500, _("The read API failed to answer; the server log says why."))
    return render(request, "errors/500.html", status=500)


def csrf_failure(request, reason=""):
    """A form without a valid CSRF token (another site's, or a page left open too long): 403 in our words.

    Django's ``reason`` is for developers and is not shown.
    """
    response = render(request, "errors/403_csrf.html", {"sentence": login.SENTENCES["form"]}, status=403)
    response["Cache-Control"] = "no-store"
    return response
