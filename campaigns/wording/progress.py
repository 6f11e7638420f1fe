"""A running volume's progress line, and what a card or row says when the results store answered otherwise.

The outcomes are those of ``campaigns.store.progress`` (the results store's own, ``results.store.outcomes``, and
a few of the progress reader's); they are spelled out here so wording needs nothing but the models.
"""

from __future__ import annotations

from datetime import datetime

from campaigns.models import Progress
from campaigns.wording.words import human_age, stage_words

# A running volume whose progress has not moved for this long reads as "no update for ...".
STALE_PROGRESS_SECONDS = 600

# Said once for a whole card, by the first outcome that keeps its progress from being read ("reading":
# none did, but some reads were not answered within the page's wait and go on behind it).
CARD_SENTENCES = {
    "no_session": "Log in with your store account to see how far each running volume has got.",
    "session_ended": "Your results login has ended, so progress cannot be read; log in again to see it.",
    "unreachable": (
        "The results store could not be reached, so progress is not shown; the volume states above come "
        "from the cluster and are current. If it lasts, an operator should check S3_ENDPOINT, S3_VERIFY_TLS "
        "and that the network policy lets the results proxy reach the store."
    ),
    "timeout": "The results store did not answer in time, so some progress is missing; it is asked again shortly.",
    "no_reason": (
        "The results store refused without giving a reason, so progress is not shown; the bucket or "
        "namespace may be configured wrongly."
    ),
    "reading": (
        "The results store is slow to answer, so some progress is not known yet; it appears here by itself "
        "as the store answers."
    ),
}
# Said on one volume's row.
VOLUME_SENTENCES = {
    "forbidden": "Your account may not read this volume.",
    "not_found": "No progress written yet.",
    "unreadable": "Its progress file could not be read.",
    "not_asked": "Progress not read on this page; open the campaign to see it.",
    "reading": "Progress not known yet: the results store is still answering.",
}
# A running volume's row when nothing at all is known of its progress.
PROGRESS_NOT_KNOWN = "Progress not known yet."


def progress_sentence(progress: Progress | None, now: datetime | None = None) -> str:
    """``processing pages · updated under a minute ago``, then in whole minutes (``updated 4 min ago``);
    stale or missing progress is said so.

    Worded coarsely on purpose: a card whose line said "updated 12 s ago" changed at every poll of
    every tab, so each poll sent every card again though nothing a person cares about had moved.
    When the update time and `now` are known the age is counted in minutes of the clock (from
    09:58:50 to 10:00:10 is 2 min), so every row of every card turns at the same moment, once a
    minute, whatever second each volume last wrote in (a progress read kept for a while would
    otherwise also go on saying the age it had when it was read)."""
    if progress is None:
        return "no progress reported yet"
    age = progress.age_seconds
    if progress.updated_at is not None and now is not None:
        age = 60.0 * max(0, int(now.timestamp() // 60) - int(progress.updated_at.timestamp() // 60))
    what = stage_words(progress.stage)
    if age is None:
        return what
    if progress.stage not in ("done", "failed") and age >= STALE_PROGRESS_SECONDS:
        return f"{what} · no update for {human_age(age)}"
    if age < 60:
        return f"{what} · updated under a minute ago"
    return f"{what} · updated {human_age(age)} ago"
