from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"

    def ready(self):
        # Imported here, as Django asks of AppConfig.ready: the app registry is complete only now.
        from campaigns.cluster import collector, kube, reading
        from results.viewers import volume_place  # (as above)

        def records_of(namespace: str) -> list:
            try:
                return list(getattr(reading.read_namespace(namespace).snapshot, "records", []))
            except kube.ClusterUnavailable:
                return []

        volume_place.provide_records(records_of)
        collector.tune_malloc()  # before the informers' threads start and read their first pages
