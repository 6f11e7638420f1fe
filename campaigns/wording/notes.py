"""A card's notes: what its page tally covers, the pages a finished campaign left failed, and the
volumes the person's account may not read (said once, not on every row)."""

from __future__ import annotations

from campaigns.models import Volume, bounded
from campaigns.wording.quality import uncounted_words

# What a page tally means to cover: (one volume, several volumes).
_TALLY_KINDS = {
    "running_only": ("running volume shown", "running volumes shown"),
    "any_running": ("volume done or running", "volumes done or running"),
    "done": ("volume done", "volumes done"),
}


def pages_caption(counted: int, eligible: int, forbidden: int, running_only: bool, any_running: bool) -> str:
    """Under the pages meter: the volumes its figures were added up from."""
    if running_only:
        one, several = _TALLY_KINDS["running_only"]
    else:
        one, several = _TALLY_KINDS["any_running" if any_running else "done"]
    if counted == eligible:
        return f"In the one {one}." if eligible == 1 else f"In all {eligible} {several}."
    return f"Counted in {counted} of {eligible} {several}; {uncounted_words(counted, eligible, forbidden)}."


def failed_pages_note(found: list[tuple[Volume, int]]) -> str:
    """"3 pages failed in C0074519; see its run log." for the pages a finished campaign left behind."""
    if not found:
        return ""
    pages = sum(count for _, count in found)
    noun = "page" if pages == 1 else "pages"
    if len(found) == 1:
        return f"{pages} {noun} failed in {bounded(found[0][0].id, 64)}; see its run log."
    names = ", ".join(bounded(volume.id, 64) for volume, _ in found[:3]) + (" and others" if len(found) > 3 else "")
    return f"{pages} {noun} failed in {len(found)} volumes ({names}); see their run logs."


def forbidden_note(refused: int, shown: int, below: bool = False) -> str:
    """Said once instead of on every row the person's account may not read.

    ``below``: the rows are a campaign page's table under the note, not a card's running volumes.
    """
    if not refused:
        return ""
    volumes = "the volumes below" if below else "these volumes"
    if refused == shown:
        return f"Your account may not read {volumes}' results, so their progress is not shown."
    return (
        f"Your account may not read the results of {refused} of {volumes} (marked “no access”), "
        "so their progress is not shown."
    )
