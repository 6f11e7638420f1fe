"""Where a campaign publishes against the site's address, and a failure named by what its error says."""

from __future__ import annotations

import json

from campaigns.domain.diagnosis.failures import model_not_in_cache
from campaigns.domain.diagnosis.results import results_address
from campaigns.domain.projection import pipeline_steps
from campaigns.models.findings import OPERATOR, Command, Fact, Finding, Subject
from tests.campaigns.domain.diagnosis import samples as s

ENV = "spec.template.spec.containers[wrapper].env"


def _with_results_env(name: str, value: str) -> dict:
    job = s.load("campaign-job-running.yaml")
    for entry in job["spec"]["template"]["spec"]["containers"][0]["env"]:
        if entry["name"] == "RESULTS_URL":
            entry.update(name=name, value=value)
    return job


def test_results_other_address_names_both_addresses():
    job = _with_results_env("PUBLIC_RESULTS_BASE", "https://htr-old.arkiv.example.se/results/")

    finding = results_address("htr-batch", job, "https://htr.arkiv.example.se/results")

    assert finding == Finding(
        code="results.other_address",
        subject=Subject("campaign", "htr-batch", campaign="parish-records-1870"),
        actor=OPERATOR,
        values=(
            ("campaign_address", "https://htr-old.arkiv.example.se/results/"),
            ("env", "PUBLIC_RESULTS_BASE"),
            ("job", "parish-records-1870"),
            ("site_address", "https://htr.arkiv.example.se/results"),
        ),
        evidence=(
            Fact("Job/parish-records-1870", f"{ENV}[PUBLIC_RESULTS_BASE]", "https://htr-old.arkiv.example.se/results/"),
            Fact("Site/htrbrowser", "resultsUrl", "https://htr.arkiv.example.se/results"),
        ),
        fix=(
            Command(
                "converter.results_url",
                change=(
                    ("file", "converter.yaml"),
                    ("key", "results_url"),
                    ("value", "https://htr.arkiv.example.se/results"),
                ),
            ),
            Command("campaigns.apply", ("htrflow-campaigns", "apply")),
        ),
    )


def test_results_address_equal_up_to_a_trailing_slash_or_left_to_the_chart_says_nothing():
    sample = s.load("campaign-job-running.yaml")
    assert results_address("htr-batch", sample, "https://htr.arkiv.example.se/results/") is None
    assert results_address("htr-batch", _with_results_env("RESULTS_URL", ""), "https://elsewhere.example.se") is None
    # Anything but the trailing slash counts: another scheme is another address.
    other = results_address("htr-batch", sample, "http://htr.arkiv.example.se/results")
    assert other is not None and other.value("campaign_address") == "https://htr.arkiv.example.se/results"


def _steps():
    return pipeline_steps(s.load("pipeline-configmap.yaml")["data"]["pipeline.yaml"])


def _load_failure(error: str) -> str:
    """The wrapper's termination message as it writes it (json.dumps default separators)."""
    return json.dumps({"stage": "load", "permanent": False, "error": error})


MISS = (
    "LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been "
    "disabled. To enable hf.co look-ups and downloads online, set 'local_files_only' to False."
)
SUBJECT = Subject("volume", "htr-batch", campaign="parish-records-1870", volume="C0074517", pipeline="swe-lines-v2")
CONFIG_MAP = "ConfigMap/htr-pipeline-swe-lines-v2"
STEP = "data[pipeline.yaml].steps[{}].settings.model_settings"
REDO = (
    Command("warmup.delete_job", ("kubectl", "-n", "htr-batch", "delete", "job", "htr-warmup-swe-lines-v2")),
    Command("campaigns.apply", ("htrflow-campaigns", "apply")),
)


def test_model_not_in_cache_names_every_model_and_says_retries_will_not_help():
    finding = model_not_in_cache(SUBJECT, "parish-records-1870-6-x9p2w", _load_failure(MISS), _steps())

    models = (
        ("Segmentation", "Riksarkivet/yolov9-regions-1", "8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796"),
        ("Segmentation", "Riksarkivet/yolov9-lines-within-regions-1", "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"),
        (
            "TextRecognition",
            "Riksarkivet/trocr-base-handwritten-hist-swe-2",
            "0f9e8d7c6b5a49382716051f4e3d2c1b0a998877",
        ),
    )
    assert finding == Finding(
        code="model.not_in_cache",
        subject=SUBJECT,
        actor=OPERATOR,
        values=(
            ("model", "Riksarkivet/yolov9-regions-1"),
            ("models", models),
            ("pod", "parish-records-1870-6-x9p2w"),
            ("retries_help", False),
            ("revision", "8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796"),
            ("stage", "load"),
            ("warmup_job", "htr-warmup-swe-lines-v2"),
        ),
        evidence=(
            Fact("Pod/parish-records-1870-6-x9p2w", "status.containerStatuses[wrapper].state.terminated.message", MISS),
            *(
                fact
                for number, (_, model, revision) in enumerate(models)
                for fact in (
                    Fact(CONFIG_MAP, f"{STEP.format(number)}.model", model),
                    Fact(CONFIG_MAP, f"{STEP.format(number)}.revision", revision),
                )
            ),
        ),
        fix=REDO,
    )


def test_model_not_in_cache_names_the_model_the_error_names_and_nothing_for_other_errors():
    error = (
        "Riksarkivet/trocr-base-handwritten-hist-swe-2: Cannot find an appropriate cached snapshot folder for the "
        "specified revision on the local disk and outgoing traffic has been disabled."
    )

    finding = model_not_in_cache(SUBJECT, "parish-records-1870-6-x9p2w", error, _steps())

    assert finding == Finding(
        code="model.not_in_cache",
        subject=SUBJECT,
        values=(
            ("model", "Riksarkivet/trocr-base-handwritten-hist-swe-2"),
            (
                "models",
                (
                    (
                        "TextRecognition",
                        "Riksarkivet/trocr-base-handwritten-hist-swe-2",
                        "0f9e8d7c6b5a49382716051f4e3d2c1b0a998877",
                    ),
                ),
            ),
            ("pod", "parish-records-1870-6-x9p2w"),
            ("retries_help", False),
            ("revision", "0f9e8d7c6b5a49382716051f4e3d2c1b0a998877"),
            ("stage", ""),
            ("warmup_job", "htr-warmup-swe-lines-v2"),
        ),
        evidence=(
            Fact(
                "Pod/parish-records-1870-6-x9p2w", "status.containerStatuses[wrapper].state.terminated.message", error
            ),
            Fact(CONFIG_MAP, f"{STEP.format(2)}.model", "Riksarkivet/trocr-base-handwritten-hist-swe-2"),
            Fact(CONFIG_MAP, f"{STEP.format(2)}.revision", "0f9e8d7c6b5a49382716051f4e3d2c1b0a998877"),
        ),
        fix=REDO,
    )
    warmup_404 = s.load("warmup-job-failed.yaml")[1]["status"]["containerStatuses"][0]["state"]["terminated"]["message"]
    assert model_not_in_cache(SUBJECT, "htr-warmup-swe-lines-v3-q7k2m", warmup_404, _steps()) is None
