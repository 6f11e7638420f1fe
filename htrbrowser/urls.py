from django.urls import include, path

# /healthz and /readyz are answered by htrbrowser.probes.ProbeMiddleware, whatever the Host.

urlpatterns = [
    path("", include("results.urls")),
    path("", include("results.viewer_urls")),
    path("", include("campaigns.urls")),
]

handler400 = "htrbrowser.views.bad_request"
handler404 = "htrbrowser.views.not_found"
handler500 = "htrbrowser.views.server_error"
