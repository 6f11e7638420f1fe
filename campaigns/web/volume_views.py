"""The volume page (/campaigns/<ns>/<campaign>/volumes/<volume>) and its poll.

Thin like the campaign page: the reading already holds the campaign and its pods; the page reads the
volume's progress (the cards' cached, budgeted read), its manifest once it is done, and its run log's end.
``presentation.volume_page`` assembles what it shows.

The poll (``?fragment=live&seen=…``) sends the fingerprint of what the tab shows. The fingerprint is made
from what the reading and the progress read already hold (state, attempts, pages done, the minute), so an
unchanged volume costs no store read past the cached progress and is answered with 204; only a volume
that moved has its run log read again and its fragments sent. A volume that stops running gets its last
fragments with 286, which ends the poll.
"""

from __future__ import annotations

import hashlib

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from campaigns.cluster.reading import find_campaign, shown_to
from campaigns.domain.projection.attempts import volume_attempts
from campaigns.models import Campaign, Volume
from campaigns.presentation.cards import detail_url, log_href, never_started, poll_seconds, result_url, volume_row
from campaigns.presentation.volume_page import build_volume_page, volume_url
from campaigns.store import progress
from campaigns.web import rerun_views
from campaigns.web.card_reads import read_cards_progress
from campaigns.wording import volume_page as words
from core import metrics
from results.formats import runlog
from results.store.addresses import results_base
from results.store.reader import Outcome, StoreError, reader_for
from results.viewers import iiif
from results.viewers.manifest import manifest_summary
from results.viewers.reading import LOG_SENTENCES, sentence_for

LOG_TAIL_BYTES = 16 * 1024  # the page shows the end of the run log; the viewer has the rest
VOLUME_ID_LIMIT = 200


def _find_volume(campaign: Campaign, volume_id: str) -> Volume | None:
    if not volume_id or len(volume_id) > VOLUME_ID_LIMIT:
        return None
    return next((v for v in campaign.volumes.find(volume_id) if v.id == volume_id), None)


def _read_log_tail(request, volume: Volume) -> tuple[list, str]:
    """The run log's last lines, or a sentence saying why there are none."""
    reader = reader_for(request)
    if reader is None or volume.state == "pending" and volume.attempts == 0 and not volume.retrying:
        return [], ""
    for key in (volume.log_key, volume.legacy_log_key):
        try:
            blob = reader.get(key, suffix=LOG_TAIL_BYTES, max_bytes=LOG_TAIL_BYTES)
        except StoreError as error:
            if error.outcome is Outcome.NOT_FOUND:
                continue
            if error.outcome is Outcome.UNSATISFIABLE:
                return [], ""  # an empty log
            return [], words.log_unread(sentence_for(error, LOG_SENTENCES))
        data, start = runlog.cut_at_line_start(blob.body, blob.start)
        return runlog.split_lines(runlog.complete_lines(data), start, 1 if start == 0 else None), ""
    return [], ""


def _read_pictures(request, volume: Volume) -> dict[int, str]:
    """Page number -> a small picture of it, from the volume's iiif.json; none when it cannot be read
    (the strip then shows its marks alone: the picture adds to a tile, it never carries its meaning)."""
    reader = reader_for(request)
    if reader is None or volume.state not in ("done", "active", "failed") and not volume.retrying:
        return {}
    try:
        manifest = reader.get_json(volume.iiif_key, max_bytes=iiif.IIIF_LIMIT, max_values=iiif.IIIF_VALUES_MAX)
    except (StoreError, ValueError, UnicodeDecodeError, RecursionError):  # bounded_json refuses with ValueErrors
        return {}
    canvases = manifest.get("items") if isinstance(manifest, dict) else None
    return iiif.thumbnails(canvases) if isinstance(canvases, list) else {}


def _fingerprint(volume: Volume, attempts, answer, now) -> str:
    """What the tab shows, in a few bytes: it changes when the volume moves or the minute turns."""
    read = answer.progress if answer is not None else None
    facts = (
        volume.state, volume.retrying, volume.attempts, volume.reason.pod_name if volume.reason else "",
        tuple((a.pod, a.outcome, a.started_at, a.ended_at, a.node) for a in attempts),
        (read.done, read.failed, read.total, read.stage, read.updated_at, read.last_page) if read else None,
        answer.outcome if answer is not None else "", now.replace(second=0, microsecond=0),
    )
    return hashlib.blake2b(repr(facts).encode(), digest_size=9).hexdigest()


@require_safe
@vary_on_headers("HX-Request")
def volume_page(request, namespace, name, volume):
    now = timezone.now()
    campaign, state = find_campaign(request, namespace, name, now)
    if campaign is None:
        return _not_found(request, namespace, name, volume, state)
    found = _find_volume(campaign, volume)
    if found is None:
        context = {"namespace": namespace, "name": name, "campaign": campaign, "volume_id": volume[:VOLUME_ID_LIMIT],
                   "sentence": words.volume_not_found(volume[:VOLUME_ID_LIMIT], campaign.name),
                   "campaign_url": detail_url(campaign), "state": state}
        return render(request, "campaigns/volume_not_found.html", context, status=404)
    pods = state.readings[0].snapshot.pods if state.readings else []
    attempts = volume_attempts(pods, found)
    started = not never_started(found)  # a volume no pod has run has no progress to read
    report = read_cards_progress(
        request, [], now, extra_keys=[found.progress_key] if started and found.state != "done" else [],
        shown_done=[found.progress_key] if found.state == "done" else [],
    )
    answer = report.get(found.progress_key)
    seen = _fingerprint(found, attempts, answer, now)
    polling = request.htmx and request.GET.get("fragment") == "live"
    if polling and request.GET.get("seen") == seen and found.may_still_run:
        return HttpResponse(status=204)  # nothing moved: no store read beyond the cached progress
    row = volume_row(found, report, now)
    forbidden = answer is not None and answer.forbidden
    summary = None
    if found.state == "done" and not polling and not forbidden and reader_for(request) is not None:
        summary = manifest_summary(request, reader_for(request), results_base(request), result_url(found.manifest_key))
    log_lines, log_note = ([], "") if forbidden else _read_log_tail(request, found)
    pictures = {} if forbidden else _read_pictures(request, found)
    plan = (rerun_views.panel(campaign, shown_to(request)) or {}).get("plan") if found.state == "failed" else None
    page = build_volume_page(campaign, found, row, attempts, now, summary=summary, log_lines=log_lines,
                             log_note=log_note, rerun_plan=plan, pictures=pictures)
    context = {
        "page": page,
        "campaign": campaign,
        "volume": found,
        "row": row,
        "state": state,
        "summary": summary,
        "now": now,
        "log_href": log_href(found),
        "campaign_url": detail_url(campaign),
        "poll_url": volume_url(campaign, found) + "?fragment=live&seen=" + seen,
        "poll_seconds": poll_seconds(state.stale),
    }
    if polling:
        response = render(request, "campaigns/volume_live.html", context)
        metrics.poll_answered("volume", f"{progress._person(request)} {request.path}", response.content)
        return response if found.may_still_run else HttpResponseStopPolling(response.content)
    return render(request, "campaigns/volume.html", context)


def _not_found(request, namespace, name, volume, state):
    """No such campaign (or one the person may not see: said alike), or a cluster that did not answer."""
    context = {"namespace": namespace, "name": name, "state": state}
    if state.problems and not state.campaigns:
        return render(request, "campaigns/not_found.html", {**context, "unreadable": True}, status=502)
    return render(request, "campaigns/not_found.html", context, status=404)
