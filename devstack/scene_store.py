"""What the wrapper would have written to the results bucket for each volume of the demo scene.

``volume_files`` returns every object of a volume in its current state (progress, ALTO and PAGE
per processed page, the IIIF manifest, the completion manifest and the run log). The simulator
uses the smaller pieces (``page_files``, ``progress_text``, ``log_lines``) to grow a volume.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from devstack import content_json as cj
from devstack.content_layout import page_layout
from devstack.content_log import RunLogWriter, run_log
from devstack.content_xml import alto_xml, page_xml
from devstack.scene_model import DONE, FAILED, RETRYING, Campaign, Volume

JSON = "application/json"
XML = "application/xml"
TEXT = "text/plain; charset=utf-8"
# Failures the wrapper catches (it writes progress stage "failed"); kills leave progress as it was.
_CAUGHT = ("setup_404", "load", "stream", "stream_last", "verify", "sigterm", "deadline")


class Where:
    """Where results go and where images come from: the addresses a scene is built for."""

    def __init__(self, namespace: str, results_url: str, image_base: str):
        self.namespace = namespace
        self.results_url = results_url.rstrip("/")
        self.image_base = image_base.rstrip("/")


def ok_page_numbers(volume: Volume) -> list[int]:
    """Pages with an ALTO result so far, in order."""
    skipped = set(volume.failed_pages) | set(volume.missing_pages)
    return [n for n in range(1, volume.processed + 1) if n not in skipped]


def last_page(volume: Volume) -> int:
    return volume.processed


def log_key(where: Where, campaign: Campaign, volume: Volume) -> str:
    return cj.log_key(where.namespace, campaign.pipeline.id, volume.id, older=volume.old_log_key)


def prefix(where: Where, campaign: Campaign, volume: Volume) -> str:
    return cj.volume_prefix(where.namespace, campaign.pipeline.id, volume.id) + "/"


def page_files(where: Where, campaign: Campaign, volume: Volume, page_no: int) -> dict[str, tuple]:
    """ALTO v4 and PAGE XML of one processed page, made when first asked for (see ``body``)."""
    ns, pipeline = where.namespace, campaign.pipeline.id
    written = volume.updated_at
    return {
        cj.alto_key(ns, pipeline, volume.id, page_no): (functools.partial(_alto, volume.id, page_no), XML),
        cj.page_xml_key(ns, pipeline, volume.id, page_no): (functools.partial(_page, volume.id, page_no, written), XML),
    }


# Page files are the slow part of loading a scene (tens of milliseconds each, about a thousand of
# them), and each depends only on the volume, the page number and the code that writes it. So they are
# made once per machine and that code: kept in a folder of the temporary directory named by a digest of
# the code, written by whichever process needs them first while the others wait for it (a test run
# starts several stacks at once, and `make demo` starts one each time).
_STAMP_PLACEHOLDER = datetime(1999, 1, 1, tzinfo=UTC)
_PAGE_CODE = ("content_layout.py", "content_xml.py", "scene_store.py")


@functools.lru_cache(maxsize=1)
def _page_folder() -> Path:
    here = Path(__file__).parent
    digest = hashlib.sha256(b"".join((here / name).read_bytes() for name in _PAGE_CODE)).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"htrbrowser-devstack-pages-{digest}"
    folder.mkdir(exist_ok=True)
    return folder


@contextlib.contextmanager
def pages_made_once():
    """Hold the page folder while a scene's pages are made or read (see above)."""
    with open(_page_folder() / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _made_once(kind: str, volume_id: str, page_no: int, make) -> bytes:
    path = _page_folder() / f"{kind}-{volume_id}-{page_no}.xml"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        data = make(page_layout(volume_id, page_no))
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_bytes(data)
        partial.replace(path)
        return data


@functools.lru_cache(maxsize=4096)
def _alto(volume_id: str, page_no: int) -> bytes:
    return _made_once("alto", volume_id, page_no, lambda layout: alto_xml(layout, 4))


@functools.lru_cache(maxsize=4096)
def _page_template(volume_id: str, page_no: int) -> bytes:
    return _made_once("page", volume_id, page_no, lambda layout: page_xml(layout, created=_STAMP_PLACEHOLDER))


def _page(volume_id: str, page_no: int, written: datetime | None) -> bytes:
    """PAGE XML stamped with the time the page was written."""
    placeholder = _STAMP_PLACEHOLDER.isoformat(timespec="seconds").encode()
    stamp = (written or _STAMP_PLACEHOLDER).isoformat(timespec="seconds").encode()
    return _page_template(volume_id, page_no).replace(placeholder, stamp)


def body(content) -> bytes:
    """The bytes of a file entry: page XML is generated lazily, everything else is text or bytes."""
    if callable(content):
        content = content()
    return content.encode("utf-8") if isinstance(content, str) else content


def progress_text(where: Where, campaign: Campaign, volume: Volume) -> str:
    """progress.json for the volume's state (best effort, like the wrapper's)."""
    failure = volume.failure
    if volume.state == FAILED and failure == "setup_404":
        return cj.progress_json(
            "failed", pages_total=0, errors=1, started_at=volume.started_at, updated_at=volume.updated_at
        )
    if volume.state == DONE:
        stage = "done"
    elif volume.state in (FAILED, RETRYING) and failure in _CAUGHT:
        stage = "failed"
    else:
        stage = "stream"
    ok = ok_page_numbers(volume)
    last = last_page(volume)
    last_error = None
    if volume.failed_pages:
        page = volume.failed_pages[-1]
        last_error = {"page": f"{page:04d}", "error": cj.page_error(where.image_base, volume.id, page)}
    return cj.progress_json(
        stage,
        pages_total=volume.pages,
        pages_done=len(ok),
        pages_failed=len(volume.failed_pages),
        last_page=last or None,
        last_error=last_error,
        errors=1 if stage == "failed" else 0,
        viewer_published=last >= 10 or volume.state == DONE,
        started_at=volume.started_at,
        updated_at=volume.updated_at,
        quality=cj.progress_quality(volume.id, ok, where.image_base) if campaign.pipeline.predicts_quality else None,
    )


def iiif_text(where: Where, campaign: Campaign, volume: Volume) -> str | None:
    """iiif.json as published: every 10 pages and at the end; None before the first 10."""
    ok = ok_page_numbers(volume)
    if volume.state != DONE:
        published_upto = (last_page(volume) // 10) * 10
        ok = [n for n in ok if n <= published_upto]
        if not published_upto:
            return None
    return cj.iiif_json(
        volume.id,
        campaign.pipeline.id,
        pages=ok,
        namespace=where.namespace,
        results_url=where.results_url,
        image_base=where.image_base,
    )


def manifest_text(where: Where, campaign: Campaign, volume: Volume) -> str:
    return cj.manifest_json(
        volume.id,
        campaign.pipeline.id,
        pages=volume.pages,
        failed_pages=volume.failed_pages,
        namespace=where.namespace,
        results_url=where.results_url,
        image_base=where.image_base,
        pipeline_yaml=campaign.pipeline.yaml,
        pipeline_sha256=campaign.pipeline.sha256,
        with_quality=campaign.pipeline.predicts_quality,
    )


# --- run logs ---------------------------------------------------------------------------------


def log_writer(where: Where, campaign: Campaign, volume: Volume, start: datetime, resumed: int, attempt: int):
    """A ``RunLogWriter`` for one attempt at ``volume``, so the simulator can grow its log."""
    return RunLogWriter(
        volume.id,
        campaign.pipeline.id,
        pages_total=volume.pages,
        start=start,
        failed_pages=volume.failed_pages,
        resumed=resumed,
        attempt=attempt,
        namespace=where.namespace,
        results_url=where.results_url,
        image_base=where.image_base,
        scores_pages=campaign.pipeline.predicts_quality,
    )


def log_text(where: Where, campaign: Campaign, volume: Volume) -> str:
    """The whole run log of a started volume: one part per attempt, each ending as that attempt did.

    ``volume.failures`` holds (stage, error, outcome) per failed attempt; a done or running volume
    has one more attempt after them.
    """
    attempts = list(volume.failures)
    if volume.state == DONE:
        attempts.append(("stream", None, "complete"))
    elif not attempts or volume.state == "running":
        attempts.append(("stream", None, "running"))
    total = len(attempts)
    span = max((volume.updated_at - volume.started_at).total_seconds(), 1.0)
    parts = []
    resumed = 0
    for number, (stage, error, outcome) in enumerate(attempts):
        if outcome == "complete" or stage == "verify":
            reached = volume.pages
        else:
            reached = max(resumed, round(volume.processed * (number + 1) / total))
        start = volume.started_at + timedelta(seconds=span * number / total)
        parts.append(
            run_log(
                volume.id,
                campaign.pipeline.id,
                pages=volume.pages,
                outcome=outcome,
                failed_pages=volume.failed_pages,
                start=start,
                stage=stage,
                error=error,
                pages_done=reached,
                resumed=min(resumed, reached),
                attempt=number + 1,
                namespace=where.namespace,
                results_url=where.results_url,
                image_base=where.image_base,
                scores_pages=campaign.pipeline.predicts_quality,
            )
        )
        resumed = reached if stage == "stream" else resumed
    return "".join(parts)


def volume_files(where: Where, campaign: Campaign, volume: Volume) -> dict:
    """Every bucket object of a volume in its current state: key -> (body, content type)."""
    if volume.started_at is None:
        return {}
    ns, pipeline = where.namespace, campaign.pipeline.id
    files: dict[str, tuple] = {cj.progress_key(ns, pipeline, volume.id): (progress_text(where, campaign, volume), JSON)}
    for page_no in ok_page_numbers(volume):
        files.update(page_files(where, campaign, volume, page_no))
    iiif = iiif_text(where, campaign, volume)
    if iiif:
        files[cj.iiif_key(ns, pipeline, volume.id)] = (iiif, JSON)
    if volume.state == DONE:
        files[cj.manifest_key(ns, pipeline, volume.id)] = (manifest_text(where, campaign, volume), JSON)
    files[log_key(where, campaign, volume)] = (log_text(where, campaign, volume), TEXT)
    return files
