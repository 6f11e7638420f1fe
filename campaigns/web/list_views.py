"""The campaign list: one line per campaign, full cards for the few in trouble, one poll per tab.

`campaign_list` renders the page. Its one poll (`campaign_changes`) sends the fingerprints of what
the tab shows and gets back only what changed, as out-of-band swaps: a line, a card, a campaign
newly in trouble (with one sentence for the page's live region), the filter counts, the tab title.
Nothing changed: 204 and no body. Views stay thin: the board projected the campaigns already,
`overview` says what a line shows, `cards` builds a card, templates show.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from urllib.parse import urlencode

from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_safe

from campaigns.cluster.reading import ClusterState, read_cluster, served_namespaces
from campaigns.presentation import cards as card_builder
from campaigns.presentation import overview
from campaigns.web.card_reads import build_cards, several_namespaces
from campaigns.wording.lists import NEW_ROWS_NOTICE, attention_announcement
from core import metrics
from core.per_object_cache import WhileAlive

ROW_CACHE_SIZE = 20_000
# Lines a list page shows before "Show all": at 200 campaigns every line made a 355 KB page. The
# campaigns in trouble come first and have their cards; a search or a filter finds any other.
OVERVIEW_ROWS = 100
KEY_MEMORY = 20_000

# A line depends only on its campaign, the list's options and its reader's language and zone
# (`overview.reader`), so its HTML and fingerprint are made once per campaign and reader and shared by every
# tab's page and poll. Cached per campaign, not per reading: a reading projects again only the campaigns that
# changed and keeps the others' very objects, so one campaign's change renders one line again, not all of them
# (at 200 campaigns and a change every few seconds, every line was rendered again at every reading). An entry
# lasts as long as its campaign object (`core.per_object_cache`): one the reading replaced takes its lines'
# entries with it. A copy made for one person (`shown_as`) is new at every request, so its entry is the
# reading's campaign's.
_rows = WhileAlive(most=ROW_CACHE_SIZE)
_lock = threading.Lock()  # for _cards
# (language, zone, campaign ident) -> (the card, its HTML, its fingerprint) for the cards rendered in the second
# `_cards_second` names, and no other: see _Page._card. An older entry could never be used again, and
# it held its card's whole campaign (every volume) after the reading had let it go.
_cards: dict[tuple[str, str, str], tuple] = {}
_cards_second = [0]
# A poll names campaigns by their short keys (overview.pack_shown), worked out again at every poll from
# the campaigns the person may see: a digest of the name, kept so each poll does not hash it anew.
_key_of = lru_cache(maxsize=KEY_MEMORY)(overview.short_key)


def _options(request) -> dict:
    """What the person asked the list for: a state, a search, cards opened."""
    opened = [value[:200] for value in request.GET.getlist("open")[: overview.OPEN_CARDS] if "/" in value]
    return {
        "state": overview.known_state(request.GET.get("state", "")),
        "q": request.GET.get("q", "").strip()[: overview.SEARCH_LIMIT],
        "open": opened,
        "all": request.GET.get("rows") == "all",
    }


def _url(name: str, options: dict, **changes) -> str:
    merged = {**options, **changes}
    query = [(k, v) for k, v in (("state", merged["state"]), ("q", merged["q"])) if v]
    query += [("open", each) for each in merged["open"]]
    query += [("rows", "all")] if merged.get("all") else []
    return reverse(name) + ("?" + urlencode(query) if query else "")


class _Page:
    """Everything the list shows for one request, and its fingerprints."""

    def __init__(self, request, state: ClusterState, options: dict, now):
        self.request, self.state, self.options, self.now = request, state, options, now
        several = several_namespaces()
        matches = overview.keep(state.campaigns, options["state"], options["q"])
        self.matches_count = len(matches)
        self.rows = [self._row(match, several) for match in (matches if options["all"] else matches[:OVERVIEW_ROWS])]
        full = overview.full_card_idents(matches, options["open"])
        by_ident = {overview.ident(m.campaign): m.campaign for m in matches}
        self.cards = build_cards(request, [by_ident[i] for i in full], now, state.stale)
        for card in self.cards:
            card.polls = False  # the page's one poll brings cards up to date
        self.trouble_count = sum(1 for c in state.campaigns if c.in_trouble)
        self.digests: dict[tuple[str, str], str] = {}
        self.kept_in_place: list[overview.Row] = []
        self.unnamed: list[overview.Unnamed] = []  # lines the tab shows that name no campaign the person sees
        for row in self.rows:
            self.digests[("row", overview.ident(row.campaign))] = _row_fingerprint(row)
        # Each card is rendered once: its fingerprint, and (as an out-of-band swap) a poll's answer.
        self.card_html: dict[str, str] = {}
        for card in self.cards:
            html, digest = self._card(card)
            self.card_html[overview.ident(card.campaign)] = html
            self.digests[("card", overview.ident(card.campaign))] = digest

    def _row(self, match: overview.Match, several: bool) -> overview.Row:
        row = overview.row(
            match, card_builder.detail_url(match.campaign), several, self.options["q"], card_builder.log_href
        )
        key = overview.ident(match.campaign)
        opened = key in self.options["open"]
        row.opened = opened
        others = [each for each in self.options["open"] if each != key]
        row.open_url = _url("campaign_list", self.options, open=others if opened else [*others, key]) + (
            "" if opened else f"#card-{overview.dom_key(key)}"
        )
        return row

    def _card(self, card) -> tuple[str, str]:
        """A card's HTML and fingerprint, rendered once per second for every tab whose card is the same.

        A card is what most of a poll costs (at 200 campaigns, 70% of its CPU, when its running volumes'
        ages were said to the second and it changed at every poll). Its markup depends only on the card (campaign,
        progress read, sentences) and the time, so an equal card rendered within the same second is
        the same markup for every reader of the same language and zone (the card template reads nothing else of
        the person): the card says times in the reader's zone and everything in the reader's language."""
        key = (*overview.reader(), overview.ident(card.campaign))
        second = int(self.now.timestamp())
        with _lock:
            cached = _cards.get(key) if second == _cards_second[0] else None
        if cached is not None and cached[0] == card:
            return cached[1], cached[2]
        html = self._render("campaigns/card.html", {"card": card, "oob": True})
        digest = overview.fingerprint(html)
        with _lock:
            if second > _cards_second[0]:
                _cards.clear()
                _cards_second[0] = second
            if second == _cards_second[0]:
                _cards[key] = (card, html, digest)
        return html, digest

    def _render(self, template: str, context: dict) -> str:
        return render_to_string(template, {**context, "now": self.now}, request=self.request)

    def shown(self) -> list[str]:
        """What this page shows, as the poll will send it back: kind, campaign, fingerprint, trouble."""
        rows = [*self.rows, *self.kept_in_place]
        items = [("row", row.campaign) for row in rows] + [("card", card.campaign) for card in self.cards]
        packed = [(kind, overview.ident(c), self.digests[(kind, overview.ident(c))], c.in_trouble) for kind, c in items]
        return [overview.pack_shown(packed, self.unnamed)]

    def left_behind(self, before: dict[str, overview.Shown]) -> list[overview.Row]:
        """Lines the tab shows that the filter no longer keeps (a running campaign that failed): they
        are brought up to date in place rather than taken away under the person's eyes."""
        kept = {overview.ident(row.campaign) for row in self.rows}
        several = several_namespaces()
        rows = []
        for campaign in self.state.campaigns:
            key = overview.ident(campaign)
            if key in before and key not in kept:
                row = self._row(overview.Match(campaign), several)
                self.digests[("row", key)] = _row_fingerprint(row)
                self.kept_in_place.append(row)
                if self.digests[("row", key)] != before[key].digest:
                    rows.append(row)
        return rows

    def changed(self, kind: str, items: list, before: dict[str, overview.Shown]) -> tuple[list, list]:
        """Of the rows or cards this page has, those the tab shows differently, and those it lacks."""
        changed, new = [], []
        for item in items:
            key = overview.ident(item.campaign)
            if key not in before:
                new.append(item)
            elif before[key].digest != self.digests[(kind, key)]:
                changed.append(item)
        return changed, new

    def context(self) -> dict:
        options = self.options
        choices = overview.state_choices(self.state.campaigns, options["state"])
        for choice in choices:
            choice.url = _url("campaign_list", {**options, "state": choice.key})
        return {
            "state": self.state,
            "rows": self.rows,
            "cards": self.cards,
            "matches_count": self.matches_count,
            "rows_hidden": self.matches_count - len(self.rows),
            "all_rows_url": _url("campaign_list", options, all=True),
            "trouble_count": self.trouble_count,
            "state_choices": choices,
            "wanted_state": options["state"],
            "search": options["q"],
            "search_limit": overview.SEARCH_LIMIT,
            "clear_search_url": _url("campaign_list", options, q=""),
            "reload_url": _url("campaign_list", options),
            "poll_url": _url("campaign_changes", options),
            "poll_seconds": card_builder.poll_seconds(self.state.stale),
            "shown": self.shown(),
            "namespaces": served_namespaces(),
            "now": self.now,
        }


def _row_fingerprint(row: overview.Row) -> str:
    """The fingerprint of a line, rendered once per campaign, reader and list options while they stay the same."""
    campaign = row.campaign
    shown_as = getattr(campaign, "shown_as", "")  # a copy with other people's campaigns named otherwise
    key = (
        *overview.reader(),
        campaign.namespace,
        campaign.name,
        shown_as,
        row.opened,
        row.open_url,
        row.show_namespace,
        row.search,
        tuple(hit.volume.index for hit in row.hits),
        row.more_hits,
    )
    said = (row.sentence, row.tone)  # set on the campaign after its projection (a stall): compared, not keyed
    owner = getattr(campaign, "shown_from", campaign)  # a copy is new at every request; its reading's campaign is not
    kept = _rows.get(key, owner)
    if kept is None or kept[0] != said:
        html = render_to_string("campaigns/list.html#overview_row", {"row": row})
        kept = (said, overview.fingerprint(html))
        _rows.put(key, owner, kept)
    return kept[1]


def _ident_finder(state: ClusterState):
    """short key -> campaign ident, among the campaigns the person may see now (`state` holds no other):
    never a memory of what anyone was shown, so a key of a campaign hidden from them, or gone, names
    nothing, exactly as an invented key (overview.read_shown)."""
    now = {_key_of(overview.ident(c)): overview.ident(c) for c in state.campaigns}
    return now.get


def _gone(page: _Page, state: ClusterState, gone: list[str], unnamed: list[overview.Unnamed]):
    """The lines to say gone: by the campaign the tab named, or by the key the tab sent. A line said gone
    stays in what the tab shows (`overview.GONE`), so that a poll that finds its campaign again (a worker
    whose reading lagged said it gone) brings the line back, and one that does not says nothing more.
    While the reading is old or partial, nothing is said gone and the lines stay as the tab sent them."""
    if state.stale or state.problems:
        page.unnamed = unnamed
        return [], []
    page.unnamed = [overview.Unnamed("gone", line.key, overview.GONE, False) for line in unnamed]
    return gone, [line.key for line in unnamed if line.kind == "row"]


@require_safe
@gzip_page
def campaign_list(request):
    now = timezone.now()
    state = read_cluster(request, now)
    page = _Page(request, state, _options(request), now)
    return render(request, "campaigns/list.html", page.context())


@require_safe
@gzip_page
def campaign_changes(request):
    """A tab's poll: what changed since the fingerprints it sent, or 204 when nothing did."""
    now = timezone.now()
    state = read_cluster(request, now)
    options = _options(request)
    before, unnamed = overview.read_shown(request.GET.getlist("shown"), ident_of=_ident_finder(state))
    page = _Page(request, state, options, now)
    if state.problems and not state.campaigns:
        metrics.poll("list", changed=False)
        return HttpResponse(status=204)  # nothing newer to show; the page keeps what it has
    shown_rows = {s.ident: s for s in before if s.kind == "row"}
    shown_cards = {s.ident: s for s in before if s.kind == "card"}
    changed_rows, new_rows = page.changed("row", page.rows, shown_rows)
    changed_rows += page.left_behind(shown_rows)
    # Cards the tab lacks are not added by a poll (they would push the page down under the reader's
    # eyes); the campaign's line says it needs attention, the live region says so once, and the
    # next page load shows its card.
    changed_cards, _new_cards = page.changed("card", page.cards, shown_cards)
    new_cards = []
    present = {overview.ident(c) for c in state.campaigns}
    gone = [s.ident for s in before if s.kind == "row" and s.ident not in present]  # named by the tab itself
    removed, removed_keys = _gone(page, state, gone, unnamed)
    newly_troubled = [
        c
        for c in state.campaigns
        if c.in_trouble and overview.ident(c) in shown_rows and not shown_rows[overview.ident(c)].trouble
    ]
    changed = bool(changed_rows or new_rows or changed_cards or removed or removed_keys or newly_troubled)
    metrics.poll("list", changed=changed)
    if not changed:
        return HttpResponse(status=204)
    context = page.context()
    context.update(
        {
            "changed_rows": changed_rows,
            "new_rows": new_rows,
            "changed_cards_html": [page.card_html[overview.ident(c.campaign)] for c in changed_cards],
            "new_cards": new_cards,
            "removed_ids": ["row-" + overview.dom_key(each) for each in removed],
            "removed_keys": removed_keys,
            "announcement": attention_announcement(newly_troubled),
            "notice": str(NEW_ROWS_NOTICE) if new_rows and before else "",
        }
    )
    return render(request, "campaigns/changes.html", context)
