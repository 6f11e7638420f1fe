"""Predicted quality: parsing a volume's block, adding up a campaign, and what the card and campaign page say."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from urllib.parse import unquote

import pytest

from campaigns.domain import quality
from campaigns.models import Campaign, Progress, Step, Volume
from campaigns.store.progress import VolumeProgress
from campaigns.templatetags.campaign_text import quality_coverage
from core.quality import VolumeQuality, band, volume_quality
from devstack.kube_samples import PIPELINE_YAML_V2, pipeline_configmap
from tests.campaigns.cluster.test_kube import NS, campaign_pod
from tests.campaigns.web.test_views import add_campaign, page_text, prepared_cluster

QUALITY_STEP_YAML = PIPELINE_YAML_V2 + (
    "- step: QualityPrediction\n  settings:\n    model_settings:\n"
    "      model: Riksarkivet/htr-quality-estimator-1\n      revision: 5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928\n"
)
NOW = datetime(2026, 9, 24, 9, 0, tzinfo=UTC)


def block(mean, scored, lowest, **extra):
    return {
        "mean": mean,
        "min": min((q for _, q in lowest), default=mean),
        "scored": scored,
        "model": "Riksarkivet/htr-quality-estimator-1",
        "revision": "5b4a3928",
        "lowest": [{"page": page, "quality": q, "canvas": f"https://iiif.example.se/c/{page}"} for page, q in lowest],
        **extra,
    }


# --- parsing a volume's block ---------------------------------------------------------------------


def test_a_volume_block_is_read_with_its_lowest_pages_lowest_first():
    parsed = volume_quality(block(0.9, 30, [("0012", 0.66), ("0007", 0.41)], target="bow_f1"))
    assert (parsed.mean, parsed.min, parsed.scored, parsed.target) == (0.9, 0.41, 30, "bow_f1")
    assert [(p.page, p.quality) for p in parsed.lowest] == [("0007", 0.41), ("0012", 0.66)]
    assert parsed.as_api()["lowest"][0] == {"page": "0007", "quality": 0.41, "canvas": "https://iiif.example.se/c/0007"}


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "0.9",
        [],
        {},
        {"mean": 7},
        {"mean": float("nan")},
        {"mean": True},
        {"lowest": [{"page": "x", "quality": 1}]},
    ],
)
def test_a_block_without_a_usable_score_is_no_quality(raw):
    assert volume_quality(raw) is None


def test_odd_entries_are_left_out_and_a_bare_number_is_a_mean():
    raw = {
        "mean": 0.8,
        "scored": -3,
        "lowest": [
            {"page": "../../x", "quality": 0.1},
            {"page": "0003", "quality": 2},
            {"page": 4, "quality": 0.5},
            "nonsense",
        ],
    }
    parsed = volume_quality(raw)
    assert [(p.page, p.quality) for p in parsed.lowest] == [("0004", 0.5)]
    assert parsed.scored == 0 and parsed.min == 0.5
    assert volume_quality(0.75) == VolumeQuality(0.75)


def test_scores_get_words_so_colour_never_speaks_alone():
    assert [band(s) for s in (0.3, 0.59, 0.6, 0.79, 0.8, 1.0, None)] == [
        "low",
        "low",
        "fair",
        "fair",
        "good",
        "good",
        "",
    ]


# --- a campaign -------------------------------------------------------------------------------------


def campaign_with(steps, scores):
    campaign = Campaign(namespace=NS, name="c", pipeline="p", pipeline_steps=steps)
    campaign.volumes = [
        Volume(index=i, id=f"V{i}", namespace=NS, pipeline="p", state="done") for i in range(len(scores))
    ]
    answers = {}
    for volume, raw in zip(campaign.volumes, scores, strict=True):
        if raw == "unread":
            continue
        answers[volume.id] = VolumeProgress(Progress(done=1, total=1, quality=volume_quality(raw)))
    return campaign, lambda v: answers.get(v.id)


def test_the_campaign_mean_is_weighted_by_scored_pages_and_its_worst_pages_come_from_every_volume():
    steps = [Step("Segmentation"), Step("qualityPREDICTION", "Riksarkivet/q", "abc")]
    many = [(f"{n:04d}", 0.5 + n / 100) for n in range(1, 6)]
    campaign, answers = campaign_with(steps, [block(0.9, 30, [("0007", 0.41)]), block(0.5, 10, many), "unread"])
    result = quality.campaign_quality(campaign, campaign.volumes, answers, link=lambda v, p: f"{v.id}#{p}")
    assert result.predicted and result.model == "Riksarkivet/q"
    assert result.mean == 0.8  # (0.9 × 30 + 0.5 × 10) / 40, not the plain mean 0.7
    assert (result.scored, result.volumes, result.counted, result.eligible) == (40, 2, 2, 3)
    assert [p.href for p in result.worst] == ["V0#0007", "V1#0001", "V1#0002", "V1#0003", "V1#0004"]
    assert len(result.pages) == 6
    assert quality_coverage(result) == "From the 2 of 3 volumes read so far; 1 not read yet."


def test_coverage_names_volumes_the_account_may_not_read_apart_from_unread_ones():
    campaign, answers = campaign_with([Step("QualityPrediction")], [block(0.9, 3, [("0001", 0.8)]), "unread", "unread"])
    refused = {"V1": VolumeProgress(None, "forbidden")}
    result = quality.campaign_quality(
        campaign, campaign.volumes, lambda v: refused.get(v.id) or answers(v), link=lambda v, p: ""
    )
    assert quality_coverage(result) == (
        "From the 1 of 3 volumes read so far; your account may not read 1 and 1 not read yet."
    )


def test_a_campaign_without_a_quality_step_or_scores_says_nothing():
    campaign, answers = campaign_with([Step("TextRecognition")], [None, "unread"])
    assert quality.campaign_quality(campaign, campaign.volumes, answers) is None


def test_scores_without_a_quality_step_still_show():
    campaign, answers = campaign_with([Step("TextRecognition")], [block(0.7, 3, [("0002", 0.6)])])
    result = quality.campaign_quality(campaign, campaign.volumes, answers, link=lambda v, p: "")
    assert not result.predicted and result.mean == 0.7 and result.model == "Riksarkivet/htr-quality-estimator-1"


def test_pages_to_check_come_a_page_at_a_time():
    lowest = [(f"{n:04d}", round(0.2 + n / 100, 3)) for n in range(1, 46)]
    campaign, answers = campaign_with([Step("QualityPrediction")], [block(0.6, 45, lowest)])
    result = quality.campaign_quality(campaign, campaign.volumes, answers, link=lambda v, p: "")
    first = quality.pages_to_check(result, None)
    assert [p.page for p in first.pages][:2] == ["0001", "0002"] and len(first.pages) == 20
    assert (first.next_offset, first.previous_offset) == (20, None)
    last = quality.pages_to_check(result, "45")  # past the end: the last page of the list
    assert (last.offset, last.first_number, last.last_number, last.next_offset) == (40, 41, 45, None)
    assert quality.pages_to_check(result, "lots").offset == 0
    assert quality.pages_to_check(None, "0") is None


# --- the card and the campaign page ------------------------------------------------------------------


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


def progress_json(**fields):
    record = {"stage": "done", "pages_total": 30, "pages_done": 30, "pages_failed": 0, "last_page": "0030"}
    record.update(fields)
    return json.dumps(record)


def scored_campaign(cluster, store, name="scored-one", lowest_pages=2):
    pipeline = "q-" + uuid.uuid4().hex[:8]
    cluster.put(pipeline_configmap(pipeline, QUALITY_STEP_YAML))
    add_campaign(cluster, name, volume_ids=["V1", "V2"], pipeline=pipeline, completed="0", active=1)
    cluster.put(campaign_pod(name, 1))
    worst = [("0007", 0.41), ("0012", 0.66), *((f"{n:04d}", 0.9) for n in range(20, 20 + lowest_pages - 2))]
    store.put(f"{NS}/{pipeline}/V1/progress.json", progress_json(quality=block(0.9, 30, worst)))
    store.put(
        f"{NS}/{pipeline}/V2/progress.json",
        progress_json(stage="stream", pages_done=10, quality=block(0.7, 10, [("0003", 0.52)])),
    )
    return pipeline


def card_of(html, name):
    return html[html.index(f'id="card-htr-batch--{name}"') :].split("</article>")[0]


def test_the_card_shows_the_mean_what_it_means_and_the_worst_pages_linked_to_the_alto_viewer(
    cluster, store, results_client
):
    pipeline = scored_campaign(cluster, store)
    card = card_of(page_text(results_client.get("/", {"open": "htr-batch/scored-one"})), "scored-one")
    assert "Predicted quality" in card
    figures = re.sub(r"<[^>]+>", "", re.search(r'<p class="quality-figures">(.*?)</p>', card, re.S)[1])
    assert figures == "0.85 (good) on average over 40 scored pages in 2 volumes; the lowest page scores 0.41."
    assert "A prediction by" in card and "Riksarkivet/htr-quality-estimator-1" in card and "not a measurement" in card
    links = re.findall(r'<a href="(/alto\?src=[^"]+)" class="worst-page">([^<]+)<', card)
    assert [text for _, text in links] == ["V1, page 0007", "V2, page 0003", "V1, page 0012"]
    assert unquote(links[0][0]) == f"/alto?src=/results/{NS}/{pipeline}/V1/alto/0007.xml"
    assert re.search(r"0\.41</span> <span class=\"quality-band band-low\">low</span>", card)


def test_a_card_of_a_campaign_without_a_quality_step_says_nothing_about_quality(cluster, store, results_client):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "plain-one", volume_ids=["P1"], pipeline=pipeline, completed="0")
    store.put(f"{NS}/{pipeline}/P1/progress.json", progress_json())
    card = card_of(page_text(results_client.get("/", {"open": "htr-batch/plain-one"})), "plain-one")
    assert "quality" not in card.lower()
    detail = page_text(results_client.get("/campaigns/htr-batch/plain-one"))
    assert "quality" not in detail.lower().replace("quality.css", "")
    assert "Pages to check" not in detail


def test_a_quality_step_with_nothing_scored_yet_says_so(cluster, results_client):
    pipeline = "q-" + uuid.uuid4().hex[:8]
    cluster.put(pipeline_configmap(pipeline, QUALITY_STEP_YAML))
    add_campaign(cluster, "not-yet", volume_ids=["N1"], pipeline=pipeline, active=1)
    cluster.put(campaign_pod("not-yet", 0))
    card = card_of(page_text(results_client.get("/", {"open": "htr-batch/not-yet"})), "not-yet")
    assert "No page of this campaign has a score yet among the volumes read so far" in card


def test_the_campaign_page_lists_pages_to_check_by_quality_in_pages_and_quality_per_volume(
    cluster, store, results_client
):
    scored_campaign(cluster, store, lowest_pages=30)
    html = page_text(results_client.get("/campaigns/htr-batch/scored-one"))
    section = html[html.index('id="pages-to-check"') :].split("</section>")[0]
    rows = re.findall(
        r"<td class=\"mono\">(\w+)</td>\s*<th scope=\"row\"><a href=\"/alto\?[^\"]+\">Page (\d+)", section
    )
    assert rows[:3] == [("V1", "0007"), ("V2", "0003"), ("V1", "0012")]
    assert len(rows) == 20 and "showing 1 to 20" in section and "31 pages" in section
    more = re.search(r'href="\?check=(\d+)#pages-to-check">More pages to check', section)
    assert more and more[1] == "20"
    second = page_text(results_client.get("/campaigns/htr-batch/scored-one", {"check": "20"}))
    section = second[second.index('id="pages-to-check"') :].split("</section>")[0]
    assert "showing 21 to 31" in section and "Previous pages to check" in section and "More pages" not in section
    volume_rows = html[html.index('id="volume-rows"') :]
    assert re.search(
        r"Predicted quality <strong class=\"score\">0\.90</strong>.*?over 30 pages, lowest 0\.41", volume_rows
    )
