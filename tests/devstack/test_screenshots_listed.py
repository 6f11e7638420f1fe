"""The README shows exactly the pictures `make screenshots` takes, and each one is there (no browser needed)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from devstack import screenshots

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
IMAGES = ROOT / "docs" / "images"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LARGEST_BYTES = 400 * 1024  # a picture the README loads; the script shrinks them to a third of this or less


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG's header chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_SIGNATURE, f"{path.name} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_every_picture_the_script_takes_is_in_docs_images_as_a_small_png_of_the_window():
    for picture in screenshots.PICTURES:
        path = IMAGES / picture.file
        assert path.is_file(), f"docs/images/{picture.file} is missing: run `make screenshots`"
        assert png_size(path) == (screenshots.VIEWPORT["width"], screenshots.VIEWPORT["height"])
        assert path.stat().st_size <= LARGEST_BYTES, f"{picture.file} is {path.stat().st_size} bytes"


def test_the_readme_embeds_exactly_the_pictures_the_script_takes_with_their_words():
    embedded = re.findall(r"!\[([^\]]*)\]\(docs/images/([^)\s]+)\)", README)
    assert sorted(file for _, file in embedded) == sorted(p.file for p in screenshots.PICTURES)
    words = dict((file, alt) for alt, file in embedded)
    for picture in screenshots.PICTURES:
        assert words[picture.file] == picture.shows


def test_make_screenshots_runs_the_script():
    makefile = (ROOT / "Makefile").read_text()
    target = re.search(r"^screenshots:.*\n\t(.+)$", makefile, re.MULTILINE)
    assert target and target.group(1) == "$(PY) -m devstack.screenshots"
    assert re.search(r"^\.PHONY:.*\bscreenshots\b", makefile, re.MULTILINE)
    assert "make screenshots" in README
