"""Hostile bucket and request content for benchmarks/bench_hostile.py, built to a size: pure, bytes or text out.

Each maker takes the size asked for (lines, points, pages, bytes) and builds content the product must
read: what a pipeline, or anyone with write access to the bucket, could put there within every limit.
"""

from __future__ import annotations

import json

from devstack.content import iiif_json, manifest_json

ALTO_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#">'
    '<Layout><Page WIDTH="4000" HEIGHT="6000"><PrintSpace><TextBlock ID="b1">'
)
ALTO_TAIL = "</TextBlock></PrintSpace></Page></Layout></alto>\n"
TINY_LINE = '<TextLine HPOS="1" VPOS="2" WIDTH="3" HEIGHT="4"><String CONTENT="a" WC="0.9"/></TextLine>'


def one_character_lines(lines: int) -> bytes:
    """A run log of ``lines`` lines of one character each: the shortest lines a log can have."""
    return b"x\n" * lines


def alto_long_outlines(lines: int, points: int) -> bytes:
    """An ALTO page of ``lines`` text lines whose outlines have ``points`` points each, written as
    tersely as ALTO allows (single digits, ``x,y``), so a file near the size cap holds the most points."""
    outline = " ".join(f"{i % 10},{(i * 7) % 10}" for i in range(points))
    body = "".join(
        f'<TextLine ID="l{n}" HPOS="0" VPOS="0" WIDTH="9" HEIGHT="9"><Shape><Polygon POINTS="{outline}"/></Shape>'
        f'<String CONTENT="w{n}" WC="0.9"/></TextLine>'
        for n in range(lines)
    )
    return (ALTO_HEAD + body + ALTO_TAIL).encode()


def alto_tiny_lines(lines: int) -> bytes:
    """An ALTO page of ``lines`` one-word text lines, each a box: the most lines a file of its size holds."""
    return (ALTO_HEAD + TINY_LINE * lines + ALTO_TAIL).encode()


def deep_json(depth: int) -> bytes:
    """``depth`` nested JSON arrays, opened and never closed: refused or parsed, it must not cost a stack."""
    return b"[" * depth


def deep_object_text(depth: int) -> str:
    """A JSON object nested ``depth`` deep and closed, as a termination message could be written."""
    return '{"a":' * depth + "1" + "}" * depth


def many_keys_object(size: int) -> bytes:
    """A flat JSON object of ``size`` bytes (a little more for a very small size): one short key per number,
    padded with the whitespace JSON allows after it."""
    count = max(1, size // 16)
    body = json.dumps({f"k{n}": n for n in range(count)}, separators=(",", ":")).encode()
    return body + b" " * max(0, size - len(body))


def volume_manifest(pages: int) -> str:
    """A volume's manifest.json recording ``pages`` pages, every tenth failed with its error."""
    return manifest_json("V1", "p", pages=pages, failed_pages=range(10, pages + 1, 10))


def iiif_manifest(pages: int, namespace: str, results_url: str) -> str:
    """A volume's iiif.json of ``pages`` canvases, each with its image service and ALTO seeAlso."""
    return iiif_json("V1", "p", pages=pages, namespace=namespace, results_url=results_url)


def progress_record(size: int) -> bytes:
    """A progress.json of about ``size`` bytes: its list of lowest-scored pages fills it."""
    record = {
        "pages_total": 5000,
        "pages_done": 4000,
        "pages_failed": 3,
        "stage": "pages",
        "updated_at": "2026-12-02T10:00:00Z",
        "last_error": {"page": "0003", "error": "E" * 300},
        "quality": {"mean": 0.9, "min": 0.1, "scored": 4000, "lowest": []},
    }
    fixed = len(json.dumps(record))
    entry = {"page": "0001", "quality": 0.5, "canvas": "https://iiif.example/c/1"}
    each = len(json.dumps(entry)) + 2
    record["quality"]["lowest"] = [
        {"page": f"{n % 9999 + 1:04d}", "quality": 0.5, "canvas": f"https://iiif.example/c/{n % 10}"}
        for n in range(max(0, (size - fixed) // each))
    ]
    return json.dumps(record).encode()


def failed_volumes_text(size: int) -> str:
    """A status record's ``failedVolumes`` of about ``size`` characters: a JSON list of (id, reason)."""
    entry = {"id": "C0000000", "reason": "R" * 100}
    each = len(json.dumps(entry)) + 2
    return json.dumps([{"id": f"C{n:07d}", "reason": "R" * 100} for n in range(max(1, size // each))])


def volumes_txt(size: int, line_chars: int) -> tuple[str, int]:
    """A campaign record's ``volumes.txt`` of about ``size`` characters, lines of about ``line_chars``:
    image lists (``images:<url> <url> …``); returns the text and its number of volumes."""
    urls = max(1, (line_chars - 20) // 40)
    volumes = max(1, size // line_chars)
    lines = [
        f"V{n:07d}\timages:" + " ".join(f"https://img.example.se/{n:07d}/p{u:04d}.jpg" for u in range(urls))
        for n in range(volumes)
    ]
    return "\n".join(lines) + "\n", volumes


def termination_message(size: int) -> str:
    """The wrapper's JSON termination message with an error of about ``size`` characters."""
    return json.dumps({"stage": "stream", "permanent": False, "error": "upload failed: " + "e" * max(0, size - 60)})
