"""ALTO (v2, v3, v4) and PAGE XML for an invented page, shaped like HTR output.

Built with ElementTree, so every text and attribute value is escaped; the output is deterministic.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from devstack.content_layout import (
    PageLayout,
    TextLine,
    with_hostile_text,
    with_line_outside,
    without_lines,
)

ALTO_NAMESPACES = {
    2: "http://www.loc.gov/standards/alto/ns-v2#",
    3: "http://www.loc.gov/standards/alto/ns-v3#",
    4: "http://www.loc.gov/standards/alto/ns-v4#",
}
ALTO_SCHEMAS = {
    2: "http://www.loc.gov/standards/alto/alto-v2.0.xsd",
    3: "http://www.loc.gov/alto/v3/alto-3-1.xsd",
    4: "http://www.loc.gov/alto/v4/alto-4-2.xsd",
}
PAGE_NAMESPACE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
PAGE_SCHEMA = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15/pagecontent.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XLINK = "http://www.w3.org/1999/xlink"

# How many units of each ALTO MeasurementUnit make one inch.
UNITS_PER_INCH = {"pixel": None, "mm10": 254.0, "inch1200": 1200.0}

ALTO_VARIANTS = ("plain", "mm10", "inch1200", "empty", "outside", "hostile")


class _Units:
    """Converts page pixels into the chosen MeasurementUnit."""

    def __init__(self, unit: str, dpi: int):
        if unit not in UNITS_PER_INCH:
            raise ValueError(f"unknown ALTO measurement unit {unit!r}")
        self.unit = unit
        self.factor = 1.0 if unit == "pixel" else UNITS_PER_INCH[unit] / dpi

    def __call__(self, value: float) -> str:
        return str(round(value * self.factor))

    def points(self, points, style: str) -> str:
        if style == "spaces":
            return " ".join(f"{self(x)} {self(y)}" for x, y in points)
        return " ".join(f"{self(x)},{self(y)}" for x, y in points)


def _box_attributes(element: ET.Element, box, units: _Units) -> None:
    x, y, w, h = box
    element.set("HPOS", units(x))
    element.set("VPOS", units(y))
    element.set("WIDTH", units(w))
    element.set("HEIGHT", units(h))


def _alto_line(parent: ET.Element, ns: str, line: TextLine, units: _Units, options: dict) -> None:
    element = ET.SubElement(parent, "TextLine", ID=line.id)
    _box_attributes(element, line.box, units)
    if options["baseline"] == "points":
        element.set("BASELINE", units.points(line.baseline, options["points_style"]))
    else:
        mean_y = sum(y for _, y in line.baseline) / len(line.baseline)
        element.set("BASELINE", units(mean_y))
    shape = ET.SubElement(element, "Shape")
    ET.SubElement(shape, "Polygon", POINTS=units.points(line.polygon, options["points_style"]))
    for index, word in enumerate(line.words):
        if index:
            previous = line.words[index - 1]
            gap_left = previous.hpos + previous.width
            space = ET.SubElement(element, "SP", HPOS=units(gap_left))
            space.set("VPOS", units(min(previous.vpos, word.vpos)))
            space.set("WIDTH", units(max(word.hpos - gap_left, 0)))
        string = ET.SubElement(element, "String", ID=f"{line.id}w{index}")
        _box_attributes(string, word.box, units)
        string.set("CONTENT", word.text)
        string.set("WC", f"{word.confidence:.3f}")
        if word.subs_type:
            string.set("SUBS_TYPE", word.subs_type)
            string.set("SUBS_CONTENT", word.subs_content or word.text)
    if line.hyphen:
        hyp = ET.SubElement(element, "HYP", HPOS=units(line.hyphen.hpos))
        hyp.set("VPOS", units(line.hyphen.vpos))
        hyp.set("WIDTH", units(line.hyphen.width))
        hyp.set("CONTENT", line.hyphen.content)


def alto_xml(
    layout: PageLayout,
    version: int = 4,
    *,
    unit: str = "pixel",
    points_style: str = "commas",
    baseline: str | None = None,
    software_version: str = "0.4.1",
) -> bytes:
    """ALTO XML for ``layout``.

    ``version`` 2, 3 or 4 picks the namespace. ``unit`` is the MeasurementUnit (``pixel``, ``mm10`` or
    ``inch1200``; coordinates are converted at the page's dpi). ``points_style`` ``"commas"`` writes
    polygon points as ``x,y x,y`` (ALTO 4), ``"spaces"`` as ``x y x y`` (older writers). ``baseline``
    ``"points"`` writes TextLine@BASELINE as a point list (ALTO 4.2+), ``"number"`` as one y value;
    by default v4 uses points and v2/v3 a number.
    """
    if version not in ALTO_NAMESPACES:
        raise ValueError(f"ALTO version must be 2, 3 or 4, not {version!r}")
    if points_style not in ("commas", "spaces"):
        raise ValueError("points_style is 'commas' or 'spaces'")
    ns = ALTO_NAMESPACES[version]
    units = _Units(unit, layout.dpi)
    options = {"points_style": points_style, "baseline": baseline or ("points" if version == 4 else "number")}

    root = ET.Element("alto")
    root.set("xmlns", ns)
    root.set("xmlns:xsi", XSI)
    root.set("xmlns:xlink", XLINK)
    root.set("xsi:schemaLocation", f"{ns} {ALTO_SCHEMAS[version]}")
    description = ET.SubElement(root, "Description")
    ET.SubElement(description, "MeasurementUnit").text = unit
    source = ET.SubElement(description, "sourceImageInformation")
    ET.SubElement(source, "fileName").text = layout.image_filename
    processing = ET.SubElement(description, "OCRProcessing", ID="OCR_0")
    step = ET.SubElement(processing, "ocrProcessingStep")
    software = ET.SubElement(step, "processingSoftware")
    ET.SubElement(software, "softwareName").text = "HTRflow"
    ET.SubElement(software, "softwareVersion").text = software_version

    layout_element = ET.SubElement(root, "Layout")
    page = ET.SubElement(layout_element, "Page", ID=f"page_{layout.page_no}")
    page.set("PHYSICAL_IMG_NR", str(layout.page_no))
    page.set("WIDTH", units(layout.width))
    page.set("HEIGHT", units(layout.height))
    print_space = ET.SubElement(page, "PrintSpace")
    _box_attributes(print_space, (0, 0, layout.width, layout.height), units)
    for block in layout.blocks:
        block_element = ET.SubElement(print_space, "TextBlock", ID=block.id)
        _box_attributes(block_element, block.box, units)
        shape = ET.SubElement(block_element, "Shape")
        ET.SubElement(shape, "Polygon", POINTS=units.points(block.polygon, points_style))
        for line in block.lines:
            _alto_line(block_element, ns, line, units, options)
    return _serialise(root)


def alto_variant(layout: PageLayout, variant: str, version: int = 4, **options) -> bytes:
    """ALTO for the odd cases viewers must survive.

    ``plain``: as ``alto_xml``; ``mm10`` / ``inch1200``: other MeasurementUnits; ``empty``: a page with no
    text lines; ``outside``: an extra line running off the page; ``hostile``: words holding HTML and script.
    """
    if variant in ("mm10", "inch1200"):
        return alto_xml(layout, version, unit=variant, **options)
    changes = {"plain": lambda x: x, "empty": without_lines, "outside": with_line_outside, "hostile": with_hostile_text}
    if variant not in changes:
        raise ValueError(f"unknown ALTO variant {variant!r}; choose from {', '.join(ALTO_VARIANTS)}")
    return alto_xml(changes[variant](layout), version, **options)


def _serialise(root: ET.Element) -> bytes:
    """Elements are built without namespace; the root's literal xmlns attribute puts them all in it."""
    ET.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def _page_points(points) -> str:
    return " ".join(f"{x},{y}" for x, y in points)


def _word_points(box) -> str:
    x, y, w, h = box
    return _page_points(((x, y), (x + w, y), (x + w, y + h), (x, y + h)))


def _text_equiv(parent: ET.Element, text: str, confidence: float | None = None) -> None:
    equiv = ET.SubElement(parent, "TextEquiv")
    if confidence is not None:
        equiv.set("conf", f"{confidence:.3f}")
    ET.SubElement(equiv, "Unicode").text = text


def page_xml(layout: PageLayout, *, created: datetime | None = None) -> bytes:
    """PAGE XML (2019-07-15 schema) for ``layout``: regions, lines with Coords, Baseline, words, TextEquiv."""
    ns = PAGE_NAMESPACE
    created = created or datetime(2026, 9, 24, 8, 0, tzinfo=UTC) + timedelta(seconds=6 * layout.page_no)
    stamp = created.isoformat(timespec="seconds")
    root = ET.Element("PcGts")
    root.set("xmlns", ns)
    root.set("xmlns:xsi", XSI)
    root.set("xsi:schemaLocation", f"{ns} {PAGE_SCHEMA}")
    metadata = ET.SubElement(root, "Metadata")
    ET.SubElement(metadata, "Creator").text = "HTRflow"
    ET.SubElement(metadata, "Created").text = stamp
    ET.SubElement(metadata, "LastChange").text = stamp
    page = ET.SubElement(root, "Page", imageFilename=layout.image_filename)
    page.set("imageWidth", str(layout.width))
    page.set("imageHeight", str(layout.height))
    for block in layout.blocks:
        region = ET.SubElement(page, "TextRegion", id=block.id)
        ET.SubElement(region, "Coords", points=_page_points(block.polygon))
        for line in block.lines:
            line_element = ET.SubElement(region, "TextLine", id=line.id)
            ET.SubElement(line_element, "Coords", points=_page_points(line.polygon))
            ET.SubElement(line_element, "Baseline", points=_page_points(line.baseline))
            for index, word in enumerate(line.words):
                word_element = ET.SubElement(line_element, "Word", id=f"{line.id}w{index}")
                ET.SubElement(word_element, "Coords", points=_word_points(word.box))
                _text_equiv(word_element, word.text, word.confidence)
            _text_equiv(line_element, line.text, line.confidence)
        _text_equiv(region, "\n".join(line.text for line in block.lines))
    return _serialise(root)
