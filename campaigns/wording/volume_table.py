"""The words of the volume table taken away (CSV, the read API): its column headers in the reader's language,
and the sentence said beside a row whose figures could not be read, or of a download whose budget ran out.

Values stay codes (states, finding codes, where the figures came from), so a spreadsheet can sort and filter
them in any language; only what a person reads as words is said here.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

# Column -> its header. The order is the file's.
COLUMNS = (
    ("index", pgettext_lazy("volume table column", "Index")),
    ("id", pgettext_lazy("volume table column", "Volume")),
    ("state", pgettext_lazy("volume table column", "State")),
    ("retrying", pgettext_lazy("volume table column", "Retrying")),
    ("pages", pgettext_lazy("volume table column", "Pages")),
    ("pages_done", pgettext_lazy("volume table column", "Pages done")),
    ("pages_failed", pgettext_lazy("volume table column", "Failed pages")),
    ("mean_confidence", pgettext_lazy("volume table column", "Mean confidence")),
    ("updated_at", pgettext_lazy("volume table column", "Last update")),
    ("findings", pgettext_lazy("volume table column", "Finding code")),
    ("figures_from", pgettext_lazy("volume table column", "Figures from")),
    ("note", pgettext_lazy("volume table column", "Note")),
)

# Why a row has no figures, by the code in its "figures from" column.
NOTES = {
    "over_budget": gettext_lazy("Not read: this download had read the store as much as one download may."),
    "forbidden": gettext_lazy("Your store account may not read this volume."),
    "not_found": gettext_lazy("The store has no record of this volume's pages yet."),
    "unreadable": gettext_lazy("The volume's record could not be read."),
    "unreachable": gettext_lazy("The results store could not be reached."),
    "timeout": gettext_lazy("The results store did not answer in time."),
    "session_ended": gettext_lazy("The results store no longer accepts your login; log in again."),
}
NOT_READ = gettext_lazy("The results store could not read this volume's record.")


def headers() -> list[str]:
    return [str(header) for _name, header in COLUMNS]


def note(source: str) -> str:
    """The sentence beside a row whose figures come from ``source`` ('' for a row that has them or needs none)."""
    if source in ("manifest.json", "progress.json", "not_started"):
        return ""
    return str(NOTES.get(source, NOT_READ))


def cut_short(not_read: int, reads: int, seconds: float) -> str:
    """The sentence of a table whose budget ran out before every volume was read."""
    return ngettext(
        # Translators: {count} is a number of volumes, {reads} a number of store reads, {seconds} seconds.
        "Cut short: {count} volume was not read, because one download reads the store at most {reads} times "
        "and for at most {seconds} seconds. Its figures are empty; download again later, or read it on its page.",
        "Cut short: {count} volumes were not read, because one download reads the store at most {reads} times "
        "and for at most {seconds} seconds. Their figures are empty; download again later, or read them on "
        "their pages.",
        not_read,
    ).format(count=not_read, reads=reads, seconds=round(seconds))
