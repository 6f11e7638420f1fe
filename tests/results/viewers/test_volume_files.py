"""A volume's text and ALTO ZIP streamed page by page (results/viewers/volume_files.py), on an in-process store
of invented pages: memory stays that of a few pages however large the volume, and a download the client leaves
closes every object it opened ahead."""

from __future__ import annotations

import gc
import io
import json
import threading
import tracemalloc
import zipfile
from datetime import UTC, datetime

from results.store.outcomes import Blob, Outcome, StoreError
from results.viewers import volume_files

PREFIX = "htr-batch/p/V1"


def alto_page(number: int, lines: int = 120) -> bytes:
    """An ALTO page of ``lines`` lines (about 20 KB at 120), different on every page."""
    body = "".join(
        f'<TextLine ID="l{n}" HPOS="1" VPOS="{n}" WIDTH="900" HEIGHT="9">'
        f'<String CONTENT="sida {number} rad {n} Anno domini tusen åttahundra" WC="0.9"/></TextLine>'
        for n in range(lines)
    )
    return (
        '<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#"><Layout><Page WIDTH="1000" HEIGHT="1000">'
        f'<PrintSpace><TextBlock ID="b1">{body}</TextBlock></PrintSpace></Page></Layout></alto>'
    ).encode()


class _Body:
    def __init__(self, data: bytes, opened: list):
        self._data, self.closed = data, False
        opened.append(self)

    def iter_chunks(self, size):
        for start in range(0, len(self._data), size):
            yield self._data[start : start + size]

    def close(self):
        self.closed, self._data = True, b""  # the double keeps the body to count it, not its bytes


class PagesReader:
    """A store of one volume with ``pages`` pages whose ALTO files are made when read (none is kept)."""

    def __init__(
        self, pages: int, failed: frozenset[int] = frozenset(), missing: frozenset[int] = frozenset(), lines: int = 120
    ):
        self.pages, self.failed, self.missing, self.lines = pages, failed, missing, lines
        self.opened: list[_Body] = []
        self.reads = 0
        self._lock = threading.Lock()

    def get_json(self, key, **_bounds):
        if key.endswith("manifest.json"):
            results = {
                f"{n:04d}": {"status": "failed", "error": "boom"} if n in self.failed else {"status": "ok"}
                for n in range(1, self.pages + 1)
            }
            return {"pages": self.pages, "results": results}
        raise StoreError(Outcome.NOT_FOUND)

    def _data(self, key) -> bytes:
        number = int(key.rsplit("/", 1)[-1].removesuffix(".xml"))
        with self._lock:
            self.reads += 1
        if number in self.missing:
            raise StoreError(Outcome.NOT_FOUND)
        return alto_page(number, self.lines)

    def get(self, key, max_bytes=None):
        data = self._data(key)
        return Blob(key, data, len(data), 0, len(data) - 1, None, datetime.now(UTC), "application/xml")

    def open_stream(self, key):
        return {"Body": _Body(self._data(key), self.opened)}


def _text_peak(pages: int, lines: int) -> tuple[int, int, int]:
    """(bytes written, tracemalloc's peak while writing them, pages read) for a volume of ``pages`` pages."""
    reader = PagesReader(pages, failed=frozenset({7}), missing=frozenset({pages // 2}), lines=lines)
    files = volume_files.volume_files(reader, PREFIX)
    gc.collect()
    tracemalloc.start()
    try:
        written = markers = 0
        for chunk in volume_files.text_chunks(reader, files, "V1"):
            written += len(chunk)
            markers += chunk.startswith(b"\n=== Page ")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert markers == pages
    return written, peak, reader.reads


def test_the_text_of_a_2000_page_volume_streams_in_the_memory_of_a_100_page_one():
    _written, small_peak, _reads = _text_peak(100, lines=10)  # also loads what the first page loads once
    written, peak, reads = _text_peak(2000, lines=10)
    assert reads == 1999  # the failed page is not read
    assert written > 900_000
    # Twenty times the pages, and not a MiB more at the peak: no page outlives its turn.
    assert peak < small_peak + 1024 * 1024, f"peak {peak / 1048576:.1f} MiB against {small_peak / 1048576:.1f} MiB"
    assert peak < 8 * 1024 * 1024


def test_the_text_names_a_failed_and_a_missing_page_where_they_stand():
    reader = PagesReader(3, failed=frozenset({2}), missing=frozenset({3}))
    text = b"".join(volume_files.text_chunks(reader, volume_files.volume_files(reader, PREFIX), "V1")).decode()
    page_two = text.split("=== Page 2 of 3 (0002.xml) ===")[1].split("=== Page 3")[0]
    assert "failed" in page_two and "boom" in page_two
    assert "no ALTO file" in text.split("=== Page 3 of 3 (0003.xml) ===")[1]
    assert "sida 1 rad 0" in text


def test_a_zip_left_by_its_client_closes_every_object_it_opened_ahead():
    reader = PagesReader(50)
    chunks = volume_files.zip_chunks(reader, volume_files.volume_files(reader, PREFIX), "V1")
    next(chunks)
    next(chunks)
    chunks.close()  # the client went away
    assert reader.opened and all(body.closed for body in reader.opened)
    assert len(reader.opened) <= 2 + volume_files.PAGES_AHEAD


def test_the_zip_s_members_are_the_objects_unchanged():
    reader = PagesReader(5, missing=frozenset({4}))
    data = b"".join(volume_files.zip_chunks(reader, volume_files.volume_files(reader, PREFIX), "V1"))
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.read("V1/alto/0002.xml") == alto_page(2)
    assert "V1/alto/0004.xml" not in archive.namelist()
    assert archive.read("V1/pages-not-included.txt").decode().startswith("0004.xml: ")


def test_a_running_volume_s_pages_come_from_its_progress():
    class Running(PagesReader):
        def get_json(self, key, **_bounds):
            if key.endswith("progress.json"):
                return json.loads('{"stage": "stream", "pages_total": 3, "pages_done": 1}')
            raise StoreError(Outcome.NOT_FOUND)

    files = volume_files.volume_files(Running(3), PREFIX)
    assert not files.finished and [page.id for page in files.pages] == ["0001", "0002", "0003"]
