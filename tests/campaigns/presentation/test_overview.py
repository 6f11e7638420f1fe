"""campaigns.presentation.overview: what the list keeps, how a line reads, and what a poll compares."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

from campaigns.domain.projection import project, sort_campaigns
from campaigns.models import QUEUED, Campaign, QueueState
from campaigns.presentation import overview
from devstack import kube_samples as o
from tests.campaigns.said import said

ROOT = Path(__file__).resolve().parents[3]


def campaigns():
    return sort_campaigns(project(o.scene(), o.NOW), o.NOW)


def test_the_state_filter_keeps_one_phase_or_those_that_need_attention():
    every = campaigns()
    running = overview.keep(every, "running", "")
    assert running and all(m.campaign.phase_key == "running" for m in running)
    troubled = overview.keep(every, overview.ATTENTION, "")
    assert {m.campaign.name for m in troubled} == {c.name for c in every if c.in_trouble}


def test_a_search_finds_a_campaign_by_part_of_its_name():
    kept = overview.keep(campaigns(), "", "PARISH")
    assert [m.campaign.name for m in kept] == ["parish-records-1870"]
    assert kept[0].hits == []


def test_a_search_finds_the_campaign_that_holds_a_volume_id():
    every = campaigns()
    parish = next(c for c in every if c.name == "parish-records-1870")
    wanted = parish.volumes[5].id
    kept = overview.keep(every, "", wanted)
    assert parish.name in [m.campaign.name for m in kept]
    match = next(m for m in kept if m.campaign.name == parish.name)
    assert [v.id for v in match.hits] == [wanted]


def test_state_choices_count_each_phase_present_and_mark_the_chosen_one():
    every = campaigns()
    choices = overview.state_choices(every, "running")
    assert choices[0].key == "" and choices[0].count == len(every)
    chosen = [c for c in choices if c.selected]
    assert [c.key for c in chosen] == ["running"]
    assert sum(c.count for c in choices if c.key not in ("", overview.ATTENTION)) == len(every)


def test_unknown_states_are_no_filter():
    assert overview.known_state("<script>") == ""
    assert overview.known_state("attention") == "attention"


def test_full_cards_are_the_first_campaigns_in_trouble_then_those_opened():
    every = campaigns()
    matches = overview.keep(every, "", "")
    calm = next(overview.ident(c) for c in every if not c.in_trouble)
    chosen = overview.full_card_idents(matches, [calm, "htr-batch/not-there"])
    troubled = [overview.ident(c) for c in every if c.in_trouble][: overview.ATTENTION_CARDS]
    assert chosen == [*troubled, calm]


def test_a_line_shows_progress_as_shares_of_the_volumes():
    parish = next(c for c in campaigns() if c.name == "parish-records-1870")
    row = overview.row(overview.Match(parish), "/x", False)
    assert row.dom_id == "row-htr-batch--parish-records-1870"
    assert row.done_percent == round(100 * parish.counts.done / parish.counts.total, 2)
    assert row.sentence == said(parish).text


def test_what_a_poll_sends_back_is_parsed_and_anything_malformed_dropped():
    shown = overview.parse_shown(["row:ns/a:abc:1", "card:ns/b:def:0", "bogus", "row:nons:x:1", "x:ns/a:1:1"])
    assert shown == [overview.Shown("row", "ns/a", "abc", True), overview.Shown("card", "ns/b", "def", False)]


def test_fingerprints_differ_when_what_is_shown_differs():
    assert overview.fingerprint("<li>a</li>") != overview.fingerprint("<li>b</li>")


def test_equal_html_made_apart_has_one_fingerprint_in_every_process():
    """A tab's poll may reach another worker or replica, which renders the line anew: equal HTML must
    give one fingerprint there too (not one of the string object, nor of a hash salted per process),
    and it must come back unchanged through a poll's `row:ns/name:digest:1`."""
    here = "".join(["<li>", "a", "</li>"])
    there = "<li>a</li>"
    assert here == there and here is not there
    assert overview.fingerprint(here) == overview.fingerprint(there)
    program = "import sys; from campaigns.presentation.overview import fingerprint; print(fingerprint(sys.argv[1]))"
    elsewhere = subprocess.run(
        [sys.executable, "-c", program, there], cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": "random"},
        capture_output=True, text=True, check=True, timeout=60,
    )
    assert elsewhere.stdout.strip() == overview.fingerprint(here)
    (shown,) = overview.parse_shown([f"row:htr-batch/a:{overview.fingerprint(here)}:1"])
    assert shown.digest == overview.fingerprint(there)


def test_what_a_tab_shows_of_200_campaigns_fits_one_request_line_and_reads_back():
    idents = [f"htr-batch/{series}-{1700 + n * 7}" for n, series in enumerate(["parish-records", "court-rolls"] * 105)]
    items = [
        ("row" if n < 200 else "card", each, overview.fingerprint(each), n % 3 == 0) for n, each in enumerate(idents)
    ]
    packed = overview.pack_shown(items)
    assert len(urlencode({"shown": packed})) < 3300  # gunicorn takes 4 094 bytes in a request line
    by_key = {overview.short_key(each): each for each in idents}
    assert len(by_key) == len(idents)
    back = overview.parse_shown([packed], ident_of=by_key.get)
    assert back == [overview.Shown(kind, each, digest, trouble) for kind, each, digest, trouble in items]
    unknown = overview.parse_shown([packed], ident_of=lambda key: None)
    assert unknown == []  # a campaign this process cannot name is left out, never guessed
    assert overview.parse_shown([packed[:-3]], ident_of=by_key.get) == back[:-1]  # a cut entry is dropped


def test_lines_a_poll_cannot_name_come_back_as_the_tab_sent_them_each_once():
    known, unknown = "htr-batch/mine", "htr-batch/not-mine"
    items = [("row", known, "AAAAAAAA", False), ("row", unknown, "BBBBBBBB", True), ("card", unknown, "CCCCCCCC", True)]
    packed = overview.pack_shown(items)
    shown, unnamed = overview.read_shown([packed, packed], ident_of={overview.short_key(known): known}.get)
    assert shown == [overview.Shown("row", known, "AAAAAAAA", False)] * 2
    # Rows only (a poll leaves a card as it is), once, as sent: a poll's answer may send them back.
    assert unnamed == [overview.Unnamed("row", overview.short_key(unknown), "BBBBBBBB", True)]
    assert overview.pack_shown([], unnamed) == overview.PACKED + "R" + overview.short_key(unknown) + "BBBBBBBB"
    hostile = overview.PACKED + "r<x'/]>AAAAAAAA" + "r" * 15
    assert overview.read_shown([hostile]) == ([], [overview.Unnamed("row", "rrrrrr", "rrrrrrrr", False)])


def test_a_line_said_gone_is_a_line_again_once_its_campaign_is_named():
    campaign = "htr-batch/back-again"
    said_gone = overview.pack_shown([], [overview.Unnamed("gone", overview.short_key(campaign), overview.GONE, False)])
    assert overview.read_shown([said_gone]) == ([], [overview.Unnamed("gone", overview.short_key(campaign),
                                                                      overview.GONE, False)])
    named = overview.read_shown([said_gone], ident_of=lambda key: campaign)
    assert named == ([overview.Shown("row", campaign, overview.GONE, False)], [])


def test_a_poll_reads_at_most_its_limit_of_entries_whatever_it_sends():
    entry = "r" + "k" * overview.KEY_CHARS + "A" * 8
    values = [overview.PACKED + entry * 30] * 10
    seen = []
    overview.read_shown(values, limit=50, ident_of=lambda key: seen.append(key))
    assert len(seen) == 50


def test_a_campaigns_sentence_is_worded_once_per_campaign_object_of_a_reading(monkeypatch):
    """Every poll of every tab asks each line for its sentence; the words change only when the reading
    replaces the campaign object, so they are worked out once per object."""
    worded = []
    real = overview.campaign_sentence
    monkeypatch.setattr(overview, "campaign_sentence", lambda campaign: worded.append(campaign) or real(campaign))
    campaign = Campaign(namespace="ns", name="worded-once", phase=QUEUED, queue=QueueState(kind="paused"))
    first = overview.said_of(campaign)
    assert overview.said_of(campaign) is first and len(worded) == 1
    replaced = dataclasses.replace(campaign)  # the next reading's equal campaign is another object
    assert overview.said_of(replaced) == first and len(worded) == 2
