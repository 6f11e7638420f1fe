"""The ALTO page viewer (/alto): the page image with its text lines drawn over it, the text beside it,
the volume's other pages, and the plain text as a download (/alto/text).

Parsing is ``results.formats.alto``'s; the page image and the strip of pages come from ``iiif``.
"""

from __future__ import annotations

import re

from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from results.formats import alto as alto_parser
from results.formats import kinds, runlog
from results.store.addresses import ResultsBase
from results.store.reader import Outcome, StoreError
from results.viewers.iiif import THUMBNAILS_MAX, page_image
from results.viewers.manifest import volume_pages
from results.viewers.reading import Target, operator_fix, positive_int, problem_page, reads, sentence_for, viewer_link
from results.viewers.volume_place import find_place
from results.viewers.wrong_kind import cut_off_sentence, wrong_kind_sentence

DRAWN_LINES_MAX = 5000  # ALTO lines drawn and listed on one page: more make the page slow to build and to show
RAW_XML_LIMIT = 512 * 1024
# What was wrong with a page asked for by number: the go-to redirect carries the code, the page words it.
NOT_A_NUMBER = "not_a_number"
OUT_OF_RANGE = "out_of_range"
ALTO_KEY = re.compile(r"^(?P<prefix>.+)/alto/(?P<page>\d{4,})\.xml$")
ALTO_SENTENCES = {
    Outcome.FORBIDDEN: gettext_lazy(
        "Your store account may not read this volume's results, so this page cannot be shown."
    ),
    Outcome.NOT_FOUND: gettext_lazy(
        "There is no ALTO file at this address: the page may have failed or not been processed yet."
    ),
    Outcome.UNREACHABLE: gettext_lazy(
        "The results store could not be reached, so the page cannot be shown. Try again in a minute."
    ),
    Outcome.TIMEOUT: gettext_lazy(
        "The results store did not answer in time, so the page cannot be shown. Try again in a minute."
    ),
}
TITLE = gettext_lazy("ALTO page")


def _read_alto(reader, key: str):
    """(blob, page, problem): the ALTO file and its parsed page, or None and the sentence saying why not.
    Raises StoreError when the file cannot be read at all."""
    blob = reader.get(key, max_bytes=alto_parser.MAX_ALTO_BYTES + 1)
    name = key.rsplit("/", 1)[-1]
    wrong = wrong_kind_sentence(name, blob.body)
    if wrong:
        return blob, None, wrong
    if blob.size > alto_parser.MAX_ALTO_BYTES:
        # Translators: {size} and {most} are sizes in MiB, such as 17.2 and 16.
        problem = _("The ALTO file is {size} MiB, over the {most} MiB this viewer reads; download it instead.").format(
            size=number_format(blob.size / 1048576, decimal_pos=1), most=alto_parser.MAX_ALTO_BYTES // 1048576
        )
        return blob, None, problem
    try:
        return blob, alto_parser.parse_alto(blob.body), ""
    except alto_parser.AltoError as refused:
        if kinds.cut_off_xml(blob.body):
            return blob, None, cut_off_sentence(name, blob.size)
        return blob, None, refused.sentence


@reads("src", TITLE)
def alto_view(request, target: Target):
    """The page image with its text lines drawn over it, and the text beside it; a page without an ALTO
    file (a failed page) still shows its image and the way to the volume's other pages."""
    reader, base, key, address = target.reader, target.base, target.key, target.address
    location = ALTO_KEY.match(key)
    if location and "goto" in request.GET:
        return _go_to_page(request, target, location)
    try:
        blob, page, parse_problem = _read_alto(reader, key)
    except StoreError as error:
        sentence = sentence_for(error, ALTO_SENTENCES)
        if error.outcome is not Outcome.NOT_FOUND or location is None:
            return problem_page(
                request, TITLE, sentence, operator_fix(error, key), status=error.status, address=address
            )
        blob, page, parse_problem = None, None, _missing_page_sentence(location)
    missing, raw = blob is None, _raw_preview(blob)
    # A file that is not XML at all: its sentence is the one cause; no image or page count is looked for.
    wrong_kind = blob is not None and page is None and kinds.kind_of(blob.body) != kinds.XML
    del blob  # up to 16 MiB: not held while the volume's iiif.json is read and parsed
    image = page_image(reader, base, key, location) if location and not wrong_kind else {"problem": ""}
    pages = volume_pages(reader, location.group("prefix")) if location else None
    strip = page_strip(base, location, image, pages, missing) if location else {}
    query = request.GET.get("q", "")[:200]
    place = find_place(key, request)
    context = {
        "address": address,
        "key": key,
        "raw_url": "" if missing else base.url_for_key(key),
        "text_url": viewer_link("/alto/text", src=address),
        "page": page,
        "missing": missing,
        "wrong_kind": wrong_kind,
        "file_name": key.rsplit("/", 1)[-1],
        "log_viewer_url": viewer_link("/log", log=address) if wrong_kind and key.endswith(".txt") else "",
        "parse_problem": parse_problem,
        "problems": page.problems if page else [],
        "image": image,
        "query": query,
        **raw,
        "place": place,
        "volume_links": _volume_links(base, place),
        "goto_problem": _goto_sentence(request.GET, strip.get("total")),
        "strip": strip.get("thumbs", []),
        "strip_marked": [thumb for thumb in strip.get("thumbs", []) if thumb["mark"]][:STRIP_MARKED_LISTED],
        **alto_drawing(page, query, image),
        **_neighbours(base, location, strip.get("total")),
    }
    if not context.get("volume") and place is not None:
        context["volume"] = place.volume  # named by its address, though it is no ALTO page
    return render(request, "viewers/alto.html", context, status=404 if missing else 200)


def _raw_preview(blob) -> dict:
    """The start of the file as the page shows it (at most ``RAW_XML_LIMIT`` bytes), and whether it was cut."""
    if blob is None:
        return {"raw_xml": "", "raw_cut": False}
    return {"raw_xml": blob.body[:RAW_XML_LIMIT].decode("utf-8", "replace"), "raw_cut": len(blob.body) > RAW_XML_LIMIT}


def _missing_page_sentence(location) -> str:
    return _(
        # Translators: {page} is a page's number in its volume.
        "Page {page} has no ALTO file: it failed or has not been processed yet, so there is "
        "no text to show. Its run log says why; the page image and the volume's other pages are below."
    ).format(page=int(location.group("page")))


def _volume_links(base: ResultsBase, place) -> dict:
    """The volume's run log, IIIF manifest and completion record, as viewer or results links."""
    if place is None:
        return {}
    prefix = place.prefix
    manifest = base.url_for_key(f"{prefix}/manifest.json")
    return {
        "log": viewer_link("/log", log=base.url_for_key(place.log_key), manifest=manifest),
        "iiif": base.url_for_key(f"{prefix}/iiif.json"),
        "manifest": manifest,
    }


def _go_to_page(request, target: Target, location):
    """``goto=N``: to page N of the volume, or back to this page with the code of what was wrong (and the
    number asked for): the page words it itself (``_goto_sentence``), so no text of a link is ever shown."""
    wanted = positive_int(request.GET.get("goto", "").strip())
    if wanted is None:
        return HttpResponseRedirect(viewer_link("/alto", src=target.address, goto_problem=NOT_A_NUMBER))
    image = page_image(target.reader, target.base, target.key, location)
    pages = volume_pages(target.reader, location.group("prefix"))
    total = page_strip(target.base, location, image, pages, missing=True)["total"]
    if total and wanted > total:
        link = viewer_link("/alto", src=target.address, goto_problem=OUT_OF_RANGE, asked=wanted)
        return HttpResponseRedirect(link)
    width = len(location.group("page"))
    key = f"{location.group('prefix')}/alto/{wanted:0{width}d}.xml"
    return HttpResponseRedirect(viewer_link("/alto", src=target.base.url_for_key(key)))


def _goto_sentence(query, total: int | None) -> str:
    """The sentence for a ``goto_problem`` code the go-to redirect gave; '' for any other value."""
    code = query.get("goto_problem", "")
    if code == NOT_A_NUMBER:
        if total:
            # Translators: {total} is how many pages the volume has.
            return _("That is not a page number: give a page number, 1 to {total}.").format(total=total)
        return _("That is not a page number: give a page number, 1 or more.")
    if code != OUT_OF_RANGE:
        return ""
    asked = positive_int(query.get("asked", ""))
    if asked is None:
        if total:
            # Translators: {total} is how many pages the volume has.
            return _("There is no such page: give a page number, 1 to {total}.").format(total=total)
        return _("There is no such page: give a page number, 1 or more.")
    if total:
        # Translators: {asked} is the page number asked for; {total} how many pages the volume has.
        return _("There is no page “{asked}”: give a page number, 1 to {total}.").format(asked=asked, total=total)
    # Translators: {asked} is the page number asked for.
    return _("There is no page “{asked}”: give a page number, 1 or more.").format(asked=asked)


def _row(line, needle: str, needle_pattern) -> tuple[dict, int]:
    """What the page shows of one text line, and how many times the search matched in it."""
    pieces, hit_count = [(line.text, False)], 0
    if needle and needle in line.text.lower():
        hits, hit_count = runlog.first_hits(needle_pattern, line.text)
        pieces = runlog.highlight(line.text, hits)
    row = {
        "line": line,
        "points": alto_parser.svg_points(line.points),
        "band": line.confidence_band(),
        "percent": round(line.confidence * 100) if line.confidence is not None else None,
        "pieces": pieces,
        "matched": bool(needle) and len(pieces) > 1,
        "whole_words": ", ".join(w.subs_content for w in line.words if w.subs_content and w.subs_type == "HypPart1"),
    }
    return row, hit_count


def alto_drawing(page, query: str, image: dict) -> dict:
    """The blocks and lines to draw (at most ``DRAWN_LINES_MAX``), the drawing's viewBox, and the search's count."""
    if page is None:
        return {"blocks": [], "viewbox": "", "match_count": 0, "line_count": 0, "drawing_note": ""}
    left, top, width, height = page.extent()
    if not (page.width and page.height) and image.get("width") and image.get("height"):
        width, height = max(width, image["width"]), max(height, image["height"])
    needle = query.strip().lower()
    needle_pattern = re.compile(re.escape(needle), re.IGNORECASE)
    match_count = drawn = 0
    blocks = []
    for block in page.blocks:
        rows = []
        for line in block.lines[: max(0, DRAWN_LINES_MAX - drawn)]:
            row, hit_count = _row(line, needle, needle_pattern)
            rows.append(row)
            match_count += hit_count
        drawn += len(rows)
        blocks.append({"id": block.id, "rows": rows})
    fmt = alto_parser.format_number
    mean = page.mean_confidence()
    return {
        "blocks": blocks,
        "viewbox": f"{fmt(left)} {fmt(top)} {fmt(width)} {fmt(height)}",
        "page_width": fmt(page.width or width),
        "page_height": fmt(page.height or height),
        "match_count": match_count,
        "line_count": drawn,
        "drawing_note": _drawing_note(page, drawn),
        "mean_percent": round(mean * 100) if mean is not None else None,
    }


def _drawing_note(page, drawn: int) -> str:
    """A sentence when the file has more lines than are drawn, else ''."""
    total = max(page.total_lines, len(page.lines))
    if total <= drawn:
        return ""
    counts = {
        "total": number_format(total, force_grouping=True),
        "drawn": number_format(drawn, force_grouping=True),
        "more": number_format(total - drawn, force_grouping=True),
        "kept": number_format(len(page.lines), force_grouping=True),
    }
    if len(page.lines) > drawn:
        return _(
            # Translators: {total}, {drawn}, {more} and {kept} are counts of text lines (more than one each).
            "This page has {total} text lines; only the first {drawn} are drawn and listed here, "
            "{more} more are not. The plain text holds the first {kept}."
        ).format(**counts)
    return _(
        # Translators: {total}, {drawn} and {more} are counts of text lines (more than one each).
        "This page has {total} text lines; only the first {drawn} are drawn and listed here, {more} more are not."
    ).format(**counts)


STRIP_MARKED_LISTED = 50  # marked pages linked above the strip (each also marked on its thumbnail)
# Why a page of the strip is marked: the words beside its number (not a colour alone).
STRIP_MARKS = {
    "failed": gettext_lazy("failed"),
    "skipped": gettext_lazy("skipped"),
    "unrecorded": gettext_lazy("not in manifest.json"),
    "no_text": gettext_lazy("no ALTO file"),
    "no_image": gettext_lazy("no image"),
}


def page_strip(base: ResultsBase, location, image: dict, pages: dict | None, missing: bool) -> dict:
    """Every page the volume has, by what its files say together: the pages manifest.json counts and records,
    the canvases of iiif.json, and this page when its ALTO file was read. {"total": how many, or None when
    nothing counts them; "thumbs": one per page (number, picture, link, mark: a key of ``STRIP_MARKS`` or "")}.
    So the count and the strip never disagree with the manifest, and a page no canvas shows is still listed."""
    prefix, page_id = location.group("prefix"), location.group("page")
    number, width = int(page_id), len(page_id)
    pictures = image.get("pictures") or {}
    statuses = pages["statuses"] if pages else {}
    counted = [
        pages["listed"] if pages and pages["listed"] else 0,
        max(statuses, default=0),
        max(pictures, default=0),
        image.get("pages") or 0,
        0 if missing else number,
    ]
    total = max(counted) or None
    thumbs = []
    for n in range(1, min(total or 0, THUMBNAILS_MAX) + 1):
        status = statuses.get(n)
        if status in ("failed", "skipped"):
            mark = status
        elif statuses and status is None:
            mark = "unrecorded"
        elif n == number and missing:
            mark = "no_text"
        elif image.get("pictures") is not None and n not in pictures:
            mark = "no_image"
        else:
            mark = ""
        key = f"{prefix}/alto/{n:0{width}d}.xml"
        thumbs.append({
            "number": n,
            "picture": pictures.get(n, ""),
            "url": viewer_link("/alto", src=base.url_for_key(key)),
            "mark": mark,
            "mark_words": str(STRIP_MARKS[mark]) if mark else "",
        })
    return {"total": total, "thumbs": thumbs}


def _neighbours(base: ResultsBase, location, total: int | None) -> dict:
    """Links to the previous and next page, and the words for where this page is in its volume."""
    if location is None:
        return {"previous_url": "", "next_url": "", "page_label": "", "page_number": None, "page_total": None}
    prefix, page_id = location.group("prefix"), location.group("page")
    number = int(page_id)
    width = len(page_id)

    def link(n):
        return viewer_link("/alto", src=base.url_for_key(f"{prefix}/alto/{n:0{width}d}.xml"))

    return {
        "previous_url": link(number - 1) if number > 1 else "",
        "next_url": link(number + 1) if total is None or number < total else "",
        "page_label": _page_label(number, total),
        "page_number": number,
        "page_total": total,
        "volume": prefix.rsplit("/", 1)[-1],
    }


def _page_label(number: int, total: int | None) -> str:
    """Where a page is in its volume, as the page's heading says it after the volume: ``page 3 of 40``."""
    if total:
        # Translators: a page's place in its volume, after the volume's name in a heading (lower case).
        return pgettext("ALTO page heading", "page {number} of {total}").format(number=number, total=total)
    # Translators: a page's place in its volume, after the volume's name in a heading (lower case).
    return pgettext("ALTO page heading", "page {number}").format(number=number)


@reads("src", TITLE)
def alto_text(request, target: Target):
    """The page's plain text as a download."""
    try:
        _blob, page, problem = _read_alto(target.reader, target.key)
    except StoreError as error:
        sentence = sentence_for(error, ALTO_SENTENCES)
        return problem_page(request, TITLE, sentence, status=error.status, address=target.address)
    if page is None:
        return problem_page(request, TITLE, problem, status=422, address=target.address)
    key = target.key
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", key.replace("/alto/", "-").rsplit("/", 1)[-1]).removesuffix(".xml")
    response = HttpResponse(page.text(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.txt"'
    response["Cache-Control"] = "private, no-store"
    return response
