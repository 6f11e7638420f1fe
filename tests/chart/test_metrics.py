"""Metrics an operator's Prometheus can scrape, and alerts that name only what the app exports."""

from __future__ import annotations

import json

import helm_python
import promql_parser
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from core import metrics
from tests.chart.render import NAMESPACE, RELEASE, container_env, of_kind, one, render, render_files
from tests.fixtures.waiting import wait_until
from tests.test_container_command import serve  # noqa: F401 - the fixture that starts the Dockerfile's CMD
from tests.test_serving import free_port

ON = {"metrics": {"enabled": True}}
MONITORED = {"metrics": {"enabled": True, "serviceMonitor": {"enabled": True, "labels": {"release": "kps"}},
                         "prometheusRule": {"enabled": True, "labels": {"release": "kps"}}}}


def exported_names() -> set[str]:
    """Every sample name a scrape of the app can show, each figure counted once by the code's own calls."""
    metrics.kube_call("ok", 10)
    metrics.kube_call("timeout")
    metrics.snapshot_refreshed("htr-batch", seconds=0.1, size=10)
    metrics.store_call("unreachable")
    metrics.login("wrong")
    metrics.login_refused("address")
    metrics.status_write("not_writer")
    metrics.poll("board", True)
    metrics.campaign_findings("htr-batch", {"kueue.down": 0})
    text = metrics.exposition()[0].decode()
    return {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}


def selectors(node):
    """Every vector selector of a parsed PromQL expression; a node this walk does not know fails the test."""
    if isinstance(node, promql_parser.VectorSelector):
        yield node
        return
    if isinstance(node, promql_parser.BinaryExpr):
        children = [node.lhs, node.rhs]
    elif isinstance(node, (promql_parser.AggregateExpr, promql_parser.ParenExpr, promql_parser.UnaryExpr,
                           promql_parser.SubqueryExpr)):
        children = [node.expr] + ([node.param] if getattr(node, "param", None) is not None else [])
    elif isinstance(node, promql_parser.MatrixSelector):
        children = [node.vector_selector]
    elif isinstance(node, promql_parser.Call):
        children = list(node.args)
    elif isinstance(node, (promql_parser.NumberLiteral, promql_parser.StringLiteral)):
        children = []
    else:
        raise AssertionError(f"a PromQL node this test does not read: {type(node).__name__}")
    for child in children:
        yield from selectors(child)


def selector_names(node) -> set[str]:
    """Metric names of every selector in a parsed PromQL expression."""
    names = set()
    for selector in selectors(node):
        names |= {selector.name} if selector.name else {
            m.value for m in selector.matchers.matchers if m.name == "__name__"}
    return names


def rules(values=MONITORED):
    return one(render(values), "PrometheusRule")["spec"]["groups"][0]["rules"]


def test_the_metrics_port_is_declared_and_set_only_with_metrics_on():
    container = one(render(ON), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "metrics", "containerPort": 9100, "protocol": "TCP"} in container["ports"]
    env = container_env(one(render(ON), "Deployment"))
    assert env["HTRFLOW_METRICS_PORT"]["value"] == "9100"
    assert "HTRFLOW_METRICS_ADDRESS" not in env  # the listener follows the site's bind (all addresses in the image)
    told = container_env(one(render({"metrics": {"enabled": True, "address": "127.0.0.1", "port": 9300}}),
                                     "Deployment"))
    assert (told["HTRFLOW_METRICS_ADDRESS"]["value"], told["HTRFLOW_METRICS_PORT"]["value"]) == ("127.0.0.1", "9300")
    off = one(render(), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert [port["name"] for port in off["ports"]] == ["http"]
    assert "HTRFLOW_METRICS_PORT" not in container_env(one(render(), "Deployment"))


def test_the_network_policy_lets_the_scraper_reach_the_metrics_port_and_no_one_else():
    scraper = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "observability"}},
                "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}}]
    ingress = one(render({"metrics": {"enabled": True, "scrapeFrom": scraper}}), "NetworkPolicy")["spec"]["ingress"]
    metrics_rules = [rule for rule in ingress if rule["ports"] == [{"port": "metrics", "protocol": "TCP"}]]
    assert metrics_rules == [{"ports": [{"port": "metrics", "protocol": "TCP"}], "from": scraper}]
    web_rules = [rule for rule in ingress if rule not in metrics_rules]
    assert all(port["port"] == "http" for rule in web_rules for port in rule["ports"])
    for values in ({}, {"metrics": {"enabled": True, "scrapeFrom": []}}):
        ingress = one(render(values), "NetworkPolicy")["spec"]["ingress"]
        assert all(port["port"] == "http" for rule in ingress for port in rule["ports"]), values


def test_monitors_and_rules_are_opt_in():
    assert {obj["kind"] for obj in render(ON)} & {"ServiceMonitor", "PodMonitor", "PrometheusRule"} == set()


def test_the_service_monitor_follows_a_metrics_service_that_is_not_the_site_s():
    objects = render(MONITORED)
    monitor = one(objects, "ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["labels"]["release"] == "kps"
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": [NAMESPACE]}
    services = {service["metadata"]["name"]: service for service in of_kind(objects, "Service")}
    site, scraped = services[RELEASE], services[f"{RELEASE}-metrics"]
    assert [port["name"] for port in site["spec"]["ports"]] == ["http"]  # a NodePort never publishes metrics
    assert scraped["spec"]["type"] == "ClusterIP"
    assert scraped["spec"]["ports"] == [{"name": "metrics", "port": 9100, "targetPort": "metrics", "protocol": "TCP"}]
    selected = monitor["spec"]["selector"]["matchLabels"]
    assert selected.items() <= scraped["metadata"]["labels"].items()
    assert not selected.items() <= site["metadata"]["labels"].items()
    [endpoint] = monitor["spec"]["endpoints"]
    assert (endpoint["port"], endpoint["path"], endpoint["interval"]) == ("metrics", "/metrics", "30s")
    assert {"action": "replace", "targetLabel": "job", "replacement": RELEASE} in endpoint["relabelings"]


def test_the_pod_monitor_scrapes_the_pods_metrics_port():
    objects = render({"metrics": {"enabled": True, "podMonitor": {"enabled": True}}})
    monitor = one(objects, "PodMonitor")
    deployment = one(objects, "Deployment")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= (
        deployment["spec"]["template"]["metadata"]["labels"].items())
    [endpoint] = monitor["spec"]["podMetricsEndpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("metrics", "/metrics")
    assert of_kind(objects, "ServiceMonitor") == []
    assert f"{RELEASE}-metrics" not in {service["metadata"]["name"] for service in of_kind(objects, "Service")}


@pytest.mark.parametrize("values, sentence", [
    ({"metrics": {"enabled": True, "serviceMonitor": {"enabled": True}, "podMonitor": {"enabled": True}}},
     "metrics.serviceMonitor.enabled and metrics.podMonitor.enabled are both true"),
    ({"metrics": {"prometheusRule": {"enabled": True}}}, "set metrics.enabled to true"),
])
def test_monitoring_without_metrics_or_twice_is_refused(values, sentence):
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values)
    assert sentence in str(refused.value)


def test_the_alerts_an_operator_wants_are_there_and_select_this_release_only():
    by_name = {rule["alert"]: rule for rule in rules()}
    assert set(by_name) == {"HtrbrowserDown",
                            "HtrbrowserClusterUnreadable", "HtrbrowserStoreUnreachable", "HtrbrowserNoStatusWriter",
                            "HtrbrowserLoginFailures", "HtrbrowserKueueNotRunning", "HtrbrowserCampaignsNeedAPerson"}
    for rule in by_name.values():
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}
    tuned = {rule["alert"]: rule for rule in rules(
        {"metrics": {"enabled": True, "prometheusRule": {"enabled": True, "clusterUnreadableMinutes": 3,
                                                         "loginFailuresPerMinute": 12}}})}
    assert "> 180" in tuned["HtrbrowserClusterUnreadable"]["expr"]
    assert "[3m:1m]" in tuned["HtrbrowserClusterUnreadable"]["expr"]
    assert tuned["HtrbrowserLoginFailures"]["expr"].endswith("> 12")


def test_every_selector_is_limited_to_this_release_s_pods():
    for rule in rules():
        found = list(selectors(promql_parser.parse(rule["expr"])))
        assert found, rule["alert"]
        for selector in found:
            labels = {(m.name, m.value) for m in selector.matchers.matchers}
            assert {("job", RELEASE), ("namespace", NAMESPACE)} <= labels, (rule["alert"], str(selector))


def test_the_alerts_name_only_metrics_the_app_exports():
    # `up` is Prometheus's own, for each target it scrapes: HtrbrowserDown's, when no pod answers at all.
    exported = exported_names() | {"up"}
    assert {"htrbrowser_snapshot_age_seconds", "htrbrowser_kube_calls_total", "htrbrowser_logins_total"} <= exported
    named = set()
    for rule in rules():
        found = selector_names(promql_parser.parse(rule["expr"]))
        assert found, rule["alert"]
        assert found <= exported, (rule["alert"], sorted(found - exported))
        named |= found
    assert named >= {"htrbrowser_snapshot_age_seconds", "htrbrowser_store_calls_total",
                     "htrbrowser_status_writes_total", "htrbrowser_logins_total"}


def test_the_name_check_catches_a_metric_the_app_does_not_export():
    expression = 'sum(rate(htrbrowser_logins_total[5m])) / on() group_left sum(htrbrowser_login_failures)'
    assert selector_names(promql_parser.parse(expression)) == {"htrbrowser_logins_total",
                                                                 "htrbrowser_login_failures"}
    assert not selector_names(promql_parser.parse(expression)) <= exported_names()


def test_the_served_pod_s_metrics_listen_where_the_site_does_and_show_only_exported_names(serve, tmp_path):  # noqa: F811
    port = free_port()
    _base, process = serve(HTRFLOW_METRICS="true", HTRFLOW_METRICS_PORT=str(port),
                           HTRFLOW_METRICS_DIR=str(tmp_path / "metrics"), HTRFLOW_HTTPS="false")
    text = wait_until(
        lambda: requests.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text,
        interval=0.1,
        what="the metrics to answer",
        ignoring=(requests.RequestException,),
    )
    scraped = {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}
    assert "htrbrowser_snapshot_age_seconds" in {family.name for family in text_string_to_metric_families(text)}
    ours = {name for name in scraped if name.startswith(metrics.PREFIX)}
    assert ours <= exported_names(), sorted(ours - exported_names())
    process.terminate()
    output = process.communicate(timeout=20)[0].decode()
    # The site is bound to 127.0.0.1 here (the image binds 0.0.0.0): its metrics stay on loopback too.
    assert f"Metrics served on 127.0.0.1:{port}" in output


def test_with_metrics_on_the_built_in_objects_validate_strictly():
    import kubernetes_validate

    objects = render({"metrics": {"enabled": True, "serviceMonitor": {"enabled": True},
                                  "prometheusRule": {"enabled": True}}})
    built_in = [obj for obj in objects if not obj["apiVersion"].startswith("monitoring.coreos.com/")]
    for obj in built_in:
        kubernetes_validate.validate(obj, "1.30.0", strict=True)
    assert {obj["kind"] for obj in objects} - {obj["kind"] for obj in built_in} == {"ServiceMonitor", "PrometheusRule"}


def test_the_grafana_dashboard_ships_with_the_chart_and_its_queries_name_only_exported_metrics():
    from tests.chart.render import CHART

    shipped = json.loads((CHART / "dashboards" / "htrbrowser.json").read_text())
    values = {"metrics": {"enabled": True, "grafanaDashboard": {"enabled": True, "namespace": "monitoring"}}}
    config_map = one(render(values), "ConfigMap")
    assert config_map["metadata"]["namespace"] == "monitoring"
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(config_map["data"]["htrbrowser.json"]) == shipped
    exported = exported_names()
    named = set()
    for panel in shipped["panels"]:
        for target in panel["targets"]:
            found = selector_names(promql_parser.parse(target["expr"]))
            assert found and found <= exported, (panel["title"], sorted(found - exported))
            named |= found
    assert len(named) >= 7
    assert of_kind(render({"metrics": {"enabled": True}}), "ConfigMap") == []
