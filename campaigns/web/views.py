"""Campaign pages: read the cluster, project, render a page or the fragment a poll asks for.

Views stay thin: `cluster.reading` and `card_reads` read, `domain.projection` decides, `wording`
words, `presentation.cards` assembles what a card shows (links, which volumes to ask progress for,
polling intervals), templates show. What is
left here is choosing what to read and which template answers: the list and its watch poll, one
card's poll, and the campaign page with its filtered, paged volume rows.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from campaigns.cluster.reading import ClusterState, find_campaign, shown_to
from campaigns.domain.quality import pages_to_check
from campaigns.models import VOLUME_STATES, Campaign, bounded
from campaigns.presentation import overview
from campaigns.presentation.cards import CardReads, build_card, detail_url, forbidden_note, volume_row, with_page_hrefs
from campaigns.store import progress
from campaigns.web import rerun_views
from campaigns.web.card_reads import build_cards, read_cards_progress, several_namespaces
from campaigns.web.query import whole_number
from campaigns.wording.lists import volume_state_choices
from core import metrics

VOLUME_PAGE = 200
MOST_ROWS_SHOWN = 2000  # rows a campaign page's poll refreshes at most (after "Load more" a few times)
GONE_POLL_SECONDS = 60


# --- views ---------------------------------------------------------------------------------------
# The list page and its poll live in campaigns/web/list_views.py.


@require_safe
@vary_on_headers("HX-Request")
def campaign_card(request, namespace, name):
    """One card, as its poll asks for it; a final card stops the poll with 286.

    A campaign missing from this reading (a replica that has not seen it yet, or one removed) gets
    the "gone" card and keeps being asked, slowly: one reading that lacks it never ends its poll.
    """
    now = timezone.now()
    campaign, state = find_campaign(request, namespace, name, now)
    if campaign is None and state.problems:
        return HttpResponse(" ".join(state.problems), status=502, content_type="text/plain; charset=utf-8")
    if campaign is None:
        context = {
            "namespace": namespace,
            "name": name,
            "dom_id": f"card-{namespace}--{name}",
            "state": state,
            "card_url": request.get_full_path(),
            "poll_seconds": GONE_POLL_SECONDS,
        }
        return render(request, "campaigns/card_gone.html", context, status=200 if request.htmx else 404)
    if request.GET.get("rows") == "1":
        # The campaign page's poll: its card and the volume rows it shows, from the same reading.
        # A page showing more rows than a poll refreshes keeps them as they are (the card still moves on).
        shown = max(whole_number(request.GET.get("rows_shown"), VOLUME_PAGE, MOST_ROWS_SHOWN + 1) or 0, VOLUME_PAGE)
        refreshed = shown if shown <= MOST_ROWS_SHOWN else 0
        context = _detail_context(request, campaign, state, now, shown=refreshed or VOLUME_PAGE, for_poll=True)
        context["rows_window"] = refreshed
        card = context["card"]
        response = render(request, "campaigns/detail_live.html", context)
    else:
        card = build_cards(request, [campaign], now, state.stale)[0]
        response = render(request, "campaigns/card.html", {"card": card, "now": now})
    if request.htmx:
        metrics.poll_answered("card", f"{progress._person(request)} {request.path}", response.content)
    if request.htmx and not card.polls:
        return HttpResponseStopPolling(response.content)
    return response


@require_safe
@vary_on_headers("HX-Request")
def campaign_detail(request, namespace, name):
    now = timezone.now()
    campaign, state = find_campaign(request, namespace, name, now)
    if campaign is None:
        return _not_found(request, namespace, name, state)
    context = _detail_context(request, campaign, state, now, shown=VOLUME_PAGE)
    if request.htmx and request.GET.get("fragment") == "rows":
        return render(request, "campaigns/detail.html#volume_rows", context)
    return render(request, "campaigns/detail.html", context)


def _detail_context(request, campaign: Campaign, state: ClusterState, now, shown: int, for_poll=False) -> dict:
    """The campaign page: its card and the window of volume rows it shows, from one reading and one
    progress read, so that the table is exactly as current as the card above it.

    ``shown``: how many rows from ``offset`` the page shows (more than a page once "Load more" was used).
    ``for_poll``: only what the card's poll answers with (no re-run panel, no pages to check).
    """
    wanted_state = request.GET.get("state", "")
    if wanted_state not in VOLUME_STATES:
        wanted_state = ""
    search = bounded(request.GET.get("q", ""), overview.SEARCH_LIMIT)
    offset = whole_number(request.GET.get("offset"), 0, len(campaign.volumes)) or 0
    # Only the rows shown become objects: the rest stay the Job's index sets (volume_list.Volumes).
    page, matching = campaign.volumes.select(wanted_state, search, offset, shown)
    plan = CardReads.of(campaign)
    page_active = [v.progress_key for v in page if v.state == "active"]
    page_done = [v.progress_key for v in page if v.state == "done"]
    report = read_cards_progress(request, [plan], now, extra_keys=page_active, shown_done=page_done)
    rows = with_page_hrefs(campaign, [volume_row(v, report, now) for v in page])
    end = offset + len(page)
    next_offset = end if end < matching else None
    card = build_card(campaign, plan, report, now, several_namespaces(), state.stale, on_detail_page=True)
    base_query = {k: v for k, v in (("state", wanted_state), ("q", search)) if v}
    page_url = detail_url(campaign)
    # The card's poll brings the rows too (campaigns/detail_live.html): one poll for the page.
    card.card_url += "?" + urlencode({"rows": "1", **base_query, "offset": offset})
    card.poll_include = "#volume-shown"
    return {
        "card": card,
        "campaign": campaign,
        "state": state,
        "rows": rows,
        "matching": matching,
        "offset": offset,
        # From the campaign's own address: the card's poll renders these rows too, under another path.
        "next_url": (page_url + "?" + urlencode({**base_query, "offset": next_offset})) if next_offset else "",
        "previous_url": (
            page_url + "?" + urlencode({**base_query, "offset": max(0, offset - VOLUME_PAGE)}) if offset else ""
        ),
        "wanted_state": wanted_state,
        "search": search,
        "search_limit": overview.SEARCH_LIMIT,
        "state_choices": volume_state_choices(VOLUME_STATES),
        "progress_sentence": report.card_sentence if page_active else "",
        "rows_forbidden_note": forbidden_note(rows, below=True),
        "pages_to_check": None if for_poll else pages_to_check(card.quality, request.GET.get("check")),
        "now": now,
        "rerun": None if for_poll else rerun_views.panel(campaign, shown_to(request)),
    }


def _not_found(request, namespace, name, state: ClusterState):
    context = {"namespace": namespace, "name": name, "state": state}
    if state.problems and not state.campaigns:
        return render(request, "campaigns/not_found.html", {**context, "unreadable": True}, status=502)
    return render(request, "campaigns/not_found.html", context, status=404)

