from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"

    def ready(self):
        # Imported here, as Django asks of AppConfig.ready: the app registry is complete only now.
        from django.utils import timezone

        from campaigns.cluster import gc_tuning, kube, reading  # (as above)
        from campaigns.presentation.volume_said import volume_said  # (as above)
        from campaigns.web import gate  # (as above)
        from results.store import access  # (as above)
        from results.viewers import volume_place  # (as above)

        def records_of(namespace: str) -> list:
            try:
                return list(getattr(reading.read_namespace(namespace).snapshot, "records", []))
            except kube.ClusterUnavailable:
                return []

        def said_of(request, namespace: str, name: str, volume: str) -> list:
            if getattr(request, "campaign_access", None) is None:  # a viewer is not behind the campaigns' gate
                request.campaign_access = access.access_of(request, gate.known_results)
            campaign, _state = reading.find_campaign(request, namespace, name, timezone.now())
            if campaign is None:  # not visible to this person, or the cluster cannot be read
                return []
            return [(s.text, s.tone, s.detail, s.commands) for s in volume_said(campaign, volume)]

        volume_place.provide_records(records_of)
        volume_place.provide_said(said_of)
        gc_tuning.tune_malloc()  # before the informers' threads start and read their first pages
