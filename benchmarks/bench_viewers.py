"""Benchmark: what the viewers' pure work costs on realistic inputs, with figures printed.

Run with `.venv/bin/python -m pytest benchmarks/bench_viewers.py -s` or as a script. Figures: reading
the 128 KiB tail of a 4 MiB run log into grouped lines (what opening a log costs besides the store),
searching the whole 4 MiB log, and parsing ALTO pages of growing size. No store and no browser: the
bytes each view reads from the store are asserted by the tests, not timed here.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

REPEATS = 5


def _setup() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")


def _median_ms(work) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run() -> list[str]:
    _setup()
    from devstack.content import alto_xml, big_run_log, page_layout
    from results.formats import alto, runlog

    log = big_run_log("C0099999", "swe-lines-v2").encode()
    tail = log[-runlog.TAIL_BYTES :]

    def open_tail():
        data, start = runlog.cut_at_line_start(tail, len(log) - len(tail))
        return runlog.group_lines(runlog.split_lines(runlog.complete_lines(data), start, None))

    groups = open_tail()
    lines = sum(len(group.lines) for group in groups)
    report = [
        f"run log {len(log) / 1048576:.1f} MiB; tail {len(tail) // 1024} KiB = {lines} lines in {len(groups)} groups:"
        f" {_median_ms(open_tail):.1f} ms to clean, classify and group",
        f"search of the whole log for 'page 0100': {_median_ms(lambda: runlog.search(log, 'page 0100')):.0f} ms",
    ]
    for size in (1024, 128 * 1024, 8 * 1024 * 1024):
        hostile = b"[" * size + b"\n"  # many "[" once made the wrapper-line patterns quadratic
        ms = _median_ms(lambda hostile=hostile: runlog.split_lines(hostile, 0, 1))
        report.append(f"one line of {size // 1024} KiB of '[': {ms:.1f} ms to clean and classify")
    many = b"ab" * (4 * 1024 * 1024) + b"\n"
    report.append(f"search of one 8 MiB line with 4 Mi matches: {_median_ms(lambda: runlog.search(many, 'b')):.0f} ms")
    for pages in (1, 8, 32):
        layouts = [page_layout("C0099999", n) for n in range(1, pages + 1)]
        # One ALTO file holding the lines of several invented pages, for a dense page.
        dense = dataclasses.replace(layouts[0], blocks=tuple(b for layout in layouts for b in layout.blocks))
        data = alto_xml(dense)
        parsed = alto.parse_alto(data)
        ms = _median_ms(lambda data=data: alto.parse_alto(data))
        report.append(f"ALTO {len(data) // 1024} KiB, {len(parsed.lines)} lines: {ms:.1f} ms to parse")
    report.append(_many_lines_figure())
    return report


def _many_lines_figure() -> str:
    """A 30,000-line ALTO file: parsing it, and building the drawing of the lines the page shows."""
    import django

    django.setup()
    from results.formats import alto
    from results.viewers import alto as alto_viewer

    line = '<TextLine HPOS="10" VPOS="20" WIDTH="300" HEIGHT="40"><String CONTENT="ord" WC="0.9"/></TextLine>'
    data = '<alto><Layout><Page WIDTH="4000" HEIGHT="6000"><PrintSpace><TextBlock ID="b">' + line * 30_000
    data = (data + "</TextBlock></PrintSpace></Page></Layout></alto>").encode()
    page = alto.parse_alto(data)
    parse_ms = _median_ms(lambda: alto.parse_alto(data))
    draw_ms = _median_ms(lambda: alto_viewer.alto_drawing(page, "ord", {}))
    return (
        f"ALTO of 30,000 lines ({len(data) // 1024} KiB): {parse_ms:.0f} ms to parse, "
        f"{draw_ms:.0f} ms to prepare the {alto_viewer.DRAWN_LINES_MAX:,} lines drawn"
    )


def test_viewer_figures():
    report = run()
    print("\n" + "\n".join(report))
    assert len(report) == 10


if __name__ == "__main__":
    print("\n".join(run()))
