"""Run logs of the wrapper for an invented volume: Python logging lines, many ``HTTP Request:`` lines, model
loading, per-page lines, warnings, a traceback, and the ending lines the browser recognises.

``run_log(...)`` writes a whole finished (or still running) log. ``RunLogWriter`` hands out the same lines
piece by piece, so a simulator can append to a log as pages finish. ``big_run_log(...)`` makes a log of
about 4 MiB quickly, for tail-reading tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from devstack.content_json import (
    DEFAULT_IMAGE_BASE,
    DEFAULT_NAMESPACE,
    DEFAULT_PIPELINE_SHA256,
    DEFAULT_RESULTS_URL,
    HTRFLOW_VERSION,
    LINE_MODEL,
    MAX_IMAGE_WIDTH,
    REGION_MODEL,
    TEXT_MODEL,
    TEXT_MODEL_REVISION,
    iiif_key,
    page_error,
    page_image_url,
    page_quality,
    page_seconds,
    progress_key,
    results_address,
    source_manifest_url,
)
from devstack.content_layout import page_id
from devstack.content_text import seeded_floats, seeded_random

OUTCOMES = ("running", "complete", "permanent", "transient", "transient-last")
STAGES = ("config", "setup", "resume", "load", "stream", "verify", "publish")
LOG_LIMIT = 4 * 1024 * 1024
WRAPPER = "htrflow.wrapper"
STORE_ENDPOINT = "https://s3.arkiv.example.se/htr-results"

ANSI_BLUE_BOLD = "\x1b[34m\x1b[1m"
ANSI_RESET = "\x1b[0m"
HOSTILE_BODY = "<html><head><title>503</title></head><body><script>alert(1)</script>Service Unavailable</body></html>"

ADVICE = {
    "config": "fix the deployment's settings; retrying will not help",
    "setup": "check the volume's manifest address in the campaign file; retrying will not help",
    "resume": "check that the results bucket is reachable",
    "load": "check the pipeline's models and the model cache",
    "stream": "the volume is marked failed; re-run it in a new campaign",
    "verify": "re-run the volume in a new campaign to redo the missing pages",
    "publish": "check that the results bucket accepts writes",
}


def log_time(moment: datetime) -> str:
    """Python logging's default time format: ``2026-12-02 10:14:03,512``."""
    return f"{moment:%Y-%m-%d %H:%M:%S},{moment.microsecond // 1000:03d}"


_LOG_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}),(\d{3}) ", re.MULTILINE)


def last_log_time(text: str) -> datetime | None:
    """The latest time stamped on a line of ``text`` (as ``log_time`` writes it), or None when no line has one."""
    latest = None
    for match in _LOG_TIME.finditer(text):
        moment = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S").replace(
            microsecond=int(match.group(2)) * 1000, tzinfo=UTC
        )
        latest = moment if latest is None else max(latest, moment)
    return latest


def default_error(stage: str, volume_id: str, *, image_base: str = DEFAULT_IMAGE_BASE, pages_total: int = 0) -> str:
    """A typical error text for a failure in ``stage``."""
    errors = {
        "config": "settings incomplete: S3_BUCKET is not set",
        "setup": f"manifest fetch failed: {source_manifest_url(image_base, volume_id)}: HTTP 404",
        "resume": f"reading earlier results failed: {STORE_ENDPOINT}/...: read timed out after 30s",
        "load": f"model {TEXT_MODEL} (revision {TEXT_MODEL_REVISION[:7]}) is not in the model cache at /data/models",
        "stream": "upload failed: EndpointConnectionError: Could not connect to the endpoint URL: "
        f"{STORE_ENDPOINT}/[redacted]",
        "verify": f"verify failed: 2 missing, 1 failed of {pages_total} pages: missing=[0012, 0044] failed=[0101]",
        "publish": "publishing manifest.json failed: SlowDown: Please reduce your request rate",
    }
    return errors[stage]


class RunLogWriter:
    """Produces a volume's run log in pieces, with a clock that moves as the work would.

    Call ``opening()`` once, then ``pages(first, last)`` as pages finish, then ``ending(outcome)``.
    Each call returns text ending in a newline, to be appended to the log.
    """

    def __init__(
        self,
        volume_id: str,
        pipeline_id: str,
        *,
        pages_total: int,
        start: datetime,
        failed_pages: Iterable[int] = (),
        resumed: int = 0,
        attempt: int = 1,
        namespace: str = DEFAULT_NAMESPACE,
        results_url: str = DEFAULT_RESULTS_URL,
        image_base: str = DEFAULT_IMAGE_BASE,
        scores_pages: bool = True,
    ):
        self.volume_id = volume_id
        self.scores_pages = scores_pages  # the pipeline has a quality prediction step
        self.pipeline_id = pipeline_id
        self.pages_total = pages_total
        self.start = start if start.tzinfo else start.replace(tzinfo=UTC)
        self.clock = self.start
        self.failed_pages = set(failed_pages)
        self.resumed = resumed
        self.attempt = attempt
        self.namespace = namespace
        self.results_url = results_url
        self.image_base = image_base
        self.rng = seeded_random("log", volume_id, pipeline_id, attempt)
        self.pages_processed = 0
        self.pages_failed = 0

    # ---- line helpers -----------------------------------------------------------------------------------

    @property
    def tag(self) -> str:
        return f"[{self.volume_id}]"

    def line(self, level: str, logger: str, message: str, *, after: float = 0.0) -> str:
        """One logging line, stamped ``after`` seconds (plus a few ms) past the previous one."""
        self.clock += timedelta(seconds=after + self.rng.uniform(0.001, 0.04))
        return f"{log_time(self.clock)} {level} {logger}: {message}\n"

    def continue_after(self, moment: datetime | None) -> None:
        """Make the next line come after ``moment`` (the last time already in the log), never before it."""
        if moment is not None:
            self.clock = max(self.clock, moment if moment.tzinfo else moment.replace(tzinfo=UTC))

    def http(self, method: str, url: str, status: str = "200 OK", *, after: float = 0.0) -> str:
        return self.line("INFO", "httpx", f'HTTP Request: {method} {url} "HTTP/1.1 {status}"', after=after)

    # ---- stages -------------------------------------------------------------------------------------------

    def opening(self, until: str = "stream") -> str:
        """The lines from start-up through ``until`` (setup, resume, load; stream = ready to process pages)."""
        parts = [self._start_lines()]
        if until == "config":
            return "".join(parts)
        parts.append(self._setup_lines(fail=until == "setup"))
        if until == "setup":
            return "".join(parts)
        parts.append(self._resume_lines())
        if until == "resume":
            return "".join(parts)
        parts.append(self._load_lines())
        if until != "load":
            parts.append(self.line("INFO", WRAPPER, f"{self.tag} stream: {self.to_process} pages, batch size 8"))
        return "".join(parts)

    @property
    def to_process(self) -> int:
        return max(self.pages_total - self.resumed, 0)

    def _start_lines(self) -> str:
        return self.line(
            "INFO", WRAPPER, f"htrflow-batch wrapper {HTRFLOW_VERSION} starting, attempt {self.attempt} of 4"
        ) + self.line(
            "INFO",
            WRAPPER,
            f"{self.tag} pipeline {self.pipeline_id} (sha256 {DEFAULT_PIPELINE_SHA256[:12]}), "
            f"results {self.namespace}/{self.pipeline_id}/{self.volume_id}/",
        )

    def _setup_lines(self, fail: bool) -> str:
        manifest = source_manifest_url(self.image_base, self.volume_id)
        text = self.line("INFO", WRAPPER, f"{self.tag} setup: reading manifest {manifest}", after=0.2)
        if fail:
            return text + self.http("GET", manifest, "404 Not Found", after=0.3)
        text += self.http("GET", manifest, "503 Service Unavailable", after=0.3)
        text += self.line(
            "WARNING", "htrflow.fetch", f"{self.tag} HTTP 503 from {manifest}, retrying in 2.0s; body: {HOSTILE_BODY}"
        )
        text += self.http("GET", manifest, after=2.0)
        return text + self.line(
            "INFO", WRAPPER, f"{self.tag} setup: {self.pages_total} canvases, images up to {MAX_IMAGE_WIDTH} px wide"
        )

    def _resume_lines(self) -> str:
        progress = f"{STORE_ENDPOINT}/{progress_key(self.namespace, self.pipeline_id, self.volume_id)}"
        status = "200 OK" if self.resumed else "404 Not Found"
        return self.http("GET", progress, status, after=0.1) + self.line(
            "INFO", WRAPPER, f"{self.tag} resume: {self.resumed} done, {self.to_process} to process"
        )

    def _load_lines(self) -> str:
        text = self.line("INFO", WRAPPER, f"{self.tag} load: building pipeline {self.pipeline_id}")
        for model, layers, params in ((REGION_MODEL, 384, "25,320,019"), (LINE_MODEL, 384, "25,318,867")):
            text += self.line("INFO", "htrflow.models", f"Loading yolo model {model} from /data/models", after=0.4)
            text += self.line(
                "INFO",
                "ultralytics",
                f"{ANSI_BLUE_BOLD}YOLOv9c summary (fused):{ANSI_RESET} {layers} layers, {params} parameters, "
                "0 gradients, 102.3 GFLOPs",
                after=1.8,
            )
        text += self.line("INFO", "htrflow.models", f"Loading TrOCR model {TEXT_MODEL} from /data/models", after=0.3)
        text += self.line(
            "WARNING",
            "transformers.modeling_utils",
            f"Some weights of VisionEncoderDecoderModel were not initialized from the model checkpoint at {TEXT_MODEL} "
            "and are newly initialized: ['encoder.pooler.dense.bias', 'encoder.pooler.dense.weight']",
            after=5.2,
        )
        seconds = (self.clock - self.start).total_seconds()
        return text + self.line(
            "INFO", WRAPPER, f"{self.tag} load: models ready on cuda:0 in {seconds:.1f}s", after=0.9
        )

    # ---- pages --------------------------------------------------------------------------------------------

    def pages(self, first: int, last: int, *, at: datetime | None = None) -> str:
        """Lines for pages ``first``..``last`` (inclusive). With ``at``, the last page finishes at that time."""
        numbers = range(first, last + 1)
        if at is not None:
            at = at if at.tzinfo else at.replace(tzinfo=UTC)
            needed = timedelta(seconds=sum(page_seconds(self.volume_id, n) for n in numbers) + 0.05 * len(numbers))
            self.clock = max(self.clock, at - needed)
        return "".join(self.page(n) for n in numbers)

    def page(self, page_no: int) -> str:
        name = page_id(page_no)
        url = page_image_url(self.image_base, self.volume_id, page_no, MAX_IMAGE_WIDTH)
        self.pages_processed += 1
        if page_no in self.failed_pages:
            self.pages_failed += 1
            return self._failed_page(page_no, url)
        seconds = page_seconds(self.volume_id, page_no)
        warn, count, _, _ = seeded_floats("logpage", self.volume_id, page_no)
        text = self.http("GET", url, after=0.05)
        if warn < 0.04:
            text += self.line(
                "WARNING", WRAPPER, f"{self.tag} page {name}: 2 text lines shorter than 8 px skipped", after=seconds / 2
            )
        lines = 17 + int(count * 13)
        quality = f", quality {page_quality(self.volume_id, page_no)}" if self.scores_pages else ""
        text += self.line(
            "INFO",
            WRAPPER,
            f"{self.tag} page {name} ok in {seconds:.2f}s: {lines} lines{quality}",
            after=seconds,
        )
        done = self.resumed + self.pages_processed
        if done % 10 == 0 or done == self.pages_total:
            text += self._milestone(done)
        return text

    def _failed_page(self, page_no: int, url: str) -> str:
        error = page_error(self.image_base, self.volume_id, page_no)
        status = "404 Not Found" if "HTTP 404" in error else "200 OK"
        text = self.http("GET", url, status, after=0.05)
        text += self.line("ERROR", WRAPPER, f"{self.tag} page {page_id(page_no)} failed: {error}", after=0.4)
        if "HTTP 404" in error:
            return text + (
                "Traceback (most recent call last):\n"
                '  File "/opt/htrflow-batch/htrflow_batch/wrapper.py", line 388, in _process_page\n'
                "    image = self.fetcher.fetch(source, max_bytes=self.settings.fetch_max_bytes)\n"
                '  File "/opt/htrflow-batch/htrflow_batch/fetch.py", line 121, in fetch\n'
                "    response.raise_for_status()\n"
                '  File "/usr/local/lib/python3.11/site-packages/httpx/_models.py", line 829, in raise_for_status\n'
                "    raise HTTPStatusError(message, request=request, response=response)\n"
                f"httpx.HTTPStatusError: Client error '404 Not Found' for url '{url}'\n"
                "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404\n"
            )
        return text + (
            "Traceback (most recent call last):\n"
            '  File "/opt/htrflow-batch/htrflow_batch/wrapper.py", line 402, in _process_page\n'
            "    result = self.pipeline.run(image)\n"
            '  File "/usr/local/lib/python3.11/site-packages/htrflow/pipeline/pipeline.py", line 96, in run\n'
            "    collection = step.run(collection)\n"
            f"RuntimeError: {error}\n"
        )

    def _milestone(self, done: int) -> str:
        elapsed = max((self.clock - self.start).total_seconds(), 1.0)
        rate = self.pages_processed / elapsed
        left = (self.pages_total - done) / rate / 60 if rate else 0
        iiif = f"{STORE_ENDPOINT}/{iiif_key(self.namespace, self.pipeline_id, self.volume_id)}"
        return (
            self.http("PUT", iiif)
            + self.line("INFO", WRAPPER, f"{self.tag} published iiif.json ({done} canvases)")
            + self.line(
                "INFO",
                WRAPPER,
                f"{self.tag} {done}/{self.pages_total} pages, {rate:.2f} pages/s, about {left:.0f} min left",
            )
        )

    # ---- endings ------------------------------------------------------------------------------------------

    def ending(self, outcome: str, *, stage: str = "stream", error: str | None = None) -> str:
        """The closing lines. ``outcome``: complete, permanent, transient (will retry), transient-last, running."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}")
        if outcome == "running":
            return ""
        if outcome == "complete":
            return self._complete()
        error = error or default_error(stage, self.volume_id, image_base=self.image_base, pages_total=self.pages_total)
        advice = ADVICE.get(stage, "see the log above")
        if outcome == "permanent":
            return self.line("ERROR", WRAPPER, f"permanent failure in {stage}: {error} — {advice}", after=0.1)
        if outcome == "transient-last":
            message = f"transient failure in {stage} on the last attempt: {error} — {ADVICE['stream']}"
            return self.line("ERROR", WRAPPER, message, after=0.1)
        message = (
            f"transient failure in {stage}: {error} — Kubernetes will retry the volume (attempt {self.attempt} of 4)"
        )
        return self.line("WARNING", WRAPPER, message, after=0.1)

    def _complete(self) -> str:
        failed = self.pages_failed
        text = self.line(
            "INFO", WRAPPER, f"{self.tag} verify: {self.pages_total} pages have results ({failed} failed)", after=0.3
        )
        text += self.http("PUT", f"{STORE_ENDPOINT}/{iiif_key(self.namespace, self.pipeline_id, self.volume_id)}")
        text += self.line("INFO", WRAPPER, f"{self.tag} publish: iiif.json and manifest.json written", after=0.2)
        seconds = (self.clock - self.start).total_seconds()
        viewer = results_address(self.results_url, iiif_key(self.namespace, self.pipeline_id, self.volume_id))
        return text + self.line(
            "INFO",
            WRAPPER,
            f"{self.tag} COMPLETE {self.pages_total} pages ({self.pages_processed} processed, {failed} failed) "
            f"in {seconds:.1f}s, viewer: {viewer}",
        )


def run_log(
    volume_id: str,
    pipeline_id: str,
    *,
    pages: int,
    outcome: str = "complete",
    failed_pages: Iterable[int] = (),
    start: datetime,
    stage: str = "stream",
    error: str | None = None,
    pages_done: int | None = None,
    resumed: int = 0,
    attempt: int = 1,
    namespace: str = DEFAULT_NAMESPACE,
    results_url: str = DEFAULT_RESULTS_URL,
    image_base: str = DEFAULT_IMAGE_BASE,
    scores_pages: bool = True,
) -> str:
    """A whole run log of one attempt at a volume of ``pages`` pages.

    ``outcome``: ``complete``; ``permanent`` / ``transient`` / ``transient-last`` failure in ``stage``
    (with ``error``, or a typical one); ``running`` (no ending yet). ``pages_done`` is how many pages the
    attempt reached before failing or now (default: all for complete, half for a stream failure).
    ``resumed`` pages were done by an earlier attempt and are not redone.
    """
    if stage not in STAGES:
        raise ValueError(f"stage must be one of {', '.join(STAGES)}")
    writer = RunLogWriter(
        volume_id,
        pipeline_id,
        pages_total=pages,
        start=start,
        failed_pages=failed_pages,
        resumed=resumed,
        attempt=attempt,
        namespace=namespace,
        results_url=results_url,
        image_base=image_base,
        scores_pages=scores_pages,
    )
    reached = "stream" if outcome in ("complete", "running") or stage in ("verify", "publish") else stage
    text = writer.opening(until=reached)
    if reached == "stream":
        if pages_done is None:
            pages_done = pages if outcome == "complete" or stage != "stream" else resumed + (pages - resumed) // 2
        pages_done = min(max(pages_done, resumed), pages)
        text += writer.pages(resumed + 1, pages_done)
    return text + writer.ending(outcome, stage=stage, error=error)


def big_run_log(
    volume_id: str = "C0099999",
    pipeline_id: str = "swe-lines-v2",
    *,
    size: int = LOG_LIMIT,
    start: datetime | None = None,
    **options,
) -> str:
    """A complete run log just under ``size`` bytes (UTF-8), for tail-read tests; takes well under a second."""
    start = start or datetime(2026, 9, 24, 8, 0, tzinfo=UTC)
    probe = RunLogWriter(volume_id, pipeline_id, pages_total=10**6, start=start, **options)
    per_page = len(probe.pages(1, 300).encode("utf-8")) / 300
    pages = int((size - 8000) / per_page * 0.99)
    writer = RunLogWriter(volume_id, pipeline_id, pages_total=pages, start=start, **options)
    parts = [writer.opening()]
    used = len(parts[0].encode("utf-8"))
    for page_no in range(1, pages + 1):
        chunk = writer.page(page_no)
        used += len(chunk.encode("utf-8"))
        if used > size - 2000:
            writer.pages_total = page_no - 1  # stop early rather than pass the limit
            break
        parts.append(chunk)
    parts.append(writer.ending("complete"))
    return "".join(parts)
