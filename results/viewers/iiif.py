"""The page image of an ALTO page, from its volume's IIIF manifest (``iiif.json``): the canvas of the page,
its image (through the image service when there is one), and a small picture of every page for the strip.

Only http(s) addresses are ever put on a page; anything else a manifest names is left out.
"""

from __future__ import annotations

import re

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from core import bounded_json
from results.store.addresses import AddressRefused, ResultsBase, key_for_address
from results.store.reader import Outcome, StoreError
from results.viewers.reading import finite_number, sentence_for

IIIF_LIMIT = 8 * 1024 * 1024
# Values (canvases, their images, services, links…) an iiif.json may hold: about 70 a page, so some
# 8,500 pages (as many as its 8 MiB hold), and at most about 40 MiB once parsed. Counted before parsing.
IIIF_VALUES_MAX = 600_000
SEE_ALSO_READ = 8  # a canvas's seeAlso links looked at for its ALTO file
IMAGE_WIDTH = 2000
THUMBNAIL_HEIGHT = 96
THUMBNAILS_MAX = 2000
_WEB_URL = re.compile(r"^https?://[^\s\"'<>\\]+$")


def page_image(reader, base: ResultsBase, key: str, location) -> dict:
    """The page image from the volume's iiif.json canvas: {"url", "width", "height"} or {"problem"}, with the
    number of pages and the strip of thumbnails when the manifest lists pages."""
    prefix, page_id = location.group("prefix"), location.group("page")
    try:
        manifest = reader.get_json(f"{prefix}/iiif.json", max_bytes=IIIF_LIMIT, max_values=IIIF_VALUES_MAX)
    except StoreError as error:
        if error.outcome is Outcome.NOT_FOUND:
            return {"problem": _("The page image cannot be shown: there is no iiif.json for this volume yet")}
        # Translators: {reason} is a sentence saying why the store did not give the file.
        return {"problem": _("The page image cannot be shown: {reason}").format(reason=sentence_for(error, {}))}
    except (bounded_json.JsonTooLarge, bounded_json.JsonTooMany, bounded_json.JsonTooDeep):
        return {"problem": _too_much_sentence()}
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {"problem": _("The page image cannot be shown: the volume's iiif.json is not readable JSON.")}
    canvases = manifest.get("items") if isinstance(manifest, dict) else None
    if not isinstance(canvases, list) or not canvases:
        return {"problem": _("The page image cannot be shown: the volume's iiif.json lists no pages.")}
    canvas = _canvas_for(canvases, base, key, int(page_id))
    pictures = thumbnails(canvases)
    pages = {"pages": max(max(pictures, default=0), len(canvases)), "pictures": pictures}
    if canvas is None:
        problem = _("The page image cannot be shown: the volume's iiif.json has no canvas for this page.")
        return {"problem": problem, **pages}
    url, width, height = image_of(canvas)
    if not url:
        return {"problem": _("The page image cannot be shown: its canvas names no usable http(s) image."), **pages}
    return {"url": url, "width": width, "height": height, "problem": "", **pages}


def _too_much_sentence() -> str:
    return _(
        # Translators: {size} is a size in MiB, {values} a count of values, {depth} a count of levels.
        "The page image cannot be shown: the volume's iiif.json holds more than this viewer reads (at most "
        "{size} MiB, {values} values and {depth} levels of nesting)."
    ).format(
        size=IIIF_LIMIT // (1024 * 1024),
        values=number_format(IIIF_VALUES_MAX, force_grouping=True),
        depth=bounded_json.DEFAULT_MAX_DEPTH,
    )


def thumbnails(canvases: list) -> dict[int, str]:
    """Page number -> a small picture of it, for the page strip: from the image service when there is one, else
    the canvas's own thumbnail, else the image itself (the browser loads them lazily). A canvas is the page its
    ``seeAlso`` ALTO file names (a volume with a failed page may have no canvas for it, so the list's place is
    not the page's number), else (no such link, or a page another canvas already is) its place in the list."""
    strip: dict[int, str] = {}
    for place, canvas in enumerate(canvases[:THUMBNAILS_MAX], start=1):
        picture = ""
        if isinstance(canvas, dict):
            service = _image_service(canvas)
            if service:
                picture = f"{service}/full/,{THUMBNAIL_HEIGHT}/0/default.jpg"
            else:
                picture = _canvas_thumbnail(canvas) or image_of(canvas)[0]
        number = _page_number(canvas)
        strip.setdefault(place if number is None or number in strip else number, picture)
    return strip


_ALTO_NAME = re.compile(r"/alto/(\d{1,6})\.xml$")


def _page_number(canvas) -> int | None:
    """The page number of the ALTO file a canvas's ``seeAlso`` names, else None."""
    see_also = canvas.get("seeAlso") if isinstance(canvas, dict) else None
    for item in (see_also if isinstance(see_also, list) else [see_also])[:SEE_ALSO_READ]:
        target = item.get("id") if isinstance(item, dict) else None
        found = _ALTO_NAME.search(target) if isinstance(target, str) else None
        if found and int(found.group(1)) > 0:
            return int(found.group(1))
    return None


def _canvas_thumbnail(canvas: dict) -> str:
    thumbnail = canvas.get("thumbnail")
    for item in thumbnail if isinstance(thumbnail, list) else [thumbnail]:
        if isinstance(item, dict) and _is_web_url(item.get("id")):
            return item["id"]
    return ""


def _canvas_for(canvases: list, base: ResultsBase, key: str, page_no: int):
    """The canvas whose seeAlso names this ALTO file, else the page's place in the list, else None. Only
    the first ``SEE_ALSO_READ`` links of a canvas are looked at, and only those naming the file
    are resolved to a key."""
    file_name = key.rsplit("/", 1)[-1]
    for canvas in canvases:
        if not isinstance(canvas, dict):
            continue
        see_also = canvas.get("seeAlso")
        for item in (see_also if isinstance(see_also, list) else [see_also])[:SEE_ALSO_READ]:
            target = item.get("id") if isinstance(item, dict) else None
            if isinstance(target, str) and file_name in target:
                try:
                    if key_for_address(target, base=base) == key:
                        return canvas
                except AddressRefused:
                    continue
    if 0 < page_no <= len(canvases) and isinstance(canvases[page_no - 1], dict):
        return canvases[page_no - 1]
    return None


def image_of(canvas: dict) -> tuple[str, float | None, float | None]:
    """(url, width, height) of a canvas's image: at most ``IMAGE_WIDTH`` wide from its image service."""
    width, height = finite_number(canvas.get("width")), finite_number(canvas.get("height"))
    body = _image_body(canvas)
    if body is None:
        return "", width, height
    service_id = _service_of(body)
    if service_id:
        size = min(IMAGE_WIDTH, int(width)) if width else IMAGE_WIDTH
        return f"{service_id}/full/{size},/0/default.jpg", width, height
    image_id = body.get("id") or body.get("@id")
    return (image_id if _is_web_url(image_id) else ""), width, height


def _image_body(canvas: dict):
    try:
        body = canvas["items"][0]["items"][0]["body"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(body, dict) and body.get("type") == "Choice" and isinstance(body.get("items"), list):
        body = body["items"][0] if body["items"] else {}
    return body if isinstance(body, dict) else None


def _service_of(body: dict) -> str:
    services = body.get("service")
    for service in services if isinstance(services, list) else [services]:
        if isinstance(service, dict):
            service_id = service.get("id") or service.get("@id")
            if _is_web_url(service_id):
                return service_id.rstrip("/")
    return ""


def _image_service(canvas: dict) -> str:
    body = _image_body(canvas)
    return _service_of(body) if body else ""


def _is_web_url(value) -> bool:
    return isinstance(value, str) and _WEB_URL.match(value) is not None
