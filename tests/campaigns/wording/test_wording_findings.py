"""The words of each finding: the archivist's one plain sentence saying who acts, the operator's evidence,
what was ruled out and what was not read, and the fix's exact commands; every finding here is made by the
diagnosis's own checks on the contract's sample objects (tests/campaigns/finding_samples.py)."""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.failures import model_not_in_cache
from campaigns.domain.projection import pipeline_steps
from campaigns.models import Sentence
from campaigns.models.findings import AUTHOR, NOBODY, NOT_READ, OPERATOR, Check, Fact, Finding, Subject, values
from campaigns.wording.evidence import fill, when
from campaigns.wording.findings import FINDING_WORDS, actor_words, finding_names, finding_sentence
from tests.campaigns.domain.diagnosis import samples as s
from tests.campaigns.finding_samples import (
    EVERY,
    SAMPLES,
    exceeds_for_an_operator,
    exceeds_for_the_author,
    kueue_down,
    marker_not_found,
    not_in_cache,
    other_address,
    placement_differs,
    preempting,
    queued,
    rwo_other_node,
    untolerated_taint,
    waiting,
    waiting_for_quota,
)
from tests.campaigns.swedish_catalogue import swedish

DELETE = "kubectl -n htr-batch delete job htr-warmup-swe-lines-v3"
DELETE_ALL = "kubectl -n htr-batch delete jobs -l app=htrflow-warmup,htrflow.riksarkivet.se/managed-by=converter"
APPLY = "htrflow-campaigns apply"

# Kubernetes and quota words an archivist is not expected to know; the archivist's sentence uses none.
JARGON = re.compile(
    r"\b(pods?|pvcs?|persistentvolumeclaims?|claims?|nodes?|nodeselector|nodeaffinity|affinity|taints?|"
    r"tolerations?|tolerate[sd]?|workloads?|clusterqueues?|localqueues?|resourceflavors?|flavors?|kueue|kubectl|"
    r"namespaces?|deployments?|jobs?|configmaps?|runtimeclass\w*|readwrite\w*|quotas?|markers?|subpath|"
    r"crashloopbackoff|replicas?|init containers?|spec|status|usually)\b|[<>{}]|\w\.\w+\[",
    re.IGNORECASE,
)
WAITING = {
    "warmup.waiting",
    "queue.waiting_for_quota",
    "queue.borrowing_limit_reached",
    "queue.pending_evaluation",
    "queue.waiting_for_pods_ready",
}
WHO_ACTS = {
    NOBODY: re.compile("Nothing to do"),
    OPERATOR: re.compile("operator"),
    AUTHOR: re.compile("the person who wrote the (campaign|pipeline)", re.IGNORECASE),
}
SEP_24 = datetime(2026, 9, 24, 12, 0, tzinfo=UTC)


def test_every_code_has_words_and_a_finding_made_on_the_samples():
    assert set(FINDING_WORDS) == set(codes.ALL)
    assert [code for code in codes.ALL if code not in SAMPLES] == []


@pytest.mark.parametrize(("code", "make"), EVERY, ids=[f"{code}-{make.__name__}" for code, make in EVERY])
def test_each_finding_says_in_plain_words_what_is_wrong_and_who_acts(code, make):
    finding = make()
    assert finding.code == code

    sentence = finding_sentence(finding)

    assert sentence.text and sentence.detail
    words, names = FINDING_WORDS[code], finding_names(finding)
    assert fill(words.text, names) == sentence.text  # the code's own words, not the words for an unknown code
    assert sentence.detail.startswith(fill(words.detail, names) or "(no lead)")
    assert "{" not in sentence.text and "}" not in sentence.text  # every placeholder filled in
    assert "{" not in sentence.detail.split(" Read: ")[0]  # the operator's lead too (values read may hold braces)
    assert JARGON.search(sentence.text) is None, JARGON.search(sentence.text)
    assert WHO_ACTS[finding.actor].search(sentence.text)
    if finding.actor == NOBODY or finding.chosen:  # nothing wrong: it waits, or someone chose it (paused)
        assert sentence.tone == "idle"
    else:
        assert sentence.tone == ("warn" if code in WAITING else "bad")
    # Each command is one shell line that a shell splits back into exactly the fix's words.
    assert [shlex.split(line) for line in sentence.commands] == [list(step.argv) for step in finding.fix if step.argv]


def test_who_acts_as_a_short_label():
    assert actor_words(NOBODY) == "Nothing to do: it resolves by itself."
    assert actor_words(OPERATOR) == "An operator has to act."
    assert actor_words(AUTHOR) == "The person who wrote the campaign has to act."
    assert actor_words("someone") == "Who has to act is not known."


WARMUP = "Job/htr-warmup-swe-lines-v3"
JOB = "Job/court-rolls-1650"
PLACEMENT_EQUAL = {
    "runtimeClassName": f"runtimeClassName ({WARMUP} = nvidia, {JOB} = nvidia)",
    "nodeSelector": f"nodeSelector ({WARMUP} = none, {JOB} = none)",
    "tolerations": f"tolerations ({WARMUP} = none, {JOB} = none)",
    "nodeAffinity": f"nodeAffinity ({WARMUP} = none, {JOB} = none)",
}
SUB_PATH = f"swe-lines-v3-{s.V3_SHA}"
CLAIM_AND_DIRECTORY_EQUAL = (
    f"the cache claim ({WARMUP} = htr-test-data, {JOB} = htr-test-data); the cache directory ("
    f"{WARMUP} spec.template.spec.containers[warmup].volumeMounts[data].subPath = {SUB_PATH}, "
    f"{JOB} spec.template.spec.initContainers[warmup-wait].volumeMounts[data].subPath = {SUB_PATH})"
)


def test_placement_differs_names_the_field_and_both_values_and_what_was_ruled_out():
    assert finding_sentence(placement_differs()) == Sentence(
        "The model cache for swe-lines-v3 was filled by a warm-up that runs with other machine settings than campaign "
        "court-rolls-1650, and the campaign's volumes did not find it. An operator has to give both the same "
        "settings and fill the cache again.",
        detail="The warm-up Job htr-warmup-swe-lines-v3 and the campaign Job court-rolls-1650 differ in where their "
        "pods may run: nodeSelector: node-role.kubernetes.io/cpu=true in the warm-up, none in the campaign. "
        "Since 24 Sep 06:35 UTC. "
        f'Read: {WARMUP} spec.template.spec.nodeSelector = {{"node-role.kubernetes.io/cpu": "true"}}; '
        f"{JOB} spec.template.spec.nodeSelector = none. "
        "Ruled out (compared, and equal): "
        + "; ".join(PLACEMENT_EQUAL[f] for f in ("runtimeClassName", "tolerations", "nodeAffinity"))
        + ". What to do: give Job/htr-warmup-swe-lines-v3 the campaign's spec.template.spec.nodeSelector (none); "
        "then delete the finished warm-up Job; then apply again.",
        commands=(DELETE, APPLY),
        tone="bad",
    )


def test_rwo_other_node_names_both_nodes_and_says_a_gone_pod_was_not_read():
    assert finding_sentence(rwo_other_node()) == Sentence(
        "The model cache for swe-lines-v3 is on a disk that only one machine can use, and the volumes of campaign "
        "court-rolls-1650 ran on another machine than the one that filled it. An operator has to move the cache to a "
        "disk that all machines can share.",
        detail="The claim htr-test-data is ReadWriteOnce: the warm-up pod ran on gpu-node-02, and 1 pod of "
        "court-rolls-1650 that gave up ran on gpu-node-01. Since 24 Sep 06:35 UTC. "
        "Read: PersistentVolumeClaim/htr-test-data spec.accessModes = ReadWriteOnce; "
        "Pod/htr-warmup-swe-lines-v3-q7k2m spec.nodeName = gpu-node-02; "
        "Pod/court-rolls-1650-2-7hq4z spec.nodeName = gpu-node-01. "
        "Ruled out (compared, and equal): " + "; ".join(PLACEMENT_EQUAL.values()) + f"; {CLAIM_AND_DIRECTORY_EQUAL}. "
        "Not read: Pod/court-rolls-1650-5-b8xkq spec.nodeName (no longer there). "
        "What to do: replace PersistentVolumeClaim/htr-test-data (storage class local-path) by a claim whose "
        "spec.accessModes is ReadWriteMany, of a storage class that offers it; then delete the finished warm-up Job; "
        "then delete every warm-up Job; then apply again.",
        commands=(DELETE, DELETE_ALL, APPLY),
        tone="bad",
    )


def test_marker_missing_says_what_could_not_be_read_as_not_read_never_as_ruled_out():
    sentence = finding_sentence(marker_not_found())

    assert sentence == Sentence(
        "The model cache for swe-lines-v3 was filled, yet the volumes of campaign court-rolls-1650 did not find it, "
        "and nothing this site compared explains why. An operator has to look into it and fill the cache again.",
        detail="The pods of court-rolls-1650 did not find /data/warmup/swe-lines-v3.done on the claim htr-test-data "
        "after the warm-up Job htr-warmup-swe-lines-v3 completed; each cause this site checks came out equal or "
        "could not be read. "
        "Ruled out (compared, and equal): " + "; ".join(PLACEMENT_EQUAL.values()) + f"; {CLAIM_AND_DIRECTORY_EQUAL}. "
        "Not read: PersistentVolumeClaim/htr-test-data (this site may not read it); "
        "Pod/court-rolls-1650-2-7hq4z spec.nodeName (no longer there). "
        "What to do: delete the finished warm-up Job; then apply again.",
        commands=(DELETE, APPLY),
        tone="bad",
    )
    ruled_out = sentence.detail.split("Ruled out")[1].split("Not read")[0]
    assert "PersistentVolumeClaim" not in ruled_out and "court-rolls-1650-2-7hq4z" not in ruled_out


def test_a_check_that_could_not_be_made_is_said_as_not_compared():
    check = Check("accessModes", NOT_READ, (Fact("PersistentVolumeClaim/htr-test-data", "spec.accessModes", None),))
    finding = replace(marker_not_found(), ruled_out=(check,), not_read=())

    detail = finding_sentence(finding).detail

    assert "Ruled out" not in detail
    assert (
        "Not read: a cache only one node can mount, not compared "
        "(PersistentVolumeClaim/htr-test-data spec.accessModes = none)." in detail
    )


def test_exceeds_max_quota_asks_the_author_for_a_window_that_fits_and_words_the_file_change():
    sentence = finding_sentence(exceeds_for_the_author())

    assert (sentence.text, sentence.commands, sentence.tone) == (
        "Campaign estate-inventories-1890 can never start as written: it runs 4 volumes at once, and its queue has "
        "room for 2 at most. The person who wrote the campaign has to lower `window` to 2.",
        (APPLY,),
        "bad",
    )
    assert sentence.detail.startswith(
        "The Job estate-inventories-1890 runs 4 pods at once and asks 4 of nvidia.com/gpu in flavor default-flavor, "
        "where the queue can give at most 2; at most 2 of them fit. Since 24 Sep 08:40 UTC. Read: "
    )
    assert sentence.detail.endswith(
        "Job/estate-inventories-1890 spec.parallelism = 4. What to do: in converter.yaml set `window: 2`; then apply "
        "again."
    )
    operator = finding_sentence(exceeds_for_an_operator())
    assert operator.text == (
        "Campaign estate-inventories-1890 can never start: one of its volumes alone needs more than its queue can "
        "ever give. An operator has to give the queue more room."
    )
    assert "not one of them fits" in operator.detail
    assert "in ClusterQueue/htr-batch-cq raise the memory quota of flavor default-flavor to at least 8Gi" in (
        operator.detail
    )


def test_untolerated_taint_names_each_taint_against_its_flavor_and_kueue_running_as_ruled_out():
    message = (
        "couldn't assign flavors to pod set main: untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100, "
        "untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-a100"
    )
    workload = "Workload/job-estate-inventories-1890-4b7c1 status.conditions[QuotaReserved]"
    kueue = "Deployment/kueue-system/kueue-controller-manager"
    assert finding_sentence(untolerated_taint()) == Sentence(
        "Campaign estate-inventories-1890 cannot start: the machines its queue would give it are set aside for other "
        "work, and the campaign is not allowed on them. An operator has to allow it there.",
        detail="No flavor admits the pods of estate-inventories-1890: flavor gpu-h100 taints its nodes "
        "dedicated:NoSchedule; flavor gpu-a100 taints its nodes dedicated=ocr-only:NoSchedule; the Job's "
        "tolerations are in the evidence. Since 24 Sep 08:40 UTC. "
        f"Read: {workload}.reason = NoMatchingFlavor; {workload}.message = {message}; "
        "ResourceFlavor/gpu-h100 spec.nodeTaints = dedicated:NoSchedule; "
        "ResourceFlavor/gpu-a100 spec.nodeTaints = dedicated=ocr-only:NoSchedule; "
        "Job/estate-inventories-1890 spec.template.spec.tolerations = none. "
        f"Ruled out (compared, and equal): Kueue's controller down ({kueue} status.conditions[Available].status = "
        f"True, {kueue} status.readyReplicas = 1, {kueue} spec.replicas = 1, {kueue} "
        "status.conditions[Available].message = Deployment has minimum availability.). "
        "What to do: look at the ResourceFlavor; then in ResourceFlavor/gpu-h100 add dedicated:NoSchedule to "
        "spec.tolerations; then in ResourceFlavor/gpu-a100 add dedicated=ocr-only:NoSchedule to spec.tolerations.",
        commands=("kubectl get resourceflavor gpu-h100 -o yaml", "kubectl get resourceflavor gpu-a100 -o yaml"),
        tone="bad",
    )


def test_waiting_volumes_say_since_when_and_when_they_give_up_and_nobody_acts():
    finding = waiting()

    assert finding_sentence(finding) == Sentence(
        "Campaign court-rolls-1650 has 2 volumes waiting for the model cache to be filled; if it is not filled by "
        "24 Sep 06:50 UTC, the first of them gives up. Nothing to do: they start by themselves once it is.",
        detail="Each pod of court-rolls-1650 waits at most 30 min (read from its warm-up wait command): "
        "court-rolls-1650-2-7hq4z on gpu-node-01 since 24 Sep 06:20 UTC, gives up at 24 Sep 06:50 UTC; "
        "court-rolls-1650-3-k2j9d on gpu-node-01 since 24 Sep 06:21 UTC, gives up at 24 Sep 06:51 UTC. "
        "Since 24 Sep 06:20 UTC. "
        "Read: Job/court-rolls-1650 spec.template.spec.initContainers[warmup-wait].command = -le 1800; "
        "Pod/court-rolls-1650-2-7hq4z status.initContainerStatuses[warmup-wait].state.running.startedAt = "
        "24 Sep 06:20 UTC; "
        "Pod/court-rolls-1650-3-k2j9d status.initContainerStatuses[warmup-wait].state.running.startedAt = "
        "24 Sep 06:21 UTC.",
        tone="idle",
    )
    # Read on the same day, the times drop the date (core.times.moment), all through one function.
    assert "filled by 06:50 UTC," in finding_sentence(finding, now=SEP_24).text
    assert when(finding.since, SEP_24) == "06:20 UTC" and when(finding.since) == "24 Sep 06:20 UTC"


def test_model_not_in_cache_says_retries_will_not_help_and_names_the_model_only_when_the_error_does():
    sentence = finding_sentence(not_in_cache())

    assert sentence.text == (
        "Volume C0074517 of campaign parish-records-1870 stopped: a model of the pipeline swe-lines-v2 is not in the "
        "model cache. Trying again will not help until an operator fills the cache again."
    )
    assert sentence.commands == ("kubectl -n htr-batch delete job htr-warmup-swe-lines-v2", APPLY)
    assert sentence.detail.startswith(
        "The pod parish-records-1870-6-x9p2w says model files are not in the offline cache (models: "
        "Riksarkivet/yolov9-regions-1 at revision 8d1c2f3a4b5e6d7c8b9a0f1e2d3c4b5a69788796; "
    )
    subject = Subject("volume", "htr-batch", campaign="parish-records-1870", pipeline="swe-lines-v2")
    steps = pipeline_steps(s.load("pipeline-configmap.yaml")["data"]["pipeline.yaml"])
    named = model_not_in_cache(
        subject,
        "parish-records-1870-6-x9p2w",
        "Riksarkivet/trocr-base-handwritten-hist-swe-2: Cannot find an appropriate cached snapshot folder for the "
        "specified revision on the local disk and outgoing traffic has been disabled.",
        steps,
    )
    assert finding_sentence(named).text == (
        "A volume of campaign parish-records-1870 stopped: the model Riksarkivet/trocr-base-handwritten-hist-swe-2 "
        "is not in the model cache. Trying again will not help until an operator fills the cache again."
    )


def test_results_and_kueue_down_name_both_addresses_and_since_when():
    results = finding_sentence(other_address())
    assert results.text == (
        "Campaign parish-records-1870 publishes its results under https://htr-old.arkiv.example.se/results/, not "
        "under this site's https://htr.arkiv.example.se/results, so this site cannot open its run logs and "
        "transcriptions. An operator has to make it publish here."
    )
    assert results.detail.endswith(
        "What to do: in converter.yaml set `results_url: https://htr.arkiv.example.se/results`; then apply again."
    )
    down = finding_sentence(kueue_down())
    assert down.text == (
        "The queueing system has not been running since 24 Sep 08:01 UTC, so no waiting campaign can start. An "
        "operator has to get it running again."
    )
    assert down.detail.startswith(
        "Kueue's controller kueue-controller-manager in kueue-system has 0 of 1 replicas ready; pod "
        "kueue-controller-manager-6c9f8d7b5d-x2k4p (manager) CrashLoopBackOff after 14 restarts. "
    )
    assert down.commands == (
        "kubectl -n kueue-system logs deploy/kueue-controller-manager --tail=100",
        "kubectl -n kueue-system rollout restart deployment/kueue-controller-manager",
    )


def test_a_stopped_queue_gets_its_patch_command_quoted_for_a_shell():
    sentence = finding_sentence(queued("Suspended", "ClusterQueue htr-batch-cq is stopped"))

    assert sentence.commands == (
        """kubectl patch clusterqueue htr-batch-cq --type=merge -p '{"spec":{"stopPolicy":"None"}}'""",
    )
    assert "Not read: ClusterQueue/htr-batch-cq status.conditions[Active] (this site may not read it)." in (
        sentence.detail
    )


def test_waiting_for_quota_says_when_lower_priority_work_must_stop_first():
    assert finding_sentence(preempting()).text == (
        "Campaign estate-inventories-1890 waits its turn: its queue is full, and 2 other tasks with a lower priority "
        "must stop first to make room for it. Nothing to do: it starts by itself."
    )
    assert finding_sentence(waiting_for_quota()).tone == "idle"


def test_an_unknown_code_still_says_who_acts():
    sentence = finding_sentence(Finding("cache.something_new", Subject("campaign", "htr-batch", campaign="x")))
    assert sentence.text == "A problem was found that this site has no words for yet. An operator has to act."
    assert sentence.tone == "bad"


def test_many_waiting_pods_are_named_up_to_a_bound_and_the_rest_counted():
    finding = waiting()
    row = finding.value("waiting")[0]
    rows = tuple((f"court-rolls-1650-{n}-abcde", n, row[2], row[3], row[4]) for n in range(100))
    values = tuple((key, rows if key == "waiting" else value) for key, value in finding.values)
    started = finding.evidence[1]
    evidence = finding.evidence[:1] + tuple(replace(started, object=f"Pod/{row[0]}") for row in rows)

    detail = finding_sentence(replace(finding, values=values, evidence=evidence)).detail

    assert detail.count(", gives up at ") == 20 and "; and 80 more." in detail
    # 101 facts read (the Job's limit, then each pod's start): 40 named, 61 counted.
    assert detail.count("state.running.startedAt = ") == 39 and "; and 61 more." in detail


def test_hostile_names_stay_inert_text():
    finding = other_address()
    hostile = replace_subject(finding, campaign="{site_address}<script>")

    text = finding_sentence(hostile).text

    assert text.startswith("Campaign {site_address}<script> publishes")


def replace_subject(finding: Finding, **named) -> Finding:
    return replace(finding, subject=replace(finding.subject, **named))


# --- each derived name, said whole, in English and Swedish (issue 41) ---------------------------------------

ESTATE = Subject("campaign", "htr-batch", campaign="estate-inventories-1890")
NOON = datetime(2026, 9, 24, 12, 0, tzinfo=UTC)


@pytest.fixture
def in_swedish(tmp_path):
    with swedish(tmp_path):
        yield


def no_flavor() -> Finding:
    """Every reason a flavor does not fit at once: a taint, a label, a resource not offered, a flavor missing."""
    return Finding(
        "queue.no_matching_flavor",
        ESTATE,
        values=values(
            job="estate-inventories-1890",
            taints=(("Workload/x", "gpu-h100", "dedicated:NoSchedule"),),
            mismatches=(("gpu-a100", "gpu=a100", "gpu=h100"),),
            resources=("nvidia.com/mig",),
            missing_flavors=("gpu-l4", "gpu-t4"),
        ),
    )


def one_preempted() -> Finding:
    return Finding(
        "queue.waiting_for_quota",
        ESTATE,
        actor=NOBODY,
        values=values(
            job="estate-inventories-1890", shortfalls=(("Workload/x", "nvidia.com/gpu", "gpu-a100", "4"),), preempting=1
        ),
    )


def kueue_with(**named) -> Finding:
    return Finding(
        "kueue.down",
        Subject("campaign", "htr-batch"),
        values=values(deployment="kueue-controller-manager", kueue_namespace="kueue-system", **named),
    )


def one_waiting(limit_source: str) -> Finding:
    since, until = datetime(2026, 9, 24, 6, 20, tzinfo=UTC), datetime(2026, 9, 24, 7, 50, tzinfo=UTC)
    return Finding(
        "warmup.waiting",
        ESTATE,
        actor=NOBODY,
        values=values(
            job="court-rolls-1650",
            pods=1,
            limit_seconds=5400,
            limit_source=limit_source,
            waiting=(("court-rolls-1650-2-x", 2, "gpu-node-01", since, until),),
            first_gives_up_at=until,
        ),
        since=since,
    )


def exceeding(actor: str, window: int, parallelism: int | None) -> Finding:
    return Finding(
        "queue.exceeds_max_quota",
        ESTATE,
        actor=actor,
        values=values(
            job="estate-inventories-1890",
            window=window,
            parallelism=parallelism,
            limits=(("Workload/x", "memory", "default-flavor", "8Gi", "4Gi"),),
        ),
    )


def warmup_failed_as(kind: str, wait_seconds: int) -> Finding:
    return Finding(
        "warmup.failed",
        Subject("pipeline", "htr-batch", pipeline="swe-lines-v3"),
        values=values(kind=kind, wait_seconds=wait_seconds),
    )


def test_no_matching_flavor_lists_every_reason_each_flavor_refuses():
    assert finding_sentence(no_flavor()) == Sentence(
        "Campaign estate-inventories-1890 cannot start: none of the kinds of machine its queue offers fits it. An "
        "operator has to act.",
        detail="No flavor admits the pods of estate-inventories-1890: flavor gpu-h100 taints its nodes "
        "dedicated:NoSchedule; flavor gpu-a100 labels its nodes gpu=h100, the pods ask for gpu=a100; the "
        "ClusterQueue offers no nvidia.com/mig; no ResourceFlavor gpu-l4, gpu-t4 exists.",
        tone="bad",
    )
    only_missing = replace(no_flavor(), values=values(job="estate-inventories-1890", missing_flavors=("gpu-l4",)))
    assert finding_sentence(only_missing).detail == (
        "No flavor admits the pods of estate-inventories-1890: no ResourceFlavor gpu-l4 exists."
    )
    unknown = replace(no_flavor(), values=values(job="estate-inventories-1890"))
    assert finding_sentence(unknown).detail == (
        "Kueue found no flavor for the pods of estate-inventories-1890; its message, in the evidence, is in no "
        "format known here."
    )


def test_one_lower_priority_task_to_stop_is_counted_in_the_singular():
    assert finding_sentence(one_preempted()) == Sentence(
        "Campaign estate-inventories-1890 waits its turn: its queue is full, and 1 other task with a lower priority "
        "must stop first to make room for it. Nothing to do: it starts by itself.",
        detail="Not enough unused quota: 4 more nvidia.com/gpu in flavor gpu-a100; Kueue is preempting 1 workload to "
        "make room.",
        tone="idle",
    )


def test_kueues_replicas_and_restarts_are_counted_in_either_number():
    one_restart = kueue_with(ready_replicas=0, replicas=1, pods=(("kueue-x", "manager", "CrashLoopBackOff", 1, None),))
    assert finding_sentence(one_restart).detail == (
        "Kueue's controller kueue-controller-manager in kueue-system has 0 of 1 replicas ready; pod kueue-x (manager) "
        "CrashLoopBackOff after 1 restart."
    )
    no_container = kueue_with(pods=(("kueue-y", "", "Error", 0, None), ("kueue-z", "manager", "Error", 3, None)))
    assert finding_sentence(no_container).detail == (
        "Kueue's controller kueue-controller-manager in kueue-system has no ready pod: pod kueue-y Error after 0 "
        "restarts; pod kueue-z (manager) Error after 3 restarts."
    )
    assert finding_sentence(kueue_with(ready_replicas=1, replicas=2)).detail == (
        "Kueue's controller kueue-controller-manager in kueue-system has 1 of 2 replicas ready."
    )
    assert "replicas_ready" not in finding_names(kueue_with(ready_replicas=1))  # half the count is not said


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("command", "read from its warm-up wait command"),
        ("args", "read from its warm-up wait arguments"),
        ("env", "read from its warm-up wait environment"),
        ("message", "read from a pod's exit message"),
        ("default", "no limit was found in the Job: the default"),
        ("somewhere-new", "no limit was found in the Job: the default"),
        (None, "no limit was found in the Job: the default"),
    ],
)
def test_one_waiting_volume_is_counted_and_its_limit_said_with_where_it_was_read(source, where):
    assert finding_sentence(one_waiting(source), now=NOON) == Sentence(
        "Campaign estate-inventories-1890 has 1 volume waiting for the model cache to be filled; if it is not filled "
        "by 07:50 UTC, the first of them gives up. Nothing to do: they start by themselves once it is.",
        detail=f"Each pod of court-rolls-1650 waits at most 1 h 30 min ({where}): court-rolls-1650-2-x on "
        "gpu-node-01 since 06:20 UTC, gives up at 07:50 UTC. Since 06:20 UTC.",
        tone="idle",
    )


def test_the_operators_account_says_its_times_as_of_the_moment_read():
    detail = finding_sentence(waiting(), now=SEP_24).detail
    assert "Read: Job/court-rolls-1650 spec.template.spec.initContainers[warmup-wait].command = -le 1800; " in detail
    assert "status.initContainerStatuses[warmup-wait].state.running.startedAt = 06:20 UTC; " in detail
    assert "24 Sep" not in detail
    assert "startedAt = 24 Sep 06:20 UTC; " in finding_sentence(waiting()).detail


@pytest.mark.parametrize(
    ("finding", "text", "detail"),
    [
        (
            exceeding(OPERATOR, 0, 1),
            "Campaign estate-inventories-1890 can never start: one of its volumes alone needs more than its queue can "
            "ever give. An operator has to give the queue more room.",
            "The Job estate-inventories-1890 runs 1 pod at once and asks 8Gi of memory in flavor default-flavor, where "
            "the queue can give at most 4Gi; not one of them fits.",
        ),
        (
            exceeding(AUTHOR, 0, 0),
            "Campaign estate-inventories-1890 can never start as written: it runs too many volumes at once, more than "
            "its queue can ever hold. The person who wrote the campaign has to lower `window`.",
            "The Job estate-inventories-1890 runs 0 pods at once and asks 8Gi of memory in flavor default-flavor, "
            "where the queue can give at most 4Gi; not one of them fits.",
        ),
        (
            exceeding(AUTHOR, 1, 3),
            "Campaign estate-inventories-1890 can never start as written: it runs 3 volumes at once, and its queue has "
            "room for 1 at most. The person who wrote the campaign has to lower `window` to 1.",
            "The Job estate-inventories-1890 runs 3 pods at once and asks 8Gi of memory in flavor default-flavor, "
            "where the queue can give at most 4Gi; at most 1 of them fit.",
        ),
        (
            exceeding(AUTHOR, 2, 1),
            "Campaign estate-inventories-1890 can never start as written: it runs 1 volume at once, and its queue has "
            "room for 2 at most. The person who wrote the campaign has to lower `window` to 2.",
            "The Job estate-inventories-1890 runs 1 pod at once and asks 8Gi of memory in flavor default-flavor, "
            "where the queue can give at most 4Gi; at most 2 of them fit.",
        ),
    ],
)
def test_exceeds_says_how_many_run_and_how_many_fit_to_whoever_acts(finding, text, detail):
    assert finding_sentence(finding) == Sentence(text, detail=detail, tone="bad")


@pytest.mark.parametrize(
    ("kind", "wait", "text"),
    [
        (
            "passing",
            900,
            "The model cache for swe-lines-v3 could not be filled, perhaps because of a passing fault. Its volumes "
            "cannot start (each waits for it 15 min and then gives up) until an operator applies again, which tries "
            "once more.",
        ),
        (
            "other",
            3600,
            "The model cache for swe-lines-v3 could not be filled. Its volumes cannot start (each waits for it 1 h "
            "and then gives up) until an operator finds the cause in the warm-up's log, fixes it and applies again.",
        ),
        (
            "other",
            0,
            "The model cache for swe-lines-v3 could not be filled. Its volumes cannot start until an operator finds "
            "the cause in the warm-up's log, fixes it and applies again.",
        ),
    ],
)
def test_a_failed_warmup_is_said_by_what_its_error_says_with_how_long_volumes_wait(kind, wait, text):
    assert finding_sentence(warmup_failed_as(kind, wait)).text == text


def test_a_campaign_is_named_by_its_subject_else_its_job_else_the_campaign_job():
    def named(subject_campaign: str, **found) -> str:
        finding = Finding(
            "results.other_address", Subject("campaign", "htr-batch", campaign=subject_campaign), values=values(**found)
        )
        return finding_names(finding)["campaign"]

    assert named("census-1880", job="land-1820", campaign_job="poll-tax-1810") == "census-1880"
    assert named("", job="land-1820-part3", campaign_job="poll-tax-1810") == "land-1820 (part 3)"
    assert named("", campaign_job="poll-tax-1810-part2") == "poll-tax-1810 (part 2)"
    assert named("") == "(unnamed)"


def test_in_swedish_each_count_and_chosen_word_is_the_catalogues(in_swedish):
    assert finding_sentence(exceeding(OPERATOR, 0, 1)).detail == (
        "Job estate-inventories-1890 kör 1 pod samtidigt och begär 8Gi memory i ResourceFlavor default-flavor, där kön "
        "kan ge högst 4Gi; inte en enda av dem får plats."
    )
    assert finding_sentence(exceeding(AUTHOR, 0, 0)).text == (
        "Kampanjen estate-inventories-1890 kan aldrig starta som den är skriven: den kör för många volymer samtidigt, "
        "fler än dess kö någonsin rymmer. Den som skrev kampanjen måste sänka `window`."
    )
    one_restart = kueue_with(ready_replicas=0, replicas=1, pods=(("kueue-x", "manager", "CrashLoopBackOff", 1, None),))
    assert finding_sentence(one_restart).detail == (
        "Kueue-kontrollern kueue-controller-manager i namnrymden kueue-system har 0 av 1 replik redo; podden kueue-x "
        "(manager) CrashLoopBackOff efter 1 omstart."
    )
    assert finding_sentence(kueue_with(ready_replicas=1, replicas=2)).detail == (
        "Kueue-kontrollern kueue-controller-manager i namnrymden kueue-system har 1 av 2 repliker redo."
    )
    assert finding_sentence(one_preempted()) == Sentence(
        "Kampanjen estate-inventories-1890 väntar på sin tur: dess kö är full, och 1 annan uppgift med lägre "
        "prioritet måste stoppas först för att ge plats åt den. Inget att göra: den startar av sig själv.",
        detail="Inte tillräckligt med ledig kvot: ytterligare 4 nvidia.com/gpu i ResourceFlavor gpu-a100; Kueue "
        "tränger undan 1 Workload-objekt för att göra plats.",
        tone="idle",
    )
    assert finding_sentence(one_waiting("somewhere-new"), now=NOON) == Sentence(
        "Kampanjen estate-inventories-1890 har 1 volym som väntar på att modellcachen ska fyllas; om den inte är "
        "fylld senast 07:50 UTC ger den första av dem upp. Inget att göra: de startar av sig själva när den är fylld.",
        detail="Varje pod i court-rolls-1650 väntar högst 1 h 30 min (ingen gräns hittades i Job-objektet: "
        "standardvärdet): court-rolls-1650-2-x på gpu-node-01 sedan 06:20 UTC, ger upp 07:50 UTC. Sedan 06:20 UTC.",
        tone="idle",
    )
    assert finding_sentence(no_flavor()).detail == (
        "Ingen ResourceFlavor släpper in poddarna i estate-inventories-1890: ResourceFlavor gpu-h100 sätter taint "
        "dedicated:NoSchedule på sina noder; ResourceFlavor gpu-a100 märker sina noder med gpu=h100, poddarna "
        "begär gpu=a100; ClusterQueue erbjuder inte nvidia.com/mig; ingen ResourceFlavor gpu-l4, gpu-t4 finns."
    )
    assert actor_words(AUTHOR) == "Den som skrev kampanjen måste åtgärda det."


def test_node_affinity_says_each_flavors_labels_against_what_the_pods_ask_for():
    mismatched = Finding(
        "queue.node_affinity",
        ESTATE,
        values=values(
            job="estate-inventories-1890",
            mismatches=(("gpu-a100", "gpu=a100", "gpu=h100"), ("cpu-only", "gpu=a100", "")),
            affinity_flavors=("gpu-a100", "cpu-only"),
        ),
    )
    assert finding_sentence(mismatched) == Sentence(
        "Campaign estate-inventories-1890 cannot start: it asks for a kind of machine its queue does not have. An "
        "operator has to make the two agree.",
        detail="No flavor admits the pods of estate-inventories-1890: flavor gpu-a100 labels its nodes gpu=h100, the "
        "pods ask for gpu=a100; flavor cpu-only has no label for gpu=a100.",
        tone="bad",
    )
    only_named = replace(mismatched, values=values(job="estate-inventories-1890", affinity_flavors=("gpu-a100",)))
    assert finding_sentence(only_named).detail == (
        "The flavors gpu-a100 do not match the node affinity of the pods of estate-inventories-1890."
    )
