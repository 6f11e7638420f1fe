import atexit

from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"

    def ready(self):
        # Imported here, as Django asks of AppConfig.ready: the app registry is complete only now.
        from campaigns.cluster import kube, reading, status_lease
        from results.viewers import volume_place  # (as above)

        def records_of(namespace: str) -> list:
            try:
                return list(getattr(reading.read_namespace(namespace).snapshot, "records", []))
            except kube.ClusterUnavailable:
                return []

        volume_place.provide_records(records_of)
        # A process that ends normally (runserver, a command, a gunicorn worker after worker_exit)
        # gives up the status writer's Lease, so the next one writes at once.
        atexit.register(_give_up_status_lease, status_lease.release)


def _give_up_status_lease(release) -> None:
    try:
        release()
    except Exception:  # noqa: BLE001, S110 - an exiting process must exit whatever the API says
        pass
