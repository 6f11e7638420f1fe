"""The volume page's own sentences: since when a volume is in its state, how each attempt stands or
ended, what the page cannot show. Its state and failure are said by the row's words
(``campaigns.wording.volumes``), never a second time here.
"""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from core import times

# Attempt outcomes (campaigns.domain.projection.attempts' codes), said in a few words.
_OUTCOMES = {
    "running": lambda: pgettext("attempt outcome", "running now"),
    "waiting": lambda: pgettext("attempt outcome", "waiting to start"),
    "succeeded": lambda: pgettext("attempt outcome", "finished"),
    "failed": lambda: pgettext("attempt outcome", "failed"),
    "unknown": lambda: pgettext("attempt outcome", "not known"),
}


def outcome_words(outcome: str) -> str:
    """How one attempt stands or ended, in a few words."""
    return (_OUTCOMES.get(outcome) or _OUTCOMES["unknown"])()


def since_sentence(state: str, at: datetime | None, now: datetime) -> str:
    """Since when the volume is in its state, or "" when nothing says."""
    if at is None:
        return ""
    moment = times.moment(at, now)
    if state == "active":
        # Translators: {moment} is a time said in the reader's zone (today 14:02, 3 Dec 09:15).
        return _("Its current attempt started {moment}.").format(moment=moment)
    if state == "done":
        # Translators: {moment} is a time said in the reader's zone.
        return _("Finished {moment}.").format(moment=moment)
    if state == "failed":
        # Translators: {moment} is a time said in the reader's zone.
        return _("Its last attempt stopped {moment}.").format(moment=moment)
    # Translators: {moment} is a time said in the reader's zone; the volume waits to run (again) since then.
    return _("Waiting since {moment}.").format(moment=moment)


def attempts_not_held(count: int) -> str:
    """Earlier attempts the cluster has removed: only their count, the status record and the run log tell."""
    if count <= 0:
        return ""
    return ngettext(
        "{count} earlier attempt is no longer held by the cluster; the status record and the run log below tell "
        "what is known of it.",
        "{count} earlier attempts are no longer held by the cluster; the status record and the run log below "
        "tell what is known of them.",
        count,
    ).format(count=count)


def no_attempts_held(state: str) -> str:
    """Why the list of attempts is empty."""
    if state == "pending":
        return _("No pod has run this volume yet.")
    if state == "done":
        return _("The cluster no longer holds the pod that finished this volume; the run log tells how it went.")
    return _("The cluster holds no pod of this volume now.")


def volume_not_found(volume: str, campaign: str) -> str:
    # Translators: {volume} is a volume's id as asked for in the address, {campaign} a campaign's name.
    return _("Campaign {campaign} has no volume {volume}. Its page lists the volumes it has.").format(
        volume=volume, campaign=campaign
    )


def progress_refused() -> str:
    return _("Your store account may not read this volume's results, so its pages, run log and quality are not "
             "shown.")


def log_unread(reason: str) -> str:
    # Translators: {reason} is a sentence saying why the store did not give the run log.
    return _("The run log's end is not shown: {reason}").format(reason=reason)


def page_label(page: str, status: str, quality: str) -> str:
    """A page tile's accessible name: its number, how it ended and its confidence when scored."""
    if status == "failed":
        # Translators: a page's tile on the volume page; {page} is its number (0012).
        return _("Page {page}: failed").format(page=page)
    if status == "pending":
        # Translators: {page} is a page's number; it has not been processed yet.
        return _("Page {page}: not processed yet").format(page=page)
    if quality:
        # Translators: {page} is a page's number, {quality} its predicted quality said in words (high, low).
        return _("Page {page}: done, confidence {quality}").format(page=page, quality=quality)
    # Translators: {page} is a page's number.
    return _("Page {page}: done").format(page=page)


def pages_not_listed(shown: int, total: int) -> str:
    # Translators: {shown} and {total} count a volume's pages; the strip shows only the first ones.
    return _("The strip shows the first {shown} of {total} pages.").format(shown=shown, total=total)


def rerun_entry(file_name: str) -> str:
    # Translators: {file} is a campaign file's name (parish-records-1870-rerun-1.yaml).
    return _("This volume is in the re-run file {file}:").format(file=file_name)

