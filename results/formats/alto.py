"""Reading ALTO XML (v2, v3, v4) for the page viewer. Pure: bytes in, plain values out.

Elements are matched by local name, so any ALTO namespace (or none) reads the same. The file is read as
a stream (``results.formats.bounded_xml``): no element tree is built, a document type (and with it any
entity or attribute default) is refused, and nesting, names and tag length are bounded; files over
``MAX_ALTO_BYTES`` are refused before parsing. Coordinates stay in the file's own ``MeasurementUnit``
(pixel, mm10 or inch1200); the viewer maps the page size onto the image, so the unit only matters for
the numbers shown to people.

What is kept has a ceiling whatever the file holds within its size cap, so that one page costs a worker
tens of MiB at most, not hundreds: ``MAX_LINES`` lines and ``MAX_WORDS`` words, ``TEXT_CHARS_MAX``
characters of text, and ``POINTS_KEPT_MAX`` outline points. An outline's points are counted before any
is converted: one of more than ``OUTLINE_POINTS_MAX`` keeps that many, evenly spread along it, and once
the page's points are spent the remaining lines are drawn as boxes. The page says so in a sentence.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from results.formats import bounded_xml
from results.formats.runlog import reveal_invisible

MAX_ALTO_BYTES = 16 * 1024 * 1024
MAX_LINES = 20_000
MAX_WORDS = 100_000  # a dense newspaper page has about 20,000
MAX_ELEMENTS = 500_000  # elements read at most, kept or not: the time a page can cost (about a second)
TEXT_CHARS_MAX = 500_000  # characters of text kept per page (words, hyphens, whole words)
POINTS_KEPT_MAX = 100_000  # outline points kept per page; past them, lines are drawn as their boxes
OUTLINE_POINTS_MAX = 500  # points kept of one line's outline: more are not seen at page scale
ID_CHARS_MAX = 100  # a block's or line's ID, as kept
UNITS = {"pixel": "px", "mm10": "mm", "inch1200": "in"}
# Coordinates beyond this (in any unit) are pulled in to it: no page is that large, and 1e308 would make a
# viewBox of 309-digit numbers. Such lines then lie outside the page and are listed as such.
COORDINATE_LIMIT = 1e7
MAX_NUMBER_CHARS = 32  # a point's number longer than this is not a coordinate
# One way only to read each digit: "\d+\.?\d*" could split a run of digits between its two parts in every way,
# quadratic on a long run that does not match.
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_VERSION = re.compile(r"alto/ns-v(\d)#")

Point = tuple[float, float]
Box = tuple[float, float, float, float]


class AltoError(ValueError):
    """The file cannot be read as ALTO; ``sentence`` says why in words."""

    def __init__(self, sentence: str):
        super().__init__(sentence)
        self.sentence = sentence


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    confidence: float | None = None
    subs_content: str | None = None
    subs_type: str | None = None


@dataclass(frozen=True, slots=True)
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
            # Translators: {size} and {most} are sizes in MiB, such as 17.2 and 16.
            _("The ALTO file is {size} MiB, over the {most} MiB this viewer reads.").format(
                size=number_format(len(data) / 1048576, decimal_pos=1), most=MAX_ALTO_BYTES // 1048576
            )
        )
    builder = _PageBuilder()
    try:
        builder.stopped = bounded_xml.read(data, builder, max_elements=MAX_ELEMENTS)
    except bounded_xml.XmlRefused as refused:
        raise AltoError(refused.sentence) from None
    return builder.page()


def _local_text(value, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _measurement_unit(text: str, problems: list[str]) -> str:
    unit = text.strip()
    if not unit:
        return "pixel"
    if unit not in UNITS:
        problems.append(
            # Translators: {unit} is the unit the file names, in quotes.
            _("The measurement unit {unit} is unknown; coordinates are read as pixels.").format(unit=repr(unit[:40]))
        )
        return "pixel"
    return unit


def _number(value) -> float | None:
    """A finite number from an attribute's text, or None (also for text too long to be one)."""
    if value is None or len(value) > MAX_NUMBER_CHARS:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _coordinate(value) -> float | None:
    """A finite number pulled in to ±``COORDINATE_LIMIT``, or None."""
    number = _number(value)
    return None if number is None else _clamp(number)


def _clamp(number: float) -> float:
    return max(-COORDINATE_LIMIT, min(COORDINATE_LIMIT, number))


def _box(attributes: dict) -> Box | None:
    values = [_coordinate(attributes.get(name)) for name in ("HPOS", "VPOS", "WIDTH", "HEIGHT")]
    if any(v is None for v in values) or values[2] < 0 or values[3] < 0:
        return None
    return (values[0], values[1], values[2], values[3])


def _point_tokens(text: str | None) -> list[str] | None:
    """The numbers of a POINTS attribute as written, in either ALTO style (``x,y x,y`` or ``x y x y``);
    None unless they make 3 or more points. Cheap: no number is converted yet (a tag, and so the text,
    is at most ``bounded_xml.MAX_MARKUP_BYTES`` long)."""
    if not text:
        return None
    tokens = text.replace(",", " ").split()
    if len(tokens) < 6 or len(tokens) % 2:
        return None
    return tokens


def _points_of(tokens: list[str], most: int) -> tuple[Point, ...] | None:
    """At most ``most`` of the points the tokens write, evenly spread along the outline when there are
    more; None when any kept one is not a finite number. Only the kept points are converted."""
    count = len(tokens) // 2
    starts = range(0, 2 * count, 2) if count <= most else [2 * (i * count // most) for i in range(most)]
    columns = [[tokens[start] for start in starts], [tokens[start + 1] for start in starts]]
    numbers = []
    for column in columns:
        # Lengths first: a long run of digits is never handed to the pattern.
        if max(map(len, column)) > MAX_NUMBER_CHARS or not all(map(_NUMBER.fullmatch, column)):
            return None
        values = list(map(float, column))
        if not all(map(math.isfinite, values)):
            return None
        if max(map(abs, values)) > COORDINATE_LIMIT:
            values = [_clamp(value) for value in values]
        numbers.append(values)
    return tuple(zip(*numbers, strict=True))


def parse_points(text: str | None, most: int = OUTLINE_POINTS_MAX) -> tuple[Point, ...] | None:
    """Polygon points in either ALTO style, ``x,y x,y`` or ``x y x y``; None unless 3+ finite points.
    More than ``most`` points are cut to ``most``, evenly spread along the outline. Coordinates beyond
    ±``COORDINATE_LIMIT`` are pulled in to it."""
    tokens = _point_tokens(text)
    return _points_of(tokens, most) if tokens is not None else None


def _box_points(box: Box) -> tuple[Point, ...]:
    x, y, w, h = box
    right, bottom = _clamp(x + w), _clamp(y + h)
    return ((x, y), (right, y), (right, bottom), (x, bottom))


def _bounds(points: tuple[Point, ...]) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def _outline_sentence(simplified: int, boxed: int) -> str:
    """One sentence for outlines drawn with fewer points than the file gives, or ''."""
    counts = {"simplified": _count(simplified), "boxed": _count(boxed), "most": _count(POINTS_KEPT_MAX)}
    if boxed and simplified:
        return _(
            # Translators: {most} is a count of points; {simplified} and {boxed} counts of line outlines.
            "The line outlines on this page have more points than this viewer draws ({most} in all): "
            "{simplified} are drawn simplified and {boxed} as boxes."
        ).format(**counts)
    if boxed:
        return _(
            # Translators: {most} is a count of points; {boxed} a count of line outlines.
            "The line outlines on this page have more points than this viewer draws ({most} in all): "
            "{boxed} are drawn as boxes."
        ).format(**counts)
    if simplified:
        return ngettext(
            # Translators: {count} is a count of line outlines; {most} a count of points.
            "{count} line outline has more than {most} points; it is drawn simplified, with {most} points "
            "spread along it.",
            "{count} line outlines have more than {most} points; they are drawn simplified, with {most} points "
            "spread along each.",
            simplified,
        ).format(count=_count(simplified), most=_count(OUTLINE_POINTS_MAX))
    return ""


def _count(number: int) -> str:
    """A count as the reader's language writes it: ``12,345`` (Swedish ``12 345``)."""
    return number_format(number, force_grouping=True)


@dataclass
class _LineDraft:
    """A TextLine being read: what its start tag said, and what its children have added so far."""

    id: str
    depth: int
    box: Box | None
    block_id: str
    lines: list  # its block's lines, to add it to
    words: list = field(default_factory=list)
    hyphen: str | None = None
    in_shape: bool = False  # inside its first Shape now
    shape_seen: bool = False
    points_text: str | None = None  # the POINTS of its first Shape's first Polygon
    polygon_seen: bool = False


class _PageBuilder:
    """The target of ``bounded_xml.read``: keeps what the viewer needs of each element as it passes, within
    the page's ceilings, and counts what it leaves out."""

    def __init__(self):
        self.version: int | None = None
        self.page_size: tuple | None = None  # (WIDTH, HEIGHT) of the first Page
        self.page_depth: int | None = None  # the first Page's depth while it is open
        self.print_space: Box | None = None  # the first PrintSpace in the first Page
        self.loose_print_space: Box | None = None  # the first PrintSpace before any Page
        self.unit: list[str] | None = None  # text of the first MeasurementUnit
        self.unit_depth: int | None = None
        self.blocks: list[tuple[str, list]] = []  # (id, lines) of the blocks with a line kept
        self.blocks_met = 0
        self.open_blocks: list[list] = []  # [depth, id, lines, kept] of the TextBlocks open now
        self.line: _LineDraft | None = None
        self.full = False  # lines past a ceiling are counted, not kept
        self.stopped = False  # reading stopped at MAX_ELEMENTS
        self.total_lines = self.lines = self.words = self.text_chars = self.points_kept = 0
        self.text_cut = self.simplified = self.boxed = self.unplaced = 0

    # --- events ----------------------------------------------------------------------------------

    def start(self, name: str, attributes: dict, depth: int, namespace: str) -> None:
        if depth == 1:
            self._root(name, namespace)
        if name == "TextLine":
            self._line_start(attributes, depth)
        elif self.line is not None:
            self._inside_line(name, attributes, depth)
        elif name == "TextBlock" and not self.full:
            # Kept with its first line (``_line_start``): a file may hold a million empty blocks.
            self.blocks_met += 1
            block_id = _local_text(attributes.get("ID"), ID_CHARS_MAX) or f"block{self.blocks_met}"
            self.open_blocks.append([depth, block_id, [], False])
        elif name == "Page" and self.page_size is None:
            self.page_size = (attributes.get("WIDTH"), attributes.get("HEIGHT"))
            self.page_depth = depth
        elif name == "PrintSpace":
            if self.page_depth is not None and self.print_space is None:
                self.print_space = _box(attributes)
            elif self.page_size is None and self.loose_print_space is None:
                self.loose_print_space = _box(attributes)
        elif name == "MeasurementUnit" and self.unit is None:
            self.unit, self.unit_depth = [], depth

    def end(self, name: str, depth: int) -> None:
        line = self.line
        if line is not None:
            if depth == line.depth:
                self._line_end(line)
            elif name == "Shape" and depth == line.depth + 1:
                line.in_shape = False
        elif self.open_blocks and self.open_blocks[-1][0] == depth:
            self.open_blocks.pop()
        elif depth == self.page_depth:
            self.page_depth = None
        elif depth == self.unit_depth:
            self.unit_depth = None

    def text(self, piece: str) -> None:
        if self.unit_depth is not None and sum(map(len, self.unit)) < 100:
            self.unit.append(piece[:100])

    # --- what each element adds ---------------------------------------------------------------------

    def _root(self, name: str, namespace: str) -> None:
        if name != "alto":
            raise bounded_xml.XmlRefused(
                # Translators: {name} is an XML element's name; <alto> is ALTO's own root element.
                _("The file is XML but not ALTO: its root element is <{name}>, not <alto>.").format(name=name[:40])
            )
        version = _VERSION.search(namespace)
        self.version = int(version.group(1)) if version else None

    def _line_start(self, attributes: dict, depth: int) -> None:
        self.total_lines += 1
        if self.full or self.line is not None or not self.open_blocks or self.open_blocks[-1][0] != depth - 1:
            return  # counted only: past a ceiling, or not a line of a text block
        if self.lines >= MAX_LINES or self.words >= MAX_WORDS or self.text_chars >= TEXT_CHARS_MAX:
            self.full = True
            return
        block = self.open_blocks[-1]
        _depth, block_id, lines, kept = block
        if not kept:
            self.blocks.append((block_id, lines))
            block[3] = True
        line_id = _local_text(attributes.get("ID"), ID_CHARS_MAX)
        self.line = _LineDraft(line_id, depth, _box(attributes), block_id, lines)

    def _inside_line(self, name: str, attributes: dict, depth: int) -> None:
        line = self.line
        if depth == line.depth + 1:
            if name == "String":
                self._word(line, attributes)
            elif name == "HYP":
                line.hyphen = self._kept_text(attributes.get("CONTENT") or "-")
            elif name == "Shape" and not line.shape_seen:
                line.in_shape = line.shape_seen = True
        elif depth == line.depth + 2 and name == "Polygon" and line.in_shape and not line.polygon_seen:
            line.polygon_seen = True
            line.points_text = attributes.get("POINTS")

    def _word(self, line: _LineDraft, attributes: dict) -> None:
        if self.words >= MAX_WORDS or self.text_chars >= TEXT_CHARS_MAX:
            self.full = True
            return
        self.words += 1
        confidence = _number(attributes.get("WC"))
        if confidence is not None and not 0.0 <= confidence <= 1.0:
            confidence = None
        text = self._kept_text(attributes.get("CONTENT") or "")
        subs_content = self._kept_text(attributes.get("SUBS_CONTENT") or "") or None
        subs_type = _local_text(attributes.get("SUBS_TYPE"), 40) or None
        line.words.append(Word(text, confidence, subs_content, subs_type))

    def _kept_text(self, value: str) -> str:
        """``value`` with invisible characters shown, within what is left of ``TEXT_CHARS_MAX``."""
        room = max(0, TEXT_CHARS_MAX - self.text_chars)
        text = reveal_invisible(value[:room])
        if len(value) > room or len(text) > room:
            text = text[:room]
            self.text_cut = True
        self.text_chars += len(text)
        return text

    def _line_end(self, line: _LineDraft) -> None:
        self.line = None
        self.lines += 1
        points, from_file = self._outline(line.points_text, line.box)
        if points is None:
            self.unplaced += 1
            points = ()
        line.lines.append(
            Line(
                id=line.id or f"line{self.lines}",
                number=self.lines,
                block_id=line.block_id,
                box=_bounds(points) if points else (0.0, 0.0, 0.0, 0.0),
                points=points,
                words=tuple(line.words),
                hyphen=line.hyphen,
                polygon_from_file=from_file,
            )
        )

    def _outline(self, written: str | None, box: Box | None) -> tuple[tuple[Point, ...] | None, bool]:
        """The line's outline and whether it is the file's polygon: the polygon (at most
        ``OUTLINE_POINTS_MAX`` points, within what is left of the page's ``POINTS_KEPT_MAX``), else the
        line's box; once the page's points are spent, the box (or the polygon's bounds) in its place."""
        tokens = _point_tokens(written)
        if tokens is not None:
            room = min(OUTLINE_POINTS_MAX, POINTS_KEPT_MAX - self.points_kept)
            if room >= 4:
                points = _points_of(tokens, room)
                if points is not None:
                    self.points_kept += len(points)
                    self.simplified += len(points) < len(tokens) // 2
                    return points, True
            else:
                sample = _points_of(tokens, 64)
                if sample is not None or box is not None:
                    self.boxed += 1
                    return _box_points(box if box is not None else _bounds(sample)), False
        return (_box_points(box) if box is not None else None), False

    # --- the page -------------------------------------------------------------------------------------

    def page(self) -> AltoPage:
        if self.line is not None:  # reading stopped inside it: it is kept with what was read of it
            self._line_end(self.line)
        problems: list[str] = []
        unit = _measurement_unit("".join(self.unit or ()), problems)
        width, height = self.page_size or (None, None)
        width, height = _coordinate(width), _coordinate(height)
        print_space = self.print_space if self.page_size is not None else self.loose_print_space
        if (not width or not height) and print_space:
            width, height = print_space[0] + print_space[2], print_space[1] + print_space[3]
        if not width or not height:
            width = height = None
            problems.append(_("The file gives no page size, so the text is placed by its own extent."))
        blocks = [Block(block_id, tuple(lines)) for block_id, lines in self.blocks]
        parsed = AltoPage(self.version, unit, width, height, print_space, blocks, problems, self.total_lines)
        self._say_what_was_left_out(problems)
        if not parsed.lines:
            problems.append(
                _("The file has no text lines: the recogniser found no text on this page, or it was not kept.")
            )
        outside = parsed.lines_outside()
        if outside:
            numbers = ", ".join(str(line.number) for line in outside[:10])
            problems.append(
                ngettext(
                    # Translators: {numbers} lists the lines' numbers (at most ten).
                    "{count} line lies partly outside the page ({numbers}); it is drawn where the file puts it.",
                    "{count} lines lie partly outside the page ({numbers}); they are drawn where the file puts them.",
                    len(outside),
                ).format(count=len(outside), numbers=numbers)
            )
        return parsed

    def _say_what_was_left_out(self, problems: list[str]) -> None:
        if self.full:
            problems.append(
                ngettext(
                    # Translators: {lines} is a count of text lines, {words} a count of words.
                    "The file is very long; only its first {lines} line and {words} words are shown.",
                    "The file is very long; only its first {lines} lines and {words} words are shown.",
                    self.lines,
                ).format(lines=_count(self.lines), words=_count(self.words))
            )
        elif self.stopped:
            problems.append(
                ngettext(
                    # Translators: {most} is a count of XML elements, {lines} a count of text lines.
                    "The file has more than {most} elements; only the first {most} are read, "
                    "with {lines} text line among them.",
                    "The file has more than {most} elements; only the first {most} are read, "
                    "with {lines} text lines among them.",
                    self.lines,
                ).format(most=_count(MAX_ELEMENTS), lines=_count(self.lines))
            )
        if self.text_cut:
            problems.append(
                # Translators: {most} is a count of characters.
                _("The text of this page runs over {most} characters; only the first {most} are shown.").format(
                    most=_count(TEXT_CHARS_MAX)
                )
            )
        if self.unplaced:
            problems.append(
                ngettext(
                    "{count} line has no usable position and is listed as text only.",
                    "{count} lines have no usable position and are listed as text only.",
                    self.unplaced,
                ).format(count=self.unplaced)
            )
        outlines = _outline_sentence(self.simplified, self.boxed)
        if outlines:
            problems.append(outlines)


def format_number(value: float) -> str:
    """Coordinates for people and for SVG attributes: integers stay integers."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


def svg_points(points: tuple[Point, ...]) -> str:
    return " ".join(f"{format_number(x)},{format_number(y)}" for x, y in points)
