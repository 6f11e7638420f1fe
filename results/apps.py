from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "results"

    def ready(self):
        from results.accounts import checks  # noqa: F401 - registers the session key check
