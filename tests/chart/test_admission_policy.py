"""The ValidatingAdmissionPolicy, its CEL evaluated (cel-python) on the writes it must let through or refuse.

RBAC cannot limit `create` by name, so with status records on, the policy is what keeps this
ServiceAccount away from the htr-pipeline-* and campaign-* ConfigMaps GPU pods mount, and from
every Lease but the status writer's (htrflow-batch's htrflow-campaigns-apply shares the namespace).
The expressions are evaluated as the API server does: the match constraints and condition first,
then every validation, a false one (or an error, with failurePolicy Fail) refusing with its message.
"""

from __future__ import annotations

import celpy
import pytest

from campaigns.cluster import status_lease
from tests.chart.render import NAMESPACE, one, render
from tests.chart.test_rbac import reset_caches, scene_cluster, visit_everything  # noqa: F401 - a fixture

APP = f"system:serviceaccount:{NAMESPACE}:htrbrowser"
STATUS = {"htrflow.riksarkivet.se/kind": "status"}
# What the API server puts in `request.resource` for each kind the app writes (or might be made to).
RESOURCES = {"ConfigMap": ("", "v1", "configmaps"), "Lease": ("coordination.k8s.io", "v1", "leases"),
             "Secret": ("", "v1", "secrets")}
ONLY_THE_LEASE = f"{APP} may only write the Lease {status_lease.LEASE_NAME}."
ONLY_RECORDS = f"{APP} may only write ConfigMaps named campaign-<name>-status."


@pytest.fixture(scope="module")
def policy():
    return one(render(), "ValidatingAdmissionPolicy")["spec"]


def _evaluate(expression, activation):
    """True only for a CEL `true`; an error raises celpy.CELEvalError."""
    environment = celpy.Environment()
    result = environment.program(environment.compile(expression)).evaluate(activation)
    if isinstance(result, celpy.CELEvalError):
        raise result
    return isinstance(result, celpy.celtypes.BoolType) and bool(result)


def _matches(rule, group, version, resource, operation):
    return all(("*" in rule[key] or value in rule[key]) for key, value in (
        ("apiGroups", group), ("apiVersions", version), ("resources", resource), ("operations", operation)))


def admit(policy, user, operation, obj=None, old=None):
    """None when the policy does not apply; else the messages of the validations that refuse."""
    kind = (obj or old)["kind"]
    group, version, resource = RESOURCES[kind]
    if not any(_matches(rule, group, version, resource, operation)
               for rule in policy["matchConstraints"]["resourceRules"]):
        return None
    request = {"operation": operation, "userInfo": {"username": user},
               "name": ((obj or old) or {}).get("metadata", {}).get("name", ""), "namespace": NAMESPACE,
               "resource": {"group": group, "version": version, "resource": resource},
               "kind": {"group": group, "version": version, "kind": kind}}
    activation = {"request": celpy.json_to_cel(request), "object": celpy.json_to_cel(obj),
                  "oldObject": celpy.json_to_cel(old)}
    if not all(_evaluate(c["expression"], activation) for c in policy["matchConditions"]):
        return None
    refusals = []
    for validation in policy["validations"]:
        try:
            allowed = _evaluate(validation["expression"], activation)
        except celpy.CELEvalError:
            allowed = False  # failurePolicy: Fail
        if not allowed:
            refusals.append(validation["message"])
    return refusals


def config_map(name, labels=None, data=None):
    metadata = {"name": name, "namespace": NAMESPACE}
    if labels is not None:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data or {}}


def lease(name, holder="htrbrowser-7d9f-1"):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 30}}


def test_the_policy_applies_to_config_map_and_lease_writes_only(policy):
    rules = policy["matchConstraints"]["resourceRules"]
    for group, resource in (("", "configmaps"), ("coordination.k8s.io", "leases")):
        for operation in ("CREATE", "UPDATE", "DELETE"):
            assert any(_matches(rule, group, "v1", resource, operation) for rule in rules), (resource, operation)
    assert not any(_matches(rule, "", "v1", "secrets", "CREATE") for rule in rules)  # RBAC grants no Secret


def test_the_status_writer_s_lease_may_be_created_and_updated(policy):
    own = lease(status_lease.LEASE_NAME)
    assert admit(policy, APP, "CREATE", own) == []
    assert admit(policy, APP, "UPDATE", lease(status_lease.LEASE_NAME, "htrbrowser-5c2a-9"), own) == []


@pytest.mark.parametrize("name", ["htrflow-campaigns-apply", "kube-scheduler", f"{status_lease.LEASE_NAME}-2",
                                  "campaign-parish-records-1870-status"])
def test_any_other_lease_is_refused_to_this_service_account(policy, name):
    # htrflow-batch's htrflow-campaigns-apply above all: held by this pod, no campaign could be applied.
    assert admit(policy, APP, "CREATE", lease(name)) == [ONLY_THE_LEASE]
    assert admit(policy, APP, "UPDATE", lease(name, "htrbrowser-7d9f-1"), lease(name, "htrflow-batch-0")) == [
        ONLY_THE_LEASE]


def test_a_lease_is_not_held_to_the_status_record_rules_nor_a_config_map_to_the_lease_s(policy):
    # The status writer's name does not make a ConfigMap a status record.
    refusals = admit(policy, APP, "CREATE", config_map(status_lease.LEASE_NAME, STATUS))
    assert refusals == [ONLY_RECORDS]


def test_this_service_account_may_delete_no_lease(policy):
    for name in (status_lease.LEASE_NAME, "htrflow-campaigns-apply"):
        assert admit(policy, APP, "DELETE", None, lease(name)) == [f"{APP} may not delete ConfigMaps or Leases."]


def test_a_status_record_may_be_created_and_updated(policy):
    record = config_map("campaign-parish-records-1870-status", STATUS, {"phase": "Running"})
    assert admit(policy, APP, "CREATE", record) == []
    assert admit(policy, APP, "UPDATE", record, record) == []


@pytest.mark.parametrize("name", ["htr-pipeline-swe-lines-v2", "campaign-parish-records-1870", "kube-root-ca.crt",
                                  "campaign--status", "campaign-x-status-copy"])
def test_any_other_config_map_is_refused_to_this_service_account(policy, name):
    refusals = admit(policy, APP, "CREATE", config_map(name, STATUS))
    assert ONLY_RECORDS in refusals
    old = config_map(name, {"htrflow.riksarkivet.se/pipeline": "swe-lines-v2"})
    assert admit(policy, APP, "UPDATE", config_map(name, STATUS), old)


def test_a_status_record_must_be_labelled_as_one(policy):
    refusals = admit(policy, APP, "CREATE", config_map("campaign-parish-status"))
    assert refusals == ["A status record must carry the label htrflow.riksarkivet.se/kind=status."]


def test_a_campaign_whose_name_ends_in_status_keeps_its_config_map(policy):
    # campaign "x-status" has the ConfigMap campaign-x-status: the name fits, the old object is no record.
    old = config_map("campaign-x-status", {"htrflow.riksarkivet.se/campaign": "x-status"}, {"volumes.txt": "A1"})
    refusals = admit(policy, APP, "UPDATE", config_map("campaign-x-status", STATUS), old)
    assert refusals == ["Only a ConfigMap that already is a status record may be updated."]


def test_this_service_account_may_delete_no_config_map(policy):
    refusals = admit(policy, APP, "DELETE", None, config_map("campaign-parish-status", STATUS))
    assert refusals == [f"{APP} may not delete ConfigMaps or Leases."]


def test_other_accounts_are_not_this_policy_s_business(policy):
    assert admit(policy, "system:serviceaccount:htr-batch:converter", "CREATE", config_map("htr-pipeline-x")) is None
    assert admit(policy, "system:serviceaccount:other-ns:htrbrowser", "CREATE", config_map("htr-pipeline-x")) is None
    assert admit(policy, "system:serviceaccount:htr-batch:htrflow-batch", "UPDATE",
                 lease("htrflow-campaigns-apply"), lease("htrflow-campaigns-apply")) is None


def test_every_write_the_app_makes_passes_the_policy(scene_cluster, results_client, settings, policy):  # noqa: F811
    double, scene = scene_cluster
    settings.HTRFLOW_WRITE_STATUS = True
    reset_caches()
    before = {item["metadata"]["name"] for item in double.list("v1", "ConfigMap", NAMESPACE)}
    visit_everything(results_client, scene)
    written = [item for item in double.list("v1", "ConfigMap", NAMESPACE) if item["metadata"]["name"] not in before]
    assert written, "the app wrote no status record"
    leases = double.list("coordination.k8s.io/v1", "Lease", NAMESPACE)
    assert leases, "the app took no Lease"
    for item in written + leases:
        assert admit(policy, APP, "CREATE", item) == [], item["metadata"]["name"]
        assert admit(policy, APP, "UPDATE", item, item) == [], item["metadata"]["name"]
