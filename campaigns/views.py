"""Campaign pages: read the cluster, project, render a page or the fragment a poll asks for.

Views stay thin: `kube` reads, `projection` decides, `sentences` words, templates show. What is
assembled here is presentation only: links, which volumes to ask progress for, polling intervals.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from campaigns import kube, progress, status_records
from campaigns.models import PHASES, Campaign, Volume, bounded
from htrbrowser import metrics

DNS_LABEL = re.compile(r"^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$")
VOLUME_PAGE = 200
FAILURES_ON_CARD = 8
ACTIVE_ON_CARD = 12
DONE_TALLY_MAX = 300  # a card adds up the pages of at most this many done volumes
DONE_ROWS_READS = 12  # done volumes' progress read per campaign page, for their failed pages
POLL_SECONDS = 5
POLL_SECONDS_STALE = 30
WATCH_SECONDS = 15
PROJECTION_SECONDS = 4.0
SEARCH_LIMIT = 64
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
VOLUME_STATES = ("done", "failed", "active", "pending", "unknown")


# --- reading -------------------------------------------------------------------------------------


@dataclass
class ClusterState:
    """Everything the cluster said, for every served namespace."""

    campaigns: list[Campaign] = field(default_factory=list)
    banners: list[str] = field(default_factory=list)  # an older snapshot is shown
    problems: list[str] = field(default_factory=list)  # a namespace could not be read at all
    stale: bool = False

    @property
    def nothing_read(self) -> bool:
        return bool(self.problems) and not self.campaigns and len(self.problems) >= len(served_namespaces())


def served_namespaces() -> list[str]:
    return list(settings.HTRFLOW_NAMESPACES)


def read_cluster(now, namespaces: list[str] | None = None) -> ClusterState:
    """Project the shared snapshot of each namespace; an unreadable cluster becomes sentences."""
    from campaigns.projection import project, sort_campaigns

    state = ClusterState()
    for namespace in namespaces or served_namespaces():
        try:
            reading = kube.read_namespace(namespace)
        except kube.ClusterUnavailable as trouble:
            prefix = f"Namespace {namespace}: " if len(served_namespaces()) > 1 else ""
            state.problems.append(prefix + trouble.sentence)
            continue
        campaigns = _projected(reading, now, project)
        status_records.keep_current(reading, campaigns)
        state.campaigns.extend(campaigns)
        banner = reading.banner(now)
        if banner:
            state.stale = True
            if banner not in state.banners:
                state.banners.append(banner)
    state.campaigns = sort_campaigns(state.campaigns, now)
    return state


_projections: dict[str, tuple[tuple, float, list[Campaign]]] = {}
_projections_lock = threading.Lock()


def _projected(reading: kube.Reading, now, project) -> list[Campaign]:
    """The projection of a snapshot, shared by requests for a few seconds.

    Projecting thousands of volumes per campaign costs far more than rendering; while the snapshot
    is the same, only time-worded sentences could differ, and those may be a few seconds old.
    """
    key = (id(reading.snapshot), reading.snapshot.read_at)
    with _projections_lock:
        cached = _projections.get(reading.namespace)
    if cached and cached[0] == key and time.monotonic() - cached[1] < PROJECTION_SECONDS:
        return cached[2]
    campaigns = project(reading.snapshot, now)
    with _projections_lock:
        _projections[reading.namespace] = (key, time.monotonic(), campaigns)
    return campaigns


def clear_projections() -> None:
    with _projections_lock:
        _projections.clear()


def find_campaign(namespace: str, name: str, now) -> tuple[Campaign | None, ClusterState]:
    """One campaign, projected alone (a poll costs one campaign's work, not the whole list's)."""
    from campaigns.projection import project_one

    state = ClusterState()
    if namespace not in served_namespaces() or not DNS_LABEL.match(name or ""):
        return None, state
    try:
        reading = kube.read_namespace(namespace)
    except kube.ClusterUnavailable as trouble:
        state.problems.append(trouble.sentence)
        return None, state
    banner = reading.banner(now)
    if banner:
        state.stale = True
        state.banners.append(banner)
    campaign = project_one(reading.snapshot, name, now)
    if campaign is not None:
        state.campaigns.append(campaign)
    return campaign, state


# --- links ---------------------------------------------------------------------------------------


def _url_for_key(key: str) -> str:
    from results.keys import url_for_key

    return url_for_key(key)


def never_started(volume: Volume) -> bool:
    """A pending volume no pod has run yet: it has no run log to link to."""
    return volume.state == "pending" and volume.reason is None and volume.attempts == 0 and not volume.retrying


def log_href(volume: Volume) -> str:
    """The run-log viewer for a volume; live while it may still run, with its manifest once done.

    "" for a volume that never started: its run log does not exist yet.
    """
    if never_started(volume):
        return ""
    query = {"log": _url_for_key(volume.log_key)}
    if volume.may_still_run:
        query["live"] = "1"
    if volume.state == "done":
        query["manifest"] = _url_for_key(volume.manifest_key)
    return "/log?" + urlencode(query)


def detail_url(campaign: Campaign) -> str:
    return reverse("campaign_detail", args=[campaign.namespace, campaign.name])


def card_url(campaign: Campaign) -> str:
    return reverse("campaign_card", args=[campaign.namespace, campaign.name])


def dom_id(campaign: Campaign) -> str:
    return f"card-{campaign.namespace}--{campaign.name}"


# --- presenting a card ---------------------------------------------------------------------------


@dataclass
class VolumeRow:
    volume: Volume
    log_href: str
    results_href: str = ""
    pages_href: str = ""  # the ALTO viewer on the volume's first page
    progress: progress.VolumeProgress | None = None
    progress_text: str = ""
    same_as: str = ""  # an earlier row on the card with the very same sentence (its volume id)

    @property
    def failed_pages(self) -> int:
        """Pages its progress says failed (0 when not read)."""
        if self.progress is None or self.progress.progress is None:
            return 0
        return self.progress.progress.failed


@dataclass
class VolumeBar:
    """The volumes bar: done and failed as stacked segments, in percent of all volumes (as text)."""

    done: str
    failed: str

    @classmethod
    def of(cls, counts) -> VolumeBar:
        total = max(counts.total, counts.done + counts.failed, 1)
        done = 100 * counts.done / total
        failed = 100 * counts.failed / total
        if counts.failed and failed < 1.5:
            failed = 1.5  # a single failed volume among thousands stays visible
        return cls(f"{min(done, 100 - failed):.2f}", f"{failed:.2f}")


@dataclass
class PageTally:
    """Pages done/total over the volumes a card could read, and what that covers, in words."""

    done: int = 0
    total: int = 0
    failed: int = 0
    counted: int = 0  # volumes whose progress.json was read
    forbidden: int = 0  # volumes the person's account may not read
    eligible: int = 0  # volumes the figure means to cover
    running_only: bool = False  # too many done volumes to add up: only running ones are meant
    any_running: bool = False
    unasked: int = 0  # volumes not read on this request (over the cap, or the store was slow)
    with_failed_pages: list[tuple[Volume, int]] = field(default_factory=list)  # (volume, pages failed)

    def add(self, volume: Volume, answer: progress.VolumeProgress | None) -> None:
        self.eligible += 1
        self.any_running = self.any_running or volume.state == "active"
        if answer is not None and answer.progress is not None:
            self.counted += 1
            self.done += answer.progress.done
            self.total += answer.progress.total
            self.failed += answer.progress.failed
            if answer.progress.failed:
                self.with_failed_pages.append((volume, answer.progress.failed))
        elif answer is not None and answer.forbidden:
            self.forbidden += 1
        elif answer is None or answer.outcome in (progress.NOT_ASKED, progress.TIMEOUT):
            self.unasked += 1

    @property
    def caption(self) -> str:
        if self.running_only:
            kind = "running volumes shown"
        else:
            kind = "volumes done or running" if self.any_running else "volumes done"
        if self.counted == self.eligible:
            if self.eligible == 1:
                return f"In the one {kind.replace('volumes', 'volume', 1)}."
            return f"In all {self.eligible} {kind}."
        missing = []
        if self.forbidden:
            missing.append(f"your account may not read {self.forbidden}")
        unread = self.eligible - self.counted - self.forbidden
        if unread:
            missing.append(f"{unread} not read yet")
        return f"Counted in {self.counted} of {self.eligible} {kind}; {' and '.join(missing)}."


def page_tally(volumes: list[Volume], report: progress.ProgressReport | None, running_only: bool = False) -> PageTally:
    tally = PageTally(running_only=running_only)
    for volume in volumes:
        tally.add(volume, report.get(volume.progress_key) if report else None)
    return tally


@dataclass
class Card:
    campaign: Campaign
    dom_id: str
    detail_url: str
    card_url: str
    show_namespace: bool
    failures: list[VolumeRow]
    more_failures: int
    active: list[VolumeRow]
    more_active: int
    volume_bar: VolumeBar
    pages: PageTally
    progress_sentence: str
    needs_login: bool
    polls: bool
    poll_seconds: int
    commands: list[str]
    ops_facts: list[tuple[str, str]]
    on_detail_page: bool = False
    waiting: list[VolumeRow] = field(default_factory=list)  # started, waiting for the model cache
    failed_pages_note: str = ""  # a finished campaign's pages that failed, in words
    failed_pages_href: str = ""  # the run log of the first volume with failed pages
    forbidden_note: str = ""  # said once per card when the account may not read its volumes

    @property
    def trouble_flag(self) -> str:
        return "1" if self.campaign.in_trouble else "0"


def failed_pages_note(tally: PageTally) -> str:
    """"3 pages failed in C0074519; see its run log." for the pages a finished campaign left behind."""
    found = tally.with_failed_pages
    if not found:
        return ""
    pages = sum(count for _, count in found)
    noun = "page" if pages == 1 else "pages"
    if len(found) == 1:
        return f"{pages} {noun} failed in {bounded(found[0][0].id, 64)}; see its run log."
    names = ", ".join(bounded(volume.id, 64) for volume, _ in found[:3]) + (" and others" if len(found) > 3 else "")
    return f"{pages} {noun} failed in {len(found)} volumes ({names}); see their run logs."


def _failed_pages_href(campaign: Campaign, tally: PageTally) -> str:
    """The one volume's run log (with its manifest), or the campaign page listing the done volumes."""
    if not campaign.is_final or not tally.with_failed_pages:
        return ""
    if len(tally.with_failed_pages) == 1:
        return log_href(tally.with_failed_pages[0][0])
    return detail_url(campaign) + "?state=done"


def forbidden_note(rows: list[VolumeRow]) -> str:
    """Said once per card instead of on every row the person's account may not read."""
    refused = sum(1 for row in rows if row.progress is not None and row.progress.forbidden)
    if not refused:
        return ""
    if refused == len(rows):
        return "Your account may not read these volumes' results, so their progress is not shown."
    return (
        f"Your account may not read the results of {refused} of these volumes (marked “no access”), "
        "so their progress is not shown."
    )


def volume_row(volume: Volume, report: progress.ProgressReport | None, now) -> VolumeRow:
    from campaigns.sentences import progress_sentence

    row = VolumeRow(volume, log_href(volume))
    if volume.state == "done":
        row.results_href = _url_for_key(volume.iiif_key)
    if volume.state in ("done", "active"):
        row.pages_href = "/alto?" + urlencode({"src": _url_for_key(volume.alto_prefix + "0001.xml")})
    if report is not None and volume.state in ("active", "done"):
        row.progress = report.get(volume.progress_key)
        if row.progress is not None and row.progress.progress is not None:
            row.progress_text = progress_sentence(row.progress.progress, now)
    return row


def failure_rows(volumes: list[Volume], now) -> list[VolumeRow]:
    """Problem rows; a row whose sentence repeats an earlier row's points to it instead of repeating it."""
    rows = []
    first_with: dict[str, str] = {}
    for volume in volumes:
        row = volume_row(volume, None, now)
        text = volume.sentence.text if volume.sentence else ""
        if text and text in first_with:
            row.same_as = first_with[text]
        elif text:
            first_with[text] = volume.id
        rows.append(row)
    return rows


def operator_commands(campaign: Campaign) -> list[str]:
    """The kubectl lines for the card's operator details: those for what is wrong now first
    (the campaign's reason, its warm-up, its first failed volumes), then the general ones."""
    ns = campaign.namespace
    jobs = campaign.parts or [campaign.name]
    warmup_sentence = campaign.warmup.sentence if campaign.warmup and campaign.warmup.shows_chip else None
    reasons = [campaign.sentence, warmup_sentence, *(v.sentence for v in campaign.failures[:3])]
    commands = [command for sentence in reasons if sentence is not None for command in sentence.commands]
    for job in jobs:
        if not campaign.job_gone:
            commands.append(f"kubectl -n {ns} get job {job}")
            commands.append(f"kubectl -n {ns} get pods -l {JOB_NAME_LABEL}={job} -L {INDEX_LABEL}")
    if campaign.job_uid:
        commands.append(f"kubectl -n {ns} get workloads -l kueue.x-k8s.io/job-uid={campaign.job_uid}")
    if campaign.workload_name:
        commands.append(f"kubectl -n {ns} describe workload {campaign.workload_name}")
    if campaign.cluster_queue_name:
        commands.append(f"kubectl get clusterqueue {campaign.cluster_queue_name} -o yaml")
    if campaign.pipeline:
        commands.append(f"kubectl -n {ns} get job htr-warmup-{campaign.pipeline}")
        commands.append(f"kubectl -n {ns} logs job/htr-warmup-{campaign.pipeline} --tail=50")
    commands.append(f"kubectl -n {ns} get configmap campaign-{jobs[0]} campaign-{jobs[0]}-status")
    return list(dict.fromkeys(commands))


def _asks(queue) -> str:
    """What a waiting campaign asks of its ClusterQueue, against the quota, per resource."""
    if queue is None:
        return ""
    return "; ".join(f"{f.resource} {f.requested} of quota {f.quota or 'none'}" for f in queue.fits)


def _pending_in_queue(queue) -> str:
    if queue is None or queue.pending_in_queue is None:
        return ""
    return f"{queue.pending_in_queue} (all namespaces)"


def operator_facts(campaign: Campaign) -> list[tuple[str, str]]:
    warmup = campaign.warmup
    queue = campaign.queue
    facts = [
        ("Job" if len(campaign.parts) <= 1 else "Jobs", ", ".join(campaign.parts or [campaign.name])),
        ("Job uid", campaign.job_uid),
        ("Campaign file", campaign.campaign),
        ("Workload", campaign.workload_name or (queue.workload_name if queue else "")),
        ("LocalQueue", campaign.queue_name or (queue.queue_name if queue else "")),
        ("ClusterQueue", campaign.cluster_queue_name or (queue.cluster_queue if queue else "")),
        ("Priority class", campaign.priority_class),
        ("Queue reason", queue.reason if queue else ""),
        ("Kueue says", queue.message if queue else ""),
        ("Asks of the queue", _asks(queue)),
        ("Pending in ClusterQueue", _pending_in_queue(queue)),
        ("Parallelism", str(campaign.parallelism) if campaign.parallelism else ""),
        ("Pipeline", campaign.pipeline),
        ("Pipeline sha256", campaign.pipeline_sha256),
        ("Warm-up Job", warmup.job_name if warmup else ""),
        ("Recipe sha256", warmup.recipe_sha256 if warmup else ""),
        ("Cache directory", warmup.cache_dir if warmup else ""),
        ("Warm-up marker", warmup.marker_path if warmup else ""),
        ("Campaigns commit", campaign.record.commit),
        ("Applied by", campaign.record.applied_by),
        ("Applied at", campaign.record.applied_at),
        ("Image", campaign.record.image_digest),
        ("Results", campaign.results_prefix),
    ]
    return [(label, bounded(value, 300)) for label, value in facts if value]


@dataclass
class _CardReads:
    """Which volumes a card asks progress for: running ones shown, and done ones to add up pages."""

    active: list[Volume]
    more_active: int
    done: list[Volume]
    running_only: bool  # too many done volumes to add up their pages on every page

    @classmethod
    def of(cls, campaign: Campaign) -> _CardReads:
        active = [v for v in campaign.volumes if v.state == "active"]
        done = [v for v in campaign.volumes if v.state == "done"]
        too_many = len(done) > DONE_TALLY_MAX
        return cls(active[:ACTIVE_ON_CARD], max(0, len(active) - ACTIVE_ON_CARD), [] if too_many else done, too_many)


def read_cards_progress(
    request, plans: list[_CardReads], now, extra_keys: list[str] = (), shown_done: list[str] = ()
) -> progress.ProgressReport:
    """One bounded, parallel read for a whole request: running volumes first, then a few done ones.

    Done volumes' progress is final and cached for an hour, so adding up their pages costs a few
    reads per request until all are cached; running volumes always come first under the cap.
    ``shown_done``: done volumes whose rows a page shows (read first among the done ones, a few more).
    """
    keys = [*extra_keys, *(v.progress_key for plan in plans for v in plan.active)]
    done_keys = [*shown_done, *(v.progress_key for plan in plans for v in plan.done)]
    if not keys and not done_keys:
        return progress.ProgressReport()
    extra_limit = DONE_ROWS_READS if shown_done else progress.EXTRA_READS_PER_REQUEST
    return progress.read_progress(request, keys, now, extra_keys=done_keys, extra_limit=extra_limit)


def build_card(
    campaign: Campaign,
    plan: _CardReads,
    report: progress.ProgressReport,
    now,
    show_namespace: bool,
    stale: bool,
    on_detail_page: bool = False,
) -> Card:
    rows = [volume_row(v, report, now) for v in plan.active]
    active_rows = [row for row in rows if not row.volume.waiting_for_cache or row.failed_pages or _has_progress(row)]
    waiting_rows = [row for row in rows if row not in active_rows]
    # A volume running again after a failed attempt is shown running, its earlier failure in its sentence.
    failures = [v for v in campaign.failures if v.state != "active"]
    tally = page_tally(plan.active + plan.done, report, running_only=plan.running_only)
    unreadable = report.needs_login or report.card_outcome in (progress.UNREACHABLE, progress.NO_REASON)
    return Card(
        campaign=campaign,
        dom_id=dom_id(campaign),
        detail_url=detail_url(campaign),
        card_url=card_url(campaign),
        show_namespace=show_namespace,
        failures=failure_rows(failures[:FAILURES_ON_CARD], now),
        more_failures=max(0, len(failures) - FAILURES_ON_CARD),
        active=active_rows,
        waiting=waiting_rows,
        more_active=plan.more_active,
        volume_bar=VolumeBar.of(campaign.counts),
        pages=tally,
        progress_sentence=report.card_sentence if plan.active else "",
        needs_login=report.needs_login and bool(plan.active),
        # A finished card keeps polling until its final page counts have been read once.
        polls=not campaign.is_final or (tally.unasked > 0 and not unreadable),
        failed_pages_note=failed_pages_note(tally) if campaign.is_final else "",
        failed_pages_href=_failed_pages_href(campaign, tally),
        forbidden_note=forbidden_note(rows),
        poll_seconds=POLL_SECONDS_STALE if stale else POLL_SECONDS,
        commands=operator_commands(campaign),
        ops_facts=operator_facts(campaign),
        on_detail_page=on_detail_page,
    )


def _has_progress(row: VolumeRow) -> bool:
    return row.progress is not None and row.progress.progress is not None


def build_cards(request, campaigns: list[Campaign], now, stale: bool) -> list[Card]:
    """Cards for campaigns, with every progress read of the request done at once."""
    plans = [_CardReads.of(c) for c in campaigns]
    report = read_cards_progress(request, plans, now)
    several = len(served_namespaces()) > 1
    return [build_card(c, plan, report, now, several, stale) for c, plan in zip(campaigns, plans, strict=True)]


def _shown(request) -> list[tuple[str, bool]]:
    """What the reader's page shows, in order: (namespace/name, was in trouble)."""
    shown = []
    for value in request.GET.getlist("shown")[:1000]:
        ident, _, flag = value.rpartition(":")
        if ident:
            shown.append((ident, flag == "1"))
    return shown


def _ident(campaign: Campaign) -> str:
    return f"{campaign.namespace}/{campaign.name}"


# --- views ---------------------------------------------------------------------------------------


@require_safe
@vary_on_headers("HX-Request")
def campaign_list(request):
    now = timezone.now()
    state = read_cluster(now)
    if request.htmx and request.GET.get("watch"):
        return _watch(request, state, now)
    cards = build_cards(request, state.campaigns, now, state.stale)
    context = _list_context(state, cards, now)
    if request.htmx and request.GET.get("fragment") == "list":
        return render(request, "campaigns/list_body.html", context)
    return render(request, "campaigns/list.html", context)


def _list_context(state: ClusterState, cards: list[Card], now) -> dict:
    phases: dict[tuple[str, str], int] = {}
    for card in cards:
        key = (card.campaign.phase, card.campaign.phase_key)
        phases[key] = phases.get(key, 0) + 1
    in_order = [phase for phase in PHASES if any(p == phase for p, _ in phases)]
    return {
        "cards": cards,
        "state": state,
        "phase_counts": [(p, k, n) for phase in in_order for (p, k), n in phases.items() if p == phase],
        "trouble_count": sum(1 for card in cards if card.campaign.in_trouble),
        "first_trouble_id": next((card.dom_id for card in cards if card.campaign.in_trouble), ""),
        "now": now,
        "watch_seconds": WATCH_SECONDS,
        "notice": "",
    }


def _watch(request, state: ClusterState, now):
    """A list poll: add new campaigns, mark removed ones, and offer a re-sort instead of reordering.

    A campaign newly in trouble may move: then the whole list comes back in the current order.
    """
    shown = _shown(request)
    shown_ids = [ident for ident, _ in shown]
    was_in_trouble = dict(shown)
    current = {_ident(c): c for c in state.campaigns}
    newly_troubled = [i for i, c in current.items() if c.in_trouble and i in was_in_trouble and not was_in_trouble[i]]
    if newly_troubled:
        cards = build_cards(request, state.campaigns, now, state.stale)
        context = _list_context(state, cards, now)
        context["oob_list"] = True
        metrics.poll("list", changed=True)
        return render(request, "campaigns/watch.html", context)
    new_campaigns = [c for i, c in current.items() if i not in was_in_trouble]
    removed = [i for i in shown_ids if i not in current]
    staying = [i for i in shown_ids if i in current]
    order_now = [i for i in current if i in was_in_trouble]
    new_cards = build_cards(request, list(reversed(new_campaigns)), now, state.stale)
    notice = ""
    if staying != order_now:
        notice = "The order of the campaigns has changed since this page was loaded."
    metrics.poll("list", changed=bool(new_campaigns or removed or notice))
    context = {
        "new_cards": new_cards,
        "removed_ids": [f"card-{i.replace('/', '--')}" for i in removed],
        "notice": notice,
        "state": state,
        "watch_seconds": WATCH_SECONDS,
        "now": now,
    }
    return render(request, "campaigns/watch.html", context)


@require_safe
@vary_on_headers("HX-Request")
def campaign_card(request, namespace, name):
    """One card, as its poll asks for it; a final (or vanished) card stops the poll with 286."""
    now = timezone.now()
    campaign, state = find_campaign(namespace, name, now)
    if campaign is None and state.problems:
        return HttpResponse(" ".join(state.problems), status=502, content_type="text/plain; charset=utf-8")
    if campaign is None:
        context = {"namespace": namespace, "name": name, "dom_id": f"card-{namespace}--{name}", "state": state}
        response = render(request, "campaigns/card_gone.html", context, status=404)
        if request.htmx:
            return HttpResponseStopPolling(response.content)
        return response
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
    campaign, state = find_campaign(namespace, name, now)
    if campaign is None:
        return _not_found(request, namespace, name, state)
    wanted_state = request.GET.get("state", "")
    if wanted_state not in VOLUME_STATES:
        wanted_state = ""
    search = bounded(request.GET.get("q", ""), SEARCH_LIMIT)
    offset = _whole(request.GET.get("offset"), 0, maximum=len(campaign.volumes))
    volumes = [
        v
        for v in campaign.volumes
        if (not wanted_state or v.state == wanted_state) and (not search or search.lower() in v.id.lower())
    ]
    page = volumes[offset : offset + VOLUME_PAGE]
    plan = _CardReads.of(campaign)
    page_active = [v.progress_key for v in page if v.state == "active"]
    page_done = [v.progress_key for v in page if v.state == "done"]
    report = read_cards_progress(request, [plan], now, extra_keys=page_active, shown_done=page_done)
    rows = [volume_row(v, report, now) for v in page]
    next_offset = offset + VOLUME_PAGE if offset + VOLUME_PAGE < len(volumes) else None
    several = len(served_namespaces()) > 1
    card = build_card(campaign, plan, report, now, several, state.stale, on_detail_page=True)
    base_query = {k: v for k, v in (("state", wanted_state), ("q", search)) if v}
    context = {
        "card": card,
        "campaign": campaign,
        "state": state,
        "rows": rows,
        "matching": len(volumes),
        "offset": offset,
        "next_url": (request.path + "?" + urlencode({**base_query, "offset": next_offset})) if next_offset else "",
        "previous_url": (
            request.path + "?" + urlencode({**base_query, "offset": max(0, offset - VOLUME_PAGE)}) if offset else ""
        ),
        "wanted_state": wanted_state,
        "search": search,
        "state_choices": [("", "All states")] + [(s, s.capitalize()) for s in VOLUME_STATES],
        "progress_sentence": report.card_sentence if page_active else "",
        "rows_forbidden_note": forbidden_note(rows).replace("these volumes", "the volumes below"),
        "now": now,
    }
    if request.htmx and request.GET.get("fragment") == "rows":
        return render(request, "campaigns/volume_rows.html", context)
    return render(request, "campaigns/detail.html", context)


def _not_found(request, namespace, name, state: ClusterState):
    context = {"namespace": namespace, "name": name, "state": state}
    if state.problems and not state.campaigns:
        return render(request, "campaigns/not_found.html", {**context, "unreadable": True}, status=502)
    return render(request, "campaigns/not_found.html", context, status=404)


def _whole(value, default: int, maximum: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return max(0, min(number, maximum))
