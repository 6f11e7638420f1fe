"""A campaign's volumes without an object per volume.

At archive scale a campaign holds thousands of volumes, nearly all done or pending: nothing to say
about them but their state. `Volumes` reads them through parts: a live Job's part
(`projection.volume_parts.PartVolumes`) keeps as objects only the notable ones (failed, or with
pods: running, retrying, waiting) and describes the rest by the Job's index sets and the
campaign's volume list; a `ListPart` holds volumes that are all objects already. A page asks for
the rows it shows (`select`), a search for the ids it matches (`find`), and only those become
`Volume` objects, with their sentence.

`Volumes` is a read-only sequence, so code that iterates, slices or counts a campaign's volumes
works unchanged; iterating all of them builds each row on the fly and keeps none.

This module sits below `campaigns.models` (whose `Campaign` holds a `Volumes`): it imports nothing
of the project. A part is anything with `total`, `notable` (position -> volume) and `state_of`,
`ident` and `volume` of a position.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


class ListPart:
    """Volumes that are all objects already (a campaign whose Job is gone, or built by hand)."""

    def __init__(self, volumes: list):
        self.volumes = list(volumes)
        self.total = len(self.volumes)
        self.notable = dict(enumerate(self.volumes))

    def state_of(self, position: int) -> str:
        return self.volumes[position].state

    def ident(self, position: int) -> str:
        return self.volumes[position].id

    def volume(self, position: int):
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

    def __iter__(self) -> Iterator:
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

    def notable(self) -> list:
        """The volumes that are objects anyway: failed, running, retrying, waiting, or from a record."""
        return [volume for part in self.parts for _, volume in sorted(part.notable.items())]

    def in_state(self, state: str, limit: int | None = None) -> list:
        return self.select(state, "", 0, limit)[0]

    def count_in(self, state: str) -> int:
        return sum(1 for part, position in self._positions() if part.state_of(position) == state)

    def select(self, state: str, needle: str, offset: int, limit: int | None) -> tuple[list, int]:
        """The volumes in `state` (any if "") whose id contains `needle`: the page from `offset`, and how many match."""
        needle = needle.lower()
        page: list = []
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

    def find(self, needle: str) -> list:
        """Volumes whose id is `needle` (case aside), else those whose id contains it."""
        needle = needle.lower()
        exact: list = []
        partial: list[tuple[object, int]] = []
        for part, position in self._positions():
            ident = part.ident(position).lower()
            if ident == needle:
                exact.append(part.volume(position))
            elif needle in ident and not exact:
                partial.append((part, position))
        return exact or [part.volume(position) for part, position in partial]
