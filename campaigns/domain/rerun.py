"""Pure: a campaign with failed volumes -> a ready campaign file that runs them again, and what applying it does.

Campaigns are append-only, so a failed volume runs again only in a new campaign file. This module writes
that file (``campaigns/<name>-rerun-<n>.yaml``): the same pipeline (or another id a person names), the
failed volumes with the entries the campaign record's ``volumes.txt`` holds for them, and the priority
and window carried over. It also works out what an apply will do with it, and which failures will
repeat until their cause is fixed (campaigns.wording.rerun says both in the reader's language).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from campaigns.models import Campaign, Volume
from core.text import escape_unsafe, reveal_invisible

PIPELINE_ID_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$")
_RERUN_NAME_RE = re.compile(r"^(?P<stem>.+)-rerun-(?P<n>\d{1,6})$")
SOURCE_LIMIT = 4000  # projection.parse_volumes_txt keeps this many characters of a source
REASON_COMMENT_LIMIT = 100

# Failure classes (VolumeReason.kind) a re-run repeats until someone fixes the cause, in the order a
# person should read them: the permanent ones first (campaigns.wording.rerun says what to fix).
MUST_FIX_FIRST = ("config", "setup_permanent", "permanent", "warmup_marker")
# Classes a re-run may repeat: worth a look before applying.
MAY_REPEAT = ("oom", "deadline")

# The file's own comments: the campaign file is YAML for htrflow-batch and git, written in English like its keys
# (the page says the same in the reader's language).
_FILE_NOTES = {
    "config": "the batch settings were incomplete",
    "setup_permanent": "the volume's IIIF manifest could not be read",
    "permanent": "the volume stopped for good",
    "warmup_marker": "the model cache was not ready",
}
_LEFT_OUT_NOTES = {
    "no_line": "the campaign record holds no readable line for it",
    "too_long": "its line in the campaign record is too long to be copied here; copy it from volumes.txt",
    "no_images": "its line in the campaign record lists no images",
    "spaces": "its manifest address in the campaign record contains spaces",
}


class RerunRefused(ValueError):
    """A re-run file cannot be written as asked, or a volume cannot be put in it; ``code`` says why (one of
    ``pipeline_id``, ``no_line``, ``too_long``, ``no_images``, ``spaces``; campaigns.wording.rerun words it)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Entry:
    """One failed volume as the campaign file lists it: a manifest address or a list of images."""

    volume: Volume
    manifest: str = ""
    images: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.volume.id


@dataclass
class RerunPlan:
    campaign: Campaign
    file_name: str  # campaign file stem, e.g. parish-records-1870-rerun-1
    pipeline: str
    entries: list[Entry] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (volume id, RerunRefused code)
    window: int | None = None

    @property
    def path(self) -> str:
        return f"campaigns/{self.file_name}.yaml"

    @property
    def count(self) -> int:
        return len(self.entries)


def failed_volumes(campaign: Campaign) -> list[Volume]:
    """The campaign's volumes that have failed for good, in index order."""
    return sorted((v for v in campaign.volumes if v.state == "failed"), key=lambda v: v.index)


def entry_for(volume: Volume) -> Entry:
    """The campaign-file entry of a ``volumes.txt`` line: ``images:<url> <url> …`` (older renders used
    commas) or a manifest address. Raises RerunRefused when the line cannot be written back faithfully."""
    source = volume.source.strip()
    if volume.malformed or not source:
        raise RerunRefused("no_line")
    if len(source) >= SOURCE_LIMIT - 1 and source.endswith("…"):
        raise RerunRefused("too_long")
    if source.startswith("images:"):
        images = tuple(part for part in re.split(r"[\s,]+", source.removeprefix("images:")) if part)
        if not images:
            raise RerunRefused("no_images")
        return Entry(volume, images=images)
    if re.search(r"\s", source):
        raise RerunRefused("spaces")
    return Entry(volume, manifest=source)


def rerun_name(campaign_name: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``<name>-rerun-<n>`` with the first n not taken; a re-run of a re-run counts on from its stem."""
    stem, n = campaign_name, 1
    match = _RERUN_NAME_RE.match(campaign_name)
    if match:
        stem, n = match.group("stem"), int(match.group("n")) + 1
    while f"{stem}-rerun-{n}" in taken:
        n += 1
    return f"{stem}-rerun-{n}"


def _window(campaign: Campaign) -> int | None:
    """The parallelism of one of the campaign's Jobs (a split campaign's parts share one window)."""
    parts = max(1, len(campaign.parts))
    if campaign.parallelism <= 0:
        return None
    return -(-campaign.parallelism // parts)


def plan_rerun(campaign: Campaign, taken: set[str] | frozenset[str] = frozenset(), pipeline: str = "") -> RerunPlan:
    """The re-run of ``campaign``'s failed volumes; ``pipeline`` names another pipeline id to use."""
    pipeline = (pipeline or "").strip() or campaign.pipeline
    if not PIPELINE_ID_RE.match(pipeline):
        raise RerunRefused("pipeline_id")
    name = campaign.campaign or campaign.name
    plan = RerunPlan(campaign, rerun_name(name, taken), pipeline, window=_window(campaign))
    for volume in failed_volumes(campaign):
        try:
            plan.entries.append(entry_for(volume))
        except RerunRefused as refused:
            plan.left_out.append((volume.id, refused.code))
    return plan


# --- the file ------------------------------------------------------------------------------------


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar, so that ids like 1871 stay strings. Control, invisible and other
    unsafe characters are written as escapes (``"C00\\u202Egpj.exe"``): htrflow-batch reads the very
    same value, and a person reading the file sees what it holds."""
    return '"' + escape_unsafe(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def _comment(text: str, limit: int | None = REASON_COMMENT_LIMIT) -> str:
    """One line fit for a YAML comment: no line breaks, invisible characters shown as ⟨U+202E⟩, other
    unsafe ones escaped, bounded."""
    line = " ".join(str(text).split())
    if limit is not None and len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return escape_unsafe(reveal_invisible(line))


def _reason_note(volume: Volume) -> str:
    kind = volume.reason.kind if volume.reason else ""
    if kind in _FILE_NOTES:
        return "fix first: " + _FILE_NOTES[kind]
    if volume.reason and volume.reason.error:
        return "failed: " + volume.reason.error
    return "failed"


def campaign_file(plan: RerunPlan) -> str:
    """The campaign file's text: YAML with a comment per volume saying how it failed."""
    campaign = plan.campaign
    source_name = campaign.campaign or campaign.name
    about = f"{plan.path}: runs again the {plan.count} failed volume{'s' if plan.count != 1 else ''} of {source_name}."
    lines = [
        f"# {_comment(about, limit=None)}",
        "# Each entry is the volume's line in that campaign's record (volumes.txt), written out in full.",
        f"pipeline: {_quoted(plan.pipeline)}",
    ]
    if campaign.priority_class:
        lines.append(f"priority: {_quoted(campaign.priority_class)}")
    if plan.window:
        lines.append(f"window: {plan.window}  # {_comment(f'the parallelism {source_name} ran with', limit=None)}")
    if not plan.entries:
        lines.append("volumes: []")
    else:
        lines.append("volumes:")
    for entry in plan.entries:
        note = _comment(_reason_note(entry.volume))
        lines.append(f"  - id: {_quoted(entry.id)}  # index {entry.volume.index}, {note}")
        if entry.manifest:
            lines.append(f"    manifest: {_quoted(entry.manifest)}")
        else:
            lines.append("    images:")
            lines.extend(f"      - {_quoted(image)}" for image in entry.images)
    for volume_id, code in plan.left_out:
        lines.append(f"# left out: {_comment(volume_id)}: {_comment(_LEFT_OUT_NOTES.get(code, code))}")
    return "\n".join(lines) + "\n"


# --- what applying it does -----------------------------------------------------------------------


@dataclass
class Outlook:
    """What an apply does with the file, and which of its volumes will fail again unless fixed first: facts,
    worded by campaigns.wording.rerun."""

    start: str  # "held_back" (waits for the campaign on the same pipeline id), "at_once", "new_pipeline"
    same_pipeline: bool  # True: volumes resume from finished pages; False: every page is processed again
    fix_first: list[tuple[str, list[str]]]  # (failure class, volume ids), in MUST_FIX_FIRST's order
    may_repeat: list[tuple[str, list[str]]]  # (failure class, volume ids), in MAY_REPEAT's order
    should_pass: list[str]  # volume ids a re-run should finish


def _still_runs(campaign: Campaign) -> bool:
    return not campaign.is_final and not campaign.job_gone


def _grouped(entries: list[Entry], kinds: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    groups = []
    for kind in kinds:
        ids = [e.id for e in entries if e.volume.reason is not None and e.volume.reason.kind == kind]
        if ids:
            groups.append((kind, ids))
    return groups


def outlook(plan: RerunPlan) -> Outlook:
    same = plan.pipeline == plan.campaign.pipeline
    start = ("held_back" if _still_runs(plan.campaign) else "at_once") if same else "new_pipeline"
    known = set(MUST_FIX_FIRST) | set(MAY_REPEAT)
    return Outlook(
        start=start,
        same_pipeline=same,
        fix_first=_grouped(plan.entries, MUST_FIX_FIRST),
        may_repeat=_grouped(plan.entries, MAY_REPEAT),
        should_pass=[e.id for e in plan.entries if e.volume.reason is None or e.volume.reason.kind not in known],
    )
