"""Kueue's QuotaReserved messages, verbatim in the formats its scheduler and controller write."""

from __future__ import annotations

from campaigns.domain.diagnosis.kueue_message import Blocker, KueueMessage, QueueProblem, Taint, parse_message


def test_parse_several_flavors_joined_by_commas_and_pod_sets_by_semicolons():
    message = (
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor "
        "gpu-a100, 4 more needed, untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100; "
        "couldn't assign flavors to pod set workers: flavor gpu-a100 doesn't match node affinity, "
        "untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-h100. "
        "Pending the preemption of 2 workload(s)"
    )

    assert parse_message(message) == KueueMessage(
        blockers=(
            Blocker(
                "unused_quota",
                podset="main",
                flavor="gpu-a100",
                resource="nvidia.com/gpu",
                needed="4",
                text="insufficient unused quota for nvidia.com/gpu in flavor gpu-a100, 4 more needed",
            ),
            Blocker(
                "untolerated_taint",
                podset="main",
                flavor="gpu-h100",
                taint=Taint("dedicated", "", "NoSchedule"),
                text="untolerated taint {dedicated  NoSchedule <nil>} in flavor gpu-h100",
            ),
            Blocker(
                "node_affinity",
                podset="workers",
                flavor="gpu-a100",
                text="flavor gpu-a100 doesn't match node affinity",
            ),
            Blocker(
                "untolerated_taint",
                podset="workers",
                flavor="gpu-h100",
                taint=Taint("dedicated", "ocr-only", "NoSchedule"),
                text="untolerated taint {dedicated ocr-only NoSchedule <nil>} in flavor gpu-h100",
            ),
        ),
        podsets=("main", "workers"),
        preempting=2,
    )
    assert Taint("dedicated", "", "NoSchedule").text == "dedicated:NoSchedule"
    assert Taint("dedicated", "ocr-only", "NoSchedule").text == "dedicated=ocr-only:NoSchedule"


def test_parse_quota_beyond_capacity_in_the_new_and_the_old_format():
    new = (
        "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor default-flavor, "
        "previously considered podsets requests (0) + current podset request (4) > maximum capacity (2)"
    )
    old = (
        "couldn't assign flavors to pod set main: insufficient quota for memory in flavor default-flavor, "
        "request > maximum capacity (32Gi > 16Gi)"
    )

    assert parse_message(new).blockers == (
        Blocker(
            "max_capacity",
            podset="main",
            flavor="default-flavor",
            resource="nvidia.com/gpu",
            previous="0",
            request="4",
            capacity="2",
            text=new.removeprefix("couldn't assign flavors to pod set main: "),
        ),
    )
    assert parse_message(old).blockers == (
        Blocker(
            "max_capacity",
            podset="main",
            flavor="default-flavor",
            resource="memory",
            request="32Gi",
            capacity="16Gi",
            text=old.removeprefix("couldn't assign flavors to pod set main: "),
        ),
    )


def test_parse_the_queue_problems_and_keeps_unknown_words():
    assert parse_message("LocalQueue htr-batch doesn't exist") == KueueMessage(
        queue=QueueProblem("LocalQueue", "htr-batch", "doesn't exist")
    )
    assert parse_message("ClusterQueue htr-batch-cq is terminating or missing").queue == QueueProblem(
        "ClusterQueue", "htr-batch-cq", "is terminating or missing"
    )
    topology = (
        'couldn\'t assign flavors to pod set main: topology "cloud.provider.com/topology-block" '
        "doesn't allow to fit any of 4 pod(s)"
    )
    assert parse_message(topology).blockers == (
        Blocker(
            "other",
            podset="main",
            text='topology "cloud.provider.com/topology-block" doesn\'t allow to fit any of 4 pod(s)',
        ),
    )
    assert parse_message("resource nvidia.com/gpu unavailable in ClusterQueue").blockers == (
        Blocker(
            "resource_unavailable",
            resource="nvidia.com/gpu",
            text="resource nvidia.com/gpu unavailable in ClusterQueue",
        ),
    )


def test_parse_a_hostile_message_reads_only_its_first_32k_characters_and_bounds_every_text():
    clause = "insufficient unused quota for cpu in flavor f{}, 1 more needed, "
    message = "couldn't assign flavors to pod set main: " + "".join(clause.format(n) for n in range(20_000))
    message += "x" * 100_000

    parsed = parse_message(message)

    assert len(message) > 1_000_000
    assert sum(len(b.text) for b in parsed.blockers) < 32_768
    assert max(len(b.text) for b in parsed.blockers) <= 500
    assert parsed.blockers[0] == Blocker(
        "unused_quota",
        podset="main",
        flavor="f0",
        resource="cpu",
        needed="1",
        text="insufficient unused quota for cpu in flavor f0, 1 more needed",
    )
