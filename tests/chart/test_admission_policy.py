"""The ValidatingAdmissionPolicy, its CEL evaluated (cel-python) on the writes it must let through or refuse.

RBAC cannot limit `create` by name, so with status records on, the policy is what keeps this
ServiceAccount away from the htr-pipeline-* and campaign-* ConfigMaps GPU pods mount. The
expressions are evaluated as the API server does: the match condition first, then every
validation, a false one (or an error, with failurePolicy Fail) refusing with its message.
"""

from __future__ import annotations

import celpy
import pytest

from tests.chart.render import NAMESPACE, one, render
from tests.chart.test_rbac import reset_caches, scene_cluster, visit_everything  # noqa: F401 - a fixture

APP = f"system:serviceaccount:{NAMESPACE}:htrbrowser"
STATUS = {"htrflow.riksarkivet.se/kind": "status"}


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


def admit(policy, user, operation, obj=None, old=None):
    """None when the policy does not apply; else the messages of the validations that refuse."""
    request = {"operation": operation, "userInfo": {"username": user},
               "name": ((obj or old) or {}).get("metadata", {}).get("name", ""), "namespace": NAMESPACE}
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


def test_a_status_record_may_be_created_and_updated(policy):
    record = config_map("campaign-parish-records-1870-status", STATUS, {"phase": "Running"})
    assert admit(policy, APP, "CREATE", record) == []
    assert admit(policy, APP, "UPDATE", record, record) == []


@pytest.mark.parametrize("name", ["htr-pipeline-swe-lines-v2", "campaign-parish-records-1870", "kube-root-ca.crt",
                                  "campaign--status", "campaign-x-status-copy"])
def test_any_other_config_map_is_refused_to_this_service_account(policy, name):
    refusals = admit(policy, APP, "CREATE", config_map(name, STATUS))
    assert f"{APP} may only write ConfigMaps named campaign-<name>-status." in refusals
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
    assert refusals == [f"{APP} may not delete ConfigMaps."]


def test_other_accounts_are_not_this_policy_s_business(policy):
    assert admit(policy, "system:serviceaccount:htr-batch:converter", "CREATE", config_map("htr-pipeline-x")) is None
    assert admit(policy, "system:serviceaccount:other-ns:htrbrowser", "CREATE", config_map("htr-pipeline-x")) is None


def test_every_write_the_app_makes_passes_the_policy(scene_cluster, results_client, settings, policy):  # noqa: F811
    double, scene = scene_cluster
    settings.HTRFLOW_WRITE_STATUS = True
    reset_caches()
    before = {item["metadata"]["name"] for item in double.list("v1", "ConfigMap", NAMESPACE)}
    visit_everything(results_client, scene)
    written = [item for item in double.list("v1", "ConfigMap", NAMESPACE) if item["metadata"]["name"] not in before]
    assert written, "the app wrote no status record"
    for item in written:
        assert admit(policy, APP, "CREATE", item) == [], item["metadata"]["name"]
        assert admit(policy, APP, "UPDATE", item, item) == [], item["metadata"]["name"]
