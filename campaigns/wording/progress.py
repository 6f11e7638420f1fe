"""A running volume's progress line, and what a card or row says when the results store answered otherwise.

The outcomes are those of ``campaigns.store.progress`` (the results store's own, ``results.store.outcomes``, and
a few of the progress reader's); they are spelled out here so wording needs nothing but the models.
"""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from campaigns.models import Progress
from campaigns.wording.words import human_age, stage_words

# A running volume whose progress has not moved for this long reads as "no page finished for ...".
STALE_PROGRESS_SECONDS = 600

# Said once for a whole card, by the first outcome that keeps its progress from being read ("reading":
# none did, but some reads were not answered within the page's wait and go on behind it).
# The sentences are lazy: said in the reader's language when a card is rendered.
CARD_SENTENCES = {
    "no_session": gettext_lazy("Log in with your store account to see how far each running volume has got."),
    "session_ended": gettext_lazy("Your results login has ended, so progress cannot be read; log in again to see it."),
    # Translators: S3_ENDPOINT is a setting's name, kept as it is.
    "unreachable": gettext_lazy(
        "The results store could not be reached, so progress is not shown; the volume states above come "
        "from the cluster and are current. If it lasts, an operator should check S3_ENDPOINT and that the "
        "network policy lets the results proxy reach the store."
    ),
    # Translators: S3_ENDPOINT and S3_VERIFY_TLS are settings' names, kept as they are.
    "tls": gettext_lazy(
        "This site could not open a secure connection to the results store (its certificate was not accepted), "
        "so progress is not shown; the volume states above are current. An operator has to check S3_ENDPOINT "
        "and the store's certificate, or S3_VERIFY_TLS if the store uses a certificate of its own."
    ),
    "store_fault": gettext_lazy(
        "The results store reported a fault of its own, so progress is not shown; it is asked again shortly "
        "and the volume states above are current. If it lasts, an operator has to look at the store."
    ),
    "timeout": gettext_lazy(
        "The results store did not answer in time, so some progress is missing; it is asked again shortly."
    ),
    "no_reason": gettext_lazy(
        "The results store refused without giving a reason, so progress is not shown; the bucket or "
        "namespace may be configured wrongly."
    ),
    "reading": gettext_lazy(
        "The results store is slow to answer, so some progress is not known yet; it appears here by itself "
        "as the store answers."
    ),
}
# Said on one volume's row.
VOLUME_SENTENCES = {
    "forbidden": gettext_lazy("Your account may not read this volume."),
    "not_found": gettext_lazy("No progress written yet."),
    "unreadable": gettext_lazy("Its progress file could not be read."),
    "not_asked": gettext_lazy("Progress not read on this page; open the campaign to see it."),
    "reading": gettext_lazy("Progress not known yet: the results store is still answering."),
}
# A running volume's row when nothing at all is known of its progress.
PROGRESS_NOT_KNOWN = gettext_lazy("Progress not known yet.")


def progress_sentence(progress: Progress | None, now: datetime | None = None) -> str:
    """``processing pages · progress written under a minute ago``, then in whole minutes (``… 4 min ago``);
    stale or missing progress is said so.

    Worded coarsely on purpose: a card whose line said "updated 12 s ago" changed at every poll of
    every tab, so each poll sent every card again though nothing a person cares about had moved.
    When the update time and `now` are known the age is counted in minutes of the clock (from
    09:58:50 to 10:00:10 is 2 min), so every row of every card turns at the same moment, once a
    minute, whatever second each volume last wrote in (a progress read kept for a while would
    otherwise also go on saying the age it had when it was read)."""
    if progress is None:
        return _("no progress reported yet")
    age = progress.age_seconds
    if progress.updated_at is not None and now is not None:
        age = 60.0 * max(0, int(now.timestamp() // 60) - int(progress.updated_at.timestamp() // 60))
    what = stage_words(progress.stage)
    if age is None:
        return what
    # Said as the progress file it is (written on every page and stage change), never as "updated": the log
    # viewer's age is the run log's, written every 15 s, so "no update for 1 h" beside "live · updated 353 s
    # ago" for the same volume would read as a contradiction.
    if progress.stage not in ("done", "failed") and age >= STALE_PROGRESS_SECONDS:
        # Translators: {stage} says what the volume is doing ("processing pages"); {age} is a duration (12 min).
        return _("{stage} · no page finished for {age}").format(stage=what, age=human_age(age))
    if age < 60:
        # Translators: {stage} says what the volume is doing ("processing pages").
        return _("{stage} · progress written under a minute ago").format(stage=what)
    # Translators: {stage} says what the volume is doing ("processing pages"); {age} is a duration (4 min).
    return _("{stage} · progress written {age} ago").format(stage=what, age=human_age(age))


def forbidden_detail(bucket: str, refused_keys: list[str], prefix: str) -> str:
    """The operator's account of progress the store refused the person's account: what it refused (the first
    object's key) and the permission that would allow it, ``s3:GetObject`` on ``<bucket>/<prefix>*``; ``prefix``
    is the volume's own for one volume, the campaign's for several. The archivist's words stay those above."""
    if not refused_keys or not prefix:
        return ""
    names = {"object": refused_keys[0], "bucket": bucket or "(S3_BUCKET)", "prefix": prefix, "count": len(refused_keys)}
    if len(refused_keys) == 1:
        said = _(
            # Translators: {object} is an object's key in the store, {bucket} the bucket's name, {prefix} a key prefix;
            # s3:GetObject is a permission's name, kept as it is.
            "The results store refused your account s3:GetObject on {object} in bucket {bucket}. An account reads a "
            "volume's progress with `s3:GetObject` on `{bucket}/{prefix}*`."
        )
    else:
        said = ngettext(
            # Translators: {count} volumes refused, the first one's key {object}; {bucket} is the bucket's name,
            # {prefix} a key prefix; s3:GetObject is a permission's name, kept as it is.
            "The results store refused your account s3:GetObject on the progress of {count} volume, the first "
            "{object} in bucket {bucket}. An account reads this campaign's results with `s3:GetObject` on "
            "`{bucket}/{prefix}*`.",
            "The results store refused your account s3:GetObject on the progress of {count} volumes, the first "
            "{object} in bucket {bucket}. An account reads this campaign's results with `s3:GetObject` on "
            "`{bucket}/{prefix}*`.",
            len(refused_keys),
        )
    return said.format_map(names)
