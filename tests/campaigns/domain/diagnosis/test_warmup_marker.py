"""A Complete warm-up whose marker the campaign's pods never found: each cause of the guide, in its
order, on the contract's objects (court-rolls-1650 gave up waiting for swe-lines-v3's marker)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from campaigns.domain.diagnosis.placement import compare_placement
from campaigns.domain.diagnosis.warmup import marker_missing
from campaigns.models.findings import EQUAL, OPERATOR, Check, Command, Fact, Finding, Subject
from tests.campaigns.domain.diagnosis import samples as s

WARMUP = "Job/htr-warmup-swe-lines-v3"
JOB = "Job/court-rolls-1650"
PVC = "PersistentVolumeClaim/htr-test-data"
GAVE_UP = "court-rolls-1650-2-7hq4z"
SUBJECT = Subject("pipeline", "htr-batch", campaign="court-rolls-1650", pipeline="swe-lines-v3")
SUB_PATH = f"swe-lines-v3-{s.V3_SHA}"
COMPLETED = datetime(2026, 9, 24, 6, 14, 2, tzinfo=UTC)
GAVE_UP_AT = datetime(2026, 9, 24, 6, 35, 14, tzinfo=UTC)
DELETE = Command("warmup.delete_job", ("kubectl", "-n", "htr-batch", "delete", "job", "htr-warmup-swe-lines-v3"))
DELETE_ALL = Command(
    "warmup.delete_all_jobs",
    (
        "kubectl",
        "-n",
        "htr-batch",
        "delete",
        "jobs",
        "-l",
        "app=htrflow-warmup,htrflow.riksarkivet.se/managed-by=converter",
    ),
)
APPLY = Command("campaigns.apply", ("htrflow-campaigns", "apply"))
NAMES = (("campaign_job", "court-rolls-1650"), ("warmup_job", "htr-warmup-swe-lines-v3"))


def _check(what: str, path: str, warmup, campaign) -> Check:
    return Check(what, EQUAL, (Fact(WARMUP, path, warmup), Fact(JOB, path, campaign)))


def _placement_equal(*skip: str) -> tuple[Check, ...]:
    checks = (
        _check("runtimeClassName", "spec.template.spec.runtimeClassName", "nvidia", "nvidia"),
        _check("nodeSelector", "spec.template.spec.nodeSelector", None, None),
        _check("tolerations", "spec.template.spec.tolerations", None, None),
        _check("nodeAffinity", "spec.template.spec.affinity.nodeAffinity", None, None),
    )
    return tuple(c for c in checks if c.what not in skip)


CLAIM_EQUAL = _check(
    "claimName", "spec.template.spec.volumes[data].persistentVolumeClaim.claimName", "htr-test-data", "htr-test-data"
)
SUB_PATH_EQUAL = Check(
    "subPath",
    EQUAL,
    (
        Fact(WARMUP, "spec.template.spec.containers[warmup].volumeMounts[data].subPath", SUB_PATH),
        Fact(JOB, "spec.template.spec.initContainers[warmup-wait].volumeMounts[data].subPath", SUB_PATH),
    ),
)


def _diagnose(warmup=None, job=None, pods=None, pvcs=None, gave_up=(GAVE_UP,)) -> Finding:
    warmup_job, warmup_pod = s.complete_warmup()
    return marker_missing(
        "htr-batch",
        warmup if warmup is not None else warmup_job,
        job if job is not None else s.campaign_job(),
        gave_up,
        pods if pods is not None else [warmup_pod, s.gave_up_pod()],
        pvcs if pvcs is not None else [s.pvc()],
        campaign="court-rolls-1650",
    )


def test_warmup_placement_differs_names_the_field_and_both_values():
    warmup, _ = s.complete_warmup()
    warmup["spec"]["template"]["spec"]["nodeSelector"] = {"node-role.kubernetes.io/cpu": "true"}

    finding = _diagnose(warmup=warmup)

    assert finding == Finding(
        code="warmup.placement_differs",
        subject=SUBJECT,
        actor=OPERATOR,
        values=(
            ("campaign_job", "court-rolls-1650"),
            ("campaign_value", ()),
            ("differences", (("nodeSelector", ("node-role.kubernetes.io/cpu=true",), ()),)),
            ("field", "nodeSelector"),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
            ("warmup_value", ("node-role.kubernetes.io/cpu=true",)),
        ),
        evidence=(
            Fact(WARMUP, "spec.template.spec.nodeSelector", {"node-role.kubernetes.io/cpu": "true"}),
            Fact(JOB, "spec.template.spec.nodeSelector", None),
        ),
        ruled_out=_placement_equal("nodeSelector"),
        fix=(
            Command(
                "warmup.match_placement",
                change=(("object", WARMUP), ("field", "spec.template.spec.nodeSelector"), ("value", ())),
            ),
            DELETE,
            APPLY,
        ),
        since=GAVE_UP_AT,
    )


def test_placement_compares_tolerations_in_any_order_and_absent_as_empty():
    a = {
        "tolerations": [
            {"key": "dedicated", "value": "ocr-only", "effect": "NoSchedule"},
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        ]
    }
    b = {
        "tolerations": [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "dedicated", "operator": "Equal", "value": "ocr-only", "effect": "NoSchedule"},
        ],
        "nodeSelector": {},
        "affinity": {},
    }

    fields = {f.field: f for f in compare_placement(a, b)}

    assert {name: f.equal for name, f in fields.items()} == {
        "runtimeClassName": True,
        "nodeSelector": True,
        "tolerations": True,
        "nodeAffinity": True,
    }
    assert fields["tolerations"].campaign_value == (
        "dedicated=ocr-only:NoSchedule",
        "nvidia.com/gpu:NoSchedule op=Exists",
    )
    assert not {f.field: f.equal for f in compare_placement(a, {})}["tolerations"]


def test_cache_other_claim_names_both_claims():
    warmup, _ = s.complete_warmup()
    warmup["spec"]["template"]["spec"]["volumes"][1]["persistentVolumeClaim"]["claimName"] = "htr-model-cache"

    finding = _diagnose(warmup=warmup)

    path = "spec.template.spec.volumes[data].persistentVolumeClaim.claimName"
    assert finding == Finding(
        code="cache.other_claim",
        subject=SUBJECT,
        values=(
            ("campaign_claim", "htr-test-data"),
            ("campaign_job", "court-rolls-1650"),
            ("warmup_claim", "htr-model-cache"),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
        ),
        evidence=(Fact(WARMUP, path, "htr-model-cache"), Fact(JOB, path, "htr-test-data")),
        ruled_out=_placement_equal(),
        fix=(
            Command("warmup.match_claim", change=(("object", WARMUP), ("field", path), ("value", "htr-test-data"))),
            DELETE,
            APPLY,
        ),
        since=GAVE_UP_AT,
    )


def test_cache_other_directory_when_the_campaign_reads_another_recipe():
    job = s.campaign_job()
    old = f"swe-lines-v3-{s.V2_SHA}"
    for item in job["spec"]["template"]["spec"]["initContainers"] + job["spec"]["template"]["spec"]["containers"]:
        for mount in item["volumeMounts"]:
            if mount["name"] == "data":
                mount["subPath"] = old

    finding = _diagnose(job=job)

    assert finding == Finding(
        code="cache.other_directory",
        subject=SUBJECT,
        values=(
            ("campaign_directory", f"/{old}/"),
            ("campaign_job", "court-rolls-1650"),
            ("warmup_directory", f"/{SUB_PATH}/"),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
        ),
        evidence=(
            Fact(WARMUP, "spec.template.spec.containers[warmup].volumeMounts[data].subPath", SUB_PATH),
            Fact(JOB, "spec.template.spec.initContainers[warmup-wait].volumeMounts[data].subPath", old),
        ),
        ruled_out=(*_placement_equal(), CLAIM_EQUAL),
        fix=(DELETE, APPLY),
        since=GAVE_UP_AT,
    )


def test_cache_rwo_other_node_names_both_nodes_and_says_a_gone_pod_was_not_read():
    _, warmup_pod = s.complete_warmup()
    warmup_pod["spec"]["nodeName"] = "gpu-node-02"

    finding = _diagnose(
        pods=[warmup_pod, s.gave_up_pod()],
        pvcs=[s.pvc(accessModes=["ReadWriteOnce"], storageClassName="local-path")],
        gave_up=(GAVE_UP, "court-rolls-1650-5-b8xkq"),
    )

    assert finding == Finding(
        code="cache.rwo_other_node",
        subject=SUBJECT,
        values=(
            ("access_modes", ("ReadWriteOnce",)),
            ("campaign_job", "court-rolls-1650"),
            ("claim", "htr-test-data"),
            ("other_nodes", ("gpu-node-01",)),
            ("pods", (GAVE_UP,)),
            ("pods_elsewhere", 1),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
            ("warmup_node", "gpu-node-02"),
        ),
        evidence=(
            Fact(PVC, "spec.accessModes", ["ReadWriteOnce"]),
            Fact("Pod/htr-warmup-swe-lines-v3-q7k2m", "spec.nodeName", "gpu-node-02"),
            Fact(f"Pod/{GAVE_UP}", "spec.nodeName", "gpu-node-01"),
        ),
        ruled_out=(*_placement_equal(), CLAIM_EQUAL, SUB_PATH_EQUAL),
        not_read=(Fact("Pod/court-rolls-1650-5-b8xkq", "spec.nodeName", "gone"),),
        fix=(
            Command(
                "cache.read_write_many",
                change=(
                    ("object", PVC),
                    ("field", "spec.accessModes"),
                    ("value", ("ReadWriteMany",)),
                    ("storage_class", "local-path"),
                ),
            ),
            DELETE,
            DELETE_ALL,
            APPLY,
        ),
        since=GAVE_UP_AT,
    )


def test_cache_replaced_when_the_claim_was_created_after_the_warmup_completed():
    finding = _diagnose(pvcs=[s.pvc(created="2026-09-24T06:20:00Z")])

    created = datetime(2026, 9, 24, 6, 20, tzinfo=UTC)
    assert finding == Finding(
        code="cache.replaced",
        subject=SUBJECT,
        values=(
            ("campaign_job", "court-rolls-1650"),
            ("claim", "htr-test-data"),
            ("claim_created", created),
            ("warmup_completed", COMPLETED),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
        ),
        evidence=(
            Fact(PVC, "metadata.creationTimestamp", created),
            Fact(WARMUP, "status.completionTime", COMPLETED),
        ),
        ruled_out=(
            *_placement_equal(),
            CLAIM_EQUAL,
            SUB_PATH_EQUAL,
            Check("accessModes", EQUAL, (Fact(PVC, "spec.accessModes", ["ReadWriteMany"]),)),
        ),
        fix=(DELETE, DELETE_ALL, APPLY),
        since=GAVE_UP_AT,
    )


def test_warmup_marker_missing_lists_what_was_compared_and_found_equal():
    _, warmup_pod = s.complete_warmup()

    finding = _diagnose(pvcs=[s.pvc(accessModes=["ReadWriteOnce"])], pods=[warmup_pod, s.gave_up_pod()])

    pvc_created = datetime(2026, 9, 1, 12, 3, 27, tzinfo=UTC)
    assert finding == Finding(
        code="warmup.marker_missing",
        subject=SUBJECT,
        values=(
            ("campaign_job", "court-rolls-1650"),
            ("claim", "htr-test-data"),
            ("marker", "/data/warmup/swe-lines-v3.done"),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
        ),
        ruled_out=(
            *_placement_equal(),
            CLAIM_EQUAL,
            SUB_PATH_EQUAL,
            Check(
                "nodeName",
                EQUAL,
                (
                    Fact(PVC, "spec.accessModes", ["ReadWriteOnce"]),
                    Fact("Pod/htr-warmup-swe-lines-v3-q7k2m", "spec.nodeName", "gpu-node-01"),
                    Fact(f"Pod/{GAVE_UP}", "spec.nodeName", "gpu-node-01"),
                ),
            ),
            Check(
                "claimCreated",
                EQUAL,
                (
                    Fact(PVC, "metadata.creationTimestamp", pvc_created),
                    Fact(WARMUP, "status.completionTime", COMPLETED),
                ),
            ),
        ),
        fix=(DELETE, APPLY),
        since=GAVE_UP_AT,
    )


def test_warmup_marker_missing_never_counts_what_was_not_read_as_ruled_out():
    warmup, _ = s.complete_warmup()

    finding = marker_missing("htr-batch", warmup, s.campaign_job(), (GAVE_UP,), [], None, campaign="court-rolls-1650")

    assert finding == Finding(
        code="warmup.marker_missing",
        subject=SUBJECT,
        values=(
            ("campaign_job", "court-rolls-1650"),
            ("claim", "htr-test-data"),
            ("marker", "/data/warmup/swe-lines-v3.done"),
            ("warmup_job", "htr-warmup-swe-lines-v3"),
        ),
        ruled_out=(*_placement_equal(), CLAIM_EQUAL, SUB_PATH_EQUAL),
        not_read=(Fact(PVC, "", "not_readable"), Fact(f"Pod/{GAVE_UP}", "spec.nodeName", "gone")),
        fix=(DELETE, APPLY),
    )


def test_cache_rwo_other_node_over_thousands_of_pods_names_a_few_and_counts_the_rest():
    _, warmup_pod = s.complete_warmup()
    pods = [warmup_pod]
    for index in range(3000):
        pod = copy.deepcopy(s.gave_up_pod())
        pod["metadata"]["name"] = f"court-rolls-1650-{index}-7hq4z"
        pod["spec"]["nodeName"] = "gpu-node-01" if index % 2 else "gpu-node-02"
        pods.append(pod)
    gone = [f"court-rolls-1650-{index}-gone0" for index in range(3000, 5000)]

    finding = _diagnose(
        pods=pods,
        pvcs=[s.pvc(accessModes=["ReadWriteOnce"])],
        gave_up=[p["metadata"]["name"] for p in pods[1:]] + gone,
    )

    assert finding.code == "cache.rwo_other_node"
    assert (finding.value("warmup_node"), finding.value("other_nodes")) == ("gpu-node-01", ("gpu-node-02",))
    assert finding.value("pods_elsewhere") == 1500 and len(finding.value("pods")) == 20
    assert len(finding.evidence) == 22  # the claim's modes, the warm-up pod, 20 pods on the other node
    assert finding.not_read[:1] == (Fact("Pod/court-rolls-1650-3000-gone0", "spec.nodeName", "gone"),)
    assert finding.not_read[20:] == (Fact(JOB, "pods[warmup-wait].spec.nodeName", 1980),)
