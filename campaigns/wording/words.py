"""The pieces every sentence is made of: what a stage means, how old something is, counts, quoted
messages, and campaigns as people name them. Pure functions of plain values, said in the active language."""

from __future__ import annotations

import re

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from core.contract import part_of

# How much of a raw error an archivist-facing sentence quotes; the detail keeps up to TEXT_LIMIT.
QUOTE_LIMIT = 300

# Each phrase completes "while ..." or stands after a volume's stage: what the volume was doing.
STAGE_WORDS = {
    "config": pgettext_lazy("what a volume is doing", "reading its settings"),
    "setup": pgettext_lazy("what a volume is doing", "reading the volume's IIIF manifest"),
    "resume": pgettext_lazy("what a volume is doing", "checking earlier results"),
    "load": pgettext_lazy("what a volume is doing", "loading models"),
    "stream": pgettext_lazy("what a volume is doing", "processing pages"),
    "verify": pgettext_lazy("what a volume is doing", "checking that every page has a result"),
    "publish": pgettext_lazy("what a volume is doing", "writing the final files"),
    "warmup": pgettext_lazy("what a volume is doing", "filling the model cache"),
    "done": pgettext_lazy("what a volume is doing", "all pages written, finishing"),
    "failed": pgettext_lazy("what a volume is doing", "stopped"),
}
UNKNOWN_STAGE = pgettext_lazy("what a volume is doing", "working on the volume")

# A duration's units, abbreviated as a clock or a timer shows them (the same in the singular and the plural).
UNITS = {
    "s": pgettext_lazy("a duration, abbreviated", "{count} s"),
    "min": pgettext_lazy("a duration, abbreviated", "{count} min"),
    "h": pgettext_lazy("a duration, abbreviated", "{count} h"),
    "d": pgettext_lazy("a duration, abbreviated", "{count} d"),
}


def stage_words(stage: str | None) -> str:
    """What a wrapper stage means in plain words; a general phrase for stages we do not know."""
    return str(STAGE_WORDS.get(stage or "", UNKNOWN_STAGE))


def in_units(count: int, unit: str) -> str:
    """A count of one duration unit (``s``, ``min``, ``h``, ``d``), abbreviated: ``12 s``, ``4 min``."""
    return UNITS[unit].format(count=count)


def human_age(seconds: float | None) -> str:
    """A short human duration: ``12 s``, ``4 min``, ``3 h``, ``2 d``."""
    if seconds is None:
        return _("an unknown time")
    seconds = max(0, int(seconds))
    if seconds < 60:
        return in_units(seconds, "s")
    if seconds < 3600:
        return in_units(seconds // 60, "min")
    if seconds < 86400 * 2:
        return in_units(seconds // 3600, "h")
    return in_units(seconds // 86400, "d")


def number(value: int) -> str:
    """A count as the active language writes it: ``12,345`` in English, ``12 345`` in Swedish."""
    return number_format(value, force_grouping=True)


def campaign_label(job_name: str) -> str:
    """A Job name as people know the campaign: ``poll-tax-1810-part2`` reads ``poll-tax-1810 (part 2)``
    (the part rule: ``core.contract.part_of``)."""
    part = part_of(job_name)
    if part is None:
        return job_name
    # Translators: a campaign split into parts; {campaign} is its name as written (poll-tax-1810), {part} the
    # number of this part: "poll-tax-1810 (part 2)".
    return _("{campaign} (part {part})").format(campaign=part[0], part=part[1])


def campaign_names(job_names: list[str], most: int = 5) -> str:
    """Campaign labels, each once, in order, at most ``most`` of them and "others"."""
    labels = list(dict.fromkeys(campaign_label(name) for name in job_names))
    text = ", ".join(labels[:most])
    if len(labels) <= most:
        return text
    # Translators: {campaigns} is a list of campaign names, separated by commas, that goes on with others.
    return pgettext("a list of campaigns cut short", "{campaigns} and others").format(campaigns=text)


_REQUEST_ID_RE = re.compile(r"\s*\(?\bRequest ID:\s*[^)\s]*\)?\.?", re.IGNORECASE)


def trimmed_message(text: str, limit: int) -> str:
    """An error message fit to quote: request ids dropped, cut after a whole sentence when one fits.

    A cut text ends with a single " (…)", so a sentence around it can still end with its own full stop.
    """
    text = " ".join(_REQUEST_ID_RE.sub(" ", text or "").split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    sentence_end = max(head.rfind(". "), head.rfind("; "))
    if sentence_end >= limit // 3:
        return head[:sentence_end] + " (…)"
    word_end = head.rfind(" ")
    cut = head[:word_end] if word_end >= limit // 2 else head[: limit - 4]
    return cut.rstrip(" .,;:") + " (…)"


def as_sentence(text: str) -> str:
    """Quoted words that end like a sentence, so the next sentence can follow them."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."
