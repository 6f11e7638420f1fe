"""System check: the session key file must be usable before anyone can log in."""

from django.core.checks import Error, register

from results.accounts import session


@register()
def session_key_check(app_configs=None, **kwargs):
    try:
        session.load_key()
    except session.SessionKeyError as error:
        return [
            Error(
                str(error),
                hint="The demo writes one for you; in a cluster, mount the chart's session Secret.",
                id="results.E001",
            )
        ]
    return []
