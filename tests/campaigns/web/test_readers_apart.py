"""Readers of other languages and zones, in the very same second, each get their own words and clock: the list's
memory of cards rendered this second and of its lines' fingerprints is kept per language and zone; a
``<time datetime>`` stays UTC whatever zone the page speaks in; the read API keeps its field names and codes in
every language and says its times in UTC, its sentences in the language Accept-Language asks for.

The Swedish catalogue is written after the marking, so the language is told apart by a few pretended Swedish
words (tests/campaigns/some_swedish.py); the zone by times that read differently in UTC and in New York."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone, translation

from campaigns.cluster import reading
from campaigns.models import Sentence
from campaigns.presentation import overview
from campaigns.web import api, list_views
from core import times
from htrbrowser.middleware import ZONE_COOKIE
from tests.campaigns.cluster.test_kube import NS, campaign_pod
from tests.campaigns.some_swedish import pretend_swedish
from tests.campaigns.web.test_views import add_campaign, card_html, page_text, prepared_cluster

NEW_YORK = "America/New_York"
CREATED_UTC = '<time datetime="2026-09-24T07:58:09Z">24 Sep 07:58 UTC</time>'  # the test double's Jobs' creation
CREATED_NEW_YORK = '<time datetime="2026-09-24T07:58:09Z">24 Sep 03:58 EDT</time>'


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture
def one_second(monkeypatch):
    """Every request of the test within one and the same second (as two readers' polls may well be)."""
    frozen = timezone.now().replace(microsecond=0)
    monkeypatch.setattr(list_views.timezone, "now", lambda: frozen)
    return frozen


@pytest.fixture
def broken(cluster):
    """A campaign with a failed volume: the list shows its full card."""
    add_campaign(cluster, "broken", volume_ids=["A1", "A2", "A3"], completed="0", failed="1", active=1)
    cluster.put(campaign_pod("broken", 2))
    return "broken"


def card_in_poll(client, name: str, **headers) -> str:
    """The card a tab's poll gets back: the tab says it shows the card with a fingerprint that is not the
    card's, as a tab whose card has changed does."""
    page = page_text(client.get("/", headers=headers))
    url = re.search(r'id="list-poll" class="list-poll" hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    shown = overview.pack_shown([("card", f"{NS}/{name}", "AAAAAAAA", True)])
    answer = client.get(url, {"shown": [shown]}, headers={"HX-Request": "true", **headers})
    assert answer.status_code == 200
    return card_html(page_text(answer), name)


def test_two_readers_in_two_zones_in_the_same_second_each_get_their_own_clock(broken, results_client, one_second):
    in_utc = card_in_poll(results_client, broken)
    results_client.cookies[ZONE_COOKIE] = NEW_YORK
    in_new_york = card_in_poll(results_client, broken)
    del results_client.cookies[ZONE_COOKIE]
    again_in_utc = card_in_poll(results_client, broken)
    assert CREATED_UTC in in_utc and CREATED_UTC in again_in_utc
    assert CREATED_NEW_YORK in in_new_york and "UTC</time>" not in in_new_york
    assert {key[:2] for key in list_views._cards} == {("en", "UTC"), ("en", NEW_YORK)}


def test_two_readers_of_two_languages_in_the_same_second_each_get_their_own_words(
    broken, results_client, one_second, monkeypatch
):
    pretend_swedish(monkeypatch, {"Created": "Skapad"})
    english = card_in_poll(results_client, broken, **{"Accept-Language": "en"})
    swedish = card_in_poll(results_client, broken, **{"Accept-Language": "sv"})
    english_again = card_in_poll(results_client, broken, **{"Accept-Language": "en"})
    assert "<dt>Created</dt>" in english and "<dt>Created</dt>" in english_again
    assert "<dt>Skapad</dt>" in swedish and "<dt>Created</dt>" not in swedish
    assert {key[:2] for key in list_views._cards} == {("en", "UTC"), ("sv", "UTC")}


def test_a_lines_fingerprint_is_kept_for_each_language_and_zone_apart(broken, monkeypatch):
    """A line's fingerprint is made once per campaign and reader: here the line's markup says whose it is,
    so a fingerprint kept for one reader and given to another would be the wrong one."""
    monkeypatch.setattr(
        list_views, "render_to_string", lambda template, context: f"{translation.get_language()} {times.zone_label()}"
    )
    campaign = reading.read_namespace(NS).find(broken)
    row = overview.row(overview.Match(campaign), "/x", False)
    seen = {}
    for language, zone in (("en", "UTC"), ("sv", "UTC"), ("en", NEW_YORK), ("en", "UTC")):
        with translation.override(language), timezone.override(zone):
            seen[(language, zone)] = list_views._row_fingerprint(row)
    assert seen == {
        ("en", "UTC"): overview.fingerprint("en UTC"),
        ("sv", "UTC"): overview.fingerprint("sv UTC"),
        ("en", NEW_YORK): overview.fingerprint("en America/New_York"),
    }
    assert len(list_views._rows) == 3


def test_a_pages_machine_readable_times_stay_utc_in_any_zone(broken, results_client):
    results_client.cookies[ZONE_COOKIE] = NEW_YORK
    card = card_html(page_text(results_client.get("/")), broken)
    assert CREATED_NEW_YORK in card  # said in New York's time, kept for machines in UTC
    assert all(value.endswith("Z") for value in re.findall(r'datetime="([^"]+)"', card))


# --- the read API ------------------------------------------------------------------------------------------

SENTENCES = {"sentence", "detail", "warmupSentence", "progressSentence"}  # the human words of an answer


def shape(value):
    """An answer with its sentences blanked: every field name, code, number and time as it is."""
    if isinstance(value, dict):
        return {key: "<words>" if key in SENTENCES else shape(each) for key, each in value.items()}
    if isinstance(value, list):
        return [shape(each) for each in value]
    return value


@pytest.mark.parametrize("path", ["/api/v1/jobs", f"/api/v1/jobs/{NS}/broken"])
def test_the_api_answers_with_the_same_fields_and_codes_in_either_language(broken, results_client, path):
    english = results_client.get(path, headers={"Accept-Language": "en"})
    swedish = results_client.get(path, headers={"Accept-Language": "sv"})
    assert english.status_code == swedish.status_code == 200
    assert shape(swedish.json()) == shape(english.json())
    assert "sentence" in str(english.json())  # there were sentences to blank


def test_the_apis_sentences_follow_accept_language(cluster, results_client, monkeypatch):
    pretend_swedish(monkeypatch, {
        "No campaign by that name in a namespace this site serves.": "Ingen kampanj med det namnet här.",
        "{parameter} must be a whole number from 0 to {most}.": "{parameter} ska vara ett heltal från 0 till {most}.",
    })
    refused = f"/api/v1/jobs/{NS}/Not_A_Name"
    assert results_client.get(refused, headers={"Accept-Language": "sv"}).json() == {
        "detail": "Ingen kampanj med det namnet här."
    }
    assert results_client.get(refused, headers={"Accept-Language": "en"}).json() == {
        "detail": "No campaign by that name in a namespace this site serves."
    }
    bad = results_client.get("/api/v1/jobs?reaped=x", headers={"Accept-Language": "sv"})
    assert bad.status_code == 400 and bad.json() == {"detail": "reaped ska vara ett heltal från 0 till 10000."}


def test_the_apis_sentences_say_their_times_in_utc_whatever_zone_the_pages_use(broken, results_client, monkeypatch):
    monkeypatch.setattr(api, "campaign_sentence", lambda campaign: Sentence(f"said in {times.zone_label()}"))
    results_client.cookies[ZONE_COOKIE] = NEW_YORK
    answer = results_client.get(f"/api/v1/jobs/{NS}/{broken}").json()
    assert answer["sentence"] == "said in UTC"
    assert answer["createdAt"] == "2026-09-24T07:58:09Z"
    assert "Created" in page_text(results_client.get("/"))  # the pages, meanwhile, in the reader's zone:
    assert CREATED_NEW_YORK in card_html(page_text(results_client.get("/")), broken)
