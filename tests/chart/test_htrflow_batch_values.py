"""An htrflow-batch operator's values file, passed to this chart as it is: every value the chart does not
read as it is refused with one sentence saying what to write instead, all at once; written so, it installs
with the values that mean the same thing carried over."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import helm_python
import pytest
import yaml

from tests.chart.render import CHART, container_env, of_kind, one, render, render_files

OPERATOR = yaml.safe_load((Path(__file__).parent / "values" / "htrflow-batch-operator.yaml").read_text())
FOREIGN = re.findall(r"^- key: (\S+)$", (CHART / "templates" / "_foreign.tpl").read_text(), re.M)


def present(values: dict, dotted: str) -> bool:
    node = values
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def removed(values: dict, dotted: str):
    *parents, leaf = dotted.split(".")
    node = values
    for part in parents:
        node = node[part]
    return node.pop(leaf)


def refusal_sentences(values) -> list[str]:
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values, given=False)
    return [line[2:] for line in str(refused.value).splitlines() if line.startswith("- ")]


def as_this_chart_reads_them(values: dict) -> dict:
    """The operator's file after following each sentence."""
    out = copy.deepcopy(values)
    carried = {key: removed(out, key) for key in FOREIGN if present(out, key)}
    out["replicas"] = carried["results.replicas"]
    repository, digest = carried["web.image"].split("@")
    out["image"] = {"repository": "docker.io/riksarkivet/htrbrowser", "digest": digest}
    assert repository == "docker.io/riksarkivet/htrflow-web"  # this chart's image is another
    out["network"]["apiServer"]["cidrs"].append(carried["network.apiServer.cidr"])
    out["network"]["ingressCidrs"] = carried["network.web"]["ingressCidrs"]
    out["network"]["ingressFrom"] = carried["network.web"]["ingressFrom"]
    out["web"]["nodePort"] = 30801  # htrflow-web keeps 30800 while both run
    out["web"]["https"] = False  # a NodePort straight to the browsers: no TLS in front
    out["web"]["allowedHosts"] = ["htr.arkiv.example.se"]
    out["django"] = {"secretKeySecret": "htrbrowser-django-key"}  # this chart's own key: made by the operator
    return out


def test_the_schema_admits_exactly_the_keys_the_templates_refuse_by_name():
    schema = json.loads((CHART / "values.schema.json").read_text())

    def admitted(node, path=""):
        for key, child in (node.get("properties") or {}).items():
            dotted = f"{path}.{key}" if path else key
            if child.get("deprecated"):
                yield dotted
            else:
                yield from admitted(child, dotted)

    assert sorted(admitted(schema)) == sorted(FOREIGN)


def test_each_foreign_key_of_the_operator_s_file_is_one_sentence_saying_what_to_write_instead():
    sentences = refusal_sentences(OPERATOR)
    foreign = [key for key in FOREIGN if present(OPERATOR, key)]
    assert len(foreign) >= 12
    named = [sentence.split(" ")[0] for sentence in sentences]
    # One sentence per foreign key, then this chart's own Django key, which no htrflow-batch file names.
    assert named == [*foreign, "django.secretKeySecret"]
    for key, sentence in zip(foreign, sentences, strict=False):
        assert sentence.startswith(f"{key} is htrflow-batch's value: ")
        assert re.search(r": (write .+ instead|remove it: )", sentence) and sentence.endswith("."), sentence
    # Values read as they are raise nothing.
    for same in ("resultsUrl", "s3", "results.sessionSecret", "results.keyDerivation", "web.nodePort",
                 "web.service", "web.ingress", "network.s3Cidrs", "network.apiServer.cidrs"):
        assert not any(sentence.startswith(same + " ") for sentence in sentences), same


def test_written_as_the_sentences_say_the_operator_s_values_install_and_mean_the_same():
    objects = render(as_this_chart_reads_them(OPERATOR), given=False)
    env = container_env(one(objects, "Deployment"))
    assert env["HTRFLOW_RESULTS_URL"]["value"] == OPERATOR["resultsUrl"]
    assert env["HTRFLOW_KEY_DERIVATION"]["value"] == "hcp"
    assert env["HTRFLOW_SESSION_HOURS"]["value"] == "8"
    assert env["S3_BUCKET"]["valueFrom"]["secretKeyRef"]["name"] == "htr-batch-s3"
    assert one(objects, "Deployment")["spec"]["replicas"] == 2
    service = one(objects, "Service")
    assert service["spec"]["type"] == "NodePort"
    assert service["spec"]["ports"][0]["nodePort"] == 30801
    policy = one(objects, "NetworkPolicy")["spec"]
    browsers = [rule for rule in policy["ingress"] if any("ipBlock" in peer for peer in rule["from"])]
    assert browsers == [{"ports": [{"port": "http", "protocol": "TCP"}],
                         "from": [{"ipBlock": {"cidr": "10.20.0.0/16"}}]}]
    api = [rule for rule in policy["egress"] if {"ipBlock": {"cidr": "192.0.2.56/32"}} in rule["to"]]
    assert api and {"ipBlock": {"cidr": "192.0.2.57/32"}} in api[0]["to"]
    assert of_kind(objects, "Secret") == []  # both keys are Secrets the operator made


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
                                   "results": {"sessionSecret": "s"},
                                   "network": {"apiServer": {"cidrs": ["192.0.2.1/32"]}}})
    assert sentences == ["web.nodePort is set while web.service.type is ClusterIP: set web.service.type to NodePort,"
                         " or leave web.nodePort null."]
