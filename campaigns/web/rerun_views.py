"""The "Re-run N failed volumes" panel of a campaign page and the download of its campaign file.

Thin: ``rerun`` plans, ``wording.rerun`` says it, this module reads the names already taken and renders.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from campaigns.cluster import kube, reading
from campaigns.cluster.reading import find_campaign
from campaigns.domain import rerun
from campaigns.models import Campaign
from campaigns.wording import rerun as rerun_words
from core.contract import LABEL_CAMPAIGN, LABEL_PIPELINE
from results.store.access import Access


def taken_names(namespace: str, access: Access) -> set[str]:
    """Campaign names the namespace already has (Jobs, their parts' stems, and records that outlive them),
    of the campaigns the person may see: a name taken by one they may not see must not show through the
    name chosen for the re-run (applying the file then says the name is taken)."""
    try:
        snapshot = reading.read_namespace(namespace).snapshot
    except kube.ClusterUnavailable:
        return set()
    names = set()
    for item in [*snapshot.jobs, *snapshot.records, *snapshot.status_records]:
        metadata = item.get("metadata") if isinstance(item, dict) else None
        labels = (metadata or {}).get("labels") or {}
        pipeline = labels.get(LABEL_PIPELINE)
        if not access.sees(f"{namespace}/{pipeline}/" if isinstance(pipeline, str) and pipeline else "", namespace):
            continue
        if isinstance(labels.get(LABEL_CAMPAIGN), str):
            names.add(labels[LABEL_CAMPAIGN])
        if isinstance((metadata or {}).get("name"), str):
            names.add(metadata["name"])
    return names


def file_url(campaign: Campaign) -> str:
    return reverse("campaign_rerun_file", args=[campaign.namespace, campaign.name])


def panel(campaign: Campaign, access: Access) -> dict | None:
    """The panel's context, or None when the campaign has no failed volume."""
    if not rerun.failed_volumes(campaign):
        return None
    plan = rerun.plan_rerun(campaign, taken_names(campaign.namespace, access))
    return {
        "plan": plan,
        "text": rerun.campaign_file(plan),
        "outlook": rerun_words.outlook_words(plan, rerun.outlook(plan)),
        "download_url": file_url(campaign),
    }


@require_safe
def rerun_file(request, namespace, name):
    """The re-run campaign file as a download; ``?pipeline=`` names another pipeline id for it."""
    campaign, state = find_campaign(request, namespace, name, timezone.now())
    if campaign is None:
        sentence = " ".join(state.problems) or _(
            "There is no campaign named {name} in a namespace this site shows."
        ).format(name=name[:80])
        return _problem(request, sentence, 502 if state.problems else 404)
    if not rerun.failed_volumes(campaign):
        # Translators: {campaign} is the campaign's name.
        sentence = _("{campaign} has no failed volumes, so there is nothing to re-run.").format(campaign=campaign.name)
        return _problem(request, sentence, 404)
    try:
        plan = rerun.plan_rerun(
            campaign, taken_names(namespace, request.campaign_access), request.GET.get("pipeline", "")[:100]
        )
    except rerun.RerunRefused as refused:
        return _problem(request, rerun_words.refusal(refused.code), 400)
    response = HttpResponse(rerun.campaign_file(plan), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{plan.file_name}.yaml"'
    response["Cache-Control"] = "private, no-store"
    return response


def _problem(request, sentence: str, status: int):
    context = {"title": _("Re-run file"), "sentence": sentence}
    return render(request, "viewers/problem.html", context, status=status)
