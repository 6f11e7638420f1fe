"""What the list and the cards say is each reader's own: their language and their zone. The memory of worded
sentences shared by every request (overview.said_of) keeps each reader's words apart, and the times the
presentation says itself (the pace chart's table, the operator's facts) are in the reader's zone."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone, translation

from campaigns.models import QUEUED, Campaign, QueueState, RecordInfo, Sentence
from campaigns.presentation import cards, overview
from campaigns.presentation import pace_chart as chart
from core import times
from tests.campaigns.some_swedish import in_context, pretend_swedish

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 5, 4, 10, 52, tzinfo=UTC)  # 06:52 EDT in New York


@pytest.fixture
def worded_for_whom(monkeypatch):
    """overview's wording replaced by one that says whose words it made: the language and the zone."""
    worded = []

    def sentence(campaign):
        worded.append(campaign)
        return Sentence(f"{translation.get_language()} {times.zone_label()}")

    monkeypatch.setattr(overview, "campaign_sentence", sentence)
    return worded


def queued(name: str) -> Campaign:
    return Campaign(namespace="ns", name=name, phase=QUEUED, queue=QueueState(kind="paused"))


def test_a_campaigns_sentence_is_remembered_for_each_language_apart(worded_for_whom):
    campaign = queued("two-languages")
    with translation.override("en"):
        english = overview.said_of(campaign)
    with translation.override("sv"):
        swedish = overview.said_of(campaign)
    with translation.override("en"):
        again = overview.said_of(campaign)
    assert (english.text, swedish.text) == ("en UTC", "sv UTC")
    assert again is english and len(worded_for_whom) == 2  # each reader's words worked out once, and kept


def test_a_campaigns_sentence_is_remembered_for_each_zone_apart(worded_for_whom):
    campaign = queued("two-zones")
    with translation.override("en"):
        utc = overview.said_of(campaign)
        with timezone.override(NEW_YORK):
            new_york = overview.said_of(campaign)
    assert (utc.text, new_york.text) == ("en UTC", "en America/New_York")


def test_a_copy_shown_to_one_person_is_still_worded_for_each_reader(worded_for_whom):
    reading_s = queued("shown-apart")
    copy = dataclasses.replace(reading_s)
    copy.shown_as, copy.shown_from = "mark", reading_s
    with translation.override("sv"):
        assert overview.said_of(copy).text == "sv UTC"
    with translation.override("en"), timezone.override(NEW_YORK):
        assert overview.said_of(copy).text == "en America/New_York"


def test_the_reader_is_the_active_language_and_zone():
    with translation.override("sv"), timezone.override(NEW_YORK):
        assert overview.reader() == ("sv", "America/New_York")
    with translation.override("en"):
        assert overview.reader() == ("en", "UTC")


def test_the_filter_chips_say_the_phase_in_the_readers_language(monkeypatch):
    pretend_swedish(monkeypatch, {in_context("campaign phase", "Queued"): "Köad"})
    every = [queued("one"), queued("two")]
    with translation.override("en"):
        assert [choice.label for choice in overview.state_choices(every, "")][-1] == "Queued"
    with translation.override("sv"):
        choice = overview.state_choices(every, "")[-1]
    assert (choice.key, choice.label, choice.count) == ("queued", "Köad", 2)  # the key stays the key


def test_the_charts_table_says_its_times_in_the_readers_zone():
    series = [(NOW - timedelta(hours=2), 0), (NOW - timedelta(hours=1), 4)]
    band = (NOW + timedelta(hours=1), NOW + timedelta(hours=2))
    with translation.override("en"):
        utc = [row.time for row in chart.rows(series, NOW, band, 10)]
        with timezone.override(NEW_YORK):
            new_york = [row.time for row in chart.rows(series, NOW, band, 10)]
    assert utc == ["08:52 UTC", "09:52 UTC", "10:52 UTC", "11:52 UTC", "12:52 UTC"]
    assert new_york == ["04:52 EDT", "05:52 EDT", "06:52 EDT", "07:52 EDT", "08:52 EDT"]
    assert [row.at for row in chart.rows(series, NOW, band, 10)][0] == NOW - timedelta(hours=2)  # the time itself


def test_when_a_campaign_was_applied_is_said_as_every_time_is():
    campaign = Campaign(namespace="ns", name="applied", record=RecordInfo(applied_at="2026-12-05T20:43:39Z"))
    with translation.override("en"):
        utc = dict((label, value) for label, value, _copy in cards.operator_facts(campaign))
        with timezone.override(NEW_YORK):
            new_york = dict((label, value) for label, value, _copy in cards.operator_facts(campaign))
    assert utc["Applied at"] == "5 Dec 20:43 UTC"
    assert new_york["Applied at"] == "5 Dec 15:43 EST"
    not_a_time = Campaign(namespace="ns", name="applied", record=RecordInfo(applied_at="last tuesday"))
    assert ("Applied at", "last tuesday", False) in cards.operator_facts(not_a_time)  # shown as written


def test_the_operators_fact_labels_are_words_and_the_copy_buttons_stay_on_names(monkeypatch):
    pretend_swedish(monkeypatch, {in_context("operator fact", "Campaign file"): "Kampanjfil"})
    campaign = Campaign(namespace="ns", name="facts", campaign="campaigns/facts.yaml", workload_name="job-facts-1")
    with translation.override("sv"):
        facts = cards.operator_facts(campaign)
    assert ("Kampanjfil", "campaigns/facts.yaml", True) in facts
    assert ("Workload", "job-facts-1", True) in facts  # a Kubernetes kind is a name, said as Kubernetes says it
    assert ("Job", "facts", True) in facts
