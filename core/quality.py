"""A volume's predicted page quality, as the contract writes it (contracts §4: ``quality`` in
``progress.json`` and ``manifest.json``): the scores a quality prediction step gives each page, from 0
to 1, the bands people read them in, and what each model ``target`` means. Pure, and below both apps:
the campaign cards and the run log's manifest summary read the same block the same way.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from django.utils.translation import gettext_lazy

# What a score means, by the `target` the quality model was trained to predict.
TARGET_WORDS = {
    "bow_f1": gettext_lazy("the expected bag-of-words F1, about the share of the page's words read right"),
    "f1": gettext_lazy("the expected F1 of the page's words, about the share read right"),
}
DEFAULT_TARGET_WORDS = gettext_lazy("the expected share of the page's text read right")


def target_words(target: str) -> str:
    """What a score of that target means, in the reader's language."""
    return str(TARGET_WORDS.get((target or "").strip().lower(), DEFAULT_TARGET_WORDS))


QUALITY_STEP = "qualityprediction"  # a pipeline step of this name (any case) predicts page quality
LOWEST_KEPT = 50  # a volume's `lowest` entries read at most
_PAGE_ID = re.compile(r"^\d{1,8}$")

# Bands for words beside each score, so a score never speaks through colour alone.
LOW_BELOW = 0.6
FAIR_BELOW = 0.8


def is_quality_step(name: str) -> bool:
    return (name or "").strip().lower() == QUALITY_STEP


def band(score: float | None) -> str:
    """A word for a score: "low", "fair" or "good" (empty when there is no score)."""
    if score is None:
        return ""
    if score < LOW_BELOW:
        return "low"
    if score < FAIR_BELOW:
        return "fair"
    return "good"


@dataclass(frozen=True)
class ScoredPage:
    page: str  # "0012"
    quality: float
    canvas: str = ""

    def as_api(self) -> dict:
        return {"page": self.page, "quality": self.quality, "canvas": self.canvas or None}


@dataclass(frozen=True)
class VolumeQuality:
    """A volume's ``quality`` block: scores of the pages scored so far."""

    mean: float | None
    min: float | None = None
    scored: int | None = None  # None when the writer did not say how many pages it scored
    model: str = ""
    revision: str = ""
    target: str = ""
    lowest: tuple[ScoredPage, ...] = ()

    @property
    def band(self) -> str:
        return band(self.mean)

    @property
    def min_band(self) -> str:
        return band(self.min)

    def as_api(self) -> dict:
        return {
            "mean": self.mean,
            "min": self.min,
            "scored": self.scored,
            "model": self.model or None,
            "revision": self.revision or None,
            "target": self.target or None,
            "lowest": [page.as_api() for page in self.lowest],
        }


def _score(value) -> float | None:
    """A score from 0 to 1, rounded to 3 places; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0 or value > 1:
        return None
    return round(float(value), 3)


def _text(value, limit: int) -> str:
    if not isinstance(value, str):
        return ""
    value = value.strip()
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _count(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return max(0, value)


def _lowest(entries) -> tuple[ScoredPage, ...]:
    if not isinstance(entries, list):
        return ()
    pages = []
    for entry in entries[:LOWEST_KEPT]:
        if not isinstance(entry, dict):
            continue
        page = entry.get("page")
        page = str(page) if isinstance(page, str | int) and not isinstance(page, bool) else ""
        score = _score(entry.get("quality"))
        if not _PAGE_ID.match(page) or score is None:
            continue
        pages.append(ScoredPage(page.zfill(4), score, _text(entry.get("canvas"), 500)))
    return tuple(sorted(pages, key=lambda p: (p.quality, len(p.page), p.page)))


def volume_quality(raw) -> VolumeQuality | None:
    """The ``quality`` of a ``progress.json`` (or ``manifest.json``), or None when it holds no score.

    Defensive like the rest of progress: odd values are left out, never an error. A bare number is
    taken as the mean of an unknown number of pages.
    """
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        mean = _score(raw)
        return VolumeQuality(mean) if mean is not None else None
    if not isinstance(raw, dict):
        return None
    mean = _score(raw.get("mean"))
    lowest = _lowest(raw.get("lowest"))
    if mean is None and not lowest:
        return None
    smallest = _score(raw.get("min"))
    if smallest is None and lowest:
        smallest = lowest[0].quality
    return VolumeQuality(
        mean=mean,
        min=smallest,
        scored=_count(raw.get("scored")),
        model=_text(raw.get("model"), 200),
        revision=_text(raw.get("revision"), 80),
        target=_text(raw.get("target"), 40),
        lowest=lowest,
    )


# --- a campaign ---------------------------------------------------------------------------------
