"""Strict readers for settings that come from the environment.

Every setting the product reads is read through one of these helpers, by way of
its entry in ``htrbrowser/configuration.py`` only. A bad value stops start-up with
one sentence that names the variable, instead of a traceback somewhere later.
"""

import os
from urllib.parse import urlsplit

from core.zones import known_zone


class SettingError(Exception):
    """A setting in the environment has a value the product cannot use."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name, default):
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip()


def env_str(name, default=""):
    return _raw(name, default)


def env_required(name):
    value = _raw(name, None)
    if value is None:
        raise SettingError(f"{name} must be set.")
    return value


def env_bool(name, default):
    value = _raw(name, None)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise SettingError(f"{name} must be true or false, not {value!r}.")


def env_int(name, default, minimum=None, maximum=None):
    value = _raw(name, None)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise SettingError(f"{name} must be a whole number, not {value!r}.") from None
    if minimum is not None and number < minimum:
        raise SettingError(f"{name} must be at least {minimum}, not {number}.")
    if maximum is not None and number > maximum:
        raise SettingError(f"{name} must be at most {maximum}, not {number}.")
    return number


def env_float(name, default, minimum=0.0):
    value = _raw(name, None)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise SettingError(f"{name} must be a number, not {value!r}.") from None
    if number < minimum:
        raise SettingError(f"{name} must be at least {minimum}, not {number}.")
    return number


def env_list(name, default=()):
    value = _raw(name, None)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name, default, choices):
    value = _raw(name, default)
    if value not in choices:
        allowed = ", ".join(sorted(choices))
        raise SettingError(f"{name} must be one of {allowed}, not {value!r}.")
    return value


def env_url(name, default=""):
    """An absolute http(s) URL without a trailing slash, or the default."""
    value = _raw(name, None)
    if value is None:
        return default
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingError(f"{name} must be an absolute http or https URL, not {value!r}.")
    if parts.query or parts.fragment or "@" in parts.netloc:
        raise SettingError(f"{name} must not carry a query, a fragment or a user name: {value!r}.")
    return value.rstrip("/")


def env_redis_url(name, default=""):
    """A redis:// or rediss:// URL (a password in it is allowed: it is never shown), or the default."""
    value = _raw(name, None)
    if value is None:
        return default
    parts = urlsplit(value)
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.netloc or parts.path):
        raise SettingError(f"{name} must be a redis://, rediss:// or unix:// URL.")
    return value


def env_time_zone(name, default):
    """A zone of the tz database, as its name (``Europe/Stockholm``, ``UTC``), or the default."""
    value = _raw(name, None)
    if value is None:
        return default
    if not known_zone(value):
        raise SettingError(
            f"{name} must name a time zone of the tz database, such as Europe/Stockholm or UTC, not {value!r}."
        )
    return value
