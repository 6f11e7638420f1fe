"""Lines read after the page has opened (a live poll's new lines, "show earlier"'s older ones) join the
stretch of quiet lines at the page's edge on the server, as if the page had been read whole.

``runlog.stretches`` cuts the lines one answer carries into stretches. The page's top and bottom
stretches are known to the next request by their ``Edge`` (element id and HTTP request lines), kept in
the page's hidden ``#log-edges`` inputs that every poll and "show earlier" sends and each answer
replaces. So an answer puts its first (or last) quiet stretch's groups into the page's stretch, and
the "N HTTP requests" row where it belongs, with the label of the joined stretch; a join at one end
changes the other edge too when the page is one stretch. Pure: no reading here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from results.formats.runlog import HTTP_FOLD_MIN, LogGroup, LogStretch, fold_label

_EDGE = re.compile(r"^(s\d{1,15})~(\d{1,9})~(L\d{1,12}|at\d{1,15}|)~(\d{0,12})~(\d{0,12})$")


def stretch_id(stretch: LogStretch) -> str:
    """The element id of a stretch: its first line's byte position, which never changes."""
    return f"s{stretch.groups[0].first.offset}"


@dataclass(frozen=True)
class Edge:
    """The quiet stretch at one end of the page: its element id, how many HTTP request lines it holds, the
    anchor of the first of them, and the numbers of the first and last (None when unnumbered)."""

    stretch: str
    http: int = 0
    lead: str = ""
    first: int | None = None
    last: int | None = None

    @classmethod
    def of(cls, stretch: LogStretch) -> Edge | None:
        """The edge a stretch makes; None for a stretch nothing joins (a warning, an error and its traceback)."""
        if not stretch.quiet:
            return None
        http = stretch.http_lines
        if not http:
            return cls(stretch_id(stretch))
        return cls(stretch_id(stretch), len(http), http[0].anchor, http[0].number, http[-1].number)

    @classmethod
    def parse(cls, value: str) -> Edge | None:
        match = _EDGE.match(value or "")
        if not match:
            return None
        stretch, http, lead, first, last = match.groups()
        return cls(stretch, int(http), lead, int(first) if first else None, int(last) if last else None)

    @property
    def param(self) -> str:
        numbers = ["" if n is None else str(n) for n in (self.first, self.last)]
        return "~".join([self.stretch, str(self.http), self.lead, *numbers])


@dataclass(frozen=True)
class Join:
    """Groups read next to the page's edge stretch, put into it (``target``) at its end or its start.

    ``fold_at``: the index of the group the "N HTTP requests" row goes before, when the row comes with
    these groups. Otherwise ``relabel`` gives the row already shown its new label, ``row_before`` names the
    HTTP line already shown that a new row goes before, and ``drop_row`` removes the row already shown (a
    new one comes before earlier requests)."""

    target: str
    groups: list[LogGroup]
    edge: Edge
    label: str = ""
    fold_at: int | None = None
    relabel: bool = False
    row_before: str = ""
    drop_row: bool = False


def _first_http(groups: list[LogGroup]) -> int:
    return next(index for index, group in enumerate(groups) if group.kind == "http")


def join_after(edge: Edge, stretch: LogStretch) -> Join:
    """``stretch`` (new lines, quiet) appended to the page's last stretch ``edge``."""
    http = stretch.http_lines
    count = edge.http + len(http)
    first = edge.first if edge.http else (http[0].number if http else None)
    last = http[-1].number if http else edge.last
    lead = edge.lead or (http[0].anchor if http else "")
    joined = Edge(edge.stretch, count, lead, first, last)
    if count < HTTP_FOLD_MIN or not http:
        return Join(edge.stretch, stretch.groups, joined)
    label = fold_label(count, first, last)
    if edge.http == 0:
        return Join(edge.stretch, stretch.groups, joined, label, fold_at=_first_http(stretch.groups))
    if edge.http == 1:
        return Join(edge.stretch, stretch.groups, joined, label, row_before=edge.lead)
    return Join(edge.stretch, stretch.groups, joined, label, relabel=True)


def join_before(edge: Edge, stretch: LogStretch) -> Join:
    """``stretch`` (earlier lines, quiet) put before the page's first stretch ``edge``."""
    http = stretch.http_lines
    count = len(http) + edge.http
    first = http[0].number if http else edge.first
    last = edge.last if edge.http else (http[-1].number if http else None)
    joined = Edge(edge.stretch, count, http[0].anchor if http else edge.lead, first, last)
    if count < HTTP_FOLD_MIN or not http:
        return Join(edge.stretch, stretch.groups, joined)  # a row already shown keeps its place and label
    label = fold_label(count, first, last)
    return Join(edge.stretch, stretch.groups, joined, label, _first_http(stretch.groups), drop_row=edge.http >= 2)


def appended(edge: Edge | None, stretches: list[LogStretch]) -> tuple[Join | None, list[LogStretch], Edge | None]:
    """New lines' stretches after the page's last stretch: (the join, the other stretches, the page's new
    last edge). Lines that join nothing leave the join None; no new lines leave the edge as it was."""
    if not stretches:
        return None, [], edge
    join = None
    if edge is not None and stretches[0].quiet:
        join, stretches = join_after(edge, stretches[0]), stretches[1:]
    last = Edge.of(stretches[-1]) if stretches else join.edge
    return join, stretches, last


def prepended(edge: Edge | None, stretches: list[LogStretch]) -> tuple[Join | None, list[LogStretch], Edge | None]:
    """Earlier lines' stretches before the page's first stretch: (the join, the other stretches, the page's
    new first edge)."""
    if not stretches:
        return None, [], edge
    join = None
    if edge is not None and stretches[-1].quiet:
        join, stretches = join_before(edge, stretches[-1]), stretches[:-1]
    first = Edge.of(stretches[0]) if stretches else join.edge
    return join, stretches, first


def edges_of(request) -> tuple[Edge | None, Edge | None]:
    """The page's top and bottom edges, as its ``#log-edges`` inputs sent them."""
    return Edge.parse(request.GET.get("top", "")), Edge.parse(request.GET.get("bottom", ""))


def same_stretch(edge: Edge | None, join: Join | None) -> Edge | None:
    """The page's other edge after a join: the joined stretch's new edge when it is that stretch too."""
    if join is not None and edge is not None and edge.stretch == join.target:
        return join.edge
    return edge
