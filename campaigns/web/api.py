"""The read API under /api/v1/: JSON from the same view models as the cards.

Field names follow the existing read API so its scripts keep working; what this project adds
(queue explanation, sentences, parts) lives under new keys. Answers are private and never cached.

Field names and codes are the same in every language; the human sentences (``sentence``, ``detail`` and the
like) are worded at each request in the language Accept-Language asks for (LocaleMiddleware activates it),
and say their times in UTC, as every time field does: a script reads one clock whoever runs it.
"""

from __future__ import annotations

import shlex
from datetime import UTC
from functools import wraps

from django.core.serializers.json import DjangoJSONEncoder
from django.http import JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from campaigns.cluster import reading
from campaigns.domain import quality
from campaigns.models import RECORD_PHASES, RUNNING, Campaign, Volume, utc_iso
from campaigns.models.findings import Fact, Finding, ModelCache
from campaigns.presentation import cards
from campaigns.store import progress
from campaigns.web.query import whole_number
from campaigns.wording.findings import finding_sentence
from campaigns.wording.queue import queue_sentence
from campaigns.wording.states import campaign_sentence
from campaigns.wording.volumes import volume_sentence
from campaigns.wording.warmup import campaign_warmup_sentence
from results.store.keys import results_base

API_VERSION = "v1"
PRODUCT_VERSION = "1.0.0"
REAPED_DEFAULT = 20
REAPED_MAX = 10_000
LIMIT_DEFAULT = 1000
LIMIT_MAX = 1000


class _InertJSONEncoder(DjangoJSONEncoder):
    """JSON with <, > and & escaped, so no text in it can ever be read as markup."""

    def encode(self, o):
        text = super().encode(o)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def json_answer(data, status: int = 200, headers: dict | None = None) -> JsonResponse:
    response = JsonResponse(
        data, status=status, safe=False, encoder=_InertJSONEncoder, json_dumps_params={"ensure_ascii": False}
    )
    response["Cache-Control"] = "private, no-store"
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def error_answer(status: int, sentence: str) -> JsonResponse:
    """Errors as the existing read API writes them: ``{"detail": "<sentence>"}``."""
    return json_answer({"detail": sentence}, status=status)


def read_only(view):
    """GET (and HEAD) only; anything else is 405 in JSON, before CSRF can turn it into a 403. The answer's
    sentences say their times in UTC, whatever zone the person's browser reported to the pages."""

    @csrf_exempt
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        with timezone.override(UTC):
            if request.method not in ("GET", "HEAD"):
                response = error_answer(405, _("This API only reads: use GET."))
                response["Allow"] = "GET, HEAD"
                return response
            return view(request, *args, **kwargs)

    return wrapper



def staleness(state) -> dict:
    """How old the cluster state of an answer is: fresh, or since when (and why) the cluster was not read."""
    now = timezone.now()
    old = [r for r in state.readings if r.unreachable_since is not None]
    if not old:
        return {"stale": False, "ageSeconds": 0, "since": None, "sentence": ""}
    oldest = min(old, key=lambda r: r.unreachable_since)
    return {
        "stale": True,
        "ageSeconds": int(oldest.age_seconds(now)),
        "since": utc_iso(oldest.unreachable_since),
        "sentence": oldest.banner(now),
    }


def with_snapshot_age(response: JsonResponse, stale: dict) -> JsonResponse:
    """The answer with its age in headers too, for scripts that read only headers."""
    response["X-Snapshot-Age"] = str(stale["ageSeconds"])
    if stale["stale"]:
        response["X-Snapshot-Stale-Since"] = stale["since"]
    return response


def _results_base(campaign: Campaign) -> str:
    return campaign.results_base(results_base())


def _warmup(campaign: Campaign) -> dict | None:
    warmup = campaign.warmup
    if warmup is None:
        return None
    data = {"phase": warmup.state}
    if warmup.reason is not None:
        data["reason"] = warmup.reason.as_api()
    elif warmup.message:
        data["reason"] = {"stage": None, "permanent": None, "error": warmup.message}
    return data


def summary(campaign: Campaign) -> dict:
    return {
        "namespace": campaign.namespace,
        "name": campaign.name,
        "campaign": campaign.campaign,
        "pipeline": campaign.pipeline,
        "phase": RECORD_PHASES.get(campaign.phase, campaign.phase),
        "counts": campaign.counts.as_api(),
        "suspended": campaign.suspended,
        "createdAt": utc_iso(campaign.created_at) or None,
        "startedAt": utc_iso(campaign.started_at) or None,
        "finishedAt": utc_iso(campaign.finished_at) or None,
        "resultsBase": _results_base(campaign),
        "warmup": _warmup(campaign),
        "jobGone": campaign.job_gone,
        "qualityPrediction": quality.quality_step(campaign.pipeline_steps) is not None,
        # additions of this project
        "parts": list(campaign.parts),
        "inTrouble": campaign.in_trouble,
        "sentence": campaign_sentence(campaign).text,
        "queue": _queue(campaign),
        "warmupSentence": _text(campaign_warmup_sentence(campaign)),
        "findings": [finding_json(finding) for finding in campaign.findings],
        "modelCache": model_cache_json(campaign.model_cache),
        **_pace(campaign),
    }


def model_cache_json(cache: ModelCache | None) -> dict | None:
    """The pipeline's model cache as data, with the guide's debug pod as argv and as one shell line."""
    if cache is None:
        return None
    claim = cache.claim
    return {
        "pipeline": cache.pipeline,
        "recipeSha256": cache.recipe_sha256,
        "cacheDir": cache.cache_dir,
        "marker": cache.marker,
        "markerInPods": cache.marker_in_pods,
        "claimName": cache.claim_name,
        "claim": None if claim is None else {
            "name": claim.name, "storageClass": claim.storage_class, "accessModes": list(claim.access_modes),
            "size": claim.size, "createdAt": utc_iso(claim.created) or None, "uid": claim.uid,
        },
        "warmupJob": cache.warmup_job,
        "warmupPod": cache.warmup_pod or None,
        "warmupNode": cache.warmup_node or None,
        "pinnedNode": cache.pinned_node or None,
        "pinnedBy": cache.pinned_by or None,
        "debugPod": {"argv": list(cache.debug.argv), "command": shlex.join(cache.debug.argv)},
        "notRead": [_fact_json(fact) for fact in cache.not_read],
    }


def _fact_json(fact: Fact) -> dict:
    return {"object": fact.object, "field": fact.field, "value": fact.value}


def finding_json(finding: Finding) -> dict:
    """A finding as data beside its words: the stable code, what it is about, the evidence read, what was
    ruled out and what could not be read, the fix as commands or changes, who acts, since when."""
    subject = finding.subject
    return {
        "code": finding.code,
        "subject": {"kind": subject.kind, "namespace": subject.namespace, "campaign": subject.campaign,
                    "volume": subject.volume or None, "pipeline": subject.pipeline or None},
        "actor": finding.actor,
        "since": utc_iso(finding.since) or None,
        "values": dict(finding.values),
        "evidence": [_fact_json(fact) for fact in finding.evidence],
        "ruledOut": [
            {"check": check.what, "outcome": check.outcome, "facts": [_fact_json(fact) for fact in check.facts]}
            for check in finding.ruled_out
        ],
        "notRead": [_fact_json(fact) for fact in finding.not_read],
        "fix": [{"step": step.code, "argv": list(step.argv), "change": dict(step.change)} for step in finding.fix],
        **_finding_words(finding),
    }


def _finding_words(finding: Finding) -> dict:
    said = finding_sentence(finding)
    return {"sentence": said.text, "detail": said.detail, "commands": list(said.commands)}


def _text(sentence) -> str:
    return sentence.text if sentence is not None else ""


def _queue(campaign: Campaign) -> dict | None:
    """Where the campaign stands in Kueue, with the queue's sentence worded for this reader."""
    queue = campaign.queue
    if queue is None:
        return None
    return {**queue.as_api(), "sentence": queue_sentence(queue, campaign.namespace).text}


def _pace(campaign: Campaign) -> dict:
    """Pace, forecast and stall as the board observed them (`models.pace`): null where it has none.

    ``forecast`` is only for a running campaign that is not stalled; ``stalledSince`` is when its last
    volume finished (or it started), set once the stall time has passed with pods running.
    """
    view = campaign.pace
    running = campaign.phase == RUNNING
    return {
        "pace": view.pace.as_api() if view is not None else None,
        "forecast": view.forecast.as_api() if view is not None and view.forecast is not None and running else None,
        "stalledSince": utc_iso(view.stalled_since) or None if view is not None and campaign.stalled else None,
    }


def _source_url(volume: Volume) -> str | None:
    source = volume.source or ""
    if source.startswith("images:"):
        first = source[len("images:") :].replace(",", " ").split()
        return first[0] if first else None
    return source or None


def volume_json(volume: Volume, answer: progress.VolumeProgress | None, campaign: Campaign | None = None) -> dict:
    data = {
        "index": volume.index,
        "id": volume.id,
        "state": volume.state,
        "manifestUrl": cards.result_url(volume.manifest_key),
        "iiifUrl": cards.result_url(volume.iiif_key),
        "altoPrefix": cards.result_url(volume.alto_prefix),
        "logUrl": cards.result_url(volume.log_key),
        "sourceUrl": _source_url(volume),
        "progress": answer.progress.as_api() if answer and answer.progress else None,
        "forbidden": bool(answer and answer.forbidden),
        "retrying": volume.retrying,
        "sentence": volume_sentence(volume).text,
    }
    if campaign is not None:
        data["pageUrl"] = cards.volume_page_href(campaign, volume) or None  # the volume's own page
    if volume.reason is not None:
        data["reason"] = volume.reason.as_api()
    return data


def _last_error(volumes: list[Volume], report: progress.ProgressReport, now) -> dict | None:
    """The newest page error any read volume reports, with the volume and its run log."""
    newest, newest_at = None, None
    for volume in volumes:
        answer = report.get(volume.progress_key)
        read = answer.progress if answer else None
        if read is None or not read.last_error:
            continue
        at = read.updated_at or now.min.replace(tzinfo=now.tzinfo)
        if newest_at is None or at > newest_at:
            newest, newest_at = (volume, read.last_error), at
    if newest is None:
        return None
    volume, error = newest
    return {
        "page": error.get("page") or None,
        "error": error.get("error") or "",
        "volume": volume.id,
        "logUrl": cards.result_url(volume.log_key),
    }


@read_only
def version(request):
    return json_answer({"api": API_VERSION, "version": PRODUCT_VERSION, "web": PRODUCT_VERSION, "name": "htrbrowser"})


@read_only
def jobs(request):
    reaped_limit = whole_number(request.GET.get("reaped"), REAPED_DEFAULT, REAPED_MAX)
    if reaped_limit is None:
        # Translators: {parameter} is the query parameter's name as a script sends it (reaped): keep it as it is.
        return error_answer(400, _("{parameter} must be a whole number from 0 to {most}.").format(
            parameter="reaped", most=REAPED_MAX))
    now = timezone.now()
    state = reading.read_cluster(request, now)
    if state.nothing_read:
        return error_answer(502, " ".join(state.problems))
    live = [c for c in state.campaigns if not c.job_gone]
    reaped = [c for c in state.campaigns if c.job_gone]
    reaped.sort(key=lambda c: c.finished_at or c.started_at or c.created_at or now.min.replace(tzinfo=now.tzinfo))
    reaped.reverse()
    shown = live + reaped[:reaped_limit]
    stale = staleness(state)
    answer = [{**summary(c), "snapshot": stale} for c in shown]
    return with_snapshot_age(json_answer(answer, headers={"X-Reaped-Total": str(len(reaped))}), stale)


@read_only
def job_detail(request, namespace, name):
    offset = whole_number(request.GET.get("offset"), 0, 10**6)
    limit = whole_number(request.GET.get("limit"), LIMIT_DEFAULT, LIMIT_MAX)
    if offset is None or limit is None:
        # Translators: offset and limit are the query parameters' names as a script sends them: keep them as they are.
        return error_answer(400, _("{offset} and {limit} must be whole numbers; {limit} is at most {most}.").format(
            offset="offset", limit="limit", most=LIMIT_MAX))
    now = timezone.now()
    if namespace not in reading.served_namespaces() or not reading.DNS_LABEL.match(name or ""):
        return error_answer(404, _("No campaign by that name in a namespace this site serves."))
    campaign, state = reading.find_campaign(request, namespace, name, now)
    if campaign is None:
        if state.problems and not state.campaigns:
            return error_answer(502, " ".join(state.problems))
        said = _("No campaign named {name} in namespace {namespace}.")
        return error_answer(404, said.format(name=name, namespace=namespace))
    page = campaign.volumes[offset : offset + limit]
    active = [v for v in page if v.state == "active"]
    done = [v for v in page if v.state == "done"]
    # Running volumes first in line for the per-request cap; done ones are cached for an hour once read.
    report = progress.read_progress(
        request, [v.progress_key for v in active], now, extra_keys=[v.progress_key for v in done]
    )
    volumes = [volume_json(v, report.get(v.progress_key), campaign) for v in page]
    read = [r.progress for r in report.by_key.values() if r.progress is not None]
    tally = cards.page_tally(active + done, report)
    latest = max(read, key=lambda p: p.updated_at or now.min.replace(tzinfo=now.tzinfo), default=None)
    scores = quality.campaign_quality(campaign, active + done, lambda v: report.get(v.progress_key))
    data = summary(campaign)
    data.update(
        {
            "pipelineSteps": [
                {"step": s.name, "model": s.model, "revision": s.revision} for s in campaign.pipeline_steps
            ],
            "pipelineYaml": campaign.pipeline_yaml,
            "latest": latest.as_api() if latest else None,
            "failures": [
                {"index": v.index, "id": v.id, "reason": v.reason.as_api() if v.reason else None,
                 "pageUrl": cards.volume_page_href(campaign, v) or None}
                for v in campaign.failures
            ],
            "failuresTruncated": campaign.failures_truncated,
            "volumes": volumes,
            "offset": offset,
            "limit": limit,
            "volumesTotal": len(campaign.volumes),
            "pagesDone": tally.done,
            "pagesTotal": tally.total,
            "pagesFailed": tally.failed,
            "pagesCounted": {"volumes": tally.counted, "of": tally.eligible, "sentence": str(tally.caption)},
            "pagesCoverage": {"counted": tally.counted, "of": tally.eligible},
            "errors": sum(p.errors for p in read),
            "lastError": _last_error(active + done, report, now),
            "quality": scores.as_api() if scores is not None else None,
            "progressSentence": report.card_sentence,
            "snapshot": staleness(state),
        }
    )
    return with_snapshot_age(json_answer(data), data["snapshot"])
