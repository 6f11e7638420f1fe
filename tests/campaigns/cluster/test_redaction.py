"""A queued campaign's queue names other campaigns; a person who may not see them is told "another campaign"."""

from __future__ import annotations

from campaigns.cluster import redaction
from campaigns.cluster.reading import visible_campaigns
from campaigns.domain.projection import project
from campaigns.wording.findings import finding_sentence
from devstack import kube_samples as o
from devstack.scene_kube import cond
from results.store.access import Access
from tests.campaigns.domain.test_projection import _other_pending, one
from tests.campaigns.said import said

HIDDEN = ("parish-records-1870", "older-1880", "urgent-1900")


def queued_scene():
    earlier, earlier_load = _other_pending("older-1880", "uid-older", "2026-09-24T08:30:00Z")
    urgent, urgent_load = _other_pending("urgent-1900", "uid-urgent", "2026-09-24T08:50:00Z", priority=1000)
    return o.scene(
        jobs=[o.running_job(), o.queued_job(), earlier, urgent],
        workloads=[o.admitted_workload(), o.pending_workload(), earlier_load, urgent_load],
    )


def test_names_the_person_may_not_see_are_taken_out_of_the_queue_and_its_sentences():
    queued = one(queued_scene(), "estate-inventories-1890")
    assert "parish-records-1870" in said(queued).text  # as projected for everyone
    shown = redaction.shown([queued], redaction.job_names([queued]))[0]
    words = " ".join([said(shown).text, said(shown).detail, *said(shown).commands,
                      said(shown.queue).text, said(shown.queue).detail, *said(shown.queue).commands])
    assert not [name for name in HIDDEN if name in words]
    assert "another campaign" in said(shown.queue).text
    assert shown.queue.holders == [] and shown.queue.ahead_names == [] and shown.queue.message == ""
    assert shown.queue.ahead == 2  # a count names nobody
    assert not [name for name in HIDDEN if name in str(shown.queue.as_api())]
    assert "parish-records-1870" in said(queued).text  # the reading's own object is untouched


def test_a_person_who_sees_every_campaign_of_the_namespace_is_shown_the_names():
    projected = project(queued_scene(), o.NOW)
    shown = visible_campaigns(projected, Access(everything_under="htr-batch/"))
    assert [id(c) for c in shown] == [id(c) for c in projected]  # the reading's own objects, untouched
    queued = next(c for c in shown if c.name == "estate-inventories-1890")
    assert "parish-records-1870" in said(queued).text


def test_a_person_who_sees_only_some_is_shown_them_without_the_others_names():
    projected = project(queued_scene(), o.NOW)
    queued = next(c for c in projected if c.name == "estate-inventories-1890")
    someone = Access(readable=frozenset({queued.results_prefix}))
    # Every campaign of the scene shares one pipeline, so hide the others by their own prefixes.
    for other in projected:
        if other is not queued:
            other.results_prefix = "htr-batch/another-pipeline/"
    shown = visible_campaigns(projected, someone)
    assert [c.name for c in shown] == ["estate-inventories-1890"]
    assert "parish-records-1870" not in said(shown[0]).text


def test_a_queue_finding_shown_to_someone_who_may_not_see_every_campaign_leaves_kueues_message_out():
    message = "couldn't assign flavors to pod set main: something about job-parish-records-1870-9e4d2"
    pending = o.pending_workload(
        conditions=[cond("QuotaReserved", "False", "Inadmissible", message, at="2026-09-24T08:40:03Z")]
    )
    queued = one(o.scene(workloads=[o.admitted_workload(), pending]), "estate-inventories-1890")
    assert any(message in str(fact.value) for f in queued.findings for fact in f.evidence)  # as read
    shown = redaction.shown([queued], {"estate-inventories-1890"})[0]
    [finding] = [f for f in shown.findings if f.area == "queue"]
    assert not [fact for fact in finding.evidence if message in str(fact.value)]
    assert "parish-records-1870" not in str(finding.values) + str(finding.evidence)
    assert "not shown to you" in finding_sentence(finding).detail
    assert any(message in str(fact.value) for f in queued.findings for fact in f.evidence)  # the reading's own
