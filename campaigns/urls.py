from django.urls import path

from campaigns.web import api, feed_views, list_views, openapi, rerun_views, views, volume_downloads, volume_views
from campaigns.web.gate import gated

# Every view here shows campaign data, so every one is behind the gate (campaigns/web/gate.py).
urlpatterns = gated(
    [
        path("", list_views.campaign_list, name="campaign_list"),
        path("changes", list_views.campaign_changes, name="campaign_changes"),
        path("campaigns/<str:namespace>/<str:name>", views.campaign_detail, name="campaign_detail"),
        path("campaigns/<str:namespace>/<str:name>/card", views.campaign_card, name="campaign_card"),
        path(
            "campaigns/<str:namespace>/<str:name>/volumes/<str:volume>",
            volume_views.volume_page,
            name="campaign_volume",
        ),
        path(
            "campaigns/<str:namespace>/<str:name>/rerun.yaml", rerun_views.rerun_file, name="campaign_rerun_file"
        ),
        path(
            "campaigns/<str:namespace>/<str:name>/volumes.csv",
            volume_downloads.campaign_volumes_csv,
            name="campaign_volumes_csv",
        ),
        path(
            "campaigns/<str:namespace>/<str:campaign>/volumes/<str:volume>/text",
            volume_downloads.volume_text,
            name="volume_text",
        ),
        path(
            "campaigns/<str:namespace>/<str:campaign>/volumes/<str:volume>/alto.zip",
            volume_downloads.volume_alto_zip,
            name="volume_alto_zip",
        ),
        path("api/v1/jobs", api.jobs, name="api_jobs"),
        path(
            "api/v1/jobs/<str:namespace>/<str:name>/volumes",
            volume_downloads.api_job_volumes,
            name="api_job_volumes",
        ),
        path("api/v1/jobs/<str:namespace>/<str:name>", api.job_detail, name="api_job_detail"),
        path("feed", feed_views.feed_page, name="campaign_feed_page"),
        path("feed.atom", feed_views.session_feed, name="campaign_feed"),
    ]
)
# The views that name no campaign: the product's version and the read API's description (a session, no gate).
urlpatterns.append(path("api/v1/version", api.version, name="api_version"))
urlpatterns.append(path("api/v1/openapi.json", openapi.openapi_document, name="api_openapi"))
# The feed by its token, for readers that cannot log in: no session, so not the gate; the token's person's
# rights, last proved at a visit behind the gate, are its gate (campaigns/web/feed_views.py).
urlpatterns.append(path("feed/token.atom", feed_views.token_feed, name="campaign_feed_by_token"))
