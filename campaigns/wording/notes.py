"""A card's notes: what its page tally covers, the pages a finished campaign left failed, and the
volumes the person's account may not read (said once, not on every row)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.models import Volume, bounded
from campaigns.wording.quality import uncounted_words

RUNNING_ONLY, ANY_RUNNING, DONE = "running_only", "any_running", "done"  # what a page tally covers


def pages_caption(counted: int, eligible: int, forbidden: int, running_only: bool, any_running: bool) -> str:
    """Under the pages meter: the volumes its figures were added up from."""
    kind = RUNNING_ONLY if running_only else ANY_RUNNING if any_running else DONE
    if counted != eligible:
        return _counted_in(kind, counted, eligible, uncounted_words(counted, eligible, forbidden))
    if eligible == 1:
        return {
            RUNNING_ONLY: _("In the one running volume shown."),
            ANY_RUNNING: _("In the one volume done or running."),
            DONE: _("In the one volume done."),
        }[kind]
    if kind == RUNNING_ONLY:
        said = ngettext("In all {count} running volume shown.", "In all {count} running volumes shown.", eligible)
    elif kind == ANY_RUNNING:
        said = ngettext("In all {count} volume done or running.", "In all {count} volumes done or running.", eligible)
    else:
        said = ngettext("In all {count} volume done.", "In all {count} volumes done.", eligible)
    return said.format(count=eligible)


def _counted_in(kind: str, counted: int, eligible: int, uncounted: str) -> str:
    """``Counted in 2 of 5 volumes done; your account may not read 1 and 2 not read yet.``"""
    if kind == RUNNING_ONLY:
        said = ngettext(
            # Translators: {counted} of {count} volumes; {uncounted} says why the others are not counted ("your account
            # may not read 1 and 2 not read yet").
            "Counted in {counted} of {count} running volume shown; {uncounted}.",
            "Counted in {counted} of {count} running volumes shown; {uncounted}.",
            eligible,
        )
    elif kind == ANY_RUNNING:
        said = ngettext(
            # Translators: {counted} of {count} volumes; {uncounted} says why the others are not counted ("your account
            # may not read 1 and 2 not read yet").
            "Counted in {counted} of {count} volume done or running; {uncounted}.",
            "Counted in {counted} of {count} volumes done or running; {uncounted}.",
            eligible,
        )
    else:
        said = ngettext(
            # Translators: {counted} of {count} volumes; {uncounted} says why the others are not counted ("your account
            # may not read 1 and 2 not read yet").
            "Counted in {counted} of {count} volume done; {uncounted}.",
            "Counted in {counted} of {count} volumes done; {uncounted}.",
            eligible,
        )
    return said.format(counted=counted, count=eligible, uncounted=uncounted)


def failed_pages_note(found: list[tuple[Volume, int]]) -> str:
    """ "3 pages failed in C0074519; see its run log." for the pages a finished campaign left behind."""
    if not found:
        return ""
    pages = sum(count for _volume, count in found)
    if len(found) == 1:
        return ngettext(
            # Translators: {volume} is a volume's id (C0074519).
            "{count} page failed in {volume}; see its run log.",
            "{count} pages failed in {volume}; see its run log.",
            pages,
        ).format(count=pages, volume=bounded(found[0][0].id, 64))
    names = ", ".join(bounded(volume.id, 64) for volume, _count in found[:3])
    if len(found) > 3:
        # Translators: {names} are the first few volumes' ids (C0, C1, C2); more are left unnamed.
        names = _("{names} and others").format(names=names)
    return ngettext(
        # Translators: {count} pages failed in {volumes} volumes, named in {names} (C0, C1, C2 and others).
        "{count} page failed in {volumes} volumes ({names}); see their run logs.",
        "{count} pages failed in {volumes} volumes ({names}); see their run logs.",
        pages,
    ).format(count=pages, volumes=len(found), names=names)


def forbidden_note(refused: int, shown: int, below: bool = False) -> str:
    """Said once instead of on every row the person's account may not read.

    ``below``: the rows are a campaign page's table under the note, not a card's running volumes.
    """
    if not refused:
        return ""
    if refused == shown:
        if below:
            return _(
                "Your account may not read the results of the volumes below, so their progress, run logs and pages "
                "are not shown."
            )
        return _(
            "Your account may not read these volumes' results, so their progress, run logs and pages are not shown."
        )
    if below:
        return _(
            # Translators: {count} of the volumes listed below the note.
            "Your account may not read the results of {count} of the volumes below (marked “no access”), "
            "so their progress, run logs and pages are not shown."
        ).format(count=refused)
    return _(
        # Translators: {count} of the volumes on the card.
        "Your account may not read the results of {count} of these volumes (marked “no access”), "
        "so their progress, run logs and pages are not shown."
    ).format(count=refused)
