"""An htrflow-batch operator's values file, passed to this chart as it is: it installs with only what
cannot be guessed added (this chart's own Django key Secret and the image it runs; the file already names
its session Secret and the API server's addresses), every key this chart reads differently named in
NOTES with what the chart makes of it; only what cannot work here is refused."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import helm_python
import kubernetes_validate
import pytest
import yaml

from tests.chart.render import CHART, container_env, of_kind, one, render, render_files
from tests.chart.test_render import KUBERNETES_VERSIONS

OPERATOR = yaml.safe_load((Path(__file__).parent / "values" / "htrflow-batch-operator.yaml").read_text())
FOREIGN = re.findall(r"^- key: (\S+)$", (CHART / "templates" / "_foreign.tpl").read_text(), re.M)


def present(values: dict, dotted: str) -> bool:
    node = values
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def refusal_sentences(values) -> list[str]:
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values, given=False)
    return [line[2:] for line in str(refused.value).splitlines() if line.startswith("- ")]


# What cannot be guessed from an htrflow-batch file: this chart's own Django key (a Secret the operator makes,
# as helm template or Argo CD renders it) and the image this chart runs (no image is published to pull).
# The session Secret and the API server's addresses are in the file already.
NOT_GUESSED = {"django": {"secretKeySecret": "htrbrowser-django-key"},
               "image": {"repository": "registry.example.se/htr/htrbrowser", "digest": "sha256:" + "3c" * 32}}


def with_what_cannot_be_guessed(values: dict) -> dict:
    out = copy.deepcopy(values)
    for key, value in NOT_GUESSED.items():
        out[key] = {**out.get(key, {}), **value}
    return out


def notes_of(values: dict) -> str:
    return next(text for path, text in render_files(values, given=False).items() if path.endswith("NOTES.txt"))


def test_the_schema_admits_exactly_the_keys_the_templates_name():
    schema = json.loads((CHART / "values.schema.json").read_text())

    def admitted(node, path=""):
        for key, child in (node.get("properties") or {}).items():
            dotted = f"{path}.{key}" if path else key
            if child.get("deprecated"):
                yield dotted
            else:
                yield from admitted(child, dotted)

    assert sorted(admitted(schema)) == sorted(FOREIGN)


def test_as_it_is_only_what_cannot_be_guessed_is_asked_for():
    sentences = refusal_sentences(OPERATOR)
    assert [sentence.split(" ")[0] for sentence in sentences] == ["image.tag", "django.secretKeySecret"]
    assert not any("htrflow-batch's value" in sentence for sentence in sentences)


def test_with_what_cannot_be_guessed_the_file_installs_validates_and_means_the_same():
    values = with_what_cannot_be_guessed(OPERATOR)
    added = {key for key in values if values[key] != OPERATOR.get(key)}
    assert added == {"django", "image"}  # nothing else of the operator's file was touched
    objects = render(values, given=False)
    for version in KUBERNETES_VERSIONS:
        for obj in objects:
            kubernetes_validate.validate(obj, version, strict=True)
    deployment = one(objects, "Deployment")
    env = container_env(deployment)
    assert env["HTRFLOW_RESULTS_URL"]["value"] == OPERATOR["resultsUrl"]
    assert env["HTRFLOW_KEY_DERIVATION"]["value"] == "hcp"
    assert env["HTRFLOW_SESSION_HOURS"]["value"] == "8"
    assert env["S3_BUCKET"]["valueFrom"]["secretKeyRef"]["name"] == "htr-batch-s3"
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.example.se/htr/htrbrowser@sha256:" + "3c" * 32  # never htrflow-web's
    # results.replicas: 2 is not taken: two replicas need a redis the pods share, which htrflow-batch has none of.
    assert deployment["spec"]["replicas"] == 1
    service = one(objects, "Service")
    assert service["spec"]["type"] == "NodePort"
    assert "nodePort" not in service["spec"]["ports"][0]  # 30800 stays htrflow-web's: the cluster picks one
    # The browsers' ranges (network.web.ingressCidrs, read as network.ingressCidrs) need their own addresses.
    assert service["spec"]["externalTrafficPolicy"] == "Local"
    assert container["resources"]["requests"]["memory"] == "384Mi"  # 128Mi was htrflow-web's
    assert container["resources"]["limits"]["memory"] == "512Mi"  # 256Mi was htrflow-web's
    assert container["resources"]["limits"]["cpu"] == "500m"  # what is not below this app's need stays
    assert env["HTRFLOW_HTTPS"]["value"] == "false"  # a plain NodePort: nothing in front speaks TLS
    policy = one(objects, "NetworkPolicy")["spec"]
    browsers = [rule for rule in policy["ingress"] if any("ipBlock" in peer for peer in rule["from"])]
    assert browsers == [{"ports": [{"port": "http", "protocol": "TCP"}],
                         "from": [{"ipBlock": {"cidr": "10.20.0.0/16"}}]}]
    # network.apiServer.cidr is one more address of network.apiServer.cidrs.
    api = [rule for rule in policy["egress"] if {"ipBlock": {"cidr": "192.0.2.56/32"}} in rule["to"]]
    assert api and {"ipBlock": {"cidr": "192.0.2.57/32"}} in api[0]["to"]
    assert of_kind(objects, "Secret") == []  # both keys are Secrets the operator made


def test_each_key_read_differently_is_one_warning_in_the_notes_saying_what_the_chart_makes_of_it():
    said = notes_of(with_what_cannot_be_guessed(OPERATOR))
    assert "Values of htrflow-batch's chart that this chart reads differently" in said
    warnings = [line[2:] for line in said.splitlines() if line.startswith("- ") and "htrflow-batch's value" in line]
    foreign = [key for key in FOREIGN if present(OPERATOR, key)]
    assert len(foreign) >= 12
    assert [warning.split(" ")[0] for warning in warnings] == foreign
    for key, warning in zip(foreign, warnings, strict=True):
        assert warning.startswith(f"{key} is htrflow-batch's value, "), warning
        assert re.search(r", (not read: |read as |its .+ are read )", warning) and warning.endswith("."), warning
    assert "results.replicas is htrflow-batch's value, not read: replicas counts the pods" in said
    # Values read as they are get no warning.
    for same in ("resultsUrl", "s3", "results.sessionSecret", "results.keyDerivation", "web.nodePort",
                 "web.service", "web.ingress", "network.s3Cidrs", "network.apiServer.cidrs"):
        assert not any(warning.startswith(same + " ") for warning in warnings), same
    # A file of this chart's own carries none.
    own = {"results": {"sessionSecret": "s"}, "network": {"apiServer": {"cidrs": ["192.0.2.1/32"]}}}
    assert "htrflow-batch's value" not in notes_of(with_what_cannot_be_guessed(own))


REFUSED = {
    "s3InNamespace": "network.s3InNamespace is true (htrflow-batch's value: a store inside the namespace): this"
                     " chart's NetworkPolicy reaches the store only at network.s3Cidrs; remove network.s3InNamespace"
                     " and add an egress rule with the store's pod labels to network.extraEgress.",
    "allowPublicIngress": "network.web.allowPublicIngress is true (htrflow-batch's value): this chart admits"
                          " browsers only from the ranges it is given; list them in network.ingressCidrs (0.0.0.0/0"
                          " and ::/0 for every address) and remove network.web.allowPublicIngress.",
}


@pytest.mark.parametrize("key", sorted(REFUSED))
def test_only_what_cannot_work_here_is_refused(key):
    values = with_what_cannot_be_guessed(OPERATOR)
    if key == "s3InNamespace":
        values["network"]["s3InNamespace"] = True
    else:
        values["network"]["web"]["allowPublicIngress"] = True
    assert refusal_sentences(values) == [REFUSED[key]]


def test_this_chart_s_own_ingress_sources_win_over_htrflow_batch_s():
    values = with_what_cannot_be_guessed(OPERATOR)
    values["network"]["ingressCidrs"] = ["10.30.0.0/16"]
    policy = one(render(values, given=False), "NetworkPolicy")["spec"]
    browsers = [rule for rule in policy["ingress"] if any("ipBlock" in peer for peer in rule["from"])]
    assert browsers[0]["from"] == [{"ipBlock": {"cidr": "10.30.0.0/16"}}]


def test_the_chart_s_defaults_are_htrflow_batch_s_where_the_meaning_is_the_same():
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    assert defaults["results"]["keyDerivation"] == "hcp"
    assert defaults["results"]["sessionHours"] == 8
    assert defaults["s3"]["existingSecret"] == "htr-batch-s3"
    assert defaults["network"]["apiServer"]["port"] == 6443
    # The exposure is the one exception, on purpose: docs/installing.md says why ClusterIP (an Ingress in front).
    assert defaults["web"]["service"]["type"] == "ClusterIP"


def test_a_node_port_without_a_node_port_service_is_refused():
    sentences = refusal_sentences({"web": {"nodePort": 30801}, "django": {"secretKeySecret": "d"},
                                   "image": {"tag": "1.0.0"},
                                   "results": {"sessionSecret": "s"},
                                   "network": {"apiServer": {"cidrs": ["192.0.2.1/32"]}}})
    assert sentences == ["web.nodePort is set while web.service.type is ClusterIP: set web.service.type to NodePort,"
                         " or leave web.nodePort null."]
