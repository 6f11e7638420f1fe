"""Downloads a person takes away: a volume's text and its ALTO files (results.viewers.volume_files), and the
campaign's volume table as CSV, with the same rows in the read API.

Every one is behind the gate (campaigns/urls.py), so a campaign the account may not see answers exactly as an
invented name does. What is left here: find the campaign and the volume, refuse with a sentence what cannot be
given (a volume not in the campaign, one the store refuses, a store that is down: never a 500), and hand the
streamed body to Django, with the person's download slot held until the body is closed.
"""

from __future__ import annotations

import codecs
import csv
import io
import logging
import re
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from campaigns.cluster import reading
from campaigns.models import Campaign, Volume, utc_iso
from campaigns.store import volume_figures
from campaigns.web import api
from campaigns.web.query import whole_number
from campaigns.wording import volume_table
from core.times import iso_in_reader_zone
from results.store import budget, downloads
from results.store.outcomes import SENTENCE, STORE_RETRY_AFTER_SECONDS, Outcome
from results.store.reader import reader_for
from results.viewers import volume_files
from results.viewers.reading import problem_page

logger = logging.getLogger(__name__)

PRIVATE = "private, no-store"
_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class _Streamed(downloads.SlotStream):
    """A streamed body said in the language and zone of the request that asked for it (each chunk is made
    under them); closing it closes what it reads and gives the person's download slot back."""

    def __init__(self, chunks: Iterator[bytes], person: str, what: str):
        super().__init__(chunks, getattr(chunks, "close", None), person, what)
        self._language, self._zone = translation.get_language(), timezone.get_current_timezone()

    def next_chunk(self) -> bytes | None:
        with translation.override(self._language), timezone.override(self._zone):
            return super().next_chunk()


def _file_name(*parts: str) -> str:
    return "-".join(_FILE_NAME.sub("_", part) for part in parts if part)


def _refused(request, title: str, sentence: str, status: int, retry_after: int | None = None):
    response = problem_page(request, title, sentence, status=status)
    response["Cache-Control"] = PRIVATE
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def _campaign_or_refusal(request, namespace: str, name: str, title: str):
    """(campaign, None), or (None, the answer saying why there is none)."""
    campaign, state = reading.find_campaign(request, namespace, name, timezone.now())
    if campaign is not None:
        return campaign, None
    if state.problems and not state.campaigns:
        return None, _refused(request, title, " ".join(state.problems), 502)
    # Translators: {name} is a campaign's name, {namespace} the cluster namespace it would run in.
    said = _("There is no campaign named {name} in namespace {namespace} that your account may see.")
    return None, _refused(request, title, said.format(name=name, namespace=namespace), 404)


def _volume_of(campaign: Campaign, volume_id: str) -> Volume | None:
    if not volume_id or len(volume_id) > 200:
        return None
    return next((v for v in campaign.volumes.find(volume_id) if v.id == volume_id), None)


def _download(request, namespace: str, name: str, volume_id: str, title: str, kind: str):
    """The volume's text (``kind`` "text") or ALTO ZIP ("zip"), or the sentence saying why not."""
    campaign, refusal = _campaign_or_refusal(request, namespace, name, title)
    if refusal is not None:
        return refusal
    volume = _volume_of(campaign, volume_id)
    if volume is None:
        # Translators: {volume} is a volume's id, {name} a campaign's name.
        said = _("Campaign {name} has no volume {volume}.").format(volume=volume_id, name=name)
        return _refused(request, title, said, 404)
    if not campaign.pipeline:
        said = _("This campaign names no pipeline, so its volumes have no results to download.")
        return _refused(request, title, said, 404)
    reader = reader_for(request)
    person = budget.person_of(request)
    if not downloads.take(person):
        return _refused(request, title, str(SENTENCE[Outcome.TOO_MANY_DOWNLOADS]), 429, downloads.RETRY_AFTER_SECONDS)
    try:
        files = volume_files.volume_files(reader, volume.key_prefix.removesuffix("/"))
    except volume_files.VolumeNotReadable as refused:
        downloads.give_back(person)
        outage = refused.outcome in (Outcome.UNREACHABLE, Outcome.TIMEOUT)
        return _refused(request, title, refused.sentence, refused.status, STORE_RETRY_AFTER_SECONDS if outage else None)
    except BaseException:
        downloads.give_back(person)
        raise
    base = _file_name(campaign.name, volume.id)
    if kind == "zip":
        chunks = volume_files.zip_chunks(reader, files, base)
        response = StreamingHttpResponse(_Streamed(chunks, person, files.prefix), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{base}-alto.zip"'
    else:
        chunks = volume_files.text_chunks(reader, files, _text_title(campaign, volume, files))
        response = StreamingHttpResponse(
            _Streamed(chunks, person, files.prefix), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{base}.txt"'
    response["Cache-Control"] = PRIVATE
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _text_title(campaign: Campaign, volume: Volume, files: volume_files.VolumeFiles) -> str:
    count = len(files.pages)
    if files.finished:
        # Translators: the first line of a volume's text download; {volume} a volume's id, {name} a campaign's.
        said = ngettext(
            "The recognised text of volume {volume} of campaign {name}: {count} page, in reading order.",
            "The recognised text of volume {volume} of campaign {name}: {count} pages, in reading order.",
            count,
        )
    else:
        said = ngettext(
            "The recognised text of volume {volume} of campaign {name} so far: it has not finished, so pages "
            "not yet processed are named as such ({count} page).",
            "The recognised text of volume {volume} of campaign {name} so far: it has not finished, so pages "
            "not yet processed are named as such ({count} pages).",
            count,
        )
    return said.format(volume=volume.id, name=campaign.name, count=count)


@require_safe
def volume_text(request, namespace, campaign, volume):
    """GET /campaigns/<ns>/<campaign>/volumes/<volume>/text: the volume's recognised text in one file."""
    return _download(request, namespace, campaign, volume, _("Volume text"), "text")


@require_safe
def volume_alto_zip(request, namespace, campaign, volume):
    """GET /campaigns/<ns>/<campaign>/volumes/<volume>/alto.zip: the volume's ALTO files in one ZIP."""
    return _download(request, namespace, campaign, volume, _("Volume ALTO files"), "zip")


# --- the volume table ----------------------------------------------------------------------------


def _codes_by_volume(campaign: Campaign) -> dict[str, list[str]]:
    codes: dict[str, list[str]] = {}
    for finding in campaign.findings:
        if finding.subject.volume:
            codes.setdefault(finding.subject.volume, []).append(finding.code)
    return codes


def table_row(volume: Volume, figures: volume_figures.Figures, codes: list[str]) -> dict:
    """One volume's row, as the CSV and the read API both give it (times as datetimes, said by each)."""
    mean = figures.mean_quality
    return {
        "index": volume.index,
        "id": volume.id,
        "state": volume.state,
        "retrying": volume.retrying,
        "pages": figures.pages_total,
        "pages_done": figures.pages_done,
        "pages_failed": figures.pages_failed,
        "mean_confidence": None if mean is None else round(mean, 4),
        "updated_at": figures.updated_at,
        "findings": codes,
        "figures_from": figures.source,
        "note": volume_table.note(figures.source),
    }


def _csv_line(values: list) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(values)
    return out.getvalue().encode("utf-8")


def _csv_cell(name: str, value) -> str:
    if value is None:
        return ""
    if name == "updated_at":
        return iso_in_reader_zone(value)
    if name == "findings":
        return " ".join(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _csv_chunks(reader, campaign: Campaign, spend: volume_figures.Budget) -> Iterator[bytes]:
    yield codecs.BOM_UTF8 + _csv_line(volume_table.headers())
    codes = _codes_by_volume(campaign)
    names = [name for name, _header in volume_table.COLUMNS]
    not_read = 0
    for volume, figures in volume_figures.figures_of(reader, campaign.volumes, spend):
        not_read += figures.source == volume_figures.OVER_BUDGET
        row = table_row(volume, figures, codes.get(volume.id, []))
        yield _csv_line([_csv_cell(name, row[name]) for name in names])
    if spend.cut_short:
        sentence = volume_table.cut_short(not_read, spend.reads_most, spend.seconds_most)
        yield _csv_line(["" for _name in names[:-1]] + [sentence])


def _budget() -> volume_figures.Budget:
    return volume_figures.Budget(volume_figures.READS_MOST, volume_figures.SECONDS_MOST)


@require_safe
def campaign_volumes_csv(request, namespace, name):
    """GET /campaigns/<ns>/<campaign>/volumes.csv: every volume of the campaign with its figures, streamed."""
    title = _("Volume table")
    campaign, refusal = _campaign_or_refusal(request, namespace, name, title)
    if refusal is not None:
        return refusal
    person = budget.person_of(request)
    if not downloads.take(person):
        return _refused(request, title, str(SENTENCE[Outcome.TOO_MANY_DOWNLOADS]), 429, downloads.RETRY_AFTER_SECONDS)
    reader = reader_for(request) if campaign.pipeline else None
    chunks = _csv_chunks(reader, campaign, _budget())
    response = StreamingHttpResponse(
        _Streamed(chunks, person, f"{namespace}/{name} volumes.csv"), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{_file_name(campaign.name)}-volumes.csv"'
    response["Cache-Control"] = PRIVATE
    response["X-Content-Type-Options"] = "nosniff"
    return response


@api.read_only
def api_job_volumes(request, namespace, name):
    """GET /api/v1/jobs/<ns>/<name>/volumes: the CSV's rows as JSON, ``offset``/``limit`` at a time."""
    offset = whole_number(request.GET.get("offset"), 0, 10**6)
    limit = whole_number(request.GET.get("limit"), api.LIMIT_DEFAULT, api.LIMIT_MAX)
    if offset is None or limit is None:
        # Translators: offset and limit are the query parameters' names as a script sends them: keep them as they are.
        return api.error_answer(400, _("{offset} and {limit} must be whole numbers; {limit} is at most {most}.").format(
            offset="offset", limit="limit", most=api.LIMIT_MAX))
    if namespace not in reading.served_namespaces() or not reading.DNS_LABEL.match(name or ""):
        return api.error_answer(404, _("No campaign by that name in a namespace this site serves."))
    campaign, state = reading.find_campaign(request, namespace, name, timezone.now())
    if campaign is None:
        if state.problems and not state.campaigns:
            return api.error_answer(502, " ".join(state.problems))
        return api.error_answer(404, _("No campaign named {name} in namespace {namespace}.").format(
            name=name, namespace=namespace))
    spend = _budget()
    codes = _codes_by_volume(campaign)
    reader = reader_for(request) if campaign.pipeline else None
    rows = []
    for volume, figures in volume_figures.figures_of(reader, campaign.volumes[offset : offset + limit], spend):
        row = table_row(volume, figures, codes.get(volume.id, []))
        rows.append(_api_row(row))
    not_read = sum(1 for row in rows if row["figuresFrom"] == volume_figures.OVER_BUDGET)
    data = {
        "namespace": campaign.namespace,
        "name": campaign.name,
        "offset": offset,
        "limit": limit,
        "volumesTotal": len(campaign.volumes),
        "volumes": rows,
        "budget": {
            "reads": spend.reads,
            "readsMost": spend.reads_most,
            "secondsMost": spend.seconds_most,
            "cutShort": spend.cut_short,
            "sentence": volume_table.cut_short(not_read, spend.reads_most, spend.seconds_most)
            if spend.cut_short else "",
        },
        "snapshot": api.staleness(state),
    }
    return api.with_snapshot_age(api.json_answer(data), data["snapshot"])


def _api_row(row: dict) -> dict:
    return {
        "index": row["index"],
        "id": row["id"],
        "state": row["state"],
        "retrying": row["retrying"],
        "pages": row["pages"],
        "pagesDone": row["pages_done"],
        "pagesFailed": row["pages_failed"],
        "meanConfidence": row["mean_confidence"],
        "updatedAt": utc_iso(row["updated_at"]) or None,
        "findings": row["findings"],
        "figuresFrom": row["figures_from"],
        "note": row["note"],
    }
