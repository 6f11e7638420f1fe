"""The volume page: one volume's story, assembled from what the view read (the reading's pods, the
volume's progress, its manifest when done, its run log's end). Reads nothing itself.

Every sentence the campaign's card and rows say of the volume is the same here: the row
(``cards.volume_row``), its sentence (``wording.volumes``), the findings about it (``volume_said``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse

from campaigns.domain import rerun
from campaigns.domain.projection.attempts import FAILED, Attempt
from campaigns.models import Campaign, Sentence, Volume
from campaigns.presentation.cards import VolumeRow, result_url
from campaigns.presentation.volume_said import volume_said
from campaigns.templatetags.vocabulary import band_word
from campaigns.wording import volume_page as words
from campaigns.wording.reasons import reason_sentence
from campaigns.wording.volumes import volume_sentence
from core.contract import LABEL_COMPLETION_INDEX
from core.kubectl import job_pods, kubectl
from core.quality import band

PAGES_IN_STRIP = 500  # tiles a page shows at most (a huge volume's other pages are one click into the viewer)
LOG_LINES_SHOWN = 40
STORY_KINDS = ("retry", "failed", "finished", "resume")  # run log lines that tell of attempts


def optional_url(name: str, *args) -> str | None:
    """The address of a view that may not be there (another piece of the site): None when it is not."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def volume_url(campaign: Campaign, volume: Volume) -> str:
    return reverse("campaign_volume", args=[campaign.namespace, campaign.name, volume.id])


@dataclass
class AttemptShown:
    number: int
    attempt: Attempt
    outcome: str
    said: Sentence | None  # why it stopped, when it failed (and the page's own sentence does not say it)
    told_above: bool = False  # the newest failure: the page's sentence at the top says why, once


@dataclass
class PageTile:
    id: str
    status: str  # ok, failed, skipped, pending, unknown
    quality: float | None
    band: str
    label: str
    alto_url: str
    picture: str = ""  # a small picture of the page (its IIIF thumbnail), when the volume's iiif.json gives one


@dataclass
class VolumePage:
    campaign: Campaign
    volume: Volume
    row: VolumeRow
    said: Sentence
    findings: list[Sentence]
    since: str
    attempts: list[AttemptShown]
    attempts_note: str
    record_reason: str
    commands: list[str]
    tiles: list[PageTile] = field(default_factory=list)
    tiles_note: str = ""
    log_lines: list = field(default_factory=list)
    log_story: list = field(default_factory=list)
    log_note: str = ""
    rerun_entry: str = ""
    rerun_file: str = ""
    iiif_href: str = ""
    text_href: str | None = None
    alto_zip_href: str | None = None
    quality: object = None
    progress_note: str = ""

    @property
    def live(self) -> bool:
        return self.volume.may_still_run


def _since(volume: Volume, attempts: list[Attempt], progress, now: datetime) -> str:
    at = None
    if volume.state == "active" and attempts:
        at = attempts[-1].started_at
    elif volume.state == "done" and progress is not None:
        at = progress.updated_at
    elif volume.reason is not None:
        at = volume.reason.finished_at or (attempts[-1].ended_at if attempts else None)
    return words.since_sentence(volume.state, at, now)


def _attempts(volume: Volume, attempts: list[Attempt]) -> tuple[list[AttemptShown], str]:
    """The attempts held, numbered after those the cluster no longer holds."""
    failed_held = sum(1 for a in attempts if a.outcome == FAILED)
    gone = max(0, volume.attempts - failed_held)
    newest_pod = volume.reason.pod_name if volume.reason is not None else ""
    shown = []
    failed_so_far = gone  # the attempts the cluster no longer holds failed before those it holds
    for position, attempt in enumerate(attempts):
        said, told_above = None, False
        failed_so_far += attempt.outcome == FAILED
        if attempt.outcome == FAILED and attempt.reason is not None:
            if newest_pod and attempt.reason.pod_name == newest_pod:
                told_above = True  # the row's sentence, already at the top of the page
            else:
                # Said as it stood after this attempt: "2 of 4 attempts failed so far", not the volume's count now.
                then = replace(volume, attempts=failed_so_far)
                said = reason_sentence(attempt.reason, final=False, volume=then, namespace=volume.namespace)
        shown.append(
            AttemptShown(gone + position + 1, attempt, words.outcome_words(attempt.outcome), said, told_above)
        )
    note = words.attempts_not_held(gone)
    if not attempts:
        note = " ".join(s for s in (words.no_attempts_held(volume.state), note) if s)
    return shown, note


def _record_reason(campaign: Campaign, volume: Volume) -> str:
    for part in campaign.part_states:
        for volume_id, reason in part.failed_volumes:
            if volume_id == volume.id:
                return reason
    return ""


def volume_commands(campaign: Campaign, volume: Volume, said: Sentence) -> list[str]:
    """The operator's kubectl lines for this volume alone: its sentence's own, then its pods and their logs."""
    ns = campaign.namespace
    job = volume.job or campaign.name
    commands = list(said.commands)
    selector = f"{job_pods(job)},{LABEL_COMPLETION_INDEX}={volume.index}"
    commands.append(kubectl("get", "pods", "-l", selector, "-o", "wide", namespace=ns))
    if volume.reason is not None and volume.reason.pod_name:
        commands.append(kubectl("describe", "pod", volume.reason.pod_name, namespace=ns))
        commands.append(kubectl("logs", volume.reason.pod_name, "-c", "wrapper", "--tail=100", namespace=ns))
    else:
        commands.append(kubectl("logs", "-l", selector, "-c", "wrapper", "--tail=100", namespace=ns))
    return list(dict.fromkeys(commands))


def _tiles(volume: Volume, summary: dict | None, progress, pictures: dict[int, str]) -> tuple[list[PageTile], str]:
    """One tile per page: from the manifest when the volume is done, else the pages its progress counts."""
    alto = volume.alto_prefix
    pages: list[tuple[str, str, float | None]] = []
    total = 0
    if summary and summary.get("pages"):
        total = summary.get("pages_total") or len(summary["pages"])
        pages = [(p["id"], p["status"], p["quality"]) for p in summary["pages"]]
    elif progress is not None and progress.total:
        total = progress.total
        failed_page = str((progress.last_error or {}).get("page") or "")
        width = max(4, len(str(progress.total)))
        for number in range(1, progress.total + 1):
            page = f"{number:0{width}d}"
            status = "ok" if number <= progress.done else "pending"
            if page == failed_page:
                status = "failed"
            pages.append((page, status, None))
    tiles = []
    for page, status, quality in pages[:PAGES_IN_STRIP]:
        page_band = band(quality)
        linked = status in ("ok", "failed")
        href = "/alto?" + urlencode({"src": result_url(f"{alto}{page}.xml")}) if linked else ""
        label = words.page_label(page, status, str(band_word(page_band)) if page_band else "")
        picture = pictures.get(int(page)) if page.isdigit() else ""
        tiles.append(PageTile(page, status, quality, page_band, label, href, picture or ""))
    note = words.pages_not_listed(PAGES_IN_STRIP, total) if total > PAGES_IN_STRIP else ""
    return tiles, note


def _rerun(campaign: Campaign, volume: Volume, plan) -> tuple[str, str]:
    """The volume's lines in the campaign's re-run file, and the sentence naming the file."""
    if plan is None:
        return "", ""
    entry = next((e for e in plan.entries if e.volume.id == volume.id), None)
    if entry is None:
        return "", ""
    single = rerun.RerunPlan(campaign=campaign, file_name=plan.file_name, pipeline=plan.pipeline, entries=[entry])
    text = rerun.campaign_file(single)
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if volume.id in line and line.lstrip().startswith("-")), 0)
    return "\n".join(lines[start:]), words.rerun_entry(plan.path)


def build_volume_page(
    campaign: Campaign,
    volume: Volume,
    row: VolumeRow,
    attempts: list[Attempt],
    now: datetime,
    *,
    summary: dict | None = None,
    log_lines: list | None = None,
    log_note: str = "",
    rerun_plan=None,
    pictures: dict[int, str] | None = None,
) -> VolumePage:
    said = volume_sentence(volume)
    findings = [s for s in volume_said(campaign, volume.id) if s.text != said.text]
    progress = row.progress.progress if row.progress is not None else None
    shown, note = _attempts(volume, attempts)
    tiles, tiles_note = _tiles(volume, summary if summary and "problem" not in summary else None, progress,
                               pictures or {})
    lines = list(log_lines or [])
    entry, entry_file = _rerun(campaign, volume, rerun_plan)
    quality = (summary or {}).get("quality") or (progress.quality if progress is not None else None)
    page = VolumePage(
        campaign=campaign,
        volume=volume,
        row=row,
        said=said,
        findings=findings,
        since=_since(volume, attempts, progress, now),
        attempts=shown,
        attempts_note=note,
        record_reason=_record_reason(campaign, volume),
        commands=volume_commands(campaign, volume, said),
        tiles=tiles,
        tiles_note=tiles_note,
        log_lines=lines[-LOG_LINES_SHOWN:],
        log_story=[line for line in lines if line.kind in STORY_KINDS],
        log_note=log_note,
        rerun_entry=entry,
        rerun_file=entry_file,
        iiif_href=result_url(volume.iiif_key) if volume.state == "done" else "",
        quality=quality,
        progress_note=words.progress_refused() if row.progress is not None and row.progress.forbidden else "",
    )
    if volume.state == "done":
        args = (campaign.namespace, campaign.name, volume.id)
        page.text_href = optional_url("volume_text", *args)
        page.alto_zip_href = optional_url("volume_alto_zip", *args)
    return page
