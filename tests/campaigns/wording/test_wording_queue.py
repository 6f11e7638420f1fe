"""Wording of the queue: why a queued or paused campaign is not running."""

from __future__ import annotations

import pytest

from campaigns import models
from campaigns.models import QueueState, ResourceFit, Sentence, bounded
from campaigns.models.parsing import TEXT_LIMIT
from campaigns.wording.queue import queue_sentence
from tests.campaigns.swedish_catalogue import swedish


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


# --- every sentence whole, with its names and numbers filled in (issue 41) ----------------------------------

WORKLOAD = "kubectl -n htr-batch describe workload job-estate-inventories-1890-4b7c1"
CLUSTER_QUEUE = "kubectl get clusterqueue htr-batch-cq -o yaml"
DETAIL = "Workload job-estate-inventories-1890-4b7c1, LocalQueue htr-batch, ClusterQueue htr-batch-cq"
STARTS_BY_ITSELF = (
    "Nothing to do: it starts by itself when capacity frees up (an operator could give the queue more room)."
)
STOPPED_THEN = (
    "It is queued again and resumes from finished pages when capacity frees up. Nothing to do unless this keeps "
    "happening; then an operator should look at the queue."
)


@pytest.fixture
def in_swedish(tmp_path):
    with swedish(tmp_path):
        yield


@pytest.mark.parametrize(
    ("kind", "text", "tone", "commands"),
    [
        (
            "no_workload_yet",
            "Just submitted; the queue has not picked it up yet. This normally takes a few seconds.",
            "idle",
            (),
        ),
        (
            "paused",
            "Its campaign file holds it back with `suspend: true` (paused in git). It does not run until the person "
            "who wrote the campaign removes `suspend: true` from the campaign file and applies again.",
            "idle",
            (WORKLOAD, CLUSTER_QUEUE),
        ),
        (
            "preempted",
            "Pushed aside by a more urgent campaign. It waits in the queue and resumes from finished pages when "
            "capacity frees up; nothing to do.",
            "idle",
            (WORKLOAD, CLUSTER_QUEUE),
        ),
        (
            "not_looked_at",
            "The queue has not looked at it yet; this normally takes a few seconds.",
            "idle",
            (WORKLOAD, CLUSTER_QUEUE),
        ),
        ("admitted", "Admitted by the queue.", "ok", (WORKLOAD, CLUSTER_QUEUE)),
        (
            "a-kind-not-known-yet",
            "The reason it waits is not known; an operator can look at its Workload.",
            "idle",
            (WORKLOAD, CLUSTER_QUEUE),
        ),
    ],
)
def test_a_kind_of_fixed_words_has_its_whole_sentence_tone_and_commands(kind, text, tone, commands):
    assert queue_sentence(queue(kind), "htr-batch") == Sentence(text, detail=DETAIL, commands=commands, tone=tone)


@pytest.mark.parametrize(
    ("ahead", "ahead_names", "hidden", "said"),
    [
        (None, [], 0, "Waiting its turn in the queue."),
        (None, ["census-1880"], 2, "Waiting its turn in the queue."),  # how many is not known: none named
        (0, [], 0, "Waiting its turn in the queue; it is next."),
        (1, [], 0, "Waiting its turn in the queue: 1 campaign ahead."),
        (4, [], 0, "Waiting its turn in the queue: 4 campaigns ahead."),
        (1, ["census-1880"], 0, "Waiting its turn in the queue: 1 campaign ahead (census-1880)."),
        (
            2,
            ["poll-tax-1810-part2", "census-1880"],
            0,
            "Waiting its turn in the queue: 2 campaigns ahead (poll-tax-1810 (part 2), census-1880).",
        ),
        (1, [], 1, "Waiting its turn in the queue: 1 campaign ahead (another campaign)."),
        (3, [], 3, "Waiting its turn in the queue: 3 campaigns ahead (3 other campaigns)."),
        (2, ["census-1880"], 1, "Waiting its turn in the queue: 2 campaigns ahead (census-1880 and another campaign)."),
        (
            4,
            ["census-1880", "land-1820"],
            2,
            "Waiting its turn in the queue: 4 campaigns ahead (census-1880, land-1820 and 2 other campaigns).",
        ),
    ],
)
def test_waiting_its_turn_says_how_many_are_ahead_naming_those_the_reader_may_see(ahead, ahead_names, hidden, said):
    waiting = queue("waiting", ahead=ahead, ahead_names=ahead_names, hidden_ahead=hidden)
    assert queue_sentence(waiting, "htr-batch") == Sentence(
        f"{said} {STARTS_BY_ITSELF}", detail=DETAIL, commands=(WORKLOAD, CLUSTER_QUEUE), tone="idle"
    )


@pytest.mark.parametrize(
    ("holders", "hidden", "said"),
    [
        ([], 0, ""),
        (["land-1820-part1"], 0, "The queue's capacity is in use by land-1820 (part 1). "),
        ([], 1, "The queue's capacity is in use by another campaign. "),
        ([], 2, "The queue's capacity is in use by 2 other campaigns. "),
        (
            ["census-1880", "land-1820"],
            1,
            "The queue's capacity is in use by census-1880, land-1820 and another campaign. ",
        ),
        (["census-1880"], 5, "The queue's capacity is in use by census-1880 and 5 other campaigns. "),
    ],
)
def test_waiting_says_who_holds_the_capacity_counting_those_the_reader_may_not_see(holders, hidden, said):
    text = queue_sentence(queue("waiting", ahead=0, holders=holders, hidden_holders=hidden)).text
    assert text == f"Waiting its turn in the queue; it is next. {said}{STARTS_BY_ITSELF}"


def test_never_fits_is_the_authors_to_fix_and_keeps_the_figures_for_the_operator():
    fits = [ResourceFit("nvidia.com/gpu", "8", "4", False), ResourceFit("cpu", "32", "", True)]
    sentence = queue_sentence(queue("never_fits", fits=fits), "htr-batch")
    assert sentence == Sentence(
        "This campaign can never start as it is: it asks for more at once than its queue can ever give (the figures "
        "are in the detail). It will not fix itself: the person who wrote the campaign has to lower `window` in the "
        "campaign file (or in converter.yaml) and apply again.",
        detail=f"{DETAIL}, nvidia.com/gpu 8 of quota 4, cpu 32 of quota none",
        commands=(WORKLOAD, CLUSTER_QUEUE),
        tone="bad",
    )


@pytest.mark.parametrize(
    ("priority_class", "named", "job_given", "job_read", "events"),
    [
        (
            "htr-urgent",
            "htr-urgent",
            "estate-inventories-1890",
            "",
            "--field-selector involvedObject.name=estate-inventories-1890",
        ),
        (
            "htr-urgent",
            "htr-urgent",
            "",
            "estate-inventories-1890-part2",
            "--field-selector involvedObject.name=estate-inventories-1890-part2",
        ),
        (
            "",
            "(unnamed)",
            "estate-inventories-1890",
            "census-1880",
            "--field-selector involvedObject.name=estate-inventories-1890",
        ),
        ("", "(unnamed)", "", "", "--sort-by=.lastTimestamp"),
    ],
)
def test_a_missing_priority_class_is_named_and_its_jobs_events_are_listed(
    priority_class, named, job_given, job_read, events
):
    """The events of the Job named by the caller, else of the Job the queue was read for, else all of them."""
    held = queue("no_workload_priority_class", priority_class=priority_class, job=job_read)
    sentence = queue_sentence(held, "htr-batch", job_given)
    assert sentence.text == (
        f"The queue ignores it: its priority `{named}` does not exist on this cluster. It will not fix itself: the "
        "person who wrote the campaign has to choose a priority the cluster has (or leave it out) and apply again."
    )
    assert sentence.commands == ("kubectl get workloadpriorityclasses", f"kubectl -n htr-batch get events {events}")
    assert sentence.tone == "bad"


def test_kueue_silent_is_bad_and_lists_kueues_pods_and_the_jobs_events():
    sentence = queue_sentence(queue("kueue_silent", job="estate-inventories-1890"), "htr-batch")
    assert sentence == Sentence(
        "The queue has not acted on this campaign for some minutes: Kueue, the queueing system, may not be running. "
        "It starts by itself once Kueue works again; an operator should check whether Kueue is running.",
        detail=DETAIL,
        commands=(
            "kubectl -n kueue-system get pods",
            "kubectl -n htr-batch get events --field-selector involvedObject.name=estate-inventories-1890",
        ),
        tone="bad",
    )


INADMISSIBLE = (
    "The queue cannot let this campaign in as the queue is set up (what the queue says is in the detail). It stays "
    "queued until an operator fixes the queue."
)


def test_inadmissible_lists_the_local_queue_first_then_the_workload_and_the_cluster_queue():
    sentence = queue_sentence(queue("inadmissible", message="ClusterQueue htr-batch-cq is inactive"), "htr-batch")
    assert sentence == Sentence(
        INADMISSIBLE,
        detail=f"{DETAIL}; Kueue says: ClusterQueue htr-batch-cq is inactive",
        commands=("kubectl -n htr-batch get localqueue htr-batch", WORKLOAD, CLUSTER_QUEUE),
        tone="bad",
    )


def test_inadmissible_without_a_local_queue_or_workload_lists_only_what_it_knows():
    sentence = queue_sentence(queue("inadmissible", queue_name="", workload_name=""), "htr-batch")
    assert sentence == Sentence(
        INADMISSIBLE, detail="no Workload, ClusterQueue htr-batch-cq", commands=(CLUSTER_QUEUE,), tone="bad"
    )
    nothing = queue_sentence(QueueState(kind="inadmissible"))
    assert (nothing.commands, nothing.detail) == ((), "no Workload")


@pytest.mark.parametrize(
    ("reason", "stopped"),
    [
        ("PodsReadyTimeout", "The queue stopped this campaign because its volumes did not get going in time."),
        ("InactiveWorkload", "The queue stopped this campaign because it was deactivated."),
        ("Deactivated", "The queue stopped this campaign because it was paused."),
        ("Preempted", "The queue stopped this campaign because a more urgent campaign needed the capacity."),
        ("ClusterQueueStopped", "The queue stopped this campaign because the queue was stopped."),
        ("AdmissionCheck", "The queue stopped this campaign because an admission check withdrew it."),
        ("SomethingKueueAddsLater", "The queue stopped this campaign."),
        ("", "The queue stopped this campaign."),
    ],
)
def test_evicted_says_why_the_queue_stopped_it_for_each_reason_kueue_gives(reason, stopped):
    sentence = queue_sentence(queue("evicted", reason=reason), "htr-batch")
    detail = f"{DETAIL}, reason {reason}" if reason else DETAIL
    assert sentence == Sentence(
        f"{stopped} {STOPPED_THEN}", detail=detail, commands=(WORKLOAD, CLUSTER_QUEUE), tone="warn"
    )


def test_the_detail_names_every_object_and_figure_in_order_and_quotes_kueue_bounded():
    fits = [ResourceFit("nvidia.com/gpu", "8", "4", False), ResourceFit("memory", "64Gi", "", False)]
    message = "  ClusterQueue htr-batch-cq is inactive " + "x" * TEXT_LIMIT
    held = queue(
        "waiting", priority_class="htr-urgent", reason="Pending", fits=fits, pending_in_queue=1, message=message
    )
    detail = queue_sentence(held).detail
    listed = (
        f"{DETAIL}, priority class htr-urgent, reason Pending, nvidia.com/gpu 8 of quota 4, memory 64Gi of quota "
        "none, 1 pending in the ClusterQueue across all namespaces; Kueue says: "
    )
    assert detail == listed + bounded(message)
    assert detail.endswith("x…") and len(bounded(message)) == TEXT_LIMIT  # Kueue's words, cut
    assert queue_sentence(queue("waiting", pending_in_queue=0)).detail == (
        f"{DETAIL}, 0 pending in the ClusterQueue across all namespaces"
    )
    assert queue_sentence(queue("waiting", pending_in_queue=12)).detail == (
        f"{DETAIL}, 12 pending in the ClusterQueue across all namespaces"
    )


def test_without_a_namespace_the_commands_name_none():
    assert queue_sentence(queue("preempted")).commands == (
        "kubectl describe workload job-estate-inventories-1890-4b7c1",
        CLUSTER_QUEUE,
    )
    assert queue_sentence(queue("kueue_silent")).commands == (
        "kubectl -n kueue-system get pods",
        "kubectl get events --sort-by=.lastTimestamp",
    )


def test_in_swedish_the_queue_says_its_sentences_with_names_and_numbers(in_swedish):
    waiting = queue(
        "waiting", ahead=3, ahead_names=["census-1880"], hidden_ahead=2, holders=["land-1820"], hidden_holders=1
    )
    assert queue_sentence(waiting).text == (
        "Väntar på sin tur i kön: 3 kampanjer före (census-1880 och 2 andra kampanjer). Köns kapacitet används av "
        "land-1820 och en annan kampanj. Inget att göra: den startar av sig själv när kapacitet blir ledig (en "
        "driftansvarig kan ge kön mer utrymme)."
    )
    assert queue_sentence(queue("waiting", ahead=1)).text.startswith("Väntar på sin tur i kön: 1 kampanj före. ")
    evicted = queue_sentence(queue("evicted", reason="Preempted"))
    assert evicted.text == (
        "Kön stoppade den här kampanjen eftersom en mer brådskande kampanj behövde kapaciteten. Den står i kö igen "
        "och fortsätter från klara sidor när kapacitet blir ledig. Inget att göra om det inte upprepas; då bör en "
        "driftansvarig se över kön."
    )
    held = queue("no_workload_priority_class", workload_name="", fits=[ResourceFit("cpu", "32", "", False)])
    said = queue_sentence(held)
    assert said.text.startswith("Kön bortser från den: dess prioritet `(namnlös)` finns inte i det här klustret.")
    assert said.detail == "ingen Workload, LocalQueue htr-batch, ClusterQueue htr-batch-cq, cpu 32 av kvoten ingen"
    detail = queue_sentence(
        queue("inadmissible", priority_class="htr-urgent", reason="Inactive", message="stopped")
    ).detail
    assert detail == f"{DETAIL}, prioritetsklass htr-urgent, orsak Inactive; Kueue säger: stopped"
    assert queue_sentence(queue("admitted")).text == "Insläppt av kön."
