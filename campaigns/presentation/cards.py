"""Campaign cards: what a card (and the campaign page's rows) shows, built from a projected campaign.

Presentation only: no reading of the cluster or the store (the views read, campaigns.web.card_reads,
and hand the cards a progress report). The links of a volume (run log, results, pages),
which volumes a card asks progress for and how pages add up, the rows of failed and running
volumes, the notes about failed pages and refused reads, the operator's kubectl lines and facts,
and how often a card polls.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urlencode

from django.conf import settings
from django.urls import NoReverseMatch, reverse
from django.utils.translation import pgettext, pgettext_lazy

from campaigns.domain.pace import with_pages
from campaigns.domain.quality import CampaignQuality, campaign_quality
from campaigns.models import RUNNING, Campaign, Sentence, Volume, bounded, parse_time
from campaigns.models.findings import Finding
from campaigns.models.pace import PageEvidence
from campaigns.presentation.overview import said_of
from campaigns.presentation.pace_chart import PaceChart, chart_for
from campaigns.store import progress
from campaigns.wording import notes
from campaigns.wording.cache import cache_facts
from campaigns.wording.findings import finding_sentence
from campaigns.wording.pace import forecast_sentence, pace_fact, stall_sentence
from campaigns.wording.progress import PROGRESS_NOT_KNOWN, forbidden_detail, progress_sentence
from campaigns.wording.queue import queue_sentence
from campaigns.wording.states import WARMUP_AREAS, held_by
from campaigns.wording.volumes import NO_SENTENCE, volume_sentence
from campaigns.wording.warmup import WARMUP_WAITING, campaign_warmup_sentence
from core import times
from core.contract import LABEL_COMPLETION_INDEX, LABEL_WORKLOAD_JOB_UID
from core.kubectl import job_pods, kubectl
from results.store.keys import url_for_key

FAILURES_ON_CARD = 8
ACTIVE_ON_CARD = 12
DONE_TALLY_MAX = 300  # a card adds up the pages of at most this many done volumes
# How often a page's polls ask again: the card and the list alike. While the cluster's reading is old (the
# cluster is not answering), asking more often would learn nothing sooner.
POLL_SECONDS = 5
POLL_SECONDS_STALE = 30


def poll_seconds(stale: bool) -> int:
    """Seconds between a card's or the list's polls: slower while the reading of the cluster is old."""
    return POLL_SECONDS_STALE if stale else POLL_SECONDS


# --- links ---------------------------------------------------------------------------------------


def result_url(key: str) -> str:
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
    query = {"log": result_url(volume.log_key)}
    if volume.may_still_run:
        query["live"] = "1"
    if volume.state == "done":
        query["manifest"] = result_url(volume.manifest_key)
    return "/log?" + urlencode(query)


def detail_url(campaign: Campaign) -> str:
    return reverse("campaign_detail", args=[campaign.namespace, campaign.name])


def volume_page_href(campaign: Campaign, volume: Volume) -> str:
    """The volume's own page; "" for an id no address can carry (a malformed line, a slash in it)."""
    try:
        return reverse("campaign_volume", args=[campaign.namespace, campaign.name, volume.id])
    except NoReverseMatch:
        return ""


def with_page_hrefs(campaign: Campaign, rows: list[VolumeRow]) -> list[VolumeRow]:
    """The rows, each linked to its volume's page (rows are made without their campaign)."""
    for row in rows:
        row.page_href = volume_page_href(campaign, row.volume)
    return rows


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
    page_href: str = ""  # the volume's own page (set where the campaign is known: with_page_hrefs)
    progress: progress.VolumeProgress | None = None
    progress_text: str = ""
    same_as: str = ""  # an earlier row on the card with the very same sentence (its volume id)

    @cached_property
    def said(self) -> Sentence:
        """The row's sentence: the volume's failure or its state, worded now for this reader."""
        return volume_sentence(self.volume)

    @property
    def sentence_text(self) -> str:
        """A problem row's sentence (a volume without one still gets a few words)."""
        return self.said.text or str(NO_SENTENCE)

    @property
    def progress_note(self) -> str:
        """A running row whose progress was not read: what the store answered instead, if anything."""
        return (self.progress.note if self.progress is not None else "") or str(PROGRESS_NOT_KNOWN)

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
        elif answer is None or answer.outcome in progress.UNANSWERED:
            self.unasked += 1

    @property
    def caption(self) -> str:
        return notes.pages_caption(self.counted, self.eligible, self.forbidden, self.running_only, self.any_running)


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
    ops_facts: list[tuple[str, str, bool]]  # label, value, whether it gets a copy button
    cache_facts: list[tuple[str, str, bool]] = field(default_factory=list)  # the pipeline's model cache, the same way
    on_detail_page: bool = False
    poll_include: str = ""  # what else the card's poll sends (the campaign page: how many rows it shows)
    waiting: list[VolumeRow] = field(default_factory=list)  # started, waiting for the model cache
    failed_pages_note: str = ""  # a finished campaign's pages that failed, in words
    failed_pages_href: str = ""  # the run log of the first volume with failed pages
    forbidden_note: str = ""  # said once per card when the account may not read its volumes
    forbidden_detail: str = ""  # for an operator: which object the store refused, and what would allow it
    quality: CampaignQuality | None = None  # None: the campaign says nothing about quality
    pace_sentence: Sentence | None = None  # a running campaign's forecast, or why it needs attention: stalled
    pace_chart: PaceChart | None = None  # a running campaign's finished volumes over time, drawn

    @cached_property
    def said(self) -> Sentence:
        """The state chip's sentence, worded for this reader (the list line's words: one account)."""
        return said_of(self.campaign)

    @cached_property
    def findings_said(self) -> list[tuple[Finding, Sentence]]:
        """Each finding with its words, in the projection's order (the one that explains the state first)."""
        return [(finding, finding_sentence(finding)) for finding in self.campaign.findings]

    @property
    def finding_lines(self) -> list[Sentence]:
        """Findings said on lines of their own: those the state chip, the warm-up chip and the note on
        waiting volumes do not say already."""
        own = held_by(self.campaign)
        said_elsewhere = (own,) if own is not None else ()
        return [
            said
            for finding, said in self.findings_said
            if finding not in said_elsewhere and finding.area not in WARMUP_AREAS
        ]

    @property
    def waiting_note(self) -> str:
        """What the volumes waiting for the model cache wait for, and until when by the Job's own limit."""
        waiting = next((said for finding, said in self.findings_said if finding.code == WARMUP_WAITING), None)
        if waiting is not None:
            return waiting.text
        return self.waiting[0].said.text if self.waiting else ""

    @cached_property
    def warmup_said(self) -> Sentence | None:
        """The warm-up chip's sentence, when the card shows the chip."""
        warmup = self.campaign.warmup
        return campaign_warmup_sentence(self.campaign) if warmup and warmup.shows_chip else None

    @property
    def trouble_flag(self) -> str:
        return "1" if self.campaign.in_trouble else "0"

    @property
    def queue_note(self) -> str:
        """The queue's own sentence, when the state sentence does not carry it already (admitted says nothing)."""
        campaign = self.campaign
        queue = campaign.queue
        if queue is None or queue.kind == "admitted" or held_by(campaign) is not None:
            return ""  # a finding the state chip says is why the queue holds it: the queue's guess is not
        text = queue_sentence(queue, campaign.namespace).text
        return "" if text in self.said.text else text


def _failed_pages_href(campaign: Campaign, tally: PageTally) -> str:
    """The one volume's run log (with its manifest), or the campaign page listing the done volumes."""
    if not campaign.is_final or not tally.with_failed_pages:
        return ""
    if len(tally.with_failed_pages) == 1:
        return log_href(tally.with_failed_pages[0][0])
    return detail_url(campaign) + "?state=done"


def forbidden_note(rows: list[VolumeRow], below: bool = False) -> str:
    """Said once instead of on every row the person's account may not read (``below``: a campaign
    page's table under the note, not a card's running volumes)."""
    refused = sum(1 for row in rows if row.progress is not None and row.progress.forbidden)
    return notes.forbidden_note(refused, len(rows), below=below)


def refused_detail(campaign: Campaign, volumes: list[Volume], report: progress.ProgressReport | None) -> str:
    """The operator's account of the progress the store refused this account: the first refused object, and
    ``s3:GetObject`` on that volume's prefix (one volume) or the campaign's results prefix (several)."""
    refused = [v for v in volumes if report is not None and (answer := report.get(v.progress_key)) and answer.forbidden]
    if not refused:
        return ""
    prefix = refused[0].key_prefix if len(refused) == 1 else campaign.results_prefix
    return forbidden_detail(settings.S3_BUCKET, [volume.progress_key for volume in refused], prefix)


def volume_row(volume: Volume, report: progress.ProgressReport | None, now) -> VolumeRow:
    row = VolumeRow(volume, log_href(volume))
    if volume.state == "done":
        row.results_href = result_url(volume.iiif_key)
    if volume.state in ("done", "active"):
        row.pages_href = "/alto?" + urlencode({"src": result_url(volume.alto_prefix + "0001.xml")})
    if report is not None and volume.state in ("active", "done"):
        row.progress = report.get(volume.progress_key)
        if row.progress is not None and row.progress.progress is not None:
            row.progress_text = progress_sentence(row.progress.progress, now)
    if row.progress is not None and row.progress.forbidden:
        # The store refused this account the volume's progress, so it refuses its run log, pages and IIIF
        # too: no link the person would be refused (the card's or table's note says why, once).
        row.log_href = row.results_href = row.pages_href = ""
    return row


def failure_rows(volumes: list[Volume], now) -> list[VolumeRow]:
    """Problem rows; a row whose sentence and error repeat an earlier row's points to it instead of repeating
    it (the sentence is plain words, so two errors of one kind read alike: only the same error is the same
    cause)."""
    rows = []
    first_with: dict[tuple[str, str], str] = {}
    for volume in volumes:
        row = volume_row(volume, None, now)
        said = (row.said.text, volume.reason.error if volume.reason is not None else "")
        if said[0] and said in first_with:
            row.same_as = first_with[said]
        elif said[0]:
            first_with[said] = volume.id
        rows.append(row)
    return rows


class CommandLine(str):
    """A kubectl line about one volume's pod: the text an operator pastes, and the volume it is for, so the
    card can say which volume each pod line is about (its index and id)."""

    volume_index: int | None
    volume_id: str

    def __new__(cls, text: str, volume: Volume):
        line = super().__new__(cls, text)
        line.volume_index, line.volume_id = volume.index, volume.id
        return line


def operator_commands(campaign: Campaign) -> list[str]:
    """The kubectl lines for the card's operator details: those for what is wrong now first
    (the campaign's reason, its warm-up, its first failed volumes), then the general ones."""
    ns = campaign.namespace
    jobs = campaign.parts or [campaign.name]
    warmup = campaign.warmup
    reasons = [
        *(finding_sentence(finding) for finding in campaign.findings),
        said_of(campaign),
        campaign_warmup_sentence(campaign) if warmup and warmup.shows_chip else None,
    ]
    commands = [command for sentence in reasons if sentence is not None for command in sentence.commands]
    for volume in campaign.failures[:3]:
        commands.extend(CommandLine(command, volume) for command in volume_sentence(volume).commands)
    for job in jobs:
        if not campaign.job_gone:
            commands.append(kubectl("get", "job", job, namespace=ns))
            commands.append(kubectl("get", "pods", "-l", job_pods(job), "-L", LABEL_COMPLETION_INDEX, namespace=ns))
    if campaign.job_uid:
        selector = f"{LABEL_WORKLOAD_JOB_UID}={campaign.job_uid}"
        commands.append(kubectl("get", "workloads", "-l", selector, namespace=ns))
    if campaign.workload_name:
        commands.append(kubectl("describe", "workload", campaign.workload_name, namespace=ns))
    if campaign.cluster_queue_name:
        commands.append(kubectl("get", "clusterqueue", campaign.cluster_queue_name, "-o", "yaml"))
    if campaign.pipeline:
        commands.append(kubectl("get", "job", f"htr-warmup-{campaign.pipeline}", namespace=ns))
        commands.append(kubectl("logs", f"job/htr-warmup-{campaign.pipeline}", "--tail=50", namespace=ns))
    if campaign.model_cache is not None and campaign.model_cache.claim_name:
        commands.append(shlex.join(campaign.model_cache.debug.argv))  # the guide's debug pod on the cache
    records = (f"campaign-{jobs[0]}", f"campaign-{jobs[0]}-status")
    commands.append(kubectl("get", "configmap", *records, namespace=ns))
    return list(dict.fromkeys(commands))


def _asks(queue) -> str:
    """What a waiting campaign asks of its ClusterQueue, against the quota, per resource."""
    if queue is None:
        return ""
    # Translators: one resource a queued campaign asks for, in the operator's facts: {resource} is its name
    # (nvidia.com/gpu), {requested} and {quota} quantities as Kubernetes writes them (8, 16Gi).
    asks = pgettext("operator fact", "{resource} {requested} of quota {quota}")
    # Translators: the quota of a resource the ClusterQueue does not give at all.
    no_quota = pgettext("a resource's quota", "none")
    return "; ".join(
        asks.format(resource=f.resource, requested=f.requested, quota=f.quota or no_quota) for f in queue.fits
    )


def _pending_in_queue(queue) -> str:
    if queue is None or queue.pending_in_queue is None:
        return ""
    # Translators: how many workloads wait in the ClusterQueue, counted over every namespace.
    return pgettext("operator fact", "{count} (all namespaces)").format(count=queue.pending_in_queue)


def _applied_at(record) -> str:
    """When the campaign was applied, said as every time is; the annotation as it is when it is no time."""
    at = parse_time(record.applied_at)
    return times.moment(at) if at is not None else record.applied_at


# The operator's facts by key, and their labels. Kubernetes' kinds (Job, Workload, LocalQueue, ClusterQueue)
# are names, said as Kubernetes says them; the other labels are words.
_FACT_LABELS = {
    "job": "Job",
    "jobs": "Jobs",
    "job_uid": pgettext_lazy("operator fact", "Job uid"),
    "campaign_file": pgettext_lazy("operator fact", "Campaign file"),
    "workload": "Workload",
    "local_queue": "LocalQueue",
    "cluster_queue": "ClusterQueue",
    "priority_class": pgettext_lazy("operator fact", "Priority class"),
    "queue_reason": pgettext_lazy("operator fact", "Queue reason"),
    "kueue_says": pgettext_lazy("operator fact", "Kueue says"),
    "asks": pgettext_lazy("operator fact", "Asks of the queue"),
    "pending": pgettext_lazy("operator fact", "Pending in ClusterQueue"),
    "parallelism": pgettext_lazy("operator fact", "Parallelism"),
    "pace": pgettext_lazy("operator fact", "Pace"),
    "pipeline": pgettext_lazy("operator fact", "Pipeline"),
    "pipeline_sha256": pgettext_lazy("operator fact", "Pipeline sha256"),
    "commit": pgettext_lazy("operator fact", "Campaigns commit"),
    "applied_by": pgettext_lazy("operator fact", "Applied by"),
    "applied_at": pgettext_lazy("operator fact", "Applied at"),
    "image": pgettext_lazy("operator fact", "Image"),
    "results": pgettext_lazy("operator fact", "Results"),
}
# Names and paths an operator pastes into a terminal get a copy button beside them.
# Every name and id an operator may paste into kubectl or a search gets a copy button.
COPYABLE_FACTS = {
    "job", "jobs", "job_uid", "campaign_file", "workload", "local_queue", "cluster_queue", "priority_class",
    "pipeline", "pipeline_sha256", "commit", "image", "results",
}


def operator_facts(campaign: Campaign) -> list[tuple[str, str, bool]]:
    """The campaign's own facts as (label, value, whether it gets a copy button); those of its pipeline's
    model cache are apart (`cache_facts`)."""
    queue = campaign.queue
    facts = [
        ("job" if len(campaign.parts) <= 1 else "jobs", ", ".join(campaign.parts or [campaign.name])),
        ("job_uid", campaign.job_uid),
        ("campaign_file", campaign.campaign),
        ("workload", campaign.workload_name or (queue.workload_name if queue else "")),
        ("local_queue", campaign.queue_name or (queue.queue_name if queue else "")),
        ("cluster_queue", campaign.cluster_queue_name or (queue.cluster_queue if queue else "")),
        ("priority_class", campaign.priority_class),
        ("queue_reason", queue.reason if queue else ""),
        ("kueue_says", queue.message if queue else ""),
        ("asks", _asks(queue)),
        ("pending", _pending_in_queue(queue)),
        ("parallelism", str(campaign.parallelism) if campaign.parallelism else ""),
        ("pace", pace_fact(campaign.pace)),
        ("pipeline", campaign.pipeline),
        ("pipeline_sha256", campaign.pipeline_sha256),
        ("commit", campaign.record.commit),
        ("applied_by", campaign.record.applied_by),
        ("applied_at", _applied_at(campaign.record)),
        ("image", campaign.record.image_digest),
        ("results", campaign.results_prefix),
    ]
    return [(str(_FACT_LABELS[key]), bounded(value, 300), key in COPYABLE_FACTS) for key, value in facts if value]


@dataclass
class CardReads:
    """Which volumes a card asks progress for: running ones shown, and done ones to add up pages."""

    active: list[Volume]
    more_active: int
    done: list[Volume]
    running_only: bool  # too many done volumes to add up their pages on every page

    @classmethod
    def of(cls, campaign: Campaign) -> CardReads:
        active = [v for v in campaign.volumes.notable() if v.state == "active"]
        too_many = campaign.counts.done > DONE_TALLY_MAX
        done = [] if too_many else campaign.volumes.in_state("done")
        return cls(active[:ACTIVE_ON_CARD], max(0, len(active) - ACTIVE_ON_CARD), [] if too_many else done, too_many)


def build_card(
    campaign: Campaign,
    plan: CardReads,
    report: progress.ProgressReport,
    now,
    show_namespace: bool,
    stale: bool,
    on_detail_page: bool = False,
) -> Card:
    rows = with_page_hrefs(campaign, [volume_row(v, report, now) for v in plan.active])
    active_rows = [row for row in rows if not row.volume.waiting_for_cache or row.failed_pages or _has_progress(row)]
    waiting_rows = [row for row in rows if row not in active_rows]
    # A volume running again after a failed attempt is shown running, its earlier failure in its sentence.
    failures = [v for v in campaign.failures if v.state != "active"]
    tally = page_tally(plan.active + plan.done, report, running_only=plan.running_only)
    unreadable = report.needs_login or report.card_outcome in (
        progress.UNREACHABLE, progress.TLS, progress.STORE_FAULT, progress.NO_REASON)
    return Card(
        campaign=campaign,
        dom_id=dom_id(campaign),
        detail_url=detail_url(campaign),
        card_url=card_url(campaign),
        show_namespace=show_namespace,
        failures=with_page_hrefs(campaign, failure_rows(failures[:FAILURES_ON_CARD], now)),
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
        failed_pages_note=notes.failed_pages_note(tally.with_failed_pages) if campaign.is_final else "",
        failed_pages_href=_failed_pages_href(campaign, tally),
        forbidden_note=forbidden_note(rows),
        forbidden_detail=refused_detail(campaign, plan.active + plan.done, report),
        poll_seconds=poll_seconds(stale),
        commands=operator_commands(campaign),
        ops_facts=operator_facts(campaign),
        cache_facts=[(label, bounded(value, 300), copy) for label, value, copy in cache_facts(
            campaign.model_cache, campaign.warmup)],
        on_detail_page=on_detail_page,
        quality=campaign_quality(campaign, plan.active + plan.done, lambda v: report.get(v.progress_key)),
        pace_sentence=pace_sentence(campaign, rows, now),
        pace_chart=chart_for(campaign, now, f"{dom_id(campaign)}-pace-chart", large=on_detail_page),
    )


def _has_progress(row: VolumeRow) -> bool:
    return row.progress is not None and row.progress.progress is not None


# --- pace, forecast, stall ------------------------------------------------------------------------


def page_evidence(rows: list[VolumeRow]) -> PageEvidence | None:
    """What the running rows' progress shows of pages: the newest write, by which volume, and the pages
    an hour the running volumes make together (each one's pages over its time so far). None: nothing read."""
    latest = None
    volume = ""
    per_hour = None
    for row in rows:
        read = row.progress.progress if row.progress is not None else None
        if read is None or read.updated_at is None:
            continue
        if latest is None or read.updated_at > latest:
            latest, volume = read.updated_at, row.volume.id
        if read.started_at is not None and read.updated_at > read.started_at:
            seconds = (read.updated_at - read.started_at).total_seconds()
            per_hour = (per_hour or 0.0) + read.done * 3600 / seconds
    return None if latest is None else PageEvidence(latest, volume, per_hour)


def pace_sentence(campaign: Campaign, rows: list[VolumeRow], now) -> Sentence | None:
    """A running campaign's card: when it may finish, or that it stalled and what to check first."""
    view = campaign.pace
    if view is None or campaign.phase != RUNNING:
        return None
    evidence = page_evidence(rows)
    if campaign.stalled:
        waiting = sum(1 for v in campaign.volumes.notable() if v.state == "active" and v.waiting_for_cache)
        return stall_sentence(view, now, evidence, waiting)
    return forecast_sentence(with_pages(view, evidence), now)
