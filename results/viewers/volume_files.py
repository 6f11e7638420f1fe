"""A whole volume taken away in one download: its recognised text (plain UTF-8, page by page) and its ALTO files
(one ZIP), both read from the store with the person's own session while the answer is written.

Why streamed, and how. A volume holds up to thousands of pages of up to ``MAX_ALTO_BYTES`` each; neither the
text nor the ZIP is ever held whole. The pages are read a few ahead of the writer (``PAGES_AHEAD``, on threads
of the download's own) so a slow store's latency is paid once per few pages, and only those few pages are in
memory at a time: a page's text is made in the thread that read it and the file's bytes are dropped there.

Which pages there are comes from the volume's ``manifest.json`` (a finished volume: every page with its
status, failed ones with their error), else its ``progress.json`` (a volume still running or failed for good:
how many pages it has). A page the record says failed, and one whose ALTO file is not in the store, is named
in place in the text and listed in the ZIP's ``pages-not-included.txt``, so nothing is left out silently.
When the store stops answering in the middle, the download says so at the point it stopped, and ends.

Parsing is ``results.formats.alto``'s (bounded); keys are built by ``core.contract`` and checked by the reader.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import zipstream
from botocore.exceptions import BotoCoreError, ClientError
from django.utils.translation import gettext as _

from results.formats import alto as alto_parser
from results.store.outcomes import outcome_of
from results.store.reader import Outcome, StoreError
from results.viewers.manifest import MANIFEST_LIMIT, MANIFEST_VALUES_MAX

PAGES_AHEAD = 4  # pages read ahead of the writer: at most this many are in memory at once
PAGES_MOST = 100_000  # pages a volume is taken to have at most (a record claiming more is cut here)
PROGRESS_MAX_BYTES = 64 * 1024
ERROR_CHARS = 500  # of a failed page's error, as the text and the ZIP's list say it
OUTAGE_PAGES = 3  # pages in a row the store did not answer for, before the download stops
ZIP_CHUNK_BYTES = 1024 * 1024
PAGE_CHUNK_BYTES = 64 * 1024
NOT_INCLUDED = "pages-not-included.txt"
_PAGE_ID = re.compile(r"^\d{1,6}$")
OUTAGE_CODES = frozenset({Outcome.UNREACHABLE.value, Outcome.TIMEOUT.value})

# What became of one page, as a worker thread tells the writer (codes: the writer says the words, in the
# reader's language, on its own thread).
READ = "read"
FAILED = "failed"  # the record says the page failed: not read
SKIPPED = "skipped"  # the record says the page was skipped: not read
MISSING = "missing"  # no ALTO file in the store
UNREADABLE = "unreadable"  # an ALTO file this site cannot read (its sentence says why)


@dataclass(frozen=True)
class Page:
    """One page of the volume as its record tells it."""

    number: int
    id: str  # "0001": the ALTO file's name without .xml
    status: str = "unknown"  # ok | failed | skipped | unknown (the record does not say)
    error: str = ""


@dataclass(frozen=True)
class VolumeFiles:
    """The volume's pages in reading order, and where that order came from."""

    prefix: str  # <ns>/<pipeline>/<volume>, no trailing slash
    volume: str
    pages: tuple[Page, ...]
    finished: bool  # from manifest.json (done); else from progress.json (running or failed)

    def alto_key(self, page: Page) -> str:
        return f"{self.prefix}/alto/{page.id}.xml"


class VolumeNotReadable(Exception):
    """The volume's record cannot be read: ``status`` and a sentence for the person."""

    def __init__(self, status: int, sentence: str, outcome: Outcome | None = None):
        super().__init__(sentence)
        self.status, self.sentence, self.outcome = status, sentence, outcome


def page_id(number: int) -> str:
    """The ALTO file name of page ``number``: four digits, longer past 9999 (contracts §4)."""
    return f"{number:04d}"


def volume_files(reader, prefix: str) -> VolumeFiles:
    """The pages of the volume at ``prefix`` (``<ns>/<pipeline>/<volume>``), from its manifest.json, else its
    progress.json. Raises ``VolumeNotReadable`` for a volume the person may not read, one with no record yet,
    a record that is not readable, and a store that is down (its StoreError's status)."""
    volume = prefix.rsplit("/", 1)[-1]
    try:
        record = reader.get_json(f"{prefix}/manifest.json", max_bytes=MANIFEST_LIMIT, max_values=MANIFEST_VALUES_MAX)
    except StoreError as error:
        if error.outcome is not Outcome.NOT_FOUND:
            raise _not_readable(error) from None
        return _from_progress(reader, prefix, volume)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise VolumeNotReadable(
            422,
            _("The volume's manifest.json is not readable JSON within this site's bounds, so its pages are not known."),
        ) from None
    if not isinstance(record, dict):
        raise VolumeNotReadable(422, _("The volume's manifest.json is not a JSON object, so its pages are not known."))
    return VolumeFiles(prefix, volume, _pages_of_manifest(record), finished=True)


def _from_progress(reader, prefix: str, volume: str) -> VolumeFiles:
    try:
        record = reader.get_json(f"{prefix}/progress.json", max_bytes=PROGRESS_MAX_BYTES)
    except StoreError as error:
        if error.outcome is Outcome.NOT_FOUND:
            raise VolumeNotReadable(
                404,
                _("This volume has no results in the store yet: it has not started, so there is nothing to download."),
                Outcome.NOT_FOUND,
            ) from None
        raise _not_readable(error) from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise VolumeNotReadable(
            422, _("The volume's progress.json is not readable JSON, so its pages are not known.")
        ) from None
    total = record.get("pages_total") if isinstance(record, dict) else None
    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise VolumeNotReadable(
            404, _("This volume has not said yet how many pages it has, so there is nothing to download yet."),
            Outcome.NOT_FOUND,
        )
    pages = tuple(Page(n, page_id(n)) for n in range(1, min(total, PAGES_MOST) + 1))
    return VolumeFiles(prefix, volume, pages, finished=False)


def _not_readable(error: StoreError) -> VolumeNotReadable:
    if error.outcome is Outcome.FORBIDDEN:
        return VolumeNotReadable(
            403,
            _("Your store account may not read this volume's results, so they cannot be downloaded."),
            error.outcome,
        )
    return VolumeNotReadable(error.status, error.sentence, error.outcome)


def _pages_of_manifest(record: dict) -> tuple[Page, ...]:
    """Every page from 1 to the last the record knows, each with its status; a page the record leaves out is
    'unknown' (its ALTO file, if any, is read)."""
    results = record.get("results") if isinstance(record.get("results"), dict) else {}
    known: dict[int, Page] = {}
    for raw_id, entry in results.items():
        text = str(raw_id)
        if not _PAGE_ID.match(text) or not 0 < int(text) <= PAGES_MOST:
            continue
        entry = entry if isinstance(entry, dict) else {}
        status = entry.get("status") if entry.get("status") in ("ok", "failed", "skipped") else "unknown"
        error = str(entry.get("error") or "")[:ERROR_CHARS]
        known[int(text)] = Page(int(text), text, status, error)
    claimed = record.get("pages")
    claimed = claimed if isinstance(claimed, int) and not isinstance(claimed, bool) else 0
    last = min(max([claimed, *known]), PAGES_MOST)
    return tuple(known.get(n) or Page(n, page_id(n)) for n in range(1, last + 1))


# --- reading pages a few ahead -------------------------------------------------------------------


def read_ahead(
    work: Callable, items: Iterable, ahead: int = PAGES_AHEAD, drop: Callable | None = None
) -> Iterator[tuple[object, object]]:
    """``(item, work(item))`` in the items' order, with at most ``ahead`` of them being worked on or waiting
    to be written at once. The threads are the download's own and end with it (also when the client goes);
    ``drop`` is given each answer that was made but never written (an opened object to close)."""
    pool = ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="volume-download")
    queue: deque = deque()
    try:
        for item in items:
            queue.append((item, pool.submit(work, item)))
            if len(queue) >= ahead:
                first, future = queue.popleft()
                yield first, future.result()
        while queue:
            first, future = queue.popleft()
            yield first, future.result()
    finally:
        for _item, future in queue:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        for _item, future in queue:
            if drop is not None and not future.cancelled() and future.exception() is None:
                drop(future.result())


def _outcome_of(error: StoreError) -> tuple[str, object]:
    if error.outcome is Outcome.NOT_FOUND:
        return MISSING, None
    return error.outcome.value, error


# --- the text ------------------------------------------------------------------------------------


def page_text(reader, files: VolumeFiles, page: Page) -> tuple[str, object]:
    """(what became of the page, its text or what says why not): run on a reading thread, so it returns
    codes and data, never words."""
    if page.status in ("failed", "skipped"):
        return (FAILED if page.status == "failed" else SKIPPED), page.error
    try:
        data = _read_page(reader, files.alto_key(page))
    except StoreError as error:
        return _outcome_of(error)
    if isinstance(data, int):
        return UNREADABLE, ("too_large", data)
    try:
        parsed = alto_parser.parse_alto(data)
    except alto_parser.AltoError as refused:
        return UNREADABLE, ("refused", refused.sentence)
    del data
    return READ, parsed.text()


def _read_page(reader, key: str) -> bytes | int:
    """The ALTO file's bytes, read ``PAGE_CHUNK_BYTES`` at a time (a larger read buffer, held by each of the
    threads reading ahead, cost more than the pages themselves), or its size when it is over what is parsed."""
    answer = reader.open_stream(key)
    body = answer["Body"]
    try:
        size = int(answer.get("ContentLength") or 0)
        if size > alto_parser.MAX_ALTO_BYTES:
            return size
        chunks, read = [], 0
        for chunk in body.iter_chunks(PAGE_CHUNK_BYTES):
            chunks.append(chunk)
            read += len(chunk)
            if read > alto_parser.MAX_ALTO_BYTES:
                return read
        return b"".join(chunks)
    except (BotoCoreError, ClientError) as error:
        raise outcome_of(error) from None
    finally:
        body.close()


def text_chunks(reader, files: VolumeFiles, title: str) -> Iterator[bytes]:
    """The volume's text: a title line, then each page under its marker line, pages that have no text said
    so in place. UTF-8 bytes, a page at a time."""
    yield (title + "\n").encode()
    total, outages = len(files.pages), 0
    for page, (what, value) in read_ahead(lambda p: page_text(reader, files, p), files.pages):
        yield ("\n" + page_marker(page, total) + "\n\n").encode()
        if what == READ:
            outages = 0
            yield (value or (_("(This page has no text.)") + "\n")).encode()
            continue
        yield (page_said(page, what, value) + "\n").encode()
        outages = outages + 1 if what in OUTAGE_CODES else 0
        if outages >= OUTAGE_PAGES:
            yield ("\n" + stopped_sentence(page, total) + "\n").encode()
            return


def page_marker(page: Page, total: int) -> str:
    # Translators: the line that starts each page in a volume's text download; {number} and {total} are page
    # numbers, {name} the page's ALTO file name (0003.xml).
    return _("=== Page {number} of {total} ({name}) ===").format(
        number=page.number, total=total, name=f"{page.id}.xml"
    )


def page_said(page: Page, what: str, value) -> str:
    """Why a page has no text, in place of its text."""
    if what == FAILED:
        if value:
            # Translators: {error} is the error the run recorded for the page, as it wrote it.
            return _("[This page failed when the volume ran, so it has no text. The run recorded: {error}]").format(
                error=" ".join(str(value).split())
            )
        return _("[This page failed when the volume ran, so it has no text.]")
    if what == SKIPPED:
        return _("[This page was skipped when the volume ran, so it has no text.]")
    if what == MISSING:
        return _(
            "[This page has no ALTO file in the store: it failed or has not been processed yet, so it has no text.]"
        )
    if what == UNREADABLE:
        kind, detail = value
        if kind == "too_large":
            # Translators: {size} and {most} are sizes in MiB.
            return _(
                "[This page's ALTO file is {size} MiB, over the {most} MiB this site reads, "
                "so its text is not included.]"
            ).format(size=round(detail / 1048576, 1), most=alto_parser.MAX_ALTO_BYTES // 1048576)
        # Translators: {reason} is a sentence saying what is wrong with the file.
        return _("[This page's ALTO file could not be read, so its text is not included: {reason}]").format(
            reason=detail
        )
    if what == Outcome.FORBIDDEN.value:
        return _("[Your store account may not read this page's ALTO file, so its text is not included.]")
    # Translators: {reason} is a sentence saying why the store did not give the file.
    return _("[This page could not be read from the store, so its text is not included: {reason}]").format(
        reason=getattr(value, "sentence", "")
    )


def stopped_sentence(page: Page, total: int) -> str:
    # Translators: {number} and {total} are page numbers.
    return _(
        "The results store stopped answering at page {number} of {total}, so this download ends here: "
        "the pages after it are not included. Try again in a minute."
    ).format(number=page.number, total=total)


# --- the ZIP -------------------------------------------------------------------------------------


class _Body:
    """An opened object's bytes, read as the ZIP writes its member; closed at the end, or when dropped."""

    def __init__(self, answer):
        self._body = answer["Body"]

    def __iter__(self):
        try:
            yield from self._body.iter_chunks(ZIP_CHUNK_BYTES)
        finally:
            self._body.close()

    def close(self):
        self._body.close()


def open_page(reader, files: VolumeFiles, page: Page) -> tuple[str, object]:
    """(what became of the page, the opened object or why not): the store's answer is asked for here, on a
    reading thread, and its body read later, by the writer, as the ZIP member is written."""
    if page.status in ("failed", "skipped"):
        return (FAILED if page.status == "failed" else SKIPPED), page.error
    try:
        return READ, _Body(reader.open_stream(files.alto_key(page)))
    except StoreError as error:
        return _outcome_of(error)


def zip_chunks(reader, files: VolumeFiles, folder: str) -> Iterator[bytes]:
    """A ZIP of the volume's ALTO files (``<folder>/alto/<page>.xml``, each the store's object unchanged),
    with ``<folder>/pages-not-included.txt`` naming every page left out and why, written as it is read."""
    archive = zipstream.ZipStream(compress_type=zipstream.ZIP_DEFLATED, compress_level=6)
    left_out: list[str] = []
    total, outages = len(files.pages), 0
    opened = read_ahead(lambda p: open_page(reader, files, p), files.pages, drop=_close_opened)
    try:
        for page, (what, value) in opened:
            if what == READ:
                outages = 0
                archive.add(value, f"{folder}/alto/{page.id}.xml")
                yield from archive.all_files()
                continue
            left_out.append(f"{page.id}.xml: {page_said(page, what, value)}")
            outages = outages + 1 if what in OUTAGE_CODES else 0
            if outages >= OUTAGE_PAGES:
                left_out.append(stopped_sentence(page, total))
                break
    finally:
        opened.close()  # the pages opened ahead and not written are closed unread
    if left_out:
        archive.add(("\n".join(left_out) + "\n").encode(), f"{folder}/{NOT_INCLUDED}")
    yield from archive.finalize()


def _close_opened(answer) -> None:
    what, value = answer
    if what == READ:
        value.close()
