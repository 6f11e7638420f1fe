"""The htrflow-batch contract, each rule written once.

- label and annotation keys on the converter's objects (contracts §1);
- the results bucket's key layout (contracts §4);
- the ``<stem>-part<N>`` rule that makes several Jobs one split campaign;
- the ``volumes.txt`` grammar: line i+1 runs index i, ``<volume id><TAB><source>``.

The product (campaigns, results), the devstack and the tests import these. Pure: no I/O, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# --- labels and annotations (contracts §1) ------------------------------------------------------

LABEL_PREFIX = "htrflow.riksarkivet.se/"
LABEL_CAMPAIGN = LABEL_PREFIX + "campaign"
LABEL_PIPELINE = LABEL_PREFIX + "pipeline"
LABEL_MANAGED_BY = LABEL_PREFIX + "managed-by"
LABEL_KIND = LABEL_PREFIX + "kind"
ANNOTATION_COMMIT = LABEL_PREFIX + "campaigns-commit"
ANNOTATION_APPLIED_BY = LABEL_PREFIX + "applied-by"
ANNOTATION_APPLIED_AT = LABEL_PREFIX + "applied-at"
ANNOTATION_JOB_UID = LABEL_PREFIX + "job-uid"
ANNOTATION_IMAGE_DIGEST = LABEL_PREFIX + "image-digest"
ANNOTATION_PIPELINE_SHA = LABEL_PREFIX + "pipeline-sha256"
ANNOTATION_RECIPE_SHA = LABEL_PREFIX + "recipe-sha256"
ANNOTATION_WRITTEN_BY = LABEL_PREFIX + "written-by"  # on status records this site wrote: "htrbrowser"
KUEUE_PREFIX = "kueue.x-k8s.io/"
LABEL_QUEUE_NAME = KUEUE_PREFIX + "queue-name"
LABEL_PRIORITY_CLASS = KUEUE_PREFIX + "priority-class"
LABEL_WORKLOAD_JOB_UID = KUEUE_PREFIX + "job-uid"
LABEL_JOB_NAME = "batch.kubernetes.io/job-name"
LABEL_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
ANNOTATION_INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"

# --- the results key layout (contracts §4) -------------------------------------------------------
# <ns>/<pipeline>/<volume>/{progress,manifest,iiif}.json, .../alto/<page>.xml, .../page/<page>.xml;
# run logs at <ns>/status/logs/<pipeline>/<volume>.txt (older writers: status/logs/<pipeline>/<volume>.txt).

LEGACY_LOG_PREFIX = "status/logs/"


def results_prefix(namespace: str, pipeline: str) -> str:
    """``<ns>/<pipeline>/``: everything a campaign on that pipeline writes, run logs aside."""
    return f"{namespace}/{pipeline}/"


def volume_prefix(namespace: str, pipeline: str, volume: str) -> str:
    """``<ns>/<pipeline>/<volume>/``."""
    return f"{namespace}/{pipeline}/{volume}/"


def progress_key(namespace: str, pipeline: str, volume: str) -> str:
    return volume_prefix(namespace, pipeline, volume) + "progress.json"


def manifest_key(namespace: str, pipeline: str, volume: str) -> str:
    return volume_prefix(namespace, pipeline, volume) + "manifest.json"


def iiif_key(namespace: str, pipeline: str, volume: str) -> str:
    return volume_prefix(namespace, pipeline, volume) + "iiif.json"


def alto_prefix(namespace: str, pipeline: str, volume: str) -> str:
    return volume_prefix(namespace, pipeline, volume) + "alto/"


def alto_key(namespace: str, pipeline: str, volume: str, page: str) -> str:
    return f"{alto_prefix(namespace, pipeline, volume)}{page}.xml"


def page_xml_key(namespace: str, pipeline: str, volume: str, page: str) -> str:
    return f"{volume_prefix(namespace, pipeline, volume)}page/{page}.xml"


def run_log_key(namespace: str, pipeline: str, volume: str) -> str:
    return f"{namespace}/status/logs/{pipeline}/{volume}.txt"


def legacy_run_log_key(pipeline: str, volume: str) -> str:
    """Where the older writers put a run log: at the top of the bucket, outside any namespace."""
    return f"{LEGACY_LOG_PREFIX}{pipeline}/{volume}.txt"


_RUN_LOG_KEY = re.compile(r"^(?P<ns>[^/]+)/status/logs/(?P<pipeline>[^/]+)/(?P<volume>[^/]+)\.txt$")
_VOLUME_FILE_KEY = re.compile(
    r"^(?P<ns>[^/]+)/(?P<pipeline>[^/]+)/(?P<volume>[^/]+)/(?:(?:alto|page)/[^/]+|[a-z]+\.json)$"
)


def volume_of_key(key: str) -> tuple[str, str, str] | None:
    """(namespace, pipeline, volume) a run log key or a volume's file key names; None for other keys."""
    match = _RUN_LOG_KEY.match(key)
    if match is None:
        match = _VOLUME_FILE_KEY.match(key)
        if match is None or match.group("pipeline") == "status":
            return None
    return match.group("ns"), match.group("pipeline"), match.group("volume")


# --- split campaigns: <stem>-part<N> -------------------------------------------------------------
# A Job named <stem>-part<N> whose campaign label is <stem> is part N of the split campaign <stem>;
# any other Job is a campaign of its own. N is at most six digits: a bound for int(), far above any
# real split (a part holds up to 10 000 volumes), and the one limit grouping, wording and the
# viewers' breadcrumbs share, so they never disagree on which campaign a Job belongs to.

PART_RE = re.compile(r"^(?P<stem>.+)-part(?P<n>\d{1,6})$")


def part_of(job_name: str) -> tuple[str, int] | None:
    """(stem, N) of a Job named ``<stem>-part<N>``, whatever its label; None for any other name."""
    match = PART_RE.match(job_name or "")
    return (match.group("stem"), int(match.group("n"))) if match else None


def campaign_key(job_name: str, campaign_label: str) -> tuple[str, int]:
    """(campaign name, part number) of a Job: ``<stem>-part<N>`` with label ``<stem>`` is a part, else 0."""
    part = part_of(job_name)
    if part is not None and campaign_label and part[0] == campaign_label:
        return campaign_label, part[1]
    return job_name, 0


# --- volumes.txt ---------------------------------------------------------------------------------
# Line i+1 runs index i: ``<volume id><TAB><source>``, the source a manifest address or
# ``images:<url> <url> …``. A blank line holds no volume but keeps its position; a line that does not
# read so is malformed (the wrapper cannot run it), never an error.

VOLUME_ID_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?")


@dataclass(frozen=True)
class VolumeLine:
    id: str  # for a malformed line: what stands before its first tab (or the whole line)
    source: str
    malformed: bool = False


def volumes_txt_lines(text: str, limit: int | None = None) -> list[str]:
    """The lines of ``volumes.txt``, position i running index i (at most ``limit`` of them)."""
    lines = text.split("\n") if text else []
    return lines if limit is None else lines[:limit]


def read_volume_line(line: str) -> VolumeLine | None:
    """One line of ``volumes.txt``: None for a blank line, else its volume (perhaps malformed)."""
    line = line.rstrip("\r")
    if not line.strip():
        return None
    ident, tab, source = line.partition("\t")
    ident = ident.strip()
    if tab and VOLUME_ID_RE.fullmatch(ident):
        return VolumeLine(ident, source)
    return VolumeLine(ident or line, source, malformed=True)


def volume_line_index(text: str, volume: str, limit: int | None = None) -> int | None:
    """The 0-based line of ``volumes.txt`` that runs ``volume`` (first one), or None."""
    if not isinstance(text, str) or not volume or volume not in text:
        return None
    for index, line in enumerate(volumes_txt_lines(text, limit)):
        if volume in line:
            read = read_volume_line(line)
            if read is not None and not read.malformed and read.id == volume:
                return index
    return None


def format_volumes_txt(volumes: Iterable[tuple[str, str]]) -> str:
    """``volumes.txt`` for (volume id, source) pairs, as the converter writes it."""
    return "".join(f"{ident}\t{source}\n" for ident, source in volumes)
