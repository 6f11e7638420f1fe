"""The demo scene: a namespace full of campaigns in every situation the browser has to explain.

``build_scene(now, image_base, results_url)`` is pure: it returns a ``Scene`` holding the
Kubernetes objects, the results-bucket objects, the store's deny list for the limited account,
the volumes the image server must serve, and a map of which campaign shows which situation.
``load_scene(scene, kube, store, images)`` puts it all into the running doubles.

``scene.situations`` maps a situation to the Job name that shows it (``split`` maps to the
campaign label shared by its parts, ``job_gone*`` to the Job name that no longer exists), and
``scene.volumes`` maps a situation to the volume ids of interest, for example
``scene.volumes["limited_denied"]`` (the limited account may not read them) and
``scene.volumes["limited_allowed"]`` (done volumes it may read). ``scene.campaigns[job]`` is the
model behind each campaign (volumes, states, pods). The situation names:

running_mixed, long_running, finishing_soon, warmup_pending, warmup_failed, warmup_wait_exit13,
permanent_setup, transient_retrying, transient_last_attempt, verify_missing_pages, sigterm,
deadline_exceeded, oom_killed, evicted, queued_turn, queued_never_fits, queued_missing_priority,
paused_before_start, paused_after_some, succeeded, succeeded_failed_pages, partially_failed,
failed, split, job_gone, job_gone_partially_failed, images_form, old_log_key, limited_denied,
quality_scored (its pipeline ``swe-lines-v2-scored`` scores every page), quality_unscored, stalled (pods
running, nothing finished and nothing written for over an hour), and one campaign per cause the
troubleshooting guide names (``scene_causes``): warmup_placement_differs, cache_rwo_other_node,
cache_replaced, queue_untolerated_taint, results_other_address, model_not_in_cache
(queued_never_fits is Kueue's exceeds-max-quota, queued_turn its waiting-for-quota).

Beside the campaigns the cluster holds what they stand on: a bound claim for each model cache their
pods mount (the shared ReadWriteMany one, and the caches of ``scene_causes``' pipelines), Kueue's
ResourceFlavors (the two the campaigns' ClusterQueue names, and one a taint keeps for one team, named
only by that team's ClusterQueue ``htr-ocr-cq``) and Kueue's controller, running in ``kueue-system``
(``kueue_objects(created, down_since=...)`` builds it crash-looping, for a test to swap in).

Results addresses inside the bucket (``viewer_url``, IIIF ``seeAlso``, log lines) are built from
``results_url``, and image and manifest addresses from ``image_base``; both are only known once
the servers run, so a scene is built after they start.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from devstack import content_json as cj
from devstack import scene_causes as causes
from devstack import scene_kube as k
from devstack import scene_store as s
from devstack.scene_model import (
    DONE,
    FAILED,
    NOT_IN_CACHE_ERROR,
    RETRYING,
    RUNNING,
    WAITING,
    Campaign,
    Pipeline,
    Volume,
    add_pod,
    failure_reason,
    model_steps,
    setup_error,
    stream_error,
    verify_error,
)

NAMESPACE = k.NAMESPACE
BUCKET = "htrflow-results"

def _pipelines(now: datetime) -> dict[str, Pipeline]:
    v2 = cj.DEFAULT_PIPELINE_YAML
    v3 = model_steps(
        regions="8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796",
        lines="1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
        text_model="Riksarkivet/trocr-base-handwritten-hist-swe-9",
        text="5e4d3c2b1a0f9e8d7c6b5a49382716051f4e3d2c",
    )
    v4 = model_steps(
        regions="2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e",
        lines="7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2",
        text_model="Riksarkivet/trocr-base-handwritten-hist-swe-3",
        text="c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7",
    )
    warmup_error = (
        "404 Client Error. (Request ID: Root=1-66f2a9c1-3b7d0e52a81f4c6d9e2b7a10) Repository Not Found for url: "
        "https://huggingface.co/api/models/Riksarkivet/trocr-base-handwritten-hist-swe-9/revision/"
        "5e4d3c2b1a0f9e8d7c6b5a49382716051f4e3d2c. Please make sure you specified the correct `repo_id` and "
        "`repo_type`."
    )
    pipelines = {
        "swe-lines-v2": Pipeline("swe-lines-v2", v2, "complete", created=now - timedelta(days=20)),
        "swe-lines-v3": Pipeline(
            "swe-lines-v3", v3, "failed", warmup_error, created=now - timedelta(days=1, hours=6, minutes=2)
        ),
        "swe-lines-v4": Pipeline("swe-lines-v4", v4, "running", created=now - timedelta(minutes=9)),
        # v2 with a quality prediction step: its campaigns' pages are scored.
        "swe-lines-v2-scored": Pipeline(
            "swe-lines-v2-scored", v2 + cj.QUALITY_STEP_YAML, "complete", created=now - timedelta(days=6)
        ),
    }
    return {**pipelines, **causes.pipelines(now)}


@dataclass
class Scene:
    now: datetime
    where: s.Where
    pipelines: dict[str, Pipeline]
    campaigns: dict[str, Campaign]
    situations: dict[str, str]
    volumes: dict[str, list[str]]
    objects: list[dict] = field(default_factory=list)
    # key -> (content, content type); content is text, bytes, or a function making the bytes (see file_body)
    files: dict[str, tuple] = field(default_factory=dict)
    denied_prefixes: list[str] = field(default_factory=list)
    image_volumes: dict[str, int] = field(default_factory=dict)
    pod_logs: list[tuple[str, str, str, str]] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        return self.where.namespace

    @property
    def results_url(self) -> str:
        return self.where.results_url

    @property
    def image_base(self) -> str:
        return self.where.image_base

    def file_body(self, key: str) -> bytes:
        return s.body(self.files[key][0])

    def campaign_of(self, situation: str) -> Campaign:
        return self.campaigns[self.situations[situation]]

    def where_of(self, campaign: Campaign) -> s.Where:
        """Where a campaign's results go: the site's results address unless its pods publish elsewhere."""
        return where_of(self.where, campaign)


def where_of(where: s.Where, campaign: Campaign) -> s.Where:
    """``where`` with the campaign's own results address, when its pods publish under another one."""
    if not campaign.results_url:
        return where
    return s.Where(where.namespace, campaign.results_url, where.image_base)


# --- volume helpers --------------------------------------------------------------------------


class _Builder:
    """Builds campaigns volume by volume, with times that follow one another."""

    def __init__(self, now: datetime, where: s.Where):
        self.now = now
        self.where = where
        self.pipelines = _pipelines(now)

    def volumes(self, ids: list[str], pages: list[int]) -> list[Volume]:
        return [
            Volume(index=i, id=vid, pages=n, source=cj.source_manifest_url(self.where.image_base, vid))
            for i, (vid, n) in enumerate(zip(ids, pages, strict=True))
        ]

    @staticmethod
    def ids(prefix: str, first: int, count: int) -> list[str]:
        return [f"{prefix}{first + i}" for i in range(count)]

    @staticmethod
    def pages(seed: str, count: int, low: int = 3, high: int = 7) -> list[int]:
        rng = random.Random(seed)
        return [rng.randint(low, high) for _ in range(count)]

    # Each helper below puts one volume in a state, with its pods and times.

    def done(self, c: Campaign, v: Volume, start: datetime, failed_pages=()) -> datetime:
        end = start + timedelta(seconds=40 + 7 * v.pages)
        v.state, v.started_at, v.updated_at, v.finished_at = DONE, start, end, end
        v.failed_pages = list(failed_pages)
        v.ok_pages = v.pages - len(v.failed_pages)
        add_pod(c, v, "succeeded", start - timedelta(seconds=5), end)
        return end

    def running(self, c: Campaign, v: Volume, ok_pages: int, failed_pages=()) -> None:
        v.state = RUNNING
        v.failed_pages = list(failed_pages)
        v.ok_pages = ok_pages
        v.started_at = self.now - timedelta(seconds=30 + 7 * v.processed)
        v.updated_at = self.now - timedelta(seconds=4)
        add_pod(c, v, "running", v.started_at - timedelta(seconds=5))

    def waiting(self, c: Campaign, v: Volume, since: datetime) -> None:
        v.state = WAITING
        add_pod(c, v, "waiting", since)

    def attempts(
        self,
        c: Campaign,
        v: Volume,
        kinds: list[str],
        start: datetime,
        ok_pages: int,
        errors: list[str] | None = None,
        final: str = RETRYING,
        duration: timedelta | None = None,
    ) -> datetime:
        """Failed attempts of ``kinds`` (one pod each); the volume ends ``final`` (retrying or failed)."""
        v.state, v.started_at, v.ok_pages = final, start, ok_pages
        moment = start
        for number, kind in enumerate(kinds):
            last = final == FAILED and number == len(kinds) - 1
            error = (errors or [None] * len(kinds))[number]
            created = moment - timedelta(seconds=5)
            moment = moment + (duration or timedelta(seconds=60 + 7 * max(ok_pages, 1)))
            add_pod(c, v, kind, created, moment, detail=error or "")
            v.failures.append(_failure_entry(kind, v, error, last))
            moment += timedelta(seconds=12)
        v.failure = kinds[-1]
        v.updated_at = moment - timedelta(seconds=12)
        v.finished_at = v.updated_at if final == FAILED else None
        return moment


def _failure_entry(kind: str, volume: Volume, error: str | None, last: bool) -> tuple:
    """(stage, error, outcome) for the run log of one failed attempt."""
    if kind == "setup_404":
        return ("setup", error or setup_error(volume), "permanent")
    if kind == "load":
        return ("load", error or NOT_IN_CACHE_ERROR, "transient-last" if last else "transient")
    if kind in ("stream", "stream_last"):
        return ("stream", error or stream_error(volume), "transient-last" if last else "transient")
    if kind == "verify":
        return ("verify", error, "transient-last" if last else "transient")
    if kind in ("sigterm", "deadline"):
        return ("stream", "SIGTERM", "transient-last" if last else "transient")
    return ("stream", None, "running")  # killed (OOM, eviction): the log just stops


# --- the campaigns ---------------------------------------------------------------------------


def _parish(b: _Builder) -> tuple[Campaign, dict]:
    """Running, 40 volumes: done, failed (setup, last attempt, verify), retrying in every way, active, pending."""
    now = b.now
    ids = b.ids("C00745", 12, 40)
    ids[14] = "bouppteckning-1871"
    pages = b.pages("parish-records-1870", 40, 4, 9)
    pages[20] = 46
    pages[23] = 30
    for index, count in ((18, 14), (19, 10), (21, 12), (22, 8), (24, 10), (25, 8), (26, 10), (27, 14)):
        pages[index] = count  # volumes part-way through keep pages still to do
    pages[28:] = b.pages("parish-records-1870-later", 12, 16, 36)  # not started yet: no load cost
    c = Campaign(
        "parish-records-1870",
        "parish-records-1870",
        b.pipelines["swe-lines-v2"],
        now - timedelta(hours=6),
        b.volumes(ids, pages),
        parallelism=3,
        priority="htr-bulk",
        page_rate=1,
        status_phase="Running",
    )
    c.started = c.created + timedelta(seconds=5)
    v = c.volumes
    v[14].served = False
    clock = [c.started + timedelta(seconds=20 * i) for i in range(3)]

    def slot(i):
        return min(range(3), key=lambda n: clock[n])

    for index in [*range(14), 15, 16, 17]:
        n = slot(index)
        clock[n] = b.done(c, v[index], clock[n] + timedelta(seconds=8), failed_pages=[5] if index == 3 else ())
    n = slot(14)
    clock[n] = b.attempts(c, v[14], ["setup_404"], clock[n], 0, final=FAILED)
    n = slot(18)
    clock[n] = b.attempts(c, v[18], ["stream"] * 4, clock[n], 7, final=FAILED)
    verify = v[20]
    verify.missing_pages, verify.failed_pages = [12, 44], [31]
    message = verify_error(verify, verify.missing_pages)
    n = slot(20)
    clock[n] = b.attempts(c, verify, ["verify"] * 4, clock[n], 43, errors=[message] * 4, final=FAILED)
    recent = now - timedelta(minutes=25)
    b.attempts(c, v[19], ["stream"], recent, 4)
    b.attempts(c, v[21], ["oom", "oom"], recent - timedelta(minutes=6), 6)
    b.attempts(c, v[22], ["evicted"], recent + timedelta(minutes=3), 3)
    b.attempts(c, v[23], ["deadline"], c.started + timedelta(seconds=40), 9, duration=timedelta(seconds=k.MAX_SECONDS))
    b.attempts(c, v[24], ["sigterm"], recent + timedelta(minutes=8), 5)
    for index, ok in ((25, 2), (26, 5), (27, 8)):
        b.running(c, v[index], ok)
    c.failed_volumes_record = [{"id": v[i].id, "reason": failure_reason(v[i])} for i in (14, 18, 20)]
    interest = {
        "permanent_setup": [v[14].id],
        "transient_last_attempt": [v[18].id],
        "transient_retrying": [v[19].id],
        "verify_missing_pages": [v[20].id],
        "oom_killed": [v[21].id],
        "evicted": [v[22].id],
        "deadline_exceeded": [v[23].id],
        "sigterm": [v[24].id],
        "running_mixed": [v[25].id, v[26].id, v[27].id],
        # One done and one running volume, so the limited account meets a refusal on a live progress row too.
        "limited_denied": [v[1].id, v[2].id, v[25].id],
        "limited_allowed": [v[0].id, v[4].id],
    }
    return c, interest


def _land_surveys(b: _Builder) -> Campaign:
    """Long-running: big volumes, one at a time, so a demo always sees pages move."""
    ids = [f"lantmateri-1820-{i:02d}" for i in range(1, 7)]
    c = Campaign(
        "land-surveys-1820",
        "land-surveys-1820",
        b.pipelines["swe-lines-v2"],
        b.now - timedelta(minutes=12),
        b.volumes(ids, [640, 580, 610, 555, 600, 590]),
        parallelism=1,
        priority="htr-idle",
        page_rate=1,
    )
    c.started = c.created + timedelta(seconds=4)
    b.running(c, c.volumes[0], 14)
    return c


def _church(b: _Builder) -> Campaign:
    """Nearly finished: its end frees the quota the queued campaign waits for."""
    ids = b.ids("C00912", 10, 6)
    pages = b.pages("church-accounts-1750", 6, 4, 8)
    pages[4], pages[5] = 16, 18
    c = Campaign(
        "church-accounts-1750",
        "church-accounts-1750",
        b.pipelines["swe-lines-v2-scored"],
        b.now - timedelta(hours=2),
        b.volumes(ids, pages),
        parallelism=2,
        priority="htr-interactive",
        page_rate=1,
    )
    c.started = c.created + timedelta(seconds=3)
    clock = [c.started, c.started + timedelta(seconds=9)]
    for index in range(4):
        n = index % 2
        clock[n] = b.done(c, c.volumes[index], clock[n] + timedelta(seconds=6))
    b.running(c, c.volumes[4], 8)
    b.running(c, c.volumes[5], 11)
    return c


def _probate(b: _Builder) -> Campaign:
    """Admitted and running, but its pods wait in warmup-wait for a warm-up that has not finished."""
    ids = b.ids("C01023", 10, 6)
    c = Campaign(
        "probate-records-1910",
        "probate-records-1910",
        b.pipelines["swe-lines-v4"],
        b.now - timedelta(minutes=8),
        b.volumes(ids, b.pages("probate-records-1910", 6)),
        parallelism=2,
    )
    c.started = c.created + timedelta(seconds=2)
    b.waiting(c, c.volumes[0], c.started + timedelta(seconds=1))
    b.waiting(c, c.volumes[1], c.started + timedelta(seconds=1))
    return c


def _stalled(b: _Builder) -> Campaign:
    """Running, yet stuck: two pods have run for over an hour, no volume finished and no page was written
    since a few minutes after the start (a hung pipeline, or a store that accepts nothing). The simulator
    leaves it as it is; it holds no GPU quota, so the other campaigns' queue stays as it was."""
    ids = b.ids("C00802", 10, 8)
    c = Campaign(
        "county-court-minutes-1850",
        "county-court-minutes-1850",
        b.pipelines["swe-lines-v2"],
        b.now - timedelta(hours=1, minutes=20),
        b.volumes(ids, b.pages("county-court-minutes-1850", 8, 30, 40)),
        parallelism=2,
        gpus_per_pod=0,
        stuck=True,
    )
    c.started = c.created + timedelta(seconds=4)
    for number, volume in enumerate(c.volumes[:2]):
        volume.state = RUNNING
        volume.ok_pages = 9 + 3 * number
        volume.started_at = c.started + timedelta(seconds=20 + 10 * number)
        volume.updated_at = volume.started_at + timedelta(minutes=6 + number)
        add_pod(c, volume, "running", volume.started_at - timedelta(seconds=5))
    return c


def _queued(b: _Builder, name: str, ids: list[str], created: datetime, **options) -> Campaign:
    c = Campaign(
        name,
        name,
        b.pipelines["swe-lines-v2"],
        created,
        b.volumes(ids, b.pages(name, len(ids), 12, 30)),
        suspended=True,
        **options,
    )
    return c


def _paused_after_some(b: _Builder) -> Campaign:
    ids = b.ids("C00576", 40, 10)
    c = Campaign(
        "guild-books-1760",
        "guild-books-1760",
        b.pipelines["swe-lines-v2"],
        b.now - timedelta(days=2),
        b.volumes(ids, b.pages("guild-books-1760", 10)),
        parallelism=2,
        suspended=True,
        workload_state="paused",
        priority="htr-idle",
    )
    c.started = c.created + timedelta(seconds=4)
    clock = [c.started, c.started + timedelta(seconds=11)]
    for index in range(3):
        n = index % 2
        clock[n] = b.done(c, c.volumes[index], clock[n] + timedelta(seconds=6))
    c.paused_at = max(clock) + timedelta(minutes=2)
    # The two volumes that were running when the pause came: their pods are gone, their results stay.
    for index, ok in ((3, 2), (4, 1)):
        volume = c.volumes[index]
        volume.started_at = c.paused_at - timedelta(seconds=30 + 7 * ok)
        volume.updated_at = c.paused_at
        volume.ok_pages = ok
        volume.failures.append(("stream", "SIGTERM", "transient"))
    return c


def _finished(
    b: _Builder,
    name: str,
    pipeline: str,
    ids: list[str],
    created: datetime,
    pages: list[int],
    failed_pages: dict | None = None,
    failures: dict | None = None,
    campaign: str | None = None,
    images_form: tuple = (),
    old_log: tuple = (),
) -> Campaign:
    """A campaign whose Job has ended: every volume done unless ``failures`` names its attempts."""
    c = Campaign(
        name,
        campaign or name,
        b.pipelines[pipeline],
        created,
        b.volumes(ids, pages),
        parallelism=2,
        workload_state="finished",
    )
    for index in images_form:
        volume = c.volumes[index]
        volume.image_urls = [cj.page_image_url(b.where.image_base, volume.id, n) for n in range(1, volume.pages + 1)]
        volume.source = "images:" + " ".join(volume.image_urls)
    for index in old_log:
        c.volumes[index].old_log_key = True
    c.started = created + timedelta(seconds=6)
    clock = [c.started, c.started + timedelta(seconds=13)]
    for volume in c.volumes:
        n = 0 if clock[0] <= clock[1] else 1
        kinds = (failures or {}).get(volume.index)
        if kinds:
            ok = volume.pages // 2 if kinds[0] != "setup_404" else 0
            clock[n] = b.attempts(c, volume, kinds, clock[n] + timedelta(seconds=6), ok, final=FAILED)
        else:
            clock[n] = b.done(c, volume, clock[n] + timedelta(seconds=6), (failed_pages or {}).get(volume.index, ()))
    c.finished = max(clock) + timedelta(seconds=3)
    failed = [v for v in c.volumes if v.state == FAILED]
    done = [v for v in c.volumes if v.state == DONE]
    c.status_phase = "Succeeded" if not failed else ("PartiallyFailed" if done else "Failed")
    c.failed_volumes_record = [{"id": v.id, "reason": failure_reason(v)} for v in failed]
    return c


def _court_rolls(b: _Builder) -> Campaign:
    """Failed, nothing done: its pipeline's warm-up failed, so every warmup-wait gave up (exit 13)."""
    ids = b.ids("C00520", 10, 4)
    created = b.now - timedelta(days=1, hours=6)
    c = Campaign(
        "court-rolls-1650",
        "court-rolls-1650",
        b.pipelines["swe-lines-v3"],
        created,
        b.volumes(ids, b.pages("court-rolls-1650", 4)),
        parallelism=4,
        workload_state="finished",
        priority="htr-interactive",
    )
    c.started = created + timedelta(seconds=10)
    gave_up = c.started + timedelta(seconds=903)
    for volume in c.volumes:
        volume.state, volume.failure = FAILED, "warmup_wait"
        add_pod(c, volume, "warmup_wait", c.started + timedelta(seconds=1), gave_up)
    c.finished = gave_up + timedelta(seconds=1)
    c.status_phase = "Failed"
    c.failed_volumes_record = [{"id": v.id, "reason": failure_reason(v)} for v in c.volumes]
    return c


def _all_campaigns(b: _Builder) -> tuple[list[Campaign], dict[str, list[str]], dict[str, str]]:
    now = b.now
    parish, interest = _parish(b)
    long_running = _land_surveys(b)
    church = _church(b)
    probate = _probate(b)
    stalled = _stalled(b)
    queued_turn = _queued(
        b,
        "estate-inventories-1890",
        b.ids("C00884", 10, 12),
        now - timedelta(minutes=35),
        parallelism=2,
        priority=None,
        workload_state="waiting",
    )
    never_fits = _queued(
        b,
        "tithe-ledgers-1720",
        b.ids("C00661", 10, 20),
        now - timedelta(hours=3),
        parallelism=6,
        gpus_per_pod=2,
        workload_state="never_fits",
    )
    missing_priority = _queued(
        b,
        "census-1880",
        b.ids("C01105", 10, 8),
        now - timedelta(minutes=50),
        priority="htr-urgent",
        workload_state=None,
    )
    paused_before = _queued(
        b,
        "military-rolls-1700",
        b.ids("C00433", 10, 10),
        now - timedelta(days=1, hours=2),
        workload_state="paused",
        parallelism=2,
    )
    paused_before.paused_at = paused_before.created + timedelta(seconds=1)
    paused_after = _paused_after_some(b)
    succeeded = _finished(
        b,
        "birth-registers-1860",
        "swe-lines-v2",
        [*b.ids("C00601", 10, 4), "loose-scans-0042", "loose-scans-0043"],
        now - timedelta(days=3),
        b.pages("birth-registers-1860", 6),
        images_form=(4, 5),
        old_log=(0,),
    )
    with_failed_pages = _finished(
        b,
        "death-registers-1865",
        "swe-lines-v2",
        b.ids("C00603", 10, 5),
        now - timedelta(days=2, hours=4),
        b.pages("death-registers-1865", 5, 6, 9),
        failed_pages={1: [3], 3: [2, 5]},
    )
    partially = _finished(
        b,
        "notarial-deeds-1840",
        "swe-lines-v2",
        b.ids("C00718", 10, 6),
        now - timedelta(days=4),
        b.pages("notarial-deeds-1840", 6),
        failures={4: ["oom"] * 4},
    )
    failed = _court_rolls(b)
    split_one = _finished(
        b,
        "poll-tax-1810-part1",
        "swe-lines-v2",
        b.ids("C00790", 10, 4),
        now - timedelta(hours=10),
        b.pages("poll-tax-1810-1", 4),
        campaign="poll-tax-1810",
    )
    split_two = Campaign(
        "poll-tax-1810-part2",
        "poll-tax-1810",
        b.pipelines["swe-lines-v2"],
        split_one.created,
        b.volumes(b.ids("C00790", 14, 6), b.pages("poll-tax-1810-2", 6, 6, 20)),
        parallelism=2,
        page_rate=1,
    )
    split_two.started = split_two.created + timedelta(seconds=7)
    clock = split_two.started + timedelta(seconds=5)
    for index in (0, 1):
        clock = b.done(split_two, split_two.volumes[index], clock + timedelta(seconds=6))
    b.running(split_two, split_two.volumes[2], 9)
    b.running(split_two, split_two.volumes[3], 3)
    gone = _finished(
        b,
        "land-registry-1780",
        "swe-lines-v2",
        b.ids("C00401", 10, 4),
        now - timedelta(days=9),
        b.pages("land-registry-1780", 4),
    )
    gone_failed = _finished(
        b,
        "county-tax-1790",
        "swe-lines-v2",
        b.ids("C00451", 10, 5),
        now - timedelta(days=10, hours=3),
        b.pages("county-tax-1790", 5),
        failures={2: ["setup_404"], 4: ["stream"] * 4},
    )
    gone_failed.volumes[2].served = False
    for campaign in (gone, gone_failed):
        campaign.job_gone = True
    by_cause, cause_volumes, cause_situations = causes.campaigns(b)
    campaigns = [
        parish,
        long_running,
        church,
        probate,
        stalled,
        split_two,
        queued_turn,
        never_fits,
        missing_priority,
        paused_before,
        paused_after,
        succeeded,
        with_failed_pages,
        partially,
        failed,
        split_one,
        gone,
        gone_failed,
        *by_cause,
    ]
    # The queued campaign asks for what is left after the admitted ones take their share.
    used = sum(c.gpus for c in campaigns if c.holds_quota)
    queued_turn.gpus_short = max(queued_turn.gpus - (k.GPU_QUOTA - used), 1)
    interest.update(
        {
            "long_running": [long_running.volumes[0].id],
            "warmup_pending": [probate.volumes[0].id, probate.volumes[1].id],
            "warmup_wait_exit13": [v.id for v in failed.volumes],
            "succeeded_failed_pages": [with_failed_pages.volumes[1].id, with_failed_pages.volumes[3].id],
            "partially_failed": [partially.volumes[4].id],
            "images_form": [succeeded.volumes[4].id, succeeded.volumes[5].id],
            "old_log_key": [succeeded.volumes[0].id],
            "quality_scored": [v.id for v in church.volumes if v.state == DONE],
            "paused_after_some": [v.id for v in paused_after.volumes[:3]],
            "job_gone_partially_failed": [gone_failed.volumes[2].id, gone_failed.volumes[4].id],
            **cause_volumes,
        }
    )
    situations = {
        "running_mixed": parish.name,
        "long_running": long_running.name,
        "finishing_soon": church.name,
        "warmup_pending": probate.name,
        "stalled": stalled.name,  # pods running, nothing finished and nothing written for over an hour
        "warmup_failed": failed.name,
        "warmup_wait_exit13": failed.name,
        "permanent_setup": parish.name,
        "transient_retrying": parish.name,
        "transient_last_attempt": parish.name,
        "verify_missing_pages": parish.name,
        "sigterm": parish.name,
        "deadline_exceeded": parish.name,
        "oom_killed": parish.name,
        "evicted": parish.name,
        "queued_turn": queued_turn.name,
        "queued_never_fits": never_fits.name,
        "queued_missing_priority": missing_priority.name,
        "paused_before_start": paused_before.name,
        "paused_after_some": paused_after.name,
        "succeeded": succeeded.name,
        "succeeded_failed_pages": with_failed_pages.name,
        "partially_failed": partially.name,
        "failed": failed.name,
        "split": "poll-tax-1810",
        "job_gone": gone.name,
        "job_gone_partially_failed": gone_failed.name,
        "images_form": succeeded.name,
        "old_log_key": succeeded.name,
        "limited_denied": parish.name,
        "quality_scored": church.name,  # its pipeline predicts quality: pages have scores
        "quality_unscored": succeeded.name,  # done volumes, no quality step: nothing about quality
        **cause_situations,  # one campaign per cause the troubleshooting guide names (scene_causes)
    }
    return campaigns, interest, situations


# --- rendering -------------------------------------------------------------------------------


def campaign_objects(campaign: Campaign, where: s.Where) -> list[dict]:
    """Everything the cluster holds for a campaign, in its current state."""
    objects = [k.campaign_record_of(campaign)]
    if campaign.status_phase:
        objects.append(
            k.status_record_of(campaign, campaign.status_phase, where.results_url, campaign.failed_volumes_record)
        )
    if campaign.job_gone:
        return objects
    objects.append(k.campaign_job_of(campaign, where.results_url))
    if campaign.workload_state:
        objects.append(k.workload_of(campaign))
    objects.extend(pod for volume in campaign.volumes for pod in volume.pods)
    return objects


def queue_objects(campaigns, created: datetime) -> list[dict]:
    """The campaigns' LocalQueue and ClusterQueue with their counts and usage, and the OCR team's pair
    (whose only flavor is tainted: what waits there waits for good)."""
    campaigns = list(campaigns)
    gpus = sum(c.gpus for c in campaigns if c.holds_quota)
    admitted = sum(1 for c in campaigns if c.holds_quota)
    pending = sum(1 for c in campaigns if c.workload_state in ("waiting", "never_fits") and not c.job_gone)
    ocr_pending = sum(1 for c in campaigns if c.workload_state == "untolerated" and not c.job_gone)
    return [
        k.cluster_queue_of(created, gpus, pending, admitted),
        k.local_queue(created=created, pending=pending, admitted=admitted),
        k.ocr_cluster_queue_of(created, ocr_pending),
        k.local_queue(k.OCR_QUEUE, created=created, pending=ocr_pending, cluster_queue=k.OCR_CLUSTER_QUEUE),
    ]


def _data_claim(job: dict) -> str:
    """The claim a Job's pods mount as the model cache (their pod-template volume `data`), or ""."""
    volumes = job.get("spec", {}).get("template", {}).get("spec", {}).get("volumes") or []
    data = next((volume for volume in volumes if volume.get("name") == "data"), {})
    return (data.get("persistentVolumeClaim") or {}).get("claimName") or ""


def cache_claims(objects: list[dict], created: datetime, pipelines=()) -> list[dict]:
    """A bound claim for each model cache the scene's Jobs mount: as the pipeline that mounts it says
    (access modes, class, made when), else ReadWriteMany and made at ``created``, before any used it."""
    names = sorted({_data_claim(obj) for obj in objects if obj.get("kind") == "Job"} - {""})
    by_claim = {pipeline.claim: pipeline for pipeline in pipelines}
    claims = []
    for name in names:
        pipeline = by_claim.get(name)
        if pipeline is None:
            claims.append(k.cache_pvc(name, created=created))
            continue
        made = pipeline.claim_created or created
        claims.append(k.cache_pvc(name, access_modes=pipeline.claim_modes, storage_class=pipeline.claim_class,
                                  created=made))
    return claims


def kueue_objects(created: datetime, down_since: datetime | None = None) -> list[dict]:
    """Kueue as installed: the empty flavor and the A100 flavor the campaigns' ClusterQueue names, a flavor
    that a taint keeps for one team's nodes (only that team's ClusterQueue names it), and its controller:
    running, or with ``down_since`` crash-looping since then (its Deployment not available), to swap in
    for the running one (same names)."""
    if down_since is not None:
        controller = [
            k.kueue_deployment(ready=False, created=created, since=down_since),
            k.kueue_controller_pod(state="crashloop", restarts=14, created=created, since=down_since),
        ]
    else:
        controller = [
            k.kueue_deployment(created=created, since=created),
            k.kueue_controller_pod(created=created, since=created),
        ]
    return [
        k.resource_flavor(k.DEFAULT_FLAVOR, created=created),
        k.resource_flavor(k.GPU_FLAVOR, node_labels={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"},
                          created=created),
        k.resource_flavor(k.TAINTED_FLAVOR, node_labels={"node-pool": "ocr"},
                          node_taints=[k.taint("dedicated", "ocr-only")], created=created),
        *controller,
    ]


def _events(campaign: Campaign) -> list[dict]:
    if campaign.job_gone:
        return []
    job = k.campaign_job_of(campaign, "")
    events = []
    if campaign.workload_state:
        workload = k.workload_of(campaign)
        name = campaign.workload_name
        events.append(
            k.event(
                job,
                "CreatedWorkload",
                f"Created Workload: {NAMESPACE}/{name}",
                campaign.created,
                "batch/job-kueue-controller",
            )
        )
        for condition in workload["status"]["conditions"]:
            if condition["type"] == "QuotaReserved" and condition["status"] == "False":
                events.append(
                    k.event(workload, "Pending", condition["message"], campaign.created, "kueue-admission", "Warning")
                )
        if campaign.started and campaign.workload_state in ("admitted", "finished", "paused"):
            events.append(
                k.event(
                    workload,
                    "QuotaReserved",
                    f"Quota reserved in ClusterQueue {k.CLUSTER_QUEUE}, wait time since queued was 1s",
                    campaign.started,
                    "kueue-admission",
                )
            )
            events.append(
                k.event(
                    job,
                    "Started",
                    f"Admitted by clusterQueue {k.CLUSTER_QUEUE}",
                    campaign.started,
                    "kueue-job-controller",
                )
            )
        if campaign.workload_state == "paused":
            events.append(
                k.event(
                    job,
                    "Stopped",
                    "The workload is deactivated",
                    campaign.paused_at or campaign.created,
                    "kueue-job-controller",
                )
            )
    for volume in campaign.volumes:
        for pod in volume.pods[-1:]:
            created = datetime.fromisoformat(pod["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
            events.append(
                k.event(job, "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}", created, "job-controller")
            )
            if pod["status"].get("reason") == "Evicted":
                events.append(
                    k.event(
                        pod, "Evicted", pod["status"]["message"], created + timedelta(minutes=3), "kubelet", "Warning"
                    )
                )
    if campaign.finished:
        failed = any(v.state == FAILED for v in campaign.volumes)
        if failed:
            events.append(
                k.event(job, "FailedIndexes", "Job has failed indexes", campaign.finished, "job-controller", "Warning")
            )
        else:
            events.append(k.event(job, "Completed", "Job completed", campaign.finished, "job-controller"))
    return events


def _cluster_objects(now: datetime, pipelines: dict[str, Pipeline]) -> tuple[list[dict], list[tuple]]:
    long_ago = now - timedelta(days=60)
    objects = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": NAMESPACE, "uid": k.stable_uid("ns", NAMESPACE), "creationTimestamp": k.iso(long_ago)},
            "status": {"phase": "Active"},
        }
    ]
    objects += [k.priority_class(name, value, long_ago) for name, value in k.PRIORITY_CLASSES.items()]
    logs = []
    for pipeline in pipelines.values():
        created = pipeline.created or now - timedelta(hours=1)
        finished = created + timedelta(minutes=1, seconds=24) if pipeline.warmup != "running" else None
        objects.append(k.pipeline_configmap_of(pipeline, created - timedelta(seconds=1)))
        job = k.warmup_job_of(pipeline, created, pipeline.warmup, finished)
        pod = k.warmup_pod_of(pipeline, created, pipeline.warmup, finished, pipeline.warmup_error)
        objects += [job, pod]
        if pipeline.warmup == "failed":
            message = job["status"]["conditions"][-1]["message"]
            objects.append(k.event(job, "PodFailurePolicy", message, finished, "job-controller", "Warning"))
            logs.append(
                (
                    NAMESPACE,
                    pod["metadata"]["name"],
                    "warmup",
                    f"Fetching models for {pipeline.id}\nerror: {pipeline.warmup_error}\n",
                )
            )
        elif pipeline.warmup == "running":
            logs.append(
                (
                    NAMESPACE,
                    pod["metadata"]["name"],
                    "warmup",
                    f"Fetching models for {pipeline.id}\nDownloading Riksarkivet/yolov9-regions-1 (2 of 6 files)\n",
                )
            )
    return objects, logs


def build_scene(now: datetime, image_base: str, results_url: str, kueue_down: bool = False) -> Scene:
    """The whole scene for the moment ``now`` (pure: nothing is started or written); with ``kueue_down``
    Kueue's controller has been crash-looping for 20 minutes (``make demo DEMO_ARGS=--kueue-down``), which
    every campaign Kueue holds back then says instead of its own queue cause."""
    now = now.replace(microsecond=0)
    where = s.Where(NAMESPACE, results_url, image_base)
    builder = _Builder(now, where)
    campaigns, interest, situations = _all_campaigns(builder)
    scene = Scene(now, where, builder.pipelines, {c.name: c for c in campaigns}, situations, interest)
    objects, scene.pod_logs = _cluster_objects(now, builder.pipelines)
    for campaign in campaigns:
        objects += campaign_objects(campaign, where)
        objects += _events(campaign)
        for volume in campaign.volumes:
            scene.files.update(s.volume_files(where_of(where, campaign), campaign, volume))
            if volume.served:
                scene.image_volumes[volume.id] = volume.pages
            for pod in volume.pods:
                init = pod["status"]["initContainerStatuses"][0]
                message = init["state"].get("terminated", {}).get("message")
                if init["state"].get("running"):
                    message = "waiting for the warm-up marker\n" * 3
                if message:
                    scene.pod_logs.append((NAMESPACE, pod["metadata"]["name"], "warmup-wait", message))
    objects += queue_objects(campaigns, now - timedelta(days=60))
    objects += cache_claims(objects, now - timedelta(days=60), builder.pipelines.values())
    objects += kueue_objects(now - timedelta(days=60), down_since=now - timedelta(minutes=20) if kueue_down else None)
    scene.objects = objects
    parish = scene.campaigns[situations["limited_denied"]]
    for volume_id in interest["limited_denied"]:
        volume = parish.volume(volume_id)
        scene.denied_prefixes += [s.prefix(where, parish, volume), s.log_key(where, parish, volume)]
    return scene


def load_scene(scene: Scene, kube, store, images=None, workers: int = 8) -> None:
    """Put the scene into the running doubles: cluster objects, bucket objects, denials, images."""
    for obj in scene.objects:
        kube.put(obj)
    for namespace, pod, container, text in scene.pod_logs:
        kube.add_pod_log(namespace, pod, container, text)
    # Text files go straight into the store's memory in one command (a signed PUT each took seconds
    # for the scene's 1 250 files); anything that is not UTF-8 text is written through the API. Page
    # files are made once per machine (scene_store.pages_made_once).
    texts, others = [], []
    with s.pages_made_once():
        for key, (content, content_type) in scene.files.items():
            data = s.body(content)
            try:
                texts.append((key, data.decode("utf-8"), content_type))
            except UnicodeDecodeError:
                others.append((key, data, content_type))
    store.put_many(texts)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda item: store.put(*item), others))
    if scene.denied_prefixes:
        store.deny_limited(*scene.denied_prefixes)
    if images is not None:
        for volume_id, pages in scene.image_volumes.items():
            images.register_volume(volume_id, pages)


__all__ = [
    "Scene",
    "build_scene",
    "load_scene",
    "campaign_objects",
    "queue_objects",
    "cache_claims",
    "kueue_objects",
    "failure_reason",
    "where_of",
]
