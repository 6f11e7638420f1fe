"""campaigns.cluster.board: each reading is projected from the last, through the real client and watches.

A pod changing in one campaign brings a reading in which only that campaign is a new object; the
others are the very objects of the reading before, and the whole still equals a full projection.
"""

from __future__ import annotations

from dataclasses import replace

from django.utils import timezone

from campaigns.cluster import board
from campaigns.domain.projection import project
from tests.campaigns.cluster.test_board import cluster  # noqa: F401 - the fixture, shared with the board's tests
from tests.campaigns.cluster.test_kube import NS, campaign_pod, load_campaigns


def test_a_change_in_one_campaign_projects_only_that_campaign_again(cluster):  # noqa: F811
    load_campaigns(cluster, 3)
    first = board.settle(NS)
    before = {c.name: c for c in first.campaigns}
    cluster.put(campaign_pod("campaign-001", 2, phase="Failed"))
    later = board.settle(NS)
    assert later.edition > first.edition
    after = {c.name: c for c in later.campaigns}
    assert after["campaign-001"] is not before["campaign-001"]
    assert after["campaign-000"] is before["campaign-000"] and after["campaign-002"] is before["campaign-002"]
    # The board hangs each campaign's pace (what it saw over time) on it after projecting; the rest is
    # what projecting the whole snapshot anew gives.
    assert [replace(c, pace=None) for c in later.campaigns] == project(later.snapshot, timezone.now())


def test_a_reading_with_nothing_changed_reuses_every_campaign(cluster):  # noqa: F811
    load_campaigns(cluster, 2)
    first = board.settle(NS)
    again = board.board(NS)
    again._publish()  # what the publisher does every 30 s, changed or not
    assert again.current.edition > first.edition
    assert all(a is b for a, b in zip(again.current.campaigns, first.campaigns, strict=True))
    assert again.projection.projected == []
