"""The feed's entries (campaigns/presentation/feed.py), pure: which campaign events become entries, their
ids and times, and that a stall reaches the feed through the product's one notion of attention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from campaigns.models import FAILED, RUNNING, SUCCEEDED, Campaign, Counts, QueueState, Volume, VolumeReason
from campaigns.models.pace import CampaignPace
from campaigns.presentation.feed import FINISHED_DAYS, entries

NOW = datetime(2026, 12, 3, 14, 0, tzinfo=UTC)
NOTICED = (NOW - timedelta(minutes=7)).timestamp()


def url(campaign):
    return f"https://htr.example/campaigns/{campaign.namespace}/{campaign.name}"


def feed_of(*campaigns, noticed=None):
    asked = []

    def when(event):
        asked.append(event)
        return NOTICED if noticed is None else noticed

    return entries(list(campaigns), NOW, url, when), asked


def running(name="parish-1870", uid="uid-1", **fields):
    return Campaign(namespace="htr-batch", name=name, phase=RUNNING, job_uid=uid, **fields)


def failed_volume(at, error="CUDA out of memory while segmenting pages"):
    reason = VolumeReason(stage="stream", permanent=True, error=error, kind="permanent", finished_at=at)
    return Volume(index=1, id="C2", state="failed", reason=reason)


def test_a_stalled_campaign_reaches_the_feed_with_its_line_and_the_time_it_stalled():
    since = NOW - timedelta(minutes=47)
    found, asked = feed_of(running(pace=CampaignPace(running_pods=12, stalled_since=since)))
    assert [(e.kind, e.title) for e in found] == [("attention", "parish-1870 needs attention")]
    assert found[0].summary == "Stalled: no volume finished since 13:13 UTC while 12 pods run."
    assert found[0].updated == since and asked == []  # its own time: nothing noted


def test_a_campaign_that_stalls_again_is_a_new_entry():
    first, _ = feed_of(running(pace=CampaignPace(running_pods=2, stalled_since=NOW - timedelta(hours=2))))
    again, _ = feed_of(running(pace=CampaignPace(running_pods=2, stalled_since=NOW - timedelta(minutes=30))))
    assert first[0].id != again[0].id


def test_each_cause_is_an_entry_of_its_own_and_its_time_is_the_campaigns_own_when_known():
    first = NOW - timedelta(hours=2)
    queue = QueueState(kind="never_fits", since=NOW - timedelta(hours=3))
    campaign = running(counts=Counts(total=2, failed=1), failures=[failed_volume(first)], queue=queue)
    found, asked = feed_of(campaign)
    assert found[0].summary.startswith("1 volume failed. C2: ")
    assert found[1].summary.startswith("This campaign can never start as it is:")
    assert "stopped for good while processing pages" in found[0].summary
    assert [e.updated for e in found] == [first, NOW - timedelta(hours=3)]
    assert asked == []  # both times known: nothing noted
    assert len({e.id for e in found}) == 2


def test_ids_stay_while_the_job_does_and_a_new_job_is_a_new_entry():
    pace = CampaignPace(running_pods=1, stalled_since=NOW)
    once, _ = feed_of(running(pace=pace))
    again, _ = feed_of(running(pace=pace, counts=Counts(total=9, done=1)))
    rerun, _ = feed_of(running(uid="uid-2", pace=pace))
    assert once[0].id == again[0].id != rerun[0].id
    assert once[0].id.startswith("urn:uuid:")


def test_finished_campaigns_stay_for_a_while_with_their_outcome():
    recent = Campaign(namespace="htr-batch", name="recent", phase=SUCCEEDED, job_uid="a",
                      finished_at=NOW - timedelta(days=1), counts=Counts(total=40, done=40))
    old = Campaign(namespace="htr-batch", name="old", phase=SUCCEEDED, job_uid="b",
                   finished_at=NOW - timedelta(days=FINISHED_DAYS, seconds=1), counts=Counts(total=1, done=1))
    failed = Campaign(namespace="htr-batch", name="failed", phase=FAILED, job_uid="c",
                      counts=Counts(total=3, done=1, failed=2))
    found, asked = feed_of(recent, old, failed)
    assert [e.title for e in found] == ["failed finished: failed", "recent finished: succeeded"]
    # Each says how it ended with the list line's own sentence, which says what to do.
    assert found[0].summary.startswith("Failed: the campaign stopped with 1 of 3 volumes done.")
    assert found[1].summary == "Finished: all 40 volumes done."
    assert asked == ["htr-batch/failed/c/finished"]  # no finish time: when the site first noticed it


def test_text_a_feed_cannot_carry_is_escaped_and_invisible_characters_shown():
    campaign = running(warmup=None, counts=Counts(total=1, failed=1),
                       failures=[Volume(index=0, id="C\u202e1\x1b", state="failed",
                                        reason=VolumeReason(kind="permanent", error="bad\x00 \x1b[31m byte"))])
    found, _ = feed_of(campaign)
    assert found[0].summary.startswith("1 volume failed. C\u27e8U+202E\u27e91\\x1b: ")
    assert "\x00" not in found[0].summary and "\x1b" not in found[0].summary
    assert "bad" not in found[0].summary  # the error as the pod gave it is the operator's, not the feed's
