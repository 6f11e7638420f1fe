"""The pieces every sentence is made of: what a stage means, how old something is, counts, quoted
messages, and campaigns as people name them. Pure functions of plain values."""

from __future__ import annotations

import re

from core.contract import part_of

# How much of a raw error an archivist-facing sentence quotes; the detail keeps up to TEXT_LIMIT.
QUOTE_LIMIT = 300

STAGE_WORDS = {
    "config": "reading its settings",
    "setup": "reading the volume's IIIF manifest",
    "resume": "checking earlier results",
    "load": "loading models",
    "stream": "processing pages",
    "verify": "checking that every page has a result",
    "publish": "writing the final files",
    "warmup": "filling the model cache",
    "done": "all pages written, finishing",
    "failed": "stopped",
}


def stage_words(stage: str | None) -> str:
    """What a wrapper stage means in plain words; a general phrase for stages we do not know."""
    if not stage:
        return "working on the volume"
    return STAGE_WORDS.get(stage, "working on the volume")


def human_age(seconds: float | None) -> str:
    """A short human duration: ``12 s``, ``4 min``, ``3 h``, ``2 d``."""
    if seconds is None:
        return "an unknown time"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400 * 2:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def number(value: int) -> str:
    """A count as the site writes it: ``12,345``."""
    return f"{value:,}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def campaign_label(job_name: str) -> str:
    """A Job name as people know the campaign: ``poll-tax-1810-part2`` reads ``poll-tax-1810 (part 2)``
    (the part rule: ``core.contract.part_of``)."""
    part = part_of(job_name)
    if part is None:
        return job_name
    return f"{part[0]} (part {part[1]})"


def campaign_names(job_names: list[str], most: int = 5) -> str:
    """Campaign labels, each once, in order, at most ``most`` of them and "others"."""
    labels = list(dict.fromkeys(campaign_label(name) for name in job_names))
    text = ", ".join(labels[:most])
    return text + (" and others" if len(labels) > most else "")


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


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text
