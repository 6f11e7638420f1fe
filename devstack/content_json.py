"""The JSON files of the results bucket (progress, completion manifest, IIIF manifest) and the archive's
source IIIF manifest, for invented volumes.

``*_record`` functions return dicts; ``*_json`` functions return the text exactly as the wrapper writes
it: one line of ``json.dumps(..., ensure_ascii=False)`` with default separators. Keys come in the
wrapper's order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from urllib.parse import quote

from core import contract
from devstack.content_layout import page_id, page_size
from devstack.content_text import seeded_floats, seeded_random

DEFAULT_NAMESPACE = "htr-batch"
DEFAULT_RESULTS_URL = "https://htr.arkiv.example.se/results"
DEFAULT_IMAGE_BASE = "https://iiif.arkiv.example.se"
HTRFLOW_VERSION = "0.4.1"
IMAGE_DIGEST = (
    "registry.example.se/htr/htrflow-batch@sha256:3c1f0a9b7e2d4c6a8b0f1e3d5c7a9b1d2e4f6a8c0b2d4e6f8a1c3e5b7d9f0a2c"
)
REGION_MODEL = "Riksarkivet/yolov9-regions-1"
LINE_MODEL = "Riksarkivet/yolov9-lines-within-regions-1"
TEXT_MODEL = "Riksarkivet/trocr-base-handwritten-hist-swe-2"
TEXT_MODEL_REVISION = "0f9e8d7c6b5a49382716051f4e3d2c1b0a998877"
QUALITY_MODEL = "Riksarkivet/htr-quality-estimator-1"
QUALITY_MODEL_REVISION = "5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928"
QUALITY_TARGET = "bow_f1"  # what the quality model predicts: a page's bag-of-words F1
# A pipeline step that scores every page (appended to a pipeline's steps to make it predict quality).
QUALITY_STEP_YAML = (
    "- step: QualityPrediction\n  settings:\n    model_settings:\n"
    f"      model: {QUALITY_MODEL}\n      revision: {QUALITY_MODEL_REVISION}\n"
)
MAX_IMAGE_WIDTH = 2500

# The swe-lines-v2 pipeline: steps as the wrapper records them, and the hash the converter gives them.
DEFAULT_PIPELINE_YAML = (
    "steps:\n"
    "- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    f"      model: {REGION_MODEL}\n      revision: 8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796\n"
    "- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    f"      model: {LINE_MODEL}\n      revision: 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d\n"
    "- step: TextRecognition\n  settings:\n    model: TrOCR\n    model_settings:\n"
    f"      model: {TEXT_MODEL}\n      model_kwargs:\n        revision: {TEXT_MODEL_REVISION}\n"
    f"      processor_kwargs:\n        revision: {TEXT_MODEL_REVISION}\n"
)
DEFAULT_PIPELINE_SHA256 = "00657074f93b1db22ef51d52745d9ff88dc8181ee631677a561d75ad5531638b"

PROGRESS_STAGES = ("setup", "resume", "load", "stream", "verify", "publish", "done", "failed")


def dumps(record: dict) -> str:
    """The wrapper's serialisation: one line, non-ASCII kept, default separators."""
    return json.dumps(record, ensure_ascii=False)


def timestamp(moment: datetime | str) -> str:
    """ISO 8601 with offset, to the second; naive datetimes are taken as UTC."""
    if isinstance(moment, str):
        return moment
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat(timespec="seconds")


# ---- keys and addresses ----------------------------------------------------------------------------------


def volume_prefix(namespace: str, pipeline_id: str, volume_id: str) -> str:
    """``<ns>/<pipeline>/<volume>`` (the contract's prefix without its trailing slash)."""
    return contract.volume_prefix(namespace, pipeline_id, volume_id).removesuffix("/")


progress_key = contract.progress_key
manifest_key = contract.manifest_key
iiif_key = contract.iiif_key


def alto_key(namespace: str, pipeline_id: str, volume_id: str, page_no: int) -> str:
    return contract.alto_key(namespace, pipeline_id, volume_id, page_id(page_no))


def page_xml_key(namespace: str, pipeline_id: str, volume_id: str, page_no: int) -> str:
    return contract.page_xml_key(namespace, pipeline_id, volume_id, page_id(page_no))


def log_key(namespace: str, pipeline_id: str, volume_id: str, *, older: bool = False) -> str:
    """Run log key; ``older=True`` gives the pre-namespace layout ``status/logs/<p>/<v>.txt``."""
    if older:
        return contract.legacy_run_log_key(pipeline_id, volume_id)
    return contract.run_log_key(namespace, pipeline_id, volume_id)


def results_address(results_url: str, key: str) -> str:
    """Browser-facing URL of a bucket key (each segment percent-encoded)."""
    return f"{results_url.rstrip('/')}/{quote(key, safe='/')}"


def image_service(image_base: str, volume_id: str, page_no: int) -> str:
    """IIIF Image API 3 service id of a page on the image server."""
    return f"{image_base.rstrip('/')}/iiif/{quote(volume_id, safe='')}/{page_no}"


def page_image_url(image_base: str, volume_id: str, page_no: int, width: int | None = None) -> str:
    size = f"{width}," if width else "max"
    return f"{image_service(image_base, volume_id, page_no)}/full/{size}/0/default.jpg"


def source_manifest_url(image_base: str, volume_id: str) -> str:
    return f"{image_base.rstrip('/')}/manifests/{quote(volume_id, safe='')}/manifest.json"


def canvas_id(image_base: str, volume_id: str, page_no: int) -> str:
    return f"{image_base.rstrip('/')}/manifests/{quote(volume_id, safe='')}/canvas/{page_no}"


# ---- per-page facts ---------------------------------------------------------------------------------------


def page_seconds(volume_id: str, page_no: int) -> float:
    """How long the wrapper took on a page (seconds, two decimals)."""
    slow, amount, _, _ = seeded_floats("seconds", volume_id, page_no)
    return round(4.6 + 2.8 * amount if slow > 0.03 else 9 + 7 * amount, 2)


def page_quality(volume_id: str, page_no: int) -> float:
    """The quality model's score of a page: mostly high, a few poor pages per volume."""
    poor, amount, _, _ = seeded_floats("quality", volume_id, page_no)
    return round(0.86 + 0.11 * amount if poor > 0.06 else 0.41 + 0.31 * amount, 3)


def page_error(image_base: str, volume_id: str, page_no: int) -> str:
    """A plausible reason for a failed page."""
    rng = seeded_random("error", volume_id, page_no)
    url = page_image_url(image_base, volume_id, page_no, MAX_IMAGE_WIDTH)
    return rng.choice(
        (
            f"image fetch failed: {url}: HTTP 404",
            f"image fetch failed: {url}: HTTP 503 after 3 tries",
            f"page {page_id(page_no)}: htrflow's Segmentation (model {REGION_MODEL}) worker thread died; "
            "the page is marked failed and the pipeline is rebuilt",
            f"image decode failed: {url}: cannot identify image file",
        )
    )


def _page_numbers(pages: int | Iterable[int]) -> list[int]:
    return list(range(1, pages + 1)) if isinstance(pages, int) else sorted(pages)


# ---- progress.json ---------------------------------------------------------------------------------------


def progress_record(
    stage: str,
    *,
    started_at: datetime | str,
    updated_at: datetime | str,
    pages_total: int | None = None,
    pages_done: int = 0,
    pages_failed: int = 0,
    last_page: int | str | None = None,
    last_error: dict | None = None,
    errors: int = 0,
    viewer_published: bool = False,
    quality: dict | None = None,
) -> dict:
    """progress.json as a dict. ``pages_total=None`` leaves the key out (stages before the page count is known)."""
    if stage not in PROGRESS_STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    record: dict = {"stage": stage}
    if pages_total is not None:
        record["pages_total"] = pages_total
    record.update(
        pages_done=pages_done,
        pages_failed=pages_failed,
        last_page=page_id(last_page) if isinstance(last_page, int) else last_page,
        last_error=last_error,
        errors=errors,
        viewer_published=viewer_published,
        started_at=timestamp(started_at),
        updated_at=timestamp(updated_at),
    )
    if quality is not None:
        record["quality"] = quality
    return record


def progress_json(stage: str, **fields) -> str:
    """progress.json text; same arguments as ``progress_record``."""
    return dumps(progress_record(stage, **fields))


def progress_quality(
    volume_id: str, pages: int | Iterable[int], image_base: str = DEFAULT_IMAGE_BASE
) -> dict | None:
    """The running ``quality`` summary for the pages scored so far (None before the first).

    The same block as the manifest's, without its ``target``.
    """
    numbers = _page_numbers(pages)
    if not numbers:
        return None
    block = _quality_block(volume_id, numbers, image_base)
    del block["target"]
    return block


# ---- manifest.json ---------------------------------------------------------------------------------------


def manifest_record(
    volume_id: str,
    pipeline_id: str,
    *,
    pages: int,
    failed_pages: Iterable[int] = (),
    skipped_pages: Iterable[int] = (),
    errors: dict[int, str] | None = None,
    namespace: str = DEFAULT_NAMESPACE,
    results_url: str = DEFAULT_RESULTS_URL,
    image_base: str = DEFAULT_IMAGE_BASE,
    pipeline_yaml: str = DEFAULT_PIPELINE_YAML,
    pipeline_sha256: str = DEFAULT_PIPELINE_SHA256,
    with_quality: bool = True,
) -> dict:
    """The completion record of a done volume of ``pages`` pages.

    ``failed_pages`` get status ``failed`` with an error (from ``errors`` or invented); ``skipped_pages``
    (finished by an earlier attempt, not redone) get ``skipped``. ``pages_ok`` counts ok and skipped pages.
    """
    failed = set(failed_pages)
    skipped = set(skipped_pages) - failed
    errors = errors or {}
    results: dict[str, dict] = {}
    for n in range(1, pages + 1):
        if n in failed:
            error = errors.get(n) or page_error(image_base, volume_id, n)
            results[page_id(n)] = {"status": "failed", "seconds": 0.0, "error": error}
        elif n in skipped:
            results[page_id(n)] = {"status": "skipped", "seconds": 0.0}
        else:
            results[page_id(n)] = {"status": "ok", "seconds": page_seconds(volume_id, n)}
            if with_quality:
                results[page_id(n)]["quality"] = page_quality(volume_id, n)
    wall = round(sum(r["seconds"] for r in results.values()) + 14.2 + 0.4 * pages, 1)
    processed = pages - len(skipped)
    record = {
        "volume": volume_id,
        "pipeline_id": pipeline_id,
        "pipeline_sha256": pipeline_sha256,
        "pipeline_yaml": pipeline_yaml,
        "htrflow_version": HTRFLOW_VERSION,
        "image_digest": IMAGE_DIGEST,
        "pages": pages,
        "pages_ok": pages - len(failed),
        "pages_failed": len(failed),
        "results": results,
        "source_manifest": source_manifest_url(image_base, volume_id),
        "page_sources": {
            page_id(n): page_image_url(image_base, volume_id, n, MAX_IMAGE_WIDTH) for n in range(1, pages + 1)
        },
        "page_source_digests": {page_id(n): _digest(volume_id, n) for n in range(1, pages + 1)},
        "canvas_ids": {page_id(n): canvas_id(image_base, volume_id, n) for n in range(1, pages + 1)},
        "max_image_width": MAX_IMAGE_WIDTH,
        "bytes_fetched": sum(880_000 + _digest_int(volume_id, n) % 520_000 for n in range(1, pages + 1)),
        "wall_seconds": wall,
        "gpu_stall_seconds": round(0.6 * len(failed) + 0.004 * wall, 1),
        "pages_per_second": round(processed / wall, 3) if wall else 0.0,
        "viewer_url": results_address(results_url, iiif_key(namespace, pipeline_id, volume_id)),
    }
    scored = [n for n in range(1, pages + 1) if results[page_id(n)]["status"] == "ok"]
    if with_quality and scored:
        record["quality"] = _quality_block(volume_id, scored, image_base)
    return record


def _quality_block(volume_id: str, scored: list[int], image_base: str) -> dict:
    scores = {n: page_quality(volume_id, n) for n in scored}
    lowest = sorted(scored, key=lambda n: (scores[n], n))[:5]
    return {
        "mean": round(sum(scores.values()) / len(scores), 3),
        "min": min(scores.values()),
        "scored": len(scores),
        "model": QUALITY_MODEL,
        "revision": QUALITY_MODEL_REVISION,
        "target": QUALITY_TARGET,
        "lowest": [
            {"page": page_id(n), "quality": scores[n], "canvas": canvas_id(image_base, volume_id, n)} for n in lowest
        ],
    }


def _digest(volume_id: str, page_no: int) -> str:
    return hashlib.sha256(f"source image {volume_id} {page_no}".encode()).hexdigest()


def _digest_int(volume_id: str, page_no: int) -> int:
    return int(_digest(volume_id, page_no)[:8], 16)


def manifest_json(volume_id: str, pipeline_id: str, **fields) -> str:
    """manifest.json text; same arguments as ``manifest_record``."""
    return dumps(manifest_record(volume_id, pipeline_id, **fields))


# ---- IIIF manifests --------------------------------------------------------------------------------------


def _canvas(volume_id: str, page_no: int, image_base: str) -> dict:
    width, height = page_size(volume_id, page_no)
    canvas = canvas_id(image_base, volume_id, page_no)
    return {
        "id": canvas,
        "type": "Canvas",
        "label": {"none": [f"{page_no}"]},
        "width": width,
        "height": height,
        "items": [
            {
                "id": f"{canvas}/page",
                "type": "AnnotationPage",
                "items": [
                    {
                        "id": f"{canvas}/page/image",
                        "type": "Annotation",
                        "motivation": "painting",
                        "target": canvas,
                        "body": {
                            "id": page_image_url(image_base, volume_id, page_no),
                            "type": "Image",
                            "format": "image/jpeg",
                            "width": width,
                            "height": height,
                            "service": [
                                {
                                    "id": image_service(image_base, volume_id, page_no),
                                    "type": "ImageService3",
                                    "profile": "level1",
                                }
                            ],
                        },
                    }
                ],
            }
        ],
    }


def iiif_record(
    volume_id: str,
    pipeline_id: str,
    *,
    pages: int | Iterable[int],
    namespace: str = DEFAULT_NAMESPACE,
    results_url: str = DEFAULT_RESULTS_URL,
    image_base: str = DEFAULT_IMAGE_BASE,
) -> dict:
    """The volume's published IIIF Presentation 3 manifest (``iiif.json``) for the pages processed so far.

    ``pages`` is a count (pages 1..n) or the page numbers. Each canvas paints the page image (with its
    Image API 3 service) and has a ``seeAlso`` to the page's ALTO under ``results_url``.
    """
    canvases = []
    for n in _page_numbers(pages):
        canvas = _canvas(volume_id, n, image_base)
        canvas["seeAlso"] = [
            {
                "id": results_address(results_url, alto_key(namespace, pipeline_id, volume_id, n)),
                "type": "Dataset",
                "label": {"none": ["ALTO XML"]},
                "format": "application/xml",
                "profile": "http://www.loc.gov/standards/alto/ns-v4#",
            }
        ]
        canvases.append(canvas)
    return {
        "@context": "http://iiif.io/api/presentation/3/context.json",
        "id": results_address(results_url, iiif_key(namespace, pipeline_id, volume_id)),
        "type": "Manifest",
        "label": {"none": [f"{volume_id} ({pipeline_id})"]},
        "summary": {"none": [f"HTR results for {volume_id}, pipeline {pipeline_id}"]},
        "partOf": [{"id": source_manifest_url(image_base, volume_id), "type": "Manifest"}],
        "items": canvases,
    }


def iiif_json(volume_id: str, pipeline_id: str, **fields) -> str:
    """iiif.json text; same arguments as ``iiif_record``."""
    return dumps(iiif_record(volume_id, pipeline_id, **fields))


def source_manifest_record(volume_id: str, pages: int, image_base: str = DEFAULT_IMAGE_BASE) -> dict:
    """The archive's own IIIF Presentation 3 manifest of a volume (what ``volumes.txt`` points at)."""
    return {
        "@context": "http://iiif.io/api/presentation/3/context.json",
        "id": source_manifest_url(image_base, volume_id),
        "type": "Manifest",
        "label": {"sv": [f"Volym {volume_id}"], "en": [f"Volume {volume_id}"]},
        "metadata": [
            {"label": {"en": ["Reference code"]}, "value": {"none": [volume_id]}},
            {"label": {"en": ["Pages"]}, "value": {"none": [str(pages)]}},
        ],
        "items": [_canvas(volume_id, n, image_base) for n in range(1, pages + 1)],
    }


def source_manifest(volume_id: str, pages: int, image_base: str = DEFAULT_IMAGE_BASE) -> str:
    """Source manifest text (what the image server answers at ``/manifests/<volume>/manifest.json``)."""
    return dumps(source_manifest_record(volume_id, pages, image_base))
