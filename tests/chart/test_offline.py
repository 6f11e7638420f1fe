"""What the chart cannot look up it must be told: rendered without a cluster (helm template, Argo CD)
or with gitOps on, it refuses with one sentence naming the value, never guessing open."""

import helm_python
import pytest

from tests.chart.render import NAMESPACE, one, render, render_files

API = {"network": {"apiServer": {"cidrs": ["192.0.2.1/32"]}}}


def refusal(values, given=False) -> str:
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values, given=given)
    return str(refused.value)


def test_without_the_api_server_s_addresses_the_render_refuses_naming_the_value():
    for values in ({}, {"gitOps": True}):
        message = refusal(values)
        assert "network.apiServer.cidrs is empty and the API server's addresses could not be looked up" in message
        assert "set network.apiServer.cidrs" in message
    assert "gitOps is true" in refusal({"gitOps": True})
    assert "helm template or Argo CD" in refusal({})
    # Without a NetworkPolicy there is nothing to place: it renders.
    secrets = {"results": {"sessionSecret": "session"}, "django": {"secretKeySecret": "django"},
               "image": {"tag": "1.0.0"}}
    assert one(render({"network": {"enabled": False}, **secrets}, given=False), "Deployment")


def test_every_problem_is_its_own_sentence_in_one_refusal():
    message = refusal({"redis": {"existingSecret": "redis-url"}, "metrics": {"prometheusRule": {"enabled": True}}})
    sentences = [line[2:] for line in message.splitlines() if line.startswith("- ")]
    assert [sentence.split(" ")[0] for sentence in sentences] == [
        "image.tag", "results.sessionSecret", "django.secretKeySecret", "network.apiServer.cidrs",
        "redis.existingSecret", "metrics.serviceMonitor,"]
    assert all(sentence.endswith(".") for sentence in sentences)


def redis_rule(values):
    egress = one(render(values), "NetworkPolicy")["spec"]["egress"]
    found = [rule for rule in egress if rule["ports"][0]["port"] in (6379, 6380, 7000)]
    assert len(found) <= 1, found
    return found[0] if found else None


@pytest.mark.parametrize("url, port, peer", [
    ("redis://redis-master.cache.svc.cluster.local:6380/0", 6380,
     {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "cache"}}}),
    ("redis://:secret@redis:6379/1", 6379,
     {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}}}),
    ("rediss://203.0.113.9", 6379, {"ipBlock": {"cidr": "203.0.113.9/32"}}),
    ("redis://[2001:db8::9]:7000", 7000, {"ipBlock": {"cidr": "2001:db8::9/128"}}),
])
def test_redis_egress_is_worked_out_from_redis_url(url, port, peer):
    rule = redis_rule({"redis": {"url": url}})
    assert rule == {"ports": [{"port": port, "protocol": "TCP"}], "to": [peer]}


def test_no_redis_no_redis_rule_and_given_addresses_or_labels_win():
    assert redis_rule({}) is None
    told = redis_rule({"redis": {"url": "redis://redis.example.org:6380"},
                       "network": {"redis": {"cidrs": ["198.51.100.7/32"]}}})
    assert told == {"ports": [{"port": 6380, "protocol": "TCP"}], "to": [{"ipBlock": {"cidr": "198.51.100.7/32"}}]}
    labelled = redis_rule({"redis": {"existingSecret": "redis-url"},
                           "network": {"redis": {"namespace": "cache", "podLabels": {"app": "redis"}, "port": 7000}}})
    assert labelled["to"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "cache"}},
                               "podSelector": {"matchLabels": {"app": "redis"}}}]
    assert labelled["ports"] == [{"port": 7000, "protocol": "TCP"}]


@pytest.mark.parametrize("values, sentence", [
    ({"redis": {"existingSecret": "redis-url"}},
     "redis.existingSecret hides the redis address from the chart: set network.redis.namespace"),
    ({"redis": {"url": "redis://redis.example.org:6379"}},
     "redis.url names redis.example.org, which is not a Service in the cluster: set network.redis.cidrs"),
])
def test_a_redis_the_chart_cannot_place_is_refused_with_a_sentence(values, sentence):
    assert sentence in refusal({**API, **values})
