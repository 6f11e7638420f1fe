"""Reading ALTO XML (v2, v3, v4) for the page viewer. Pure: bytes in, plain values out.

Elements are matched by local name, so any ALTO namespace (or none) reads the same. Parsing goes
through defusedxml: entity declarations and external references are refused, never expanded, and
files over ``MAX_ALTO_BYTES`` are refused before parsing. Coordinates stay in the file's own
``MeasurementUnit`` (pixel, mm10 or inch1200); the viewer maps the page size onto the image, so the
unit only matters for the numbers shown to people.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from xml.etree.ElementTree import ParseError

import defusedxml
import defusedxml.ElementTree as SafeET

from results.formats.runlog import reveal_invisible

MAX_ALTO_BYTES = 16 * 1024 * 1024
MAX_LINES = 20_000
MAX_WORDS = 400_000
UNITS = {"pixel": "px", "mm10": "mm", "inch1200": "in"}
# Coordinates beyond this (in any unit) are pulled in to it: no page is that large, and 1e308 would make a
# viewBox of 309-digit numbers. Such lines then lie outside the page and are listed as such.
COORDINATE_LIMIT = 1e7
MAX_NUMBER_CHARS = 32  # a point's number longer than this is not a coordinate
# One way only to read each digit: "\d+\.?\d*" could split a run of digits between its two parts in every way,
# quadratic on a long run that does not match.
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")

Point = tuple[float, float]
Box = tuple[float, float, float, float]


class AltoError(ValueError):
    """The file cannot be read as ALTO; ``sentence`` says why in words."""

    def __init__(self, sentence: str):
        super().__init__(sentence)
        self.sentence = sentence


@dataclass(frozen=True)
class Word:
    text: str
    confidence: float | None = None
    subs_content: str | None = None
    subs_type: str | None = None


@dataclass(frozen=True)
class Line:
    """One TextLine. ``number`` counts lines on the page from 1; ``points`` is its outline."""

    id: str
    number: int
    block_id: str
    box: Box
    points: tuple[Point, ...]
    words: tuple[Word, ...]
    hyphen: str | None = None
    polygon_from_file: bool = True

    @property
    def text(self) -> str:
        """The line as written on the page, a trailing hyphen included."""
        return " ".join(w.text for w in self.words) + (self.hyphen or "")

    @property
    def confidence(self) -> float | None:
        """Mean word confidence (0 to 1), or None when no word has one."""
        scores = [w.confidence for w in self.words if w.confidence is not None]
        return sum(scores) / len(scores) if scores else None

    def confidence_band(self) -> str:
        score = self.confidence
        if score is None:
            return "none"
        if score >= 0.9:
            return "high"
        if score >= 0.75:
            return "mid"
        return "low"


@dataclass(frozen=True)
class Block:
    id: str
    lines: tuple[Line, ...]


@dataclass
class AltoPage:
    """What the viewer needs from one ALTO file, plus sentences about anything odd in it."""

    version: int | None
    unit: str
    width: float | None
    height: float | None
    print_space: Box | None
    blocks: list[Block]
    problems: list[str] = field(default_factory=list)
    total_lines: int = 0  # TextLines in the whole file, counting any beyond the MAX_LINES read

    @property
    def lines(self) -> list[Line]:
        return [line for block in self.blocks for line in block.lines]

    def text(self) -> str:
        """Plain text: lines as written, a blank line between blocks."""
        return "\n\n".join("\n".join(line.text for line in block.lines) for block in self.blocks if block.lines) + (
            "\n" if self.lines else ""
        )

    def extent(self) -> Box:
        """The area to show: the page, widened to anything drawn outside it."""
        xs, ys = [0.0], [0.0]
        if self.width and self.height:
            xs.append(self.width)
            ys.append(self.height)
        elif self.print_space:
            x, y, w, h = self.print_space
            xs += [x, x + w]
            ys += [y, y + h]
        for line in self.lines:
            xs += [p[0] for p in line.points]
            ys += [p[1] for p in line.points]
        left, top = min(xs), min(ys)
        return (left, top, max(max(xs) - left, 1.0), max(max(ys) - top, 1.0))

    def lines_outside(self) -> list[Line]:
        if not (self.width and self.height):
            return []
        return [
            line
            for line in self.lines
            if any(x < 0 or y < 0 or x > self.width or y > self.height for x, y in line.points)
        ]

    def mean_confidence(self) -> float | None:
        scores = [c for c in (line.confidence for line in self.lines) if c is not None]
        return statistics.fmean(scores) if scores else None

    def unit_label(self) -> str:
        return UNITS.get(self.unit, self.unit)


def parse_alto(data: bytes) -> AltoPage:
    """Parse ALTO bytes. Raises ``AltoError`` for files that are not readable ALTO at all."""
    if len(data) > MAX_ALTO_BYTES:
        raise AltoError(
            f"The ALTO file is {len(data) / 1048576:.1f} MiB, "
            f"over the {MAX_ALTO_BYTES // 1048576} MiB this viewer reads."
        )
    root = _safe_root(data)
    if _local(root.tag) != "alto":
        raise AltoError(f"The file is XML but not ALTO: its root element is <{_local(root.tag)}>, not <alto>.")
    problems: list[str] = []
    unit = _measurement_unit(root, problems)
    page = _first(root, "Page")
    width = _coordinate(page.get("WIDTH")) if page is not None else None
    height = _coordinate(page.get("HEIGHT")) if page is not None else None
    space_element = _first(page if page is not None else root, "PrintSpace")
    print_space = _box(space_element) if space_element is not None else None
    if (not width or not height) and print_space:
        width, height = print_space[0] + print_space[2], print_space[1] + print_space[3]
    if not width or not height:
        width = height = None
        problems.append("The file gives no page size, so the text is placed by its own extent.")
    blocks = _blocks(root, problems)
    parsed = AltoPage(_version(root.tag), unit, width, height, print_space, blocks, problems)
    parsed.total_lines = sum(1 for element in root.iter() if _local(element.tag) == "TextLine")
    if not parsed.lines:
        problems.append("The file has no text lines: the recogniser found no text on this page, or it was not kept.")
    outside = parsed.lines_outside()
    if outside:
        numbers = ", ".join(str(line.number) for line in outside[:10])
        problems.append(
            f"{len(outside)} line(s) lie partly outside the page ({numbers}); they are drawn where the file puts them."
        )
    return parsed


def _safe_root(data: bytes):
    try:
        return SafeET.fromstring(data)
    except defusedxml.DTDForbidden:
        raise AltoError("The file declares a document type (DTD), which this viewer does not read.") from None
    except defusedxml.EntitiesForbidden:
        raise AltoError("The file declares XML entities, which this viewer refuses to expand for safety.") from None
    except defusedxml.ExternalReferenceForbidden:
        raise AltoError("The file refers to external resources, which this viewer refuses to load.") from None
    except defusedxml.DefusedXmlException:
        raise AltoError("The file uses XML features this viewer refuses for safety.") from None
    except ParseError as error:
        line, column = getattr(error, "position", (0, 0))
        raise AltoError(f"The file is not well-formed XML (line {line}, column {column}).") from None
    except (ValueError, UnicodeError, LookupError):
        # LookupError: the XML declaration names an encoding Python does not know.
        raise AltoError("The file is not well-formed XML.") from None


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _version(tag: str) -> int | None:
    match = re.search(r"alto/ns-v(\d)#", tag)
    return int(match.group(1)) if match else None


def _first(root, name: str):
    for element in root.iter():
        if _local(element.tag) == name:
            return element
    return None


def _children(element, name: str):
    return [child for child in element if _local(child.tag) == name]


def _measurement_unit(root, problems: list[str]) -> str:
    element = _first(root, "MeasurementUnit")
    unit = (element.text or "").strip() if element is not None else ""
    if not unit:
        return "pixel"
    if unit not in UNITS:
        problems.append(f"The measurement unit {unit[:40]!r} is unknown; coordinates are read as pixels.")
        return "pixel"
    return unit


def _number(value) -> float | None:
    if value is None:
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _coordinate(value) -> float | None:
    """A finite number pulled in to ±``COORDINATE_LIMIT``, or None."""
    number = _number(value)
    return None if number is None else _clamp(number)


def _clamp(number: float) -> float:
    return max(-COORDINATE_LIMIT, min(COORDINATE_LIMIT, number))


def _box(element) -> Box | None:
    values = [_coordinate(element.get(name)) for name in ("HPOS", "VPOS", "WIDTH", "HEIGHT")]
    if any(v is None for v in values) or values[2] < 0 or values[3] < 0:
        return None
    return (values[0], values[1], values[2], values[3])


def parse_points(text: str | None) -> tuple[Point, ...] | None:
    """Polygon points in either ALTO style, ``x,y x,y`` or ``x y x y``; None unless 3+ finite points.
    Coordinates beyond ±``COORDINATE_LIMIT`` are pulled in to it."""
    if not text:
        return None
    cleaned = text.replace(",", " ").split()
    if len(cleaned) < 6 or len(cleaned) % 2 or len(cleaned) > 20_000:
        return None
    if not all(len(token) <= MAX_NUMBER_CHARS and _NUMBER.fullmatch(token) for token in cleaned):
        return None
    numbers = [float(token) for token in cleaned]
    if not all(math.isfinite(n) for n in numbers):
        return None
    numbers = [_clamp(n) for n in numbers]
    return tuple((numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2))


def _box_points(box: Box) -> tuple[Point, ...]:
    x, y, w, h = box
    right, bottom = _clamp(x + w), _clamp(y + h)
    return ((x, y), (right, y), (right, bottom), (x, bottom))


def _bounds(points: tuple[Point, ...]) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def _blocks(root, problems: list[str]) -> list[Block]:
    blocks: list[Block] = []
    counter = {"lines": 0, "words": 0, "unplaced": 0}
    for index, element in enumerate(e for e in root.iter() if _local(e.tag) == "TextBlock"):
        block_id = element.get("ID") or f"block{index + 1}"
        lines = []
        for line_element in _children(element, "TextLine"):
            if counter["lines"] >= MAX_LINES or counter["words"] >= MAX_WORDS:
                problems.append(f"The file is very long; only the first {counter['lines']} lines are shown.")
                blocks.append(Block(block_id, tuple(lines)))
                return blocks
            line = _line(line_element, counter, block_id)
            if line is not None:
                lines.append(line)
        blocks.append(Block(block_id, tuple(lines)))
    if counter["unplaced"]:
        problems.append(f"{counter['unplaced']} line(s) have no usable position and are listed as text only.")
    return blocks


def _line(element, counter: dict, block_id: str) -> Line | None:
    words = []
    hyphen = None
    for child in element:
        name = _local(child.tag)
        if name == "String":
            words.append(_word(child))
        elif name == "HYP":
            hyphen = reveal_invisible(child.get("CONTENT") or "-")
    counter["words"] += len(words)
    points = None
    shape = _children(element, "Shape")
    if shape:
        polygon = _children(shape[0], "Polygon")
        if polygon:
            points = parse_points(polygon[0].get("POINTS"))
    from_file = points is not None
    box = _box(element)
    if points is None and box is not None:
        points = _box_points(box)
    counter["lines"] += 1
    number = counter["lines"]
    if points is None:
        counter["unplaced"] += 1
        points = ()
    return Line(
        id=element.get("ID") or f"line{number}",
        number=number,
        block_id=block_id,
        box=_bounds(points) if points else (0.0, 0.0, 0.0, 0.0),
        points=points,
        words=tuple(words),
        hyphen=hyphen,
        polygon_from_file=from_file,
    )


def _word(element) -> Word:
    confidence = _number(element.get("WC"))
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        confidence = None
    return Word(
        text=reveal_invisible(element.get("CONTENT") or ""),
        confidence=confidence,
        subs_content=reveal_invisible(element.get("SUBS_CONTENT") or "") or None,
        subs_type=element.get("SUBS_TYPE") or None,
    )


def format_number(value: float) -> str:
    """Coordinates for people and for SVG attributes: integers stay integers."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


def svg_points(points: tuple[Point, ...]) -> str:
    return " ".join(f"{format_number(x)},{format_number(y)}" for x, y in points)
