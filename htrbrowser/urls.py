from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

# /healthz and /readyz are answered by htrbrowser.probes.ProbeMiddleware, whatever the Host.

urlpatterns = [
    path("", include("results.urls")),
    path("", include("results.viewer_urls")),
    path("", include("campaigns.urls")),
    # The language switch in every page's header posts to Django's set_language here (/i18n/setlang/).
    path("i18n/", include("django.conf.urls.i18n")),
    # What the scripts say, in the reader's language: gettext() in static/js once this is loaded.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
]

handler400 = "htrbrowser.views.bad_request"
handler404 = "htrbrowser.views.not_found"
handler500 = "htrbrowser.views.server_error"
