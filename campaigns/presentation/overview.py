"""The list page as a person scans it: one line per campaign, filters, a search, what changed.

Pure presentation over projected campaigns (no I/O): which campaigns a filter and a search keep,
the one-line `Row` of each, the few campaigns that get a full card, and the fingerprints a poll
compares to send back only what changed.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from functools import cached_property

from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_language

from campaigns.models import PHASE_KEYS, PHASES, Campaign, Sentence, Volume
from campaigns.templatetags.vocabulary import phase_word
from campaigns.wording.lists import ALL_CAMPAIGNS, NEED_ATTENTION
from campaigns.wording.pace import stall_line
from campaigns.wording.states import campaign_sentence
from campaigns.wording.volumes import volume_sentence
from core import times
from core.per_object_cache import WhileAlive

ATTENTION_CARDS = 3  # full cards shown without asking: the first campaigns that need attention
OPEN_CARDS = 8  # full cards a person may open besides those
SEARCH_HITS_PER_CAMPAIGN = 3
SEARCH_LIMIT = 64
ATTENTION = "attention"


def ident(campaign: Campaign) -> str:
    return f"{campaign.namespace}/{campaign.name}"


def dom_key(campaign_ident: str) -> str:
    return campaign_ident.replace("/", "--")


def reader() -> tuple[str, str]:
    """Whose words something rendered is in: the active language and time zone. Every memory of sentences or
    markup shared between readers keeps them under this too, so no reader is shown another's language or clock."""
    return get_language() or "", times.zone_label()


@dataclass
class StateChoice:
    key: str  # "" for all, a phase key, or "attention"
    label: str
    count: int
    selected: bool
    url: str = ""


def state_choices(campaigns: list[Campaign], wanted: str) -> list[StateChoice]:
    """The filter chips: all, needs attention, then each phase present, with counts."""
    by_phase: dict[str, int] = {}
    for campaign in campaigns:
        by_phase[campaign.phase] = by_phase.get(campaign.phase, 0) + 1
    trouble = sum(1 for c in campaigns if c.in_trouble)
    choices = [StateChoice("", str(ALL_CAMPAIGNS), len(campaigns), wanted == "")]
    if trouble:
        choices.append(StateChoice(ATTENTION, str(NEED_ATTENTION), trouble, wanted == ATTENTION))
    for phase in PHASES:
        if by_phase.get(phase):
            key = PHASE_KEYS[phase]
            choices.append(StateChoice(key, phase_word(phase), by_phase[phase], wanted == key))
    return choices


def known_state(value: str) -> str:
    return value if value == ATTENTION or value in PHASE_KEYS.values() else ""


@dataclass
class Match:
    """A campaign a search kept, and the volumes in it whose id matched."""

    campaign: Campaign
    hits: list[Volume] = field(default_factory=list)
    more_hits: int = 0


def keep(campaigns: list[Campaign], state: str, query: str) -> list[Match]:
    """The campaigns a filter (`state`) and a search (`query`: part of a campaign name or a volume id) keep."""
    needle = query.strip().lower()[:SEARCH_LIMIT]
    kept = []
    for campaign in campaigns:
        if state == ATTENTION and not campaign.in_trouble:
            continue
        if state and state != ATTENTION and campaign.phase_key != state:
            continue
        if not needle:
            kept.append(Match(campaign))
            continue
        named = needle in campaign.name.lower() or needle in campaign.campaign.lower()
        hits = _volume_hits(campaign, needle)
        if named or hits:
            shown = hits[:SEARCH_HITS_PER_CAMPAIGN]
            kept.append(Match(campaign, shown, len(hits) - len(shown)))
    return kept


def _volume_hits(campaign: Campaign, needle: str) -> list[Volume]:
    exact = [v for v in campaign.volumes if v.id.lower() == needle]
    if exact:
        return exact
    return [v for v in campaign.volumes if needle in v.id.lower()]


@dataclass(frozen=True)
class Hit:
    """A volume a search found, with its run log when it has one (a failed one is a click from its log)."""

    volume: Volume
    log_href: str = ""
    page_href: str = ""  # the volume's own page

    @cached_property
    def said(self) -> Sentence:
        """The volume's sentence, worded now for this reader."""
        return volume_sentence(self.volume)


# A campaign's state sentence, worded once per campaign object of a reading and reader (language and zone):
# every poll of every tab asks for each line's sentence to tell whether the line changed, and the words only
# change when the reading replaces the campaign. A copy made for one person (other campaigns' names left out)
# is keyed apart.
_said = WhileAlive(most=20_000)


def said_of(campaign: Campaign) -> Sentence:
    owner = getattr(campaign, "shown_from", campaign)  # a copy is new at every request; its reading's campaign is not
    key = (*reader(), campaign.namespace, campaign.name, getattr(campaign, "shown_as", ""))
    said = _said.get(key, owner)
    if said is None:
        said = campaign_sentence(campaign)
        _said.put(key, owner, said)
    return said


@dataclass
class Row:
    """One campaign on one line: state, progress, counts and the one sentence that matters."""

    campaign: Campaign
    dom_id: str
    detail_url: str
    show_namespace: bool
    done_percent: float
    failed_percent: float
    opened: bool = False
    open_url: str = ""
    hits: list[Hit] = field(default_factory=list)
    more_hits: int = 0
    search: str = ""

    @cached_property
    def said(self) -> Sentence:
        """The campaign's state sentence, worded for this reader (once per campaign the reading made)."""
        return said_of(self.campaign)

    @property
    def sentence(self) -> str:
        if self.campaign.stalled:
            return stall_line(self.campaign.pace)
        return self.said.text

    @property
    def tone(self) -> str:
        if self.campaign.stalled:
            return "bad"
        return self.said.tone

    @property
    def key(self) -> str:
        """The campaign's short key, by which a poll's answer finds this line once the campaign is gone."""
        return short_key(ident(self.campaign))


def row(match: Match, detail_url: str, show_namespace: bool, search: str = "", log_href=None) -> Row:
    """One line; `log_href(volume)` gives a found volume's run-log link ("" when it has none yet)."""
    campaign = match.campaign
    total = campaign.counts.total or 0
    done = 100.0 * campaign.counts.done / total if total else 0.0
    failed = 100.0 * campaign.counts.failed / total if total else 0.0
    return Row(
        campaign=campaign,
        dom_id="row-" + dom_key(ident(campaign)),
        detail_url=detail_url,
        show_namespace=show_namespace,
        done_percent=round(done, 2),
        failed_percent=round(min(failed, 100.0 - done), 2),
        hits=[Hit(v, log_href(v) if log_href else "", _volume_page(campaign, v)) for v in match.hits],
        more_hits=match.more_hits,
        search=search,
    )


def _volume_page(campaign: Campaign, volume: Volume) -> str:
    """A found volume's own page, or "" for an id no address can carry."""
    try:
        return reverse("campaign_volume", args=[campaign.namespace, campaign.name, volume.id])
    except NoReverseMatch:
        return ""


def full_card_idents(matches: list[Match], opened: list[str]) -> list[str]:
    """Campaigns shown as full cards: the first that need attention, then those the person opened."""
    present = {ident(m.campaign) for m in matches}
    chosen = [ident(m.campaign) for m in matches if m.campaign.in_trouble][:ATTENTION_CARDS]
    for each in opened[:OPEN_CARDS]:
        if each in present and each not in chosen:
            chosen.append(each)
    return chosen


def fingerprint(html: str) -> str:
    """A short digest of what a person sees of one line or card (not a secret: only change detection);
    8 URL-safe characters (48 bits), so a tab's poll can carry hundreds of them."""
    return _b64(hashlib.blake2b(html.encode(), digest_size=6).digest())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# What a tab shows goes back with every poll, in its URL: at 200 campaigns `row:<ns>/<name>:<digest>:1`
# per line was 13 KB, past what gunicorn (4 094 bytes) and most proxies (8 KB) take in a request
# line. So the page holds one packed value instead: PACKED, then per line or card one letter (its
# kind and trouble flag), the `short_key` of its campaign and its fingerprint, 15 URL-safe
# characters with nothing to escape (3 KB at 200 campaigns). A line a poll said gone ("g") has
# GONE for its fingerprint.
PACKED = "p1."
KEY_CHARS = 6
GONE = "--gone--"
_LETTERS = {
    ("row", False): "r",
    ("row", True): "R",
    ("card", False): "c",
    ("card", True): "C",
    ("gone", False): "g",
}
_FROM_LETTER = {letter: kind_trouble for kind_trouble, letter in _LETTERS.items()}
_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def short_key(campaign_ident: str) -> str:
    """Six URL-safe characters standing for a campaign in a poll (36 bits: no two of thousands alike)."""
    return _b64(hashlib.blake2b(campaign_ident.encode(), digest_size=6).digest())[:KEY_CHARS]


@dataclass(frozen=True)
class Unnamed:
    """A line a tab shows that a poll names no campaign for, as the tab sent it: "row" or "gone"."""

    kind: str
    key: str
    digest: str
    trouble: bool


def pack_shown(items: list[tuple[str, str, str, bool]], unnamed: list[Unnamed] = ()) -> str:
    """(kind, campaign ident, fingerprint, trouble) of each line and card a page shows, and the lines it
    shows that name no campaign, as one value."""
    entries = [f"{_LETTERS[(kind, trouble)]}{short_key(each)}{digest}" for kind, each, digest, trouble in items]
    entries += [f"{_LETTERS[(line.kind, line.trouble)]}{line.key}{line.digest}" for line in unnamed]
    return PACKED + "".join(entries)


@dataclass(frozen=True)
class Shown:
    """What a tab shows, as its poll tells: kind ("row" or "card"), campaign, fingerprint, trouble flag."""

    kind: str
    ident: str
    digest: str
    trouble: bool


def parse_shown(values: list[str], limit: int = 2000, ident_of=None) -> list[Shown]:
    """What a poll says its tab shows (see `read_shown`), less the lines no campaign is named for."""
    return read_shown(values, limit, ident_of)[0]


def read_shown(values: list[str], limit: int = 2000, ident_of=None) -> tuple[list[Shown], list[Unnamed]]:
    """What a poll says its tab shows: a packed value (`pack_shown`), or `row:ns/name:digest:1` entries;
    anything malformed is left out. In a packed value, `ident_of(short key)` names each campaign (None
    when it names none); a line said gone that names one again is a line shown with another fingerprint.
    Also the lines it names no campaign for: those of campaigns gone, of campaigns the person may not
    see and invented ones, all alike (each key once; a card is left out, as a poll leaves it as it is).
    A poll's answer finds such a line by its key (`Row.key`), which the tab itself sent."""
    ident_of = ident_of or (lambda key: None)
    shown: list[Shown] = []
    unnamed: dict[str, Unnamed] = {}
    for kind, trouble, key, digest in _packed_entries(values, limit):
        campaign_ident = ident_of(key)
        if campaign_ident:
            shown.append(Shown("row" if kind == "gone" else kind, campaign_ident, digest, trouble))
        elif kind != "card" and _KEY_CHARACTERS.issuperset(key):  # it goes back into the page
            unnamed.setdefault(key, Unnamed(kind, key, digest, trouble))
    for value in [v for v in values if not v.startswith(PACKED)][:limit]:
        parts = value.split(":")
        if len(parts) != 4 or parts[0] not in ("row", "card") or "/" not in parts[1]:
            continue
        shown.append(Shown(parts[0], parts[1][:200], parts[2][:32], parts[3] == "1"))
    return shown, list(unnamed.values())


def _packed_entries(values: list[str], limit: int):
    """(kind, trouble, short key, fingerprint) of each well-formed entry of the packed values, the first
    ``limit`` entries of them all."""
    width = 1 + KEY_CHARS + 8
    left = limit
    for value in values:
        if not value.startswith(PACKED) or left <= 0:
            continue
        text = value[len(PACKED) :][: left * width]
        left -= (len(text) + width - 1) // width
        for start in range(0, len(text), width):
            entry = text[start : start + width]
            kind_trouble = _FROM_LETTER.get(entry[:1])
            if kind_trouble is not None and len(entry) == width:
                yield kind_trouble[0], kind_trouble[1], entry[1 : 1 + KEY_CHARS], entry[1 + KEY_CHARS :]
