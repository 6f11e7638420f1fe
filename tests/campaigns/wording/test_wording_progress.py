"""Wording of progress: a running volume's progress line and ages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from campaigns.models import Progress
from campaigns.wording.progress import CARD_SENTENCES, VOLUME_SENTENCES, progress_sentence
from campaigns.wording.words import human_age

NOW = datetime(2026, 9, 24, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0 s"), (12, "12 s"), (240, "4 min"), (3 * 3600 + 5, "3 h"), (3 * 86400, "3 d")]
)
def test_human_ages(seconds, text):
    assert human_age(seconds) == text


def test_progress_sentence_names_the_stage_and_its_age():
    progress = Progress(done=137, total=412, stage="stream", age_seconds=12)
    assert progress_sentence(progress, NOW) == "processing pages · progress written under a minute ago"


@pytest.mark.parametrize(
    ("updated", "now", "text"),
    [
        ("09:00:00", "09:00:59", "under a minute"),
        ("08:59:50", "09:00:10", "1 min"),
        ("08:58:01", "09:00:00", "2 min"),
        ("08:51:00", "09:00:59", "9 min"),
    ],
)
def test_a_running_volumes_age_is_said_in_minutes_of_the_clock(updated, now, text):
    day = "2026-09-24T"
    progress = Progress(done=1, total=2, stage="stream", updated_at=datetime.fromisoformat(f"{day}{updated}+00:00"))
    assert progress_sentence(progress, datetime.fromisoformat(f"{day}{now}+00:00")) == (
        f"processing pages · progress written {text} ago"
    )


def test_every_row_turns_at_the_same_moment_whatever_second_it_was_updated_in():
    rows = [Progress(done=1, total=2, stage="stream", updated_at=NOW - timedelta(seconds=s)) for s in (5, 55)]
    said = "processing pages · progress written {} min ago"
    assert {progress_sentence(p, NOW + timedelta(seconds=59)) for p in rows} == {said.format(1)}
    assert {progress_sentence(p, NOW + timedelta(seconds=60)) for p in rows} == {said.format(2)}


def test_the_age_follows_the_clock_not_the_moment_the_progress_was_read():
    progress = Progress(done=1, total=2, stage="stream", updated_at=NOW - timedelta(seconds=10), age_seconds=10)
    assert progress_sentence(progress, NOW + timedelta(minutes=3)) == "processing pages · progress written 4 min ago"


def test_progress_sentence_from_the_update_time_when_no_age_was_computed():
    progress = Progress(done=1, total=2, stage="load", updated_at=NOW - timedelta(minutes=4))
    assert progress_sentence(progress, NOW) == "loading models · progress written 4 min ago"


def test_stale_progress_says_no_page_finished_for():
    progress = Progress(done=1, total=2, stage="stream", age_seconds=1500)
    assert progress_sentence(progress, NOW) == "processing pages · no page finished for 25 min"


def test_progress_with_an_unknown_stage_or_none_still_reads():
    assert progress_sentence(Progress(done=0, total=1, stage="warp"), NOW) == "working on the volume"
    assert progress_sentence(None, NOW) == "no progress reported yet"


def test_every_outcome_a_card_or_row_can_meet_has_its_words():
    from campaigns.store import progress

    assert set(CARD_SENTENCES) == {*progress.CARD_OUTCOMES, progress.PENDING}
    row_outcomes = {progress.FORBIDDEN, progress.NOT_FOUND, progress.UNREADABLE, progress.NOT_ASKED, progress.PENDING}
    assert set(VOLUME_SENTENCES) == row_outcomes
    assert progress.VolumeProgress(None, progress.FORBIDDEN).note == "Your account may not read this volume."
    assert progress.ProgressReport(card_outcome=progress.TIMEOUT).card_sentence == CARD_SENTENCES["timeout"]
