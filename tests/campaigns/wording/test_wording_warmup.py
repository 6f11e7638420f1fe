"""Wording of the model-cache warm-up chip: each state, a failed warm-up's message, a missing marker."""

from __future__ import annotations

import pytest

from campaigns import models
from campaigns.models import VolumeReason, Warmup
from campaigns.wording.warmup import warmup_sentence
from devstack import kube_samples as o


def warmup(state: str, **kwargs) -> Warmup:
    values = dict(
        pipeline="swe-lines-v3",
        state=state,
        job_name="htr-warmup-swe-lines-v3",
        recipe_sha256=o.RECIPE_V3,
        cache_dir=f"/swe-lines-v3-{o.RECIPE_V3}/",
        marker_path="/data/warmup/swe-lines-v3.done",
    )
    values.update(kwargs)
    return Warmup(**values)


def test_failed_warmup_quotes_its_message_and_says_applying_again_replaces_it():
    reason = VolumeReason(stage="warmup", permanent=True, error=o.WARMUP_ERROR_V3)
    sentence = warmup_sentence(warmup("failed", message=o.WARMUP_ERROR_V3, reason=reason), "htr-batch")
    assert "Repository Not Found" in sentence.text
    assert "will not fix itself" in sentence.text and "apply again" in sentence.text
    assert o.RECIPE_V3 in sentence.detail and f"/swe-lines-v3-{o.RECIPE_V3}/" in sentence.detail
    assert "kubectl -n htr-batch logs job/htr-warmup-swe-lines-v3 --tail=50" in sentence.commands


def test_transiently_failed_warmup_says_it_may_pass():
    reason = VolumeReason(stage="warmup", permanent=False, error="connection reset")
    text = warmup_sentence(warmup("failed", message="connection reset", reason=reason)).text
    assert "may have been temporary" in text


def test_complete_warmup_without_a_marker_that_could_not_be_checked_says_so_and_gives_the_fix():
    """Only when the diagnosis could not compare (its objects are gone); otherwise the finding speaks."""
    sentence = warmup_sentence(warmup("succeeded", marker_missing=True), "htr-batch")
    assert "/data/warmup/swe-lines-v3.done" in sentence.text
    assert "could not be checked" in sentence.text and "Usually" not in sentence.text
    assert "kubectl -n htr-batch delete job htr-warmup-swe-lines-v3" in sentence.commands


@pytest.mark.parametrize(
    ("state", "words", "tone"),
    [
        ("succeeded", "is ready", "ok"),
        ("running", "start by themselves", "info"),
        ("pending", "has not started yet", "idle"),
        ("missing", "creates the warm-up Job htr-warmup-swe-lines-v3", "warn"),
        ("strange", "not known", "idle"),
    ],
)
def test_each_warmup_state_has_its_sentence(state, words, tone):
    sentence = warmup_sentence(warmup(state))
    assert words in sentence.text
    assert sentence.tone == tone


def test_a_failed_warm_up_message_drops_request_ids_and_ends_with_one_ellipsis():
    message = (
        "404 Client Error. (Request ID: Root=1-66f2a9c1-3b7d0e52a81f4c6d9e2b7a10) Repository Not Found for url: "
        "https://huggingface.co/api/models/Riksarkivet/trocr-9/revision/5e4d3c2b. " + "Please check the name. " * 30
    )
    warmup = models.Warmup(pipeline="swe-lines-v3", state="failed", message=message)
    text = warmup_sentence(warmup).text
    assert "Request ID" not in text and "Root=1-" not in text
    assert "404 Client Error. Repository Not Found" in text
    assert text.count("…") == 1 and "…." not in text and "(…). Volumes" in text
