"""A small IIIF-Image-API-3-style image server for the devstack, drawing handwritten archival pages.

Each page is drawn from ``page_layout(volume, page)``: aged paper, faint printed rules, and pen strokes that
follow exactly the word boxes and line polygons of the page's ALTO, so a viewer drawing those lines over
the image finds them on the writing.

    with ImageServer() as images:
        images.register_volume("C0074512", pages=12)
        images.url  # http://127.0.0.1:<port>

Routes: ``/iiif/<volume>/<page>/info.json``, ``/iiif/<volume>/<page>/<region>/<size>/0/default.jpg``
(region ``full``, ``square``, ``x,y,w,h``, ``pct:x,y,w,h``; size ``max``, ``w,``, ``,h``, ``w,h``, ``!w,h``,
``pct:n``), and ``/manifests/<volume>/manifest.json`` (the archive's source manifest). Unknown volumes
and pages answer 404. Sizes larger than the region are served at the region's size (no upscaling).
"""

from __future__ import annotations

import io
import json
import math
import random
import re
import threading
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from PIL import Image, ImageDraw, ImageFilter

from devstack.content_json import image_service, source_manifest_record
from devstack.content_layout import (
    ASCENT,
    DESCENT,
    XHEIGHT,
    PageLayout,
    TextLine,
    Word,
    baseline_y,
    char_units,
    page_layout,
)
from devstack.content_text import seeded_random

# ---- drawing ----------------------------------------------------------------------------------------------

# Letter shapes: control points (x as a share of the letter's width, y in named heights above the baseline).
# "x" = x-height, "a" = ascender, "d" = descender (negative). Chaikin smoothing turns them into curves.
ROUND = ((0, 0.3, "x"), (0.55, 1, "x"), (0.15, 0.9, "x"), (0.05, 0.3, "x"), (0.35, 0, "x"), (0.75, 0.45, "x"),
         (0.85, 1, "x"), (0.9, 0.2, "x"), (1, 0.1, "x"))  # fmt: skip
E_SHAPE = ((0, 0.2, "x"), (0.6, 0.6, "x"), (0.5, 1, "x"), (0.2, 0.8, "x"), (0.15, 0.2, "x"), (0.5, 0, "x"),
           (1, 0.3, "x"))  # fmt: skip
LOOP_UP = ((0, 0.1, "x"), (0.45, 0.6, "a"), (0.6, 0.97, "a"), (0.35, 0.9, "a"), (0.25, 0.5, "x"), (0.3, 0, "x"),
           (0.65, 0.35, "x"), (1, 0.1, "x"))  # fmt: skip
LOOP_UP_HUMP = ((0, 0.1, "x"), (0.35, 0.6, "a"), (0.45, 0.97, "a"), (0.25, 0.9, "a"), (0.2, 0.5, "x"), (0.22, 0, "x"),
                (0.45, 0.9, "x"), (0.75, 0.95, "x"), (0.85, 0.1, "x"), (1, 0.15, "x"))  # fmt: skip
LOOP_DOWN = ((0, 0.5, "x"), (0.35, 1, "x"), (0.6, 0.8, "x"), (0.55, 0, "x"), (0.5, 0.9, "d"), (0.2, 0.75, "d"),
             (0.4, 0, "x"), (1, 0.35, "x"))  # fmt: skip
CAPITAL = ((0, 0.1, "x"), (0.1, 0.5, "a"), (0.35, 0.97, "a"), (0.85, 0.95, "a"), (0.6, 0.55, "a"), (0.15, 0.1, "x"),
           (0.5, 0, "x"), (0.9, 0.45, "x"), (1, 0.1, "x"))  # fmt: skip
DIGIT = ((0.1, 0.65, "a"), (0.55, 0.9, "a"), (0.8, 0.6, "a"), (0.25, 0, "x"), (1, 0.05, "x"))
ROUND_CAPITAL = ((0.95, 0.8, "a"), (0.6, 0.97, "a"), (0.15, 0.7, "a"), (0.05, 0.3, "a"), (0.35, 0, "x"),
                 (0.8, 0.1, "x"), (1, 0.35, "x"))  # fmt: skip
POINTED_CAPITAL = ((0, 0, "x"), (0.45, 0.97, "a"), (0.55, 0.9, "a"), (0.9, 0, "x"), (0.6, 0.45, "a"),
                   (0.2, 0.4, "a"), (1, 0.1, "x"))  # fmt: skip
DIGITS = {
    "0": ((0.6, 0.85, "a"), (0.2, 0.6, "a"), (0.25, 0, "x"), (0.8, 0.2, "a"), (0.75, 0.85, "a"), (0.5, 0.8, "a")),
    "1": ((0.25, 0.6, "a"), (0.6, 0.9, "a"), (0.5, 0.4, "a"), (0.45, 0, "x")),
    "4": ((0.55, 0.9, "a"), (0.1, 0.3, "a"), (0.95, 0.35, "a"), (0.7, 0.6, "a"), (0.65, 0, "x")),
    "7": ((0.05, 0.85, "a"), (0.9, 0.9, "a"), (0.55, 0.45, "a"), (0.35, 0, "x")),
    "8": ((0.7, 0.85, "a"), (0.3, 0.8, "a"), (0.7, 0.3, "a"), (0.4, 0, "x"), (0.2, 0.3, "a"), (0.7, 0.8, "a")),
    "9": ((0.8, 0.7, "a"), (0.3, 0.85, "a"), (0.3, 0.5, "a"), (0.8, 0.65, "a"), (0.6, 0, "x")),
}
DOT = ((0.3, 0.05, "x"), (0.5, 0.1, "x"))
COMMA = ((0.5, 0.1, "x"), (0.3, 0.6, "d"))


def _humps(count: int) -> tuple:
    points = []
    for j in range(count):
        left, step = j / count, 1 / count
        points += [(left + 0.05 * step, 0.05, "x"), (left + 0.35 * step, 1, "x"), (left + 0.7 * step, 0.95, "x"),
                   (left + 0.95 * step, 0.05, "x")]  # fmt: skip
    return tuple(points)


def letter_shape(character: str) -> tuple:
    lower = character.lower()
    if character in ".:;":
        return DOT
    if character == ",":
        return COMMA
    if character.isdigit():
        return DIGITS.get(character, DIGIT)
    if character in "CGOSQ":
        return ROUND_CAPITAL
    if character in "AMNVW":
        return POINTED_CAPITAL
    if character.isupper():
        return CAPITAL
    if lower in "bhk":
        return LOOP_UP_HUMP
    if lower in "dlft":
        return LOOP_UP
    if lower in "gjpqy":
        return LOOP_DOWN
    if lower in "e":
        return E_SHAPE
    if lower in "aocåäö":
        return ROUND
    if lower in "mw":
        return _humps(3)
    if lower in "nuvrx":
        return _humps(2)
    return _humps(1)


def chaikin(points: list[tuple[float, float]], rounds: int = 2) -> list[tuple[float, float]]:
    """Corner-cutting smoothing: each round replaces every segment by two points at 1/4 and 3/4."""
    for _ in range(rounds):
        if len(points) < 3:
            return points
        smoothed = [points[0]]
        for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
            smoothed.append((0.75 * x0 + 0.25 * x1, 0.75 * y0 + 0.25 * y1))
            smoothed.append((0.25 * x0 + 0.75 * x1, 0.25 * y0 + 0.75 * y1))
        smoothed.append(points[-1])
        points = smoothed
    return points


class _Pen:
    """Draws one page's handwriting into an ink-coverage mask at ``scale`` (mask pixels per page pixel)."""

    def __init__(self, mask: Image.Image, scale: float, rng: random.Random, slant: float):
        self.draw = ImageDraw.Draw(mask)
        self.scale = scale
        self.rng = rng
        self.slant = slant

    def line(self, line: TextLine) -> None:
        weak = line.confidence < 0.65
        strength = self.rng.uniform(150, 185) if weak else self.rng.uniform(215, 255)
        for word in line.words:
            self.word(line, word, strength * self.rng.uniform(0.9, 1.0), wobble=2.2 if weak else 1.0)
        if line.hyphen:
            h = line.hyphen
            for dy in (0.25, 0.75):  # scribes wrote the hyphen as "="
                y = h.vpos + h.height * dy
                ends = [(h.hpos, y), (h.hpos + h.width, y - h.height * 0.3)]
                self.stroke([(x * self.scale, y * self.scale) for x, y in ends], line.pitch, strength)

    def word(self, line: TextLine, word: Word, strength: float, wobble: float) -> None:
        pitch = line.pitch
        heights = {"x": pitch * XHEIGHT, "a": pitch * ASCENT * 0.95, "d": -pitch * DESCENT * 0.95}
        total_units = sum(char_units(c) for c in word.text) or 1.0
        unit = word.width / total_units
        left = word.hpos
        path, marks = [], []
        for character in word.text:
            width = char_units(character) * unit
            for fx, fy, kind in letter_shape(character):
                path.append((left + fx * width, fy * heights[kind]))
            marks += self._marks(character, left, width, heights)
            if character in ".,:;":
                marks.append(path[-2:])
                path = path[:-2]
            left += width
        jitter = pitch * 0.012 * wobble
        for points in [path, *marks]:
            if len(points) < 2:
                continue
            placed = [self._place(line, word, x, up, jitter) for x, up in chaikin(points)]
            self.stroke(placed, pitch, strength)

    def _marks(self, character: str, left: float, width: float, heights: dict) -> list:
        x_height = heights["x"]
        mid = left + width * 0.5
        if character in "ij":
            return [[(mid, x_height * 1.6), (mid + width * 0.12, x_height * 1.7)]]
        if character in "äöÄÖ":
            return [[(mid - width * 0.25, x_height * 1.5), (mid - width * 0.15, x_height * 1.6)],
                    [(mid + width * 0.15, x_height * 1.5), (mid + width * 0.25, x_height * 1.6)]]  # fmt: skip
        if character in "åÅ":
            r = width * 0.15
            return [[(mid + r * math.cos(a), x_height * 1.6 + r * math.sin(a)) for a in (0, 1.6, 3.1, 4.7, 6.3)]]
        if character == "t":
            return [[(left + width * 0.05, x_height * 1.2), (left + width * 0.95, x_height * 1.25)]]
        return []

    def _place(self, line: TextLine, word: Word, x: float, up: float, jitter: float) -> tuple[float, float]:
        x = x + up * self.slant + self.rng.uniform(-jitter, jitter)
        x = min(max(x, word.hpos + 1.5), word.hpos + word.width - 1.5)
        y = baseline_y(line.baseline, x) - up + self.rng.uniform(-jitter, jitter)
        y = min(max(y, word.vpos + 1.5), word.vpos + word.height - 1.5)
        return x * self.scale, y * self.scale

    def stroke(self, points: list[tuple[float, float]], pitch: float, strength: float) -> None:
        """A pen stroke whose width swells on down-strokes, as with a steel or quill nib."""
        base = max(1.0, pitch * 0.048 * self.scale)
        fill = int(min(strength, 255))
        step = 5
        for start in range(0, len(points) - 1, step):
            chunk = points[start : start + step + 1]
            going_down = chunk[-1][1] > chunk[0][1]
            width = max(1, round(base * (1.3 if going_down else 0.8)))
            self.draw.line(chunk, fill=fill, width=width)
            if width > 2:  # round the joins between chunks
                x, y, r = chunk[-1][0], chunk[-1][1], width / 2 - 0.5
                self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)


def _paper(layout: PageLayout, size: tuple[int, int], rng: random.Random) -> Image.Image:
    """Aged paper: a tinted base, grain, soft mottling, foxing spots and darker edges."""
    width, height = size
    tint = (rng.randint(222, 236), rng.randint(206, 220), rng.randint(170, 188))
    paper = Image.new("RGB", size, tint)
    grain = Image.effect_noise(size, 24).convert("RGB")
    paper = Image.blend(paper, grain, 0.07)
    fibres = Image.effect_noise((max(width // 3, 1), max(height // 3, 1)), 30).resize(size, Image.Resampling.BILINEAR)
    paper = Image.blend(paper, fibres.convert("RGB"), 0.05)
    coarse = (max(width // 160, 2), max(height // 160, 2))
    mottle = Image.effect_noise(coarse, 40).resize(size, Image.Resampling.BICUBIC)
    mottle = mottle.point(lambda v: min(70, max(0, v - 120)))
    paper = Image.composite(Image.new("RGB", size, (200, 176, 132)), paper, mottle)
    small = (max(width // 48, 2), max(height // 48, 2))
    spots = Image.new("L", small, 0)
    spot_draw = ImageDraw.Draw(spots)
    for _ in range(rng.randint(2, 9)):
        cx, cy, r = rng.uniform(0, small[0]), rng.uniform(0, small[1]), rng.uniform(0.3, 1.6)
        spot_draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=rng.randint(60, 120))
    spots = spots.resize(size, Image.Resampling.BILINEAR)
    paper = Image.composite(Image.new("RGB", size, (170, 128, 82)), paper, spots)
    edges = Image.radial_gradient("L").resize(size, Image.Resampling.BILINEAR)
    edges = edges.point(lambda v: min(150, max(0, v - 150) * 2))
    return Image.composite(Image.new("RGB", size, (150, 118, 74)), paper, edges)


def _rules(paper: Image.Image, layout: PageLayout, scale: float) -> None:
    """The register's printed rules: a margin column and a double rule under the heading, in faded red."""
    draw = ImageDraw.Draw(paper)
    colour = (196, 146, 128)
    width = max(1, round(2 * scale))
    body = [line for block in layout.blocks if block.id.startswith("r") for line in block.lines]
    if not body:
        return
    column = min(line.box[0] for line in body) - 22
    top = min(line.box[1] for line in body) - 14
    draw.line([(column * scale, top * scale), (column * scale, (layout.height - 90) * scale)], fill=colour, width=width)
    for offset in (0, 7):
        y = (top - offset) * scale
        draw.line([(40 * scale, y), ((layout.width - 40) * scale, y)], fill=colour, width=width)


def render_page(volume_id: str, page_no: int, width: int | None = None) -> Image.Image:
    """The page image at ``width`` pixels wide (default: the page's own width), as an RGB Pillow image."""
    layout = page_layout(volume_id, page_no)
    width = width or layout.width
    scale = width / layout.width
    size = (width, max(1, round(layout.height * scale)))
    rng = seeded_random("render", volume_id, page_no)
    hand = seeded_random("hand", volume_id)
    paper = _paper(layout, size, rng)
    _rules(paper, layout, scale)
    slant = hand.uniform(0.18, 0.32)
    ink = (hand.randint(38, 58), hand.randint(28, 40), hand.randint(20, 30))
    paper = _show_through(paper, volume_id, page_no, scale, slant, ink)
    mask = Image.new("L", (size[0] * 2, size[1] * 2), 0)
    pen = _Pen(mask, scale * 2, rng, slant=slant)
    for line in layout.lines:
        pen.line(line)
    mask = mask.reduce(2)
    if scale > 0.4:  # iron-gall ink bleeds a little brown into the paper around each stroke
        halo = mask.filter(ImageFilter.GaussianBlur(2.5 * scale)).point(lambda v: v // 4)
        paper = Image.composite(Image.new("RGB", size, (128, 98, 66)), paper, halo)
    if scale > 0.6:
        mask = mask.filter(ImageFilter.GaussianBlur(0.5))
    return Image.composite(Image.new("RGB", size, ink), paper, mask)


def _show_through(paper: Image.Image, volume_id: str, page_no: int, scale: float, slant: float, ink) -> Image.Image:
    """The writing on the other side of the leaf, mirrored and faint, as it shows through thin paper."""
    if scale < 0.25:
        return paper
    verso = page_layout(volume_id, page_no + 1 if page_no % 2 else page_no - 1 or 2)
    mask = Image.new("L", paper.size, 0)
    pen = _Pen(mask, paper.width / verso.width, seeded_random("verso", volume_id, page_no), slant=slant)
    for line in verso.lines:
        pen.line(line)
    mask = mask.transpose(Image.Transpose.FLIP_LEFT_RIGHT).filter(ImageFilter.GaussianBlur(1.6 * scale + 0.4))
    return Image.composite(Image.new("RGB", paper.size, ink), paper, mask.point(lambda v: v * 11 // 100))


# ---- IIIF request parsing ---------------------------------------------------------------------------------


class BadRequest(ValueError):
    """A IIIF parameter we do not understand; the message is shown to the client."""


def parse_region(region: str, width: int, height: int) -> tuple[int, int, int, int]:
    if region == "full":
        return 0, 0, width, height
    if region == "square":
        side = min(width, height)
        return (width - side) // 2, (height - side) // 2, side, side
    percent = region.startswith("pct:")
    numbers = region[4:] if percent else region
    try:
        x, y, w, h = (float(n) for n in numbers.split(","))
    except ValueError:
        raise BadRequest(f"region {region!r} is not full, square, x,y,w,h or pct:x,y,w,h") from None
    if percent:
        x, y, w, h = x * width / 100, y * height / 100, w * width / 100, h * height / 100
    x, y = max(0, int(x)), max(0, int(y))
    w, h = min(int(w), width - x), min(int(h), height - y)
    if w <= 0 or h <= 0:
        raise BadRequest(f"region {region!r} lies outside the image")
    return x, y, w, h


def parse_size(size: str, region_w: int, region_h: int) -> tuple[int, int]:
    """Output (width, height) for a IIIF size; never larger than the region (a leading ^ is accepted)."""
    spec = size.lstrip("^")
    aspect = region_h / region_w
    try:
        if spec == "max":
            w, h = region_w, region_h
        elif spec.startswith("pct:"):
            factor = min(float(spec[4:]), 100) / 100
            w, h = region_w * factor, region_h * factor
        elif spec.startswith("!"):
            box_w, box_h = (int(n) for n in spec[1:].split(","))
            factor = min(box_w / region_w, box_h / region_h, 1.0)
            w, h = region_w * factor, region_h * factor
        else:
            text_w, text_h = spec.split(",")
            if text_w and text_h:
                w, h = min(int(text_w), region_w), min(int(text_h), region_h)
            elif text_w:
                w = min(int(text_w), region_w)
                h = w * aspect
            else:
                h = min(int(text_h), region_h)
                w = h / aspect
    except ValueError:
        raise BadRequest(f"size {size!r} is not max, w,, ,h, w,h, !w,h or pct:n") from None
    return min(max(1, round(w)), region_w), min(max(1, round(h)), region_h)


IMAGE_PATH = re.compile(
    r"^(?P<region>[^/]+)/(?P<size>[^/]+)/(?P<rotation>[^/]+)/(?P<quality>[a-z]+)\.(?P<format>jpg|png)$"
)


# ---- the server -------------------------------------------------------------------------------------------


class _LruCache:
    def __init__(self, limit: int):
        self.limit = limit
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
            return None

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.limit:
                self.items.popitem(last=False)


class ImageServer:
    """Serves page images and source manifests for the volumes the scene registers.

    ``public_url`` replaces ``url`` inside generated manifests and info.json (for a laptop behind a port
    mapping). ``cache_images`` bounds the rendered pages kept in memory; ``cache_responses`` the encoded ones.
    """

    def __init__(self, *, public_url: str | None = None, cache_images: int = 16, cache_responses: int = 256):
        self.volumes: dict[str, int] = {}
        self.public_url = public_url
        self.rendered = _LruCache(cache_images)
        self.responses = _LruCache(cache_responses)
        self.render_lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # ---- lifecycle ---------------------------------------------------------------------------------------

    def start(self, host: str = "127.0.0.1", port: int = 0) -> ImageServer:
        handler = type("BoundHandler", (_Handler,), {"images": self})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="devstack-images", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None
        if self.thread:
            self.thread.join(timeout=5)
            self.thread = None

    def __enter__(self) -> ImageServer:
        return self.start() if self.httpd is None else self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self.httpd is None:
            raise RuntimeError("the image server is not started")
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base(self) -> str:
        return (self.public_url or self.url).rstrip("/")

    # ---- content -----------------------------------------------------------------------------------------

    def register_volume(self, volume_id: str, pages: int) -> None:
        """Make ``pages`` pages of ``volume_id`` available (pages 1..pages)."""
        self.volumes[volume_id] = pages

    def knows(self, volume_id: str, page_no: int | None = None) -> bool:
        pages = self.volumes.get(volume_id)
        return pages is not None and (page_no is None or 1 <= page_no <= pages)

    def info(self, volume_id: str, page_no: int) -> dict:
        layout = page_layout(volume_id, page_no)
        return {
            "@context": "http://iiif.io/api/image/3/context.json",
            "id": image_service(self.base, volume_id, page_no),
            "type": "ImageService3",
            "protocol": "http://iiif.io/api/image",
            "profile": "level1",
            "width": layout.width,
            "height": layout.height,
            "maxWidth": layout.width,
            "sizes": [{"width": layout.width // f, "height": layout.height // f} for f in (8, 4, 2)],
            "tiles": [{"width": 512, "scaleFactors": [1, 2, 4, 8]}],
            "extraFormats": ["png"],
        }

    def image(self, volume_id: str, page_no: int, region: str, size: str, image_format: str = "jpg") -> bytes:
        key = (volume_id, page_no, region, size, image_format)
        cached = self.responses.get(key)
        if cached is not None:
            return cached
        layout = page_layout(volume_id, page_no)
        x, y, w, h = parse_region(region, layout.width, layout.height)
        out_w, out_h = parse_size(size, w, h)
        scale = out_w / w
        page = self._rendered(volume_id, page_no, max(1, round(layout.width * scale)))
        crop = (round(x * scale), round(y * scale), round(x * scale) + out_w, round(y * scale) + out_h)
        picture = page.crop(crop) if crop != (0, 0, *page.size) else page
        if picture.size != (out_w, out_h):
            picture = picture.resize((out_w, out_h), Image.Resampling.BILINEAR)
        buffer = io.BytesIO()
        if image_format == "png":
            picture.save(buffer, "PNG")
        else:
            picture.save(buffer, "JPEG", quality=82)
        body = buffer.getvalue()
        self.responses.put(key, body)
        return body

    def _rendered(self, volume_id: str, page_no: int, width: int) -> Image.Image:
        key = (volume_id, page_no, width)
        with self.render_lock:
            page = self.rendered.get(key)
            if page is None:
                page = render_page(volume_id, page_no, width)
                self.rendered.put(key, page)
        return page

    def manifest(self, volume_id: str) -> dict:
        return source_manifest_record(volume_id, self.volumes[volume_id], self.base)


class _Handler(BaseHTTPRequestHandler):
    images: ImageServer  # set on the bound subclass
    timeout = 15  # seconds a client may take to send its request
    server_version = "devstack-images/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        """Quiet: tests and the demo do not need an access log on stderr."""

    def do_HEAD(self):
        self._answer(head=True)

    def do_GET(self):
        self._answer(head=False)

    def _answer(self, head: bool) -> None:
        try:
            status, content_type, body, extra = self._route()
        except BadRequest as problem:
            status, content_type, body, extra = 400, "text/plain; charset=utf-8", str(problem).encode(), {}
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Cache-Control", "public, max-age=3600" if status == 200 else "no-store")
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            if not head:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _route(self):
        parts = [unquote(part) for part in urlsplit(self.path).path.split("/")[1:]]
        if len(parts) == 3 and parts[0] == "manifests" and parts[2] == "manifest.json":
            if not self.images.knows(parts[1]):
                return _not_found(f"no volume {parts[1]!r}")
            return 200, "application/json", _json(self.images.manifest(parts[1])), {}
        if len(parts) >= 3 and parts[0] == "iiif":
            return self._iiif(parts[1], parts[2], parts[3:])
        return _not_found("nothing here; try /iiif/<volume>/<page>/info.json")

    def _iiif(self, volume_id: str, page_text: str, rest: list[str]):
        if not page_text.isdigit() or not self.images.knows(volume_id, int(page_text)):
            return _not_found(f"no page {page_text!r} in volume {volume_id!r}")
        page_no = int(page_text)
        if not rest:
            location = f"{image_service(self.images.base, volume_id, page_no)}/info.json"
            return 303, "text/plain; charset=utf-8", b"see info.json", {"Location": location}
        if rest == ["info.json"]:
            body = _json(self.images.info(volume_id, page_no))
            return 200, 'application/ld+json;profile="http://iiif.io/api/image/3/context.json"', body, {}
        match = IMAGE_PATH.match("/".join(rest))
        if not match:
            return _not_found("expected <region>/<size>/<rotation>/<quality>.jpg")
        if match["rotation"] not in ("0", "0.0"):
            raise BadRequest("only rotation 0 is supported")
        if match["quality"] not in ("default", "color"):
            raise BadRequest("only the default and color qualities are supported")
        body = self.images.image(volume_id, page_no, match["region"], match["size"], match["format"])
        content_type = "image/png" if match["format"] == "png" else "image/jpeg"
        return 200, content_type, body, {}


def _json(record: dict) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def _not_found(message: str):
    return 404, "text/plain; charset=utf-8", message.encode("utf-8"), {}


def main(argv: list[str] | None = None) -> None:
    """Run the image server on its own: ``python -m devstack.images --port 8089 C0074512=12 C0074513=40``."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Serve invented handwritten page images over IIIF.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("volumes", nargs="*", default=["C0074512=12"], help="VOLUME=PAGES, one or more")
    options = parser.parse_args(argv)
    server = ImageServer()
    for spec in options.volumes:
        volume_id, _, pages = spec.partition("=")
        server.register_volume(volume_id, int(pages or 10))
    server.start(options.host, options.port)
    print(f"serving {len(server.volumes)} volume(s) at {server.url}, e.g. {server.url}/manifests/"
          f"{next(iter(server.volumes))}/manifest.json; Ctrl-C stops")  # fmt: skip
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
