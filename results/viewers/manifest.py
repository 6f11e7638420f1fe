"""The summary the run log page shows from a volume's ``manifest.json``: pages done, failed and skipped,
times, and the predicted quality of its pages (contracts §4).

``summarise_manifest`` is pure; ``manifest_summary`` reads the file and turns every failure into a
sentence in place of the summary.
"""

from __future__ import annotations

import re
import statistics

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from core import bounded_json
from core.quality import band, target_words, volume_quality
from results.store.addresses import AddressRefused, ResultsBase, key_for_address
from results.store.reader import Outcome, StoreError
from results.viewers.reading import LOG_SENTENCES, finite_number, sentence_for, viewer_link

MANIFEST_LIMIT = 4 * 1024 * 1024
# Values a manifest.json may hold: about 15 a page, so some 30,000 pages, and at most about 30 MiB once
# parsed. Counted before parsing.
MANIFEST_VALUES_MAX = 500_000
PAGES_LISTED = 10_000
PAGE_ID = re.compile(r"^[0-9]{1,6}\Z")  # a page id that names an ALTO file (``alto/<id>.xml``): ASCII digits only
STATUSES = ("ok", "failed", "skipped")


def manifest_summary(request, reader, base: ResultsBase, address: str) -> dict:
    """The summary of the manifest at ``address``, or {"problem": sentence} when it cannot be shown."""
    try:
        key = key_for_address(address, request, base)
    except AddressRefused as refused:
        # Translators: {reason} is a sentence saying why the address is refused.
        return {"problem": _("The summary is not shown: {reason}").format(reason=refused.sentence)}
    try:
        record = reader.get_json(key, max_bytes=MANIFEST_LIMIT, max_values=MANIFEST_VALUES_MAX)
    except StoreError as error:
        if error.outcome is Outcome.NOT_FOUND:
            return {
                "problem": _("There is no manifest.json yet: the volume has not finished, so there is no summary.")
            }
        # Translators: {reason} is a sentence saying why the store did not give the file.
        return {"problem": _("The summary is not shown: {reason}").format(reason=sentence_for(error, LOG_SENTENCES))}
    except (bounded_json.JsonTooLarge, bounded_json.JsonTooMany, bounded_json.JsonTooDeep):
        problem = _(
            # Translators: {size} is a size in MiB, {values} a count of values, {depth} a count of levels.
            "The summary is not shown: manifest.json holds more than this page reads (at most "
            "{size} MiB, {values} values and {depth} levels of nesting)."
        )
        return {
            "problem": problem.format(
                size=MANIFEST_LIMIT // (1024 * 1024),
                values=number_format(MANIFEST_VALUES_MAX, force_grouping=True),
                depth=bounded_json.DEFAULT_MAX_DEPTH,
            )
        }
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {"problem": _("The summary is not shown: manifest.json is not readable JSON.")}
    if not isinstance(record, dict):
        return {"problem": _("The summary is not shown: manifest.json is not a JSON object.")}
    return summarise_manifest(record, key, base)


def _text(value, limit: int = 500) -> str:
    return str(value)[:limit] if value is not None else ""


def _alto_url(base: ResultsBase, prefix: str, page_id: str) -> str:
    return viewer_link("/alto", src=base.url_for_key(f"{prefix}/alto/{page_id}.xml"))


def _pages(results: dict, base: ResultsBase, prefix: str) -> list[dict]:
    """One row per page the manifest records, in page order."""
    pages = []
    for page_id in sorted(results, key=lambda p: (len(str(p)), str(p)))[:PAGES_LISTED]:
        entry = results[page_id] if isinstance(results[page_id], dict) else {}
        status = entry.get("status") if entry.get("status") in STATUSES else "unknown"
        linked = status in ("ok", "failed") and PAGE_ID.match(str(page_id))
        pages.append(
            {
                "id": _text(page_id, 12),
                "status": status,
                "seconds": finite_number(entry.get("seconds")),
                "error": _text(entry.get("error"), 3500),
                "quality": finite_number(entry.get("quality")),
                "alto_url": _alto_url(base, prefix, page_id) if linked else "",
            }
        )
    return pages


def _quality(record: dict, base: ResultsBase, prefix: str) -> dict:
    """The volume's predicted quality, what a score means, and its lowest-scored pages linked."""
    scores = volume_quality(record.get("quality"))
    lowest = [
        {"id": s.page, "quality": s.quality, "band": band(s.quality), "alto_url": _alto_url(base, prefix, s.page)}
        for s in (scores.lowest[:5] if scores else ())
    ]
    return {
        "quality": scores,  # predicted quality of the volume's pages, with the model that scored them
        "quality_meaning": target_words(scores.target) if scores else "",
        "quality_lowest": lowest,
    }


def _count(record: dict, name: str, otherwise: int) -> int:
    value = record.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else otherwise  # JSON true is no count


def summarise_manifest(record: dict, key: str, base: ResultsBase) -> dict:
    """What the log page shows from a volume's manifest.json (pure)."""
    prefix = key.rsplit("/", 1)[0]
    results = record.get("results") if isinstance(record.get("results"), dict) else {}
    pages = _pages(results, base, prefix)
    timed = [p for p in pages if p["status"] == "ok" and p["seconds"] is not None]
    counts = {status: sum(1 for p in pages if p["status"] == status) for status in STATUSES}
    return {
        "volume": _text(record.get("volume"), 80),
        "pipeline": _text(record.get("pipeline_id"), 80),
        "htrflow_version": _text(record.get("htrflow_version"), 40),
        "pages_total": _count(record, "pages", len(pages)),
        "ok": _count(record, "pages_ok", counts["ok"]),
        "failed": _count(record, "pages_failed", counts["failed"]),
        "skipped": counts["skipped"],
        "wall_seconds": finite_number(record.get("wall_seconds")),
        "median_seconds": statistics.median([p["seconds"] for p in timed]) if timed else None,
        "slowest": sorted(timed, key=lambda p: p["seconds"], reverse=True)[:3],
        "failed_pages": [p for p in pages if p["status"] == "failed"],
        "pages": pages,
        **_quality(record, base, prefix),
        "any_page_scored": any(p["quality"] is not None for p in pages),
    }


def volume_pages(reader, prefix: str) -> dict | None:
    """What the volume's manifest.json says of its pages, for the ALTO viewer's count and strip:
    {"listed": the ``pages`` count or None, "statuses": page number -> ok, failed or skipped}. None when there
    is no readable manifest (a volume not finished): the viewer then knows its pages from iiif.json alone."""
    try:
        record = reader.get_json(f"{prefix}/manifest.json", max_bytes=MANIFEST_LIMIT, max_values=MANIFEST_VALUES_MAX)
    except StoreError as error:
        sentence_for(error, {})  # an ended session leaves for the login page; any other failure: no manifest
        return None
    except (ValueError, UnicodeDecodeError, RecursionError, bounded_json.JsonTooLarge, bounded_json.JsonTooMany,
            bounded_json.JsonTooDeep):
        return None
    if not isinstance(record, dict):
        return None
    results = record.get("results") if isinstance(record.get("results"), dict) else {}
    statuses = {}
    for page_id, entry in list(results.items())[:PAGES_LISTED]:
        if PAGE_ID.match(str(page_id)) and int(page_id) > 0:
            status = entry.get("status") if isinstance(entry, dict) else None
            statuses[int(page_id)] = status if status in STATUSES else "unknown"
    listed = record.get("pages")
    counted = isinstance(listed, int) and not isinstance(listed, bool)  # JSON true is no count
    return {"listed": listed if counted and 0 < listed <= PAGES_LISTED else None, "statuses": statuses}
