"""A campaign's volumes without an object per volume.

At archive scale a campaign holds thousands of volumes, nearly all done or pending: nothing to say
about them but their state. `Volumes` keeps as objects only the notable ones (failed, or with pods:
running, retrying, waiting) and describes the rest by the Job's index sets and the campaign's
volume list; a page asks for the rows it shows (`select`), a search for the ids it matches (`find`),
and only those become `Volume` objects, with their sentence.

`Volumes` is a read-only sequence, so code that iterates, slices or counts a campaign's volumes
works unchanged; iterating all of them builds each row on the fly and keeps none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from campaigns.models import FINAL_PHASES, Volume, bounded
from core.contract import read_volume_line, volumes_txt_lines


class VolumeLines:
    """The lines of one ``volumes.txt`` (the grammar: ``core.contract.read_volume_line``), read on demand."""

    def __init__(self, text: str, limit: int):
        self.lines = volumes_txt_lines(text, limit)
        self.malformed: frozenset[int] = frozenset(
            i for i, line in enumerate(self.lines) if (read := read_volume_line(line)) is not None and read.malformed
        )

    def __len__(self) -> int:
        """Up to the last line that holds a volume (trailing blank lines hold none)."""
        for index in range(len(self.lines) - 1, -1, -1):
            if self.lines[index].strip():
                return index + 1
        return 0

    def has(self, index: int) -> bool:
        return 0 <= index < len(self.lines) and bool(self.lines[index].strip())

    def ident(self, index: int) -> str:
        """The volume id of a line (bounded for a malformed one), or "" for none."""
        read = read_volume_line(self.lines[index]) if self.has(index) else None
        if read is None:
            return ""
        return bounded(read.id, 80) if read.malformed else read.id

    def source(self, index: int) -> str:
        read = read_volume_line(self.lines[index]) if self.has(index) else None
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
        self.completed = completed
        self.final = phase in FINAL_PHASES
        self.lines = lines
        self.notable = notable
        self.retry_limit = retry_limit
        self.held = False  # the campaign is queued or paused (set by the projection, for sentences)

    def state_of(self, position: int) -> str:
        volume = self.notable.get(position)
        if volume is not None:
            return volume.state
        if position in self.completed:
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
        # Not at the top: campaigns.models imports this module, and the wording imports the models.
        from campaigns.wording.volumes import volume_sentence

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
        )
        volume.sentence = volume_sentence(volume, self.namespace, held=self.held)
        return volume


class ListPart:
    """Volumes that are all objects already (a campaign whose Job is gone, or built by hand)."""

    def __init__(self, volumes: list[Volume]):
        self.volumes = list(volumes)
        self.total = len(self.volumes)
        self.notable = dict(enumerate(self.volumes))

    def state_of(self, position: int) -> str:
        return self.volumes[position].state

    def ident(self, position: int) -> str:
        return self.volumes[position].id

    def volume(self, position: int) -> Volume:
        return self.volumes[position]


class Volumes(Sequence):
    """Every volume of a campaign, in part order, made into objects only when asked for."""

    def __init__(self, parts: list | None = None):
        self.parts = list(parts or [])

    @classmethod
    def of(cls, volumes) -> Volumes:
        return volumes if isinstance(volumes, Volumes) else cls([ListPart(list(volumes or []))])

    def __len__(self) -> int:
        return sum(part.total for part in self.parts)

    def _positions(self) -> Iterator[tuple[object, int]]:
        for part in self.parts:
            for position in range(part.total):
                yield part, position

    def __iter__(self) -> Iterator[Volume]:
        for part, position in self._positions():
            yield part.volume(position)

    def __getitem__(self, item):
        if isinstance(item, slice):
            start, stop, step = item.indices(len(self))
            return [self[i] for i in range(start, stop, step)]
        if item < 0:
            item += len(self)
        for part in self.parts:
            if item < part.total:
                return part.volume(item)
            item -= part.total
        raise IndexError("volume index out of range")

    def __eq__(self, other) -> bool:
        if isinstance(other, Volumes | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"Volumes({len(self)} volumes, {len(self.notable())} notable)"

    def notable(self) -> list[Volume]:
        """The volumes that are objects anyway: failed, running, retrying, waiting, or from a record."""
        return [volume for part in self.parts for _, volume in sorted(part.notable.items())]

    def in_state(self, state: str, limit: int | None = None) -> list[Volume]:
        return self.select(state, "", 0, limit)[0]

    def count_in(self, state: str) -> int:
        return sum(1 for part, position in self._positions() if part.state_of(position) == state)

    def select(self, state: str, needle: str, offset: int, limit: int | None) -> tuple[list[Volume], int]:
        """The volumes in `state` (any if "") whose id contains `needle`: the page from `offset`, and how many match."""
        needle = needle.lower()
        page: list[Volume] = []
        matching = 0
        for part, position in self._positions():
            if state and part.state_of(position) != state:
                continue
            if needle and needle not in part.ident(position).lower():
                continue
            if matching >= offset and (limit is None or len(page) < limit):
                page.append(part.volume(position))
            matching += 1
        return page, matching

    def find(self, needle: str) -> list[Volume]:
        """Volumes whose id is `needle` (case aside), else those whose id contains it."""
        needle = needle.lower()
        exact: list[Volume] = []
        partial: list[tuple[object, int]] = []
        for part, position in self._positions():
            ident = part.ident(position).lower()
            if ident == needle:
                exact.append(part.volume(position))
            elif needle in ident and not exact:
                partial.append((part, position))
        return exact or [part.volume(position) for part, position in partial]
