from django.urls import include, path

from htrbrowser import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("", include("results.urls")),
    path("", include("results.viewer_urls")),
    path("", include("campaigns.urls")),
]

handler404 = "htrbrowser.views.not_found"
handler500 = "htrbrowser.views.server_error"
