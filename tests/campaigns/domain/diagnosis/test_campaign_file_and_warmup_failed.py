"""Causes written in the campaign's or pipeline's own file, and a failed warm-up named by what its error says,
built from the contract's samples (tests/fixtures/samples/)."""

from __future__ import annotations

from datetime import UTC, datetime

from campaigns.domain.diagnosis.campaign_file import missing_priority_class, paused
from campaigns.domain.diagnosis.warmup_failed import warmup_failed
from campaigns.domain.projection.index import build_index
from campaigns.domain.projection.warmup import project_warmup
from campaigns.models import Snapshot, Step
from campaigns.models.findings import AUTHOR, NOT_READ, OPERATOR, Command, Fact
from campaigns.wording.findings import finding_sentence, tone
from core.contract import LABEL_PRIORITY_CLASS
from tests.campaigns.domain.diagnosis import samples as s

APPLY = Command("campaigns.apply", ("htrflow-campaigns", "apply"))


def _queued() -> tuple[dict, dict]:
    job, workload = s.load("campaign-job-queued.yaml")
    return job, workload


def test_paused_in_git_is_the_authors_and_names_the_file_to_edit():
    job, workload = _queued()
    workload["spec"]["active"] = False
    workload["status"]["conditions"].append(
        {"type": "Evicted", "status": "True", "reason": "Deactivated", "lastTransitionTime": "2026-09-24T09:00:00Z"}
    )

    finding = paused("htr-batch", job, workload)

    assert finding.code == "queue.paused" and finding.actor == AUTHOR
    assert Fact("Workload/job-estate-inventories-1890-4b7c1", "spec.active", False) in finding.evidence
    assert Fact("Workload/job-estate-inventories-1890-4b7c1", "status.conditions[Evicted].reason", "Deactivated") in (
        finding.evidence
    )
    assert finding.since == datetime(2026, 9, 24, 9, 0, tzinfo=UTC)
    assert finding.fix[0].change == (
        ("file", "campaigns/estate-inventories-1890.yaml"),
        ("key", "suspend"),
        ("value", False),
    )
    assert finding.fix[1] == APPLY
    said = finding_sentence(finding)
    assert "paused in its campaign file" in said.text and "campaigns/estate-inventories-1890.yaml" in said.text
    assert "the person who wrote the campaign" in said.text
    assert tone(finding) == "idle"  # chosen by someone, not a fault


def test_an_active_workload_is_not_paused():
    job, workload = _queued()
    assert paused("htr-batch", job, workload) is None
    assert paused("htr-batch", job, None) is None


def test_a_priority_class_the_cluster_lacks_names_the_ones_it_has():
    job, _ = _queued()
    job["metadata"]["labels"][LABEL_PRIORITY_CLASS] = "htr-urgent"

    finding = missing_priority_class("htr-batch", job, ["htr-interactive", "htr-bulk", "htr-idle"], [])

    assert finding.code == "queue.no_priority_class" and finding.actor == AUTHOR
    assert finding.evidence == (
        Fact("Job/estate-inventories-1890", f"metadata.labels[{LABEL_PRIORITY_CLASS}]", "htr-urgent"),
        Fact("WorkloadPriorityClasses", "metadata.name", ("htr-bulk", "htr-idle", "htr-interactive")),
    )
    said = finding_sentence(finding)
    assert "htr-urgent does not exist on this cluster, which has htr-bulk, htr-idle, htr-interactive" in said.text
    assert "in campaigns/estate-inventories-1890.yaml set `priority` to one of htr-bulk, htr-idle" in said.detail
    assert missing_priority_class("htr-batch", job, ["htr-urgent"], []) is None


def test_a_missing_priority_class_read_from_an_event_says_the_classes_were_not_read():
    job, _ = _queued()
    job["metadata"]["labels"][LABEL_PRIORITY_CLASS] = "htr-urgent"
    event = {
        "metadata": {"name": "estate-inventories-1890.17f"},
        "involvedObject": {"kind": "Job", "name": "estate-inventories-1890"},
        "message": 'workloadPriorityClass "htr-urgent" not found',
    }

    finding = missing_priority_class("htr-batch", job, None, [event])

    assert finding.not_read == (Fact("WorkloadPriorityClasses", "metadata.name", "not_readable"),)
    assert Fact("Event/estate-inventories-1890.17f", "message", 'workloadPriorityClass "htr-urgent" not found') in (
        finding.evidence
    )
    said = finding_sentence(finding)
    assert "which has" not in said.text and "choose a priority the cluster has" in said.text
    assert missing_priority_class("htr-batch", job, None, []) is None  # nothing says so: no finding
    assert NOT_READ == "not_read"


def _failed_warmup(pod_message: str | None = None) -> tuple[dict, object]:
    job, pod = s.load("warmup-job-failed.yaml")
    if pod_message is not None:
        pod["status"]["containerStatuses"][0]["state"]["terminated"]["message"] = pod_message
    snapshot = Snapshot(namespace="htr-batch", warmup_jobs=[job], pods=[pod])
    warmup = project_warmup(snapshot, build_index(snapshot), "swe-lines-v3")
    return job, warmup.reason


def test_a_warmup_that_failed_on_a_model_the_hub_lacks_is_the_pipeline_authors():
    job, reason = _failed_warmup()
    steps = [Step("htr", model="Riksarkivet/trocr-base-handwritten-hist-swe-9", revision="5e4d3c2b")]

    finding = warmup_failed("htr-batch", "swe-lines-v3", job, reason, steps)

    assert finding.code == "warmup.failed" and finding.actor == AUTHOR
    assert finding.value("model") == "Riksarkivet/trocr-base-handwritten-hist-swe-9"
    assert finding.value("revision") == "5e4d3c2b1a0f9e8d7c6b5a49382716051f4e3d2c"
    assert (
        Fact("Job/htr-warmup-swe-lines-v3", "status.conditions[Failed].reason", "PodFailurePolicy") in finding.evidence
    )
    pod_said = "status.containerStatuses[warmup].state.terminated.exitCode"
    assert Fact("Pod/htr-warmup-swe-lines-v3-q7k2m", pod_said, 13) in finding.evidence
    model_field = "data[pipeline.yaml].steps[0].settings.model_settings.model"
    assert Fact("ConfigMap/htr-pipeline-swe-lines-v3", model_field, steps[0].model) in finding.evidence
    assert [step.code for step in finding.fix] == ["inspect.warmup_logs", "pipeline.model", "campaigns.apply"]
    assert finding.fix[0].argv == ("kubectl", "-n", "htr-batch", "logs", "job/htr-warmup-swe-lines-v3", "--tail=50")
    said = finding_sentence(finding)
    assert "the model Riksarkivet/trocr-base-handwritten-hist-swe-9 was not found" in said.text
    assert "the person who wrote the pipeline" in said.text
    assert "exited with code 13" in said.detail and "in pipelines/swe-lines-v3.yaml correct the model" in said.detail


def test_a_warmup_that_says_its_failure_may_pass_is_an_operators_to_apply_again():
    message = '{"stage": "warmup", "permanent": false, "error": "ConnectionError: hub unreachable"}'
    job, reason = _failed_warmup(message)

    finding = warmup_failed("htr-batch", "swe-lines-v3", job, reason)

    assert finding.actor == OPERATOR and finding.value("kind") == "passing"
    assert [step.code for step in finding.fix] == ["inspect.warmup_logs", "campaigns.apply"]
    said = finding_sentence(finding)
    assert "perhaps because of a passing fault" in said.text and "an operator applies again" in said.text
    assert "{" not in said.text


def test_a_warmup_with_any_other_error_asks_an_operator_to_read_its_log():
    job, reason = _failed_warmup('{"stage": "warmup", "permanent": true, "error": "disk full"}')

    finding = warmup_failed("htr-batch", "swe-lines-v3", job, reason)

    assert finding.actor == OPERATOR and finding.value("kind") == "other"
    assert "finds the cause in the warm-up's log" in finding_sentence(finding).text


def test_a_warmup_that_has_not_failed_has_no_finding():
    job, reason = _failed_warmup()
    job["status"]["conditions"] = []
    assert warmup_failed("htr-batch", "swe-lines-v3", job, reason) is None
