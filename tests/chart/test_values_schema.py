"""A values mistake is refused before anything is installed, with a message naming the value."""

import json

import helm_python
import pytest

from tests.chart.render import CHART, render_files

# (values, the value named in the message, what is wrong with it)
REFUSALS = [
    ({"replica": 2}, "at ''", "additional properties 'replica' not allowed"),
    ({"web": {"ingress": {"hostname": "htr.example.org"}}}, "at '/web/ingress'",
     "additional properties 'hostname' not allowed"),
    ({"replicas": 0}, "at '/replicas'", "minimum: got 0, want 1"),
    ({"replicas": "two"}, "at '/replicas'", "got string, want integer"),
    ({"web": {"ingress": {"enabled": True}}}, "at '/web/ingress/host'", "minLength: got 0, want 1"),
    ({"web": {"httpRoute": {"enabled": True, "hostnames": ["htr.example.org"]}}},
     "at '/web/httpRoute/parentRefs'", "minItems: got 0, want 1"),
    ({"network": {"s3Cidrs": ["s3.example.org"]}}, "at '/network/s3Cidrs/0'", "'s3.example.org' does not match"),
    ({"network": {"ingressFrom": [{}]}}, "at '/network/ingressFrom/0'", "minProperties: got 0, want 1"),
    ({"network": {"s3Ports": []}}, "at '/network/s3Ports'", "minItems: got 0, want 1"),
    ({"results": {"keyDerivation": "md5"}}, "at '/results/keyDerivation'", "value must be one of 'none', 'hcp'"),
    ({"resultsUrl": "ftp://htr.example.org/results"}, "at '/resultsUrl'", "does not match"),
    ({"image": {"digest": "latest"}}, "at '/image/digest'", "'latest' does not match"),
    ({"namespaces": ["Bad_NS"]}, "at '/namespaces/0'", "'Bad_NS' does not match"),
    ({"web": {"trustedHops": -1}}, "at '/web/trustedHops'", "minimum: got -1, want 0"),
    ({"s3": {"existingSecret": ""}}, "at '/s3/existingSecret'", "minLength: got 0, want 1"),
    ({"web": {"podDisruptionBudget": {"maxUnavailable": "half"}}},
     "at '/web/podDisruptionBudget/maxUnavailable'", "'half' does not match"),
    ({"statusRecords": {"enabled": "yes"}}, "at '/statusRecords/enabled'", "got string, want boolean"),
    ({"kube": {"timeoutSeconds": 0}}, "at '/kube/timeoutSeconds'", "minimum: got 0, want 0.1"),
]


@pytest.mark.parametrize("values, named, wrong", REFUSALS, ids=[json.dumps(case[0]) for case in REFUSALS])
def test_a_bad_value_is_refused_with_a_message_naming_it(values, named, wrong):
    with pytest.raises(helm_python.HelmValuesError) as refused:
        render_files(values)
    message = str(refused.value)
    assert any(named in line and wrong in line for line in message.splitlines()), message


# Mistakes across two values: refused by the templates with a sentence of ours.
SENTENCES = [
    ({"redis": {"url": "redis://redis:6379/0", "existingSecret": "redis-url"}},
     "redis.url and redis.existingSecret are both set: give the redis URL one way only."),
    ({"web": {"ingress": {"enabled": True, "host": "htr.example.org"}, "trustedHops": 0}},
     "web.trustedHops is 0 while an Ingress or HTTPRoute is rendered and web.https is true"),
]


@pytest.mark.parametrize("values, sentence", SENTENCES, ids=[json.dumps(case[0]) for case in SENTENCES])
def test_a_mistake_across_values_is_refused_with_a_sentence(values, sentence):
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values)
    assert sentence in str(refused.value)


def test_the_schema_checks_the_same_way_without_rendering():
    with helm_python.Chart.load(CHART) as chart:
        chart.validate_schema({"replicas": 1})
        with pytest.raises(helm_python.HelmValuesError, match="at '/replicas'"):
            chart.validate_schema({"replicas": -1})


def schema_objects(node, path=""):
    if node.get("type") == "object" and "properties" in node:
        yield path, node
        for key, child in node["properties"].items():
            yield from schema_objects(child, f"{path}.{key}" if path else key)


def test_every_object_of_the_schema_refuses_unknown_keys():
    schema = json.loads((CHART / "values.schema.json").read_text())
    objects = list(schema_objects(schema))
    assert len(objects) > 15
    open_objects = [path or "(top)" for path, node in objects if node.get("additionalProperties") is not False]
    assert open_objects == []
