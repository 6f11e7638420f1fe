"""Wording of the queue: why a queued or paused campaign is not running."""

from __future__ import annotations

import pytest

from campaigns import models
from campaigns.models import QueueState, ResourceFit
from campaigns.wording.queue import queue_sentence


def queue(kind: str, **kwargs) -> QueueState:
    values = dict(
        kind=kind,
        workload_name="job-estate-inventories-1890-4b7c1",
        queue_name="htr-batch",
        cluster_queue="htr-batch-cq",
    )
    values.update(kwargs)
    return QueueState(**values)


def test_waiting_its_turn_says_how_many_are_ahead_and_who_holds_the_quota():
    sentence = queue_sentence(queue("waiting", ahead=3, holders=["parish-records-1870"]), "htr-batch")
    assert "3 campaigns ahead" in sentence.text
    assert "parish-records-1870" in sentence.text
    assert "by itself" in sentence.text
    assert "kubectl get clusterqueue htr-batch-cq -o yaml" in sentence.commands
    assert "1 campaign ahead" in queue_sentence(queue("waiting", ahead=1)).text


def test_never_fits_says_what_it_asks_against_the_quota_and_to_lower_window():
    fits = [ResourceFit("nvidia.com/gpu", "8", "4", False), ResourceFit("cpu", "32", "64", True)]
    sentence = queue_sentence(queue("never_fits", fits=fits))
    assert "nvidia.com/gpu 8 of quota 4" in sentence.detail  # the figures are the operator's
    assert "nvidia.com" not in sentence.text and "quota" not in sentence.text
    assert "lower `window` in the campaign file" in sentence.text
    assert "the person who wrote the campaign" in sentence.text
    assert "will not fix itself" in sentence.text


def test_missing_priority_class_names_it_and_lists_no_classes_it_did_not_read():
    text = queue_sentence(queue("no_workload_priority_class", priority_class="htr-urgent")).text
    assert "`htr-urgent`" in text and "the person who wrote the campaign" in text
    for name in ("htr-interactive", "htr-bulk", "htr-idle"):  # the finding names the classes it read
        assert name not in text


def test_kueue_silent_asks_whether_kueue_is_running():
    sentence = queue_sentence(queue("kueue_silent", workload_name=""), "htr-batch", "estate-inventories-1890")
    assert "Kueue" in sentence.text and "running" in sentence.text
    assert sentence.commands[0] == "kubectl -n kueue-system get pods"
    assert "no Workload" in sentence.detail


def test_paused_in_git_says_to_remove_suspend_and_apply():
    text = queue_sentence(queue("paused")).text
    assert "remove" in text and "`suspend: true`" in text and "applies again" in text


def test_inadmissible_quotes_kueue():
    sentence = queue_sentence(queue("inadmissible", message="ClusterQueue htr-batch-cq is inactive"))
    assert "ClusterQueue htr-batch-cq is inactive" in sentence.detail
    assert "ClusterQueue" not in sentence.text and "an operator" in sentence.text


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("no_workload_yet", "not picked it up yet"),
        ("evicted", "resumes from finished pages"),
        ("preempted", "more urgent campaign"),
        ("not_looked_at", "has not looked at it yet"),
        ("admitted", "Admitted"),
        ("something-new", "reason it waits is not known"),
    ],
)
def test_each_other_queue_reason_has_its_sentence(kind, words):
    assert words in queue_sentence(queue(kind, reason="Preempted" if kind == "evicted" else "")).text


def test_waiting_its_turn_names_the_campaigns_ahead_and_writes_parts_as_people_know_them():
    queue = models.QueueState(
        kind="waiting", ahead=2, ahead_names=["poll-tax-1810-part2", "census-1880"], holders=["land-1820-part1"]
    )
    text = queue_sentence(queue).text
    assert "2 campaigns ahead (poll-tax-1810 (part 2), census-1880)" in text
    assert "in use by land-1820 (part 1)" in text
    assert "part2" not in text
