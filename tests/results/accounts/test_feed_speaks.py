"""What a feed token speaks (results/accounts/feeds.py): a language of settings.LANGUAGES and a zone of the tz
database, kept as one whole number beside the token; anything else reads as the site's defaults."""

from __future__ import annotations

from unittest.mock import ANY
from zoneinfo import ZoneInfo, available_timezones

import pytest
from django.utils import timezone, translation

from core.zones import known_zone
from results.accounts import counters, feeds
from results.store.access import Access

USER = "speaks-reader"


@pytest.fixture
def person():
    counters.counters().clear()
    feeds.clear_cache()
    yield feeds.person_of(USER)
    counters.counters().clear()


def kept(person: str) -> int | None:
    return counters.counters().get(f"feed:speaks:{person}")


def test_every_zone_and_language_has_a_code_of_its_own_that_a_counter_holds():
    zones = [name for name in available_timezones() if known_zone(name)]
    assert len(feeds._zone_names()) == len(zones) > 400
    assert len(feeds._languages()) == 2
    biggest = max(feeds._speaks_value(feeds.Speaks(language, zone)) for language in ("sv", "en") for zone in zones)
    assert 0 < biggest < 10**18 and biggest < counters.MAX_COUNT  # Redis's and SQLite's whole numbers


def test_a_token_keeps_the_language_and_zone_it_was_made_with(person):
    feeds.new_token(USER, Access(everywhere=True), feeds.Speaks("sv", "Europe/Stockholm"))
    assert feeds.speaks_of(person) == feeds.Speaks("sv", "Europe/Stockholm")
    feeds.new_token(USER, Access(everywhere=True), feeds.Speaks("en", "America/New_York"))
    assert feeds.speaks_of(person) == feeds.Speaks("en", "America/New_York")


def test_what_the_site_does_not_know_is_kept_as_its_default(person, settings):
    settings.HTRFLOW_TIME_ZONE = "Europe/Stockholm"
    feeds.new_token(USER, Access(everywhere=True), feeds.Speaks("de", "Mars/Olympus_Mons"))
    assert feeds.speaks_of(person) == feeds.Speaks("en", "Europe/Stockholm")
    feeds.new_token(USER, Access(everywhere=True), feeds.Speaks("sv", "posix/Europe/Oslo"))
    assert feeds.speaks_of(person) == feeds.Speaks("sv", "Europe/Stockholm")


def test_a_token_made_before_or_a_value_planted_in_the_state_speaks_the_defaults(person, settings):
    settings.HTRFLOW_TIME_ZONE = "America/New_York"
    feeds.new_token(USER, Access(everywhere=True), feeds.Speaks("sv", "Europe/Stockholm"))
    counters.counters().delete(f"feed:speaks:{person}")
    assert feeds.speaks_of(person) == feeds.Speaks("en", "America/New_York")
    for planted in (-5, 12345, 2**58 + 7):
        counters.counters().put(f"feed:speaks:{person}", planted, 60)
        assert feeds.speaks_of(person) == feeds.Speaks("en", "America/New_York")
    swedish_in_nowhere = feeds._code("lang", "sv", feeds._LANGUAGE_BITS)  # a zone code of 0: no zone has it
    counters.counters().put(f"feed:speaks:{person}", swedish_in_nowhere, 60)
    assert feeds.speaks_of(person) == feeds.Speaks("sv", "America/New_York"), "each part on its own"


def test_the_request_s_language_and_zone_are_what_a_new_token_speaks():
    with translation.override("sv"), timezone.override(timezone.get_fixed_timezone(60)):
        assert feeds.speaks_now().language == "sv"
        assert feeds.speaks_now().zone == "UTC", "a zone the tz database does not name: the site's"
    with translation.override("en-us"), timezone.override(ZoneInfo("Asia/Tokyo")):
        assert feeds.speaks_now() == feeds.Speaks("en", "Asia/Tokyo")


class Recording:
    """The counters, with every put written down."""

    def __init__(self, real):
        self.real, self.puts = real, []

    def put(self, key, value, seconds):
        self.puts.append((key, value, seconds))
        self.real.put(key, value, seconds)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_a_visit_keeps_what_it_speaks_as_long_as_the_token_and_turning_off_forgets_it(person, monkeypatch):
    feeds.new_token(USER, Access(everywhere=True), feeds.Speaks("sv", "Europe/Stockholm"))
    value = kept(person)
    recording = Recording(counters.counters())
    monkeypatch.setattr(counters, "counters", lambda: recording)

    class Visit:  # a request's session, as remember reads it
        user = USER

    feeds.remember(Visit(), Access(everything_under="htr-batch/"))
    assert (f"feed:token:{person}", ANY, feeds.TOKEN_KEEP_SECONDS) in recording.puts
    assert (f"feed:speaks:{person}", value, feeds.TOKEN_KEEP_SECONDS) in recording.puts
    feeds.turn_off(USER)
    assert kept(person) is None
