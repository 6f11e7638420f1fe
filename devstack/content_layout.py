"""The geometry and text of one invented handwritten page: blocks, lines, words, baselines, polygons.

``page_layout(volume_id, page_no)`` is a pure function of its arguments. The ALTO/PAGE writers and
the image server's renderer all read the same ``PageLayout``, so a viewer drawing the ALTO lines
over the served image finds them on the pen strokes.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import zlib
from dataclasses import dataclass

from devstack import content_text as text

Point = tuple[int, int]

ASCENDING = set("bdfhklt0123456789ÅÄÖ")
DESCENDING = set("fgjpqyz,;")
WIDE = set("mwMW")
NARROW = set("iltfrj.,:;'!")

ASCENT = 0.5  # ascender height, as a share of the line pitch
XHEIGHT = 0.23
DESCENT = 0.25


@dataclass(frozen=True)
class Word:
    text: str
    hpos: int
    vpos: int
    width: int
    height: int
    confidence: float
    subs_type: str | None = None  # "HypPart1" / "HypPart2" for a word broken across two lines
    subs_content: str | None = None  # the whole word, on both parts

    @property
    def box(self) -> tuple[int, int, int, int]:
        return self.hpos, self.vpos, self.width, self.height


@dataclass(frozen=True)
class Hyphen:
    """The hyphen a scribe wrote at the end of a line whose last word continues on the next."""

    hpos: int
    vpos: int
    width: int
    height: int
    content: str = "-"


@dataclass(frozen=True)
class TextLine:
    id: str
    words: tuple[Word, ...]
    baseline: tuple[Point, ...]
    polygon: tuple[Point, ...]
    pitch: float  # distance between baselines; the renderer scales its letters by it
    hyphen: Hyphen | None = None

    @property
    def text(self) -> str:
        joined = " ".join(word.text for word in self.words)
        return joined + (self.hyphen.content if self.hyphen else "")

    @property
    def box(self) -> tuple[int, int, int, int]:
        return bounding_box(self.polygon)

    @property
    def confidence(self) -> float:
        if not self.words:
            return 0.0
        return round(sum(word.confidence for word in self.words) / len(self.words), 4)


@dataclass(frozen=True)
class TextBlock:
    id: str
    lines: tuple[TextLine, ...]

    @property
    def box(self) -> tuple[int, int, int, int]:
        points = [point for line in self.lines for point in line.polygon]
        return bounding_box(points) if points else (0, 0, 0, 0)

    @property
    def polygon(self) -> tuple[Point, ...]:
        x, y, w, h = self.box
        return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))


@dataclass(frozen=True)
class PageLayout:
    volume_id: str
    page_no: int
    width: int
    height: int
    blocks: tuple[TextBlock, ...]
    image_filename: str
    dpi: int = 300

    @property
    def lines(self) -> tuple[TextLine, ...]:
        return tuple(line for block in self.blocks for line in block.lines)

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    @property
    def mean_confidence(self) -> float:
        """Mean word confidence of the page."""
        words = [word for line in self.lines for word in line.words]
        if not words:
            return 0.0
        return round(sum(word.confidence for word in words) / len(words), 4)


def bounding_box(points) -> tuple[int, int, int, int]:
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def page_id(page_no: int) -> str:
    """The 4-digit page name used in result keys ("0001"; longer past 9999)."""
    return f"{page_no:04d}"


def image_filename(volume_id: str, page_no: int) -> str:
    return f"{volume_id}_{page_no:05d}.jpg"


def char_units(character: str) -> float:
    if character in WIDE:
        return 1.45
    if character in NARROW:
        return 0.55
    if character.isupper():
        return 1.35
    return 1.0


def word_ascends(word: str) -> bool:
    return any(c in ASCENDING or c.isupper() for c in word)


def word_descends(word: str) -> bool:
    return any(c in DESCENDING for c in word)


class Baseline:
    """A gently sloping, slightly wavy baseline, sampled as a polyline."""

    def __init__(self, rng: random.Random, left: float, right: float, y: float):
        self.slope = rng.uniform(-0.011, 0.011)
        amplitude = rng.uniform(1.0, 4.0)
        period = rng.uniform(280, 620)
        phase = rng.uniform(0, math.tau)
        count = rng.randint(5, 8)
        step = (right - left) / (count - 1)
        self.points = tuple(
            (
                round(left + i * step),
                round(y + self.slope * i * step + amplitude * math.sin(phase + math.tau * i * step / period)),
            )
            for i in range(count)
        )

    def y_at(self, x: float) -> float:
        return baseline_y(self.points, x)

    def extremes(self, left: float, right: float) -> tuple[float, float]:
        """Highest and lowest baseline y over [left, right]."""
        xs = [left, right] + [px for px, _ in self.points if left < px < right]
        ys = [self.y_at(x) for x in xs]
        return min(ys), max(ys)


def baseline_y(points, x: float) -> float:
    """Baseline y at x, interpolated linearly and held flat past the ends."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / max(x1 - x0, 1)
    return points[-1][1]


def word_box(word: str, left: float, width: float, baseline: Baseline, pitch: float) -> tuple[int, int, int, int]:
    high, low = baseline.extremes(left, left + width)
    top = high - pitch * (ASCENT if word_ascends(word) else XHEIGHT * 1.35)
    bottom = low + pitch * (DESCENT if word_descends(word) else 0.09)
    return round(left), round(top), round(width), round(bottom - top)


def _confidence(rng: random.Random, low_line: bool) -> float:
    if low_line:
        return round(rng.uniform(0.3, 0.6), 3)
    if rng.random() < 0.04:
        return round(rng.uniform(0.66, 0.85), 3)
    return round(rng.uniform(0.85, 0.99), 3)


@dataclass
class _Pending:
    """A word cut at a line end, waiting to start the next line."""

    rest: str
    whole: str


def _line_polygon(rng: random.Random, boxes, baseline: Baseline, pitch: float) -> tuple[Point, ...]:
    """8-16 points hugging the line's word boxes from outside, a little uneven like a model's output."""
    pad = max(3.0, pitch * 0.06)
    left = min(b[0] for b in boxes) - pad
    right = max(b[0] + b[2] for b in boxes) + pad
    count = rng.randint(4, 8)
    xs = [left + (right - left) * i / (count - 1) for i in range(count)]
    xs = [xs[0]] + [x + rng.uniform(-0.15, 0.15) * (right - left) / count for x in xs[1:-1]] + [xs[-1]]
    xs.sort()
    tops, bottoms = [], []
    for i, x in enumerate(xs):
        window = (xs[max(i - 1, 0)], xs[min(i + 1, count - 1)])
        near = [b for b in boxes if b[0] <= window[1] and b[0] + b[2] >= window[0]]
        if near:
            top = min(b[1] for b in near)
            bottom = max(b[1] + b[3] for b in near)
        else:
            top = baseline.y_at(x) - pitch * ASCENT
            bottom = baseline.y_at(x) + pitch * DESCENT
        tops.append(math.floor(top - pad - rng.uniform(0, pitch * 0.07)))
        bottoms.append(math.ceil(bottom + pad + rng.uniform(0, pitch * 0.07)))
    upper = [(math.floor(x) if i == 0 else round(x), y) for i, (x, y) in enumerate(zip(xs, tops, strict=True))]
    upper[-1] = (math.ceil(xs[-1]), tops[-1])
    lower = [(upper[i][0], bottoms[i]) for i in range(count)]
    return tuple(upper + lower[::-1])


def _draw_size(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1560, 1680), rng.randint(2140, 2280)


def page_size(volume_id: str, page_no: int) -> tuple[int, int]:
    """(width, height) in pixels of a page, without building its whole layout (cheap)."""
    return _draw_size(text.seeded_random("page", volume_id, page_no))


class _PageBuilder:
    def __init__(self, volume_id: str, page_no: int):
        self.volume_id = volume_id
        self.page_no = page_no
        self.rng = text.seeded_random("page", volume_id, page_no)
        rng = self.rng
        self.width, self.height = _draw_size(rng)
        self.pitch = rng.uniform(72, 86)
        self.unit = self.pitch * rng.uniform(0.23, 0.27)  # width of an ordinary letter
        self.margin_left = rng.randint(55, 85)
        self.body_left = rng.randint(245, 290)
        self.body_right = self.width - rng.randint(70, 105)
        self.top = rng.randint(135, 175)
        self.bottom = self.height - rng.randint(130, 170)
        self.year = text.volume_year(volume_id)
        self.blocks: list[TextBlock] = []
        self.low_lines = set(rng.sample(range(2, 15), rng.randint(1, 3)))
        self.hyphen_chance = rng.uniform(0.35, 0.7)
        self.line_count = 0

    def word_width(self, word: str) -> float:
        """Written width of ``word``; the same word is always written the same width on a page."""
        spread = zlib.crc32(word.encode("utf-8")) % 1000 / 1000
        return sum(char_units(c) for c in word) * self.unit * (0.92 + 0.18 * spread)

    def make_line(self, line_id: str, words: list[str], left: float, y: float, pitch: float, hyphenated=None):
        """Place ``words`` along a new baseline; ``hyphenated`` = (index of a cut word's first part, whole word)."""
        rng = self.rng
        widths = [self.word_width(w) for w in words]
        gaps = [self.unit * rng.uniform(0.8, 1.4) for _ in words]
        right = left + sum(widths) + sum(gaps[:-1]) + (self.unit * 0.9 if hyphenated else 0)
        baseline = Baseline(rng, left, max(right, left + 40), y)
        low = self.line_count in self.low_lines
        self.line_count += 1
        placed, boxes, x = [], [], left
        for index, (word, width, gap) in enumerate(zip(words, widths, gaps, strict=True)):
            hpos, vpos, w, h = word_box(word, x, width, baseline, pitch)
            subs = (None, None)
            if index == 0 and self.pending_whole:
                subs = ("HypPart2", self.pending_whole)
            if hyphenated and index == len(words) - 1:
                subs = ("HypPart1", hyphenated)
            placed.append(Word(word, hpos, vpos, w, h, _confidence(rng, low), *subs))
            boxes.append((hpos, vpos, w, h))
            x += width + gap
        hyphen = None
        if hyphenated:
            hx = round(boxes[-1][0] + boxes[-1][2] + self.unit * 0.15)
            hy = round(baseline.y_at(hx) - pitch * XHEIGHT * 0.75)
            hyphen = Hyphen(hx, hy, max(4, round(self.unit * 0.55)), max(4, round(pitch * 0.08)))
            boxes.append((hyphen.hpos, hyphen.vpos, hyphen.width, hyphen.height))
        polygon = _line_polygon(rng, boxes, baseline, pitch)
        return TextLine(line_id, tuple(placed), baseline.points, polygon, round(pitch, 2), hyphen)

    def break_lines(self, words: list[str], width: float, first_indent: float):
        """Split a record's words into lines that fit ``width``; yields (words, hyphenated whole word or None)."""
        queue = list(words)
        line: list[str] = []
        used = first_indent
        while queue:
            word = queue[0]
            need = self.word_width(word) + (self.unit * 1.4 if line else 0)  # the widest gap make_line leaves
            if used + need <= width or not line:
                line.append(queue.pop(0))
                used += need
                continue
            cut = text.hyphen_split(word) if self.rng.random() < self.hyphen_chance else None
            if cut and used + self.word_width(cut[0]) + self.unit * 2.6 <= width:  # gap, word, hyphen
                queue[0] = cut[1]
                yield line + [cut[0]], word
            else:
                yield line, None
            line, used = [], 0.0
        if line:
            yield line, None

    def heading(self) -> float:
        words = text.heading_text(self.volume_id, self.page_no).split()
        self.pending_whole = None
        available = self.body_right - self.body_left
        widest = self.unit * (sum(char_units(c) for w in words for c in w) * 1.1 + 1.4 * (len(words) - 1))
        size = min(1.2, available / widest)  # a little larger than the body text, if it fits
        pitch = self.pitch * size
        width = widest * size
        left = max(self.body_left, (self.body_left + self.body_right - width) / 2)
        y = self.top + pitch * ASCENT
        saved_unit, self.unit = self.unit, self.unit * size
        line = self.make_line("heading_l0", words, left, y, pitch)
        self.unit = saved_unit
        self.blocks.append(TextBlock("heading", (line,)))
        return y + pitch * 1.3

    def records(self, y: float) -> None:
        rng = self.rng
        target = rng.randint(14, 23)
        body_lines = 0
        number = (self.page_no - 1) * 5 + 1
        while body_lines < target and len(self.blocks) + body_lines < 29:
            record = text.record_words(rng, self.year)
            indent = self.unit * rng.uniform(0.5, 3.5)
            lines, first_y = [], y + self.pitch
            self.pending_whole = None
            for words, whole in self.break_lines(record, self.body_right - self.body_left, indent):
                if y + self.pitch > self.bottom or body_lines >= target or len(self.blocks) + body_lines >= 29:
                    break
                y += self.pitch
                left = self.body_left + (indent if not lines else self.unit * rng.uniform(0, 0.6))
                block_no = len(self.blocks)
                lines.append(self.make_line(f"r{block_no}l{len(lines)}", words, left, y, self.pitch, whole))
                self.pending_whole = whole
                body_lines += 1
            if not lines:
                return
            block_no = len(self.blocks)
            self.blocks.append(TextBlock(f"r{block_no}", tuple(lines)))
            self.margin(first_y, number)
            number += 1
            y += self.pitch * rng.uniform(0.25, 0.5)

    def margin(self, y: float, number: int) -> None:
        self.pending_whole = None
        note = text.margin_note(self.rng, number).split()
        block_no = len(self.blocks)
        width = sum(self.word_width(w) for w in note) + self.unit * 1.4 * (len(note) - 1)
        room = self.body_left - 40 - width  # keep clear of the printed column rule
        left = max(30.0, min(self.margin_left + self.rng.uniform(0, 30), room))
        line = self.make_line(f"m{block_no}l0", note, left, y, self.pitch)
        self.blocks.append(TextBlock(f"m{block_no}", (line,)))

    def build(self) -> PageLayout:
        self.pending_whole = None
        y = self.heading()
        self.records(y)
        return PageLayout(
            self.volume_id,
            self.page_no,
            self.width,
            self.height,
            tuple(self.blocks),
            image_filename(self.volume_id, self.page_no),
        )


@functools.lru_cache(maxsize=512)
def page_layout(volume_id: str, page_no: int) -> PageLayout:
    """The invented page ``page_no`` (1-based) of ``volume_id``; the same inputs always give the same page."""
    if page_no < 1:
        raise ValueError("page numbers start at 1")
    return _PageBuilder(volume_id, page_no).build()


# ---- odd pages for hostile-input and edge-case tests ------------------------------------------------------


def without_lines(layout: PageLayout) -> PageLayout:
    """The same page with no text at all (a blank leaf)."""
    return dataclasses.replace(layout, blocks=())


def _moved(line: TextLine, dx: int, dy: int, line_id: str) -> TextLine:
    def move(points):
        return tuple((x + dx, y + dy) for x, y in points)

    words = tuple(dataclasses.replace(w, hpos=w.hpos + dx, vpos=w.vpos + dy) for w in line.words)
    hyphen = (
        dataclasses.replace(line.hyphen, hpos=line.hyphen.hpos + dx, vpos=line.hyphen.vpos + dy)
        if line.hyphen
        else None
    )
    return dataclasses.replace(
        line, id=line_id, words=words, baseline=move(line.baseline), polygon=move(line.polygon), hyphen=hyphen
    )


def with_line_outside(layout: PageLayout) -> PageLayout:
    """The page plus one extra line that starts near the bottom-right corner and runs off the page."""
    source = layout.lines[-1]
    x, y, _, _ = source.box
    stray = _moved(source, layout.width - 240 - x, layout.height - 25 - y, "outside_l0")
    return dataclasses.replace(layout, blocks=layout.blocks + (TextBlock("outside", (stray,)),))


HOSTILE_TEXTS = ("<script>alert(1)</script>", '"><img src=x onerror=alert(2)>', "&amp; &lt;b&gt;")


def with_hostile_text(layout: PageLayout) -> PageLayout:
    """The page with markup and script in the words of its first body line (must show as plain text)."""
    blocks = list(layout.blocks)
    for b, block in enumerate(blocks):
        if not block.id.startswith("r"):
            continue
        line = block.lines[0]
        words = list(line.words)
        for i, hostile in enumerate(HOSTILE_TEXTS[: len(words)]):
            words[i] = dataclasses.replace(words[i], text=hostile, subs_type=None, subs_content=None)
        blocks[b] = dataclasses.replace(block, lines=(dataclasses.replace(line, words=tuple(words)),) + block.lines[1:])
        break
    return dataclasses.replace(layout, blocks=tuple(blocks))
