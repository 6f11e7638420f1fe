"""Wording of a card's notes, the campaign list and the stale-cluster banner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from campaigns.cluster import kube
from campaigns.models import QUEUED, Campaign, Counts, QueueState, Volume
from campaigns.wording import banners, lists, notes


def test_the_forbidden_note_names_the_volumes_where_they_are_shown():
    assert notes.forbidden_note(0, 3) == ""
    assert notes.forbidden_note(3, 3) == (
        "Your account may not read these volumes' results, so their progress, run logs and pages are not shown."
    )
    assert notes.forbidden_note(1, 3, below=True) == (
        "Your account may not read the results of 1 of the volumes below (marked “no access”), "
        "so their progress, run logs and pages are not shown."
    )


def test_the_page_tally_says_which_volumes_its_figures_cover():
    assert notes.pages_caption(1, 1, 0, running_only=False, any_running=False) == "In the one volume done."
    assert notes.pages_caption(4, 4, 0, running_only=False, any_running=True) == "In all 4 volumes done or running."
    assert notes.pages_caption(1, 1, 0, running_only=True, any_running=True) == "In the one running volume shown."
    assert notes.pages_caption(2, 5, 1, running_only=False, any_running=False) == (
        "Counted in 2 of 5 volumes done; your account may not read 1 and 2 not read yet."
    )


def test_failed_pages_are_said_for_one_volume_or_several():
    one = Volume(index=0, id="C0074519")
    assert notes.failed_pages_note([]) == ""
    assert notes.failed_pages_note([(one, 3)]) == "3 pages failed in C0074519; see its run log."
    several = [(Volume(index=i, id=f"C{i}"), 1) for i in range(5)]
    assert notes.failed_pages_note(several) == (
        "5 pages failed in 5 volumes (C0, C1, C2 and others); see their run logs."
    )


def test_the_announcement_names_a_few_campaigns_and_counts_the_rest():
    failing = Campaign(namespace="ns", name="a", counts=Counts(failed=1))
    queued = Campaign(namespace="ns", name="b", phase=QUEUED, queue=QueueState(kind="paused"))
    assert lists.attention_announcement([failing, queued]) == (
        "a now needs attention: 1 volume failed. b now needs attention: Queued. Its campaign file holds it back "
        "with `suspend: true` (paused in git). It does not run until the person who wrote the campaign removes "
        "`suspend: true` from the campaign file and applies again."
    )
    many = [Campaign(namespace="ns", name=f"c{i}") for i in range(7)]
    text = lists.attention_announcement(many)
    assert text.count("The state of this campaign is not known.") == 5
    assert text.endswith("2 more campaigns now need attention.")


def test_the_banner_says_since_when_in_minutes():
    """(How the cluster is followed, by watch, is tested in test_board.py.)"""
    since = datetime(2026, 9, 24, 14, 2, tzinfo=UTC)
    text = banners.stale_banner(since, since + timedelta(minutes=3, seconds=20))
    assert "since 14:02 UTC (3 min ago)" in text
    assert text.startswith("Could not reach the cluster since")


def test_the_banner_has_an_opening_for_each_cause_the_cluster_reader_gives():
    since = datetime(2026, 9, 24, 14, 2, tzinfo=UTC)
    causes = (kube.DOWN, kube.REFUSED, kube.THROTTLED, kube.SLOW, kube.BROKEN)
    openings = {banners.stale_banner(since, since, cause).split(" since ")[0] for cause in causes}
    assert len(openings) == len(causes)
    assert set(banners._OPENINGS) == set(causes)
    assert banners.stale_banner(since, since, kube.NOT_CONNECTED).startswith("Could not reach the cluster")


def test_a_namespace_that_cannot_be_read_is_named_only_among_several():
    assert banners.namespace_problem("htr-batch", "Refused.", several=True) == "Namespace htr-batch: Refused."
    assert banners.namespace_problem("htr-batch", "Refused.", several=False) == "Refused."
