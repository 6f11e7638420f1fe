"""Predicted recognition quality: per volume from its ``progress.json``, per campaign from its volumes.

A pipeline with a quality prediction step scores every page it reads, from 0 to 1 (contracts §4:
``quality`` in ``progress.json`` and ``manifest.json``). The scores are a model's prediction, not a
measurement; archivists use the lowest ones to choose the pages a person should check.

Pure: nothing here reads the cluster or the store. ``volume_quality`` parses what a volume wrote,
``campaign_quality`` adds up the volumes whose progress a request read, and ``pages_to_check``
pages through the campaign's worst pages. Links to the ALTO viewer are made by a function the
caller may pass (the default builds the site's own ``/alto?src=…`` address). What the figures mean
in words is in ``campaigns.wording.quality``, which templates reach through the ``campaign_text``
filters when a page is rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from core.quality import (
    VolumeQuality,
    band,
    is_quality_step,
)
from results.store.keys import url_for_key

WORST_ON_CARD = 5
CHECK_PAGE = 20  # pages to check shown per page of that list


def alto_href(volume, page: str) -> str:
    """The ALTO viewer on one page of a volume, through this site's results address."""
    return "/alto?" + urlencode({"src": url_for_key(f"{volume.alto_prefix}{page}.xml")})


def iiif_url(volume) -> str:
    return url_for_key(volume.iiif_key)


@dataclass(frozen=True)
class PageToCheck:
    volume_id: str
    volume_index: int
    page: str
    quality: float
    canvas: str
    href: str  # the ALTO viewer on this page
    iiif_url: str = ""

    @property
    def band(self) -> str:
        return band(self.quality)

    def as_api(self) -> dict:
        return {
            "volume": self.volume_id,
            "page": self.page,
            "quality": self.quality,
            "canvas": self.canvas or None,
            "iiifUrl": self.iiif_url or None,
        }


@dataclass
class CampaignQuality:
    """The quality of a campaign's pages as far as its volumes' progress was read."""

    predicted: bool  # the pipeline has a quality prediction step
    mean: float | None = None  # weighted by scored pages
    min: float | None = None
    scored: int = 0  # pages scored, in the volumes read
    volumes: int = 0  # volumes with a score
    counted: int = 0  # volumes whose progress was read
    eligible: int = 0  # volumes meant (running or done)
    forbidden: int = 0  # volumes the person's account may not read
    model: str = ""
    revision: str = ""
    target: str = ""
    pages: list[PageToCheck] = field(default_factory=list)  # each volume's lowest pages, lowest first

    @property
    def worst(self) -> list[PageToCheck]:
        return self.pages[:WORST_ON_CARD]

    @property
    def band(self) -> str:
        return band(self.mean)

    def as_api(self) -> dict:
        return {
            "mean": self.mean,
            "min": self.min,
            "scored": self.scored,
            "volumes": self.volumes,
            "lowest": [page.as_api() for page in self.worst],
            # additions of this project
            "model": self.model or None,
            "revision": self.revision or None,
            "target": self.target or None,
            "predicted": self.predicted,
            "volumesRead": {"counted": self.counted, "of": self.eligible},
        }


def quality_step(steps) -> object | None:
    return next((step for step in steps if is_quality_step(getattr(step, "name", ""))), None)


def campaign_quality(
    campaign,
    volumes: Iterable,
    answers: Callable[[object], object],
    link: Callable[[object, str], str] = alto_href,
    iiif: Callable[[object], str] = iiif_url,
) -> CampaignQuality | None:
    """Quality over ``volumes`` (running and done ones); ``answers(volume)`` gives its progress answer.

    None when the pipeline has no quality step and no volume read reports a score: such a
    campaign says nothing about quality.
    """
    step = quality_step(campaign.pipeline_steps)
    result = CampaignQuality(predicted=step is not None)
    if step is not None:
        result.model, result.revision = step.model, step.revision
    weighted = 0.0
    for volume in volumes:
        result.eligible += 1
        answer = answers(volume)
        progress = getattr(answer, "progress", None)
        if progress is None:
            result.forbidden += bool(getattr(answer, "forbidden", False))
            continue
        result.counted += 1
        quality = progress.quality
        if not isinstance(quality, VolumeQuality):
            continue
        result.volumes += 1
        if quality.mean is not None and quality.scored:
            weighted += quality.mean * quality.scored
            result.scored += quality.scored
        if quality.min is not None:
            result.min = quality.min if result.min is None else min(result.min, quality.min)
        result.model = result.model or quality.model
        result.revision = result.revision or quality.revision
        result.target = result.target or quality.target
        for page in quality.lowest:
            result.pages.append(
                PageToCheck(
                    volume.id, volume.index, page.page, page.quality, page.canvas, link(volume, page.page), iiif(volume)
                )
            )
    if not result.predicted and not result.volumes:
        return None
    result.mean = round(weighted / result.scored, 3) if result.scored else None
    result.pages.sort(key=lambda p: (p.quality, p.volume_index, p.page))
    return result


# --- the campaign page's list of pages to check --------------------------------------------------


@dataclass
class Checklist:
    pages: list[PageToCheck]
    total: int
    offset: int
    next_offset: int | None
    previous_offset: int | None

    @property
    def first_number(self) -> int:
        return self.offset + 1

    @property
    def last_number(self) -> int:
        return self.offset + len(self.pages)


def pages_to_check(
    quality: CampaignQuality | None, offset_text: str | None, size: int = CHECK_PAGE
) -> Checklist | None:
    """One page of the campaign's worst pages, lowest first; None when the campaign has no quality."""
    if quality is None:
        return None
    try:
        offset = int(offset_text or 0)
    except (TypeError, ValueError):
        offset = 0
    total = len(quality.pages)
    offset = max(0, min(offset, max(0, total - 1)))
    offset -= offset % size
    return Checklist(
        pages=quality.pages[offset : offset + size],
        total=total,
        offset=offset,
        next_offset=offset + size if offset + size < total else None,
        previous_offset=max(0, offset - size) if offset else None,
    )
