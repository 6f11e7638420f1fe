"""Which names are time zones a reader or a site may be given: the tz database's zones, read once per process.

The database's folder also holds names that are no place's zone: ``localtime`` (whatever the machine is set to),
``posixrules``, ``Factory`` and the ``posix/`` and ``right/`` copies. They are refused, so a zone always means the
same wall clock whichever machine says it.
"""

from functools import cache
from zoneinfo import available_timezones

NAME_MOST = 64  # characters; the tz database's longest name has 32
_NOT_PLACES = {"localtime", "posixrules", "Factory"}


@cache
def _zones() -> frozenset[str]:
    return frozenset(
        name for name in available_timezones() if name not in _NOT_PLACES and not name.startswith(("posix/", "right/"))
    )


def known_zone(name: str) -> bool:
    """Whether ``name`` is a zone of the tz database, spelt exactly as it spells it (``Europe/Stockholm``, ``UTC``)."""
    return isinstance(name, str) and 0 < len(name) <= NAME_MOST and name in _zones()
