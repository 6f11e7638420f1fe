"""A live Job's volumes by its index sets: objects only for the notable ones, the rest made on demand.

`VolumeLines` reads the campaign's ``volumes.txt`` once per text and a line when asked;
`PartVolumes` is one Job's part of a campaign's `volume_list.Volumes`: it keeps the notable volumes
(failed, or with pods) the projection made, and makes any other one, with its sentence, when a page
asks for it.

Both stay small whatever the archive's size: a list keeps the record's own text and where each line
starts (4 bytes a line, not a string a line: at 1 000 000 volumes that was 115 MB), and a part its
done volumes as one byte each (not a set of numbers: 50 MB).
"""

from __future__ import annotations

from array import array
from functools import lru_cache
from itertools import accumulate
from typing import Any

from campaigns.models import FINAL_PHASES, Volume, bounded
from core.contract import read_volume_line, volumes_txt_lines


class VolumeLines:
    """The lines of one ``volumes.txt`` (the grammar: ``core.contract.read_volume_line``), read on demand."""

    def __init__(self, text: str, limit: int):
        lines = volumes_txt_lines(text, limit)
        self.text = text
        self.count = len(lines)
        # Line i is text[starts[i] : starts[i + 1] - 1] (the "\n" between them left out).
        self._starts = array("I", accumulate((len(line) + 1 for line in lines), initial=0))
        self.malformed: frozenset[int] = frozenset(
            i for i, line in enumerate(lines) if (read := read_volume_line(line)) is not None and read.malformed
        )
        self._length = next((i + 1 for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), 0)

    def __len__(self) -> int:
        """Up to the last line that holds a volume (trailing blank lines hold none)."""
        return self._length

    def line(self, index: int) -> str:
        return self.text[self._starts[index] : self._starts[index + 1] - 1]

    def has(self, index: int) -> bool:
        return 0 <= index < self.count and bool(self.line(index).strip())

    def ident(self, index: int) -> str:
        """The volume id of a line (bounded for a malformed one), or "" for none."""
        read = read_volume_line(self.line(index)) if self.has(index) else None
        if read is None:
            return ""
        return bounded(read.id, 80) if read.malformed else read.id

    def source(self, index: int) -> str:
        read = read_volume_line(self.line(index)) if self.has(index) else None
        return bounded(read.source, 4000) if read is not None else ""


def volume_lines(text: Any, limit: int) -> VolumeLines:
    """Parsed once per distinct text (a campaign's list never changes while its Job lives); anything
    but a string (a mangled record) holds no lines."""
    return _volume_lines(text if isinstance(text, str) else "", limit)


@lru_cache(maxsize=1024)
def _volume_lines(text: str, limit: int) -> VolumeLines:
    return VolumeLines(text, limit)


class PartVolumes:
    """The volumes of one Job: its notable ones as objects, the others by the Job's index sets."""

    def __init__(
        self,
        *,
        job: str,
        namespace: str,
        pipeline: str,
        total: int,
        completed: set[int],
        phase: str,
        lines: VolumeLines,
        notable: dict[int, Volume],
        retry_limit: int,
    ):
        self.job = job
        self.namespace = namespace
        self.pipeline = pipeline
        self.total = total
        # One byte per index up to the highest done one: 1 for done.
        self.completed = bytearray(max(completed, default=-1) + 1)
        for position in completed:
            self.completed[position] = 1
        self.final = phase in FINAL_PHASES
        self.lines = lines
        self.notable = notable
        self.retry_limit = retry_limit
        self.held = False  # the campaign is queued or paused (set by the projection)

    def state_of(self, position: int) -> str:
        volume = self.notable.get(position)
        if volume is not None:
            return volume.state
        if 0 <= position < len(self.completed) and self.completed[position]:
            return "done"
        if self.final or position in self.lines.malformed:
            return "unknown"
        return "pending"

    def ident(self, position: int) -> str:
        volume = self.notable.get(position)
        if volume is not None:
            return volume.id
        return self.lines.ident(position) or f"index-{position}"

    def volume(self, position: int) -> Volume:
        volume = self.notable.get(position)
        if volume is not None:
            return volume
        has_line = self.lines.has(position)
        volume = Volume(
            index=position,
            id=self.lines.ident(position) or f"index-{position}",
            source=self.lines.source(position),
            job=self.job,
            namespace=self.namespace,
            pipeline=self.pipeline,
            malformed=not has_line or position in self.lines.malformed,
            retry_limit=self.retry_limit,
            state=self.state_of(position),
            held=self.held,
        )
        return volume
