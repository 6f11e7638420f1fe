"""The chart in production (issue 40): replicas that share their state, htrflow-batch's values as a drop-in,
a subchart, rollouts that drop nothing, network policy for the clusters people run, names that cannot collide.
Every variant rendered here is also validated strictly (test_every_variant_validates_strictly)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import helm_python
import kubernetes_validate
import pytest
import yaml

from tests.chart.render import (
    BEHIND_NGINX,
    CHART,
    NAMESPACE,
    OFFLINE,
    RELEASE,
    container_env,
    merged,
    notes,
    of_kind,
    one,
    render,
    render_files,
)
from tests.chart.test_render import KUBERNETES_VERSIONS

ROOT = Path(__file__).resolve().parents[2]
REDIS = {"redis": {"url": "redis://redis.htr-batch.svc:6379/0"}}
NODE_PORT = {"web": {"service": {"type": "NodePort"}}}
TRAEFIK = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
           "podSelector": {"matchLabels": {"app.kubernetes.io/name": "traefik"}}}
ROUTE = {"web": {"httpRoute": {"enabled": True, "hostnames": ["*.example.org"],
                               "parentRefs": [{"name": "public", "namespace": "gateways"}]}}}
# Kinds defined by CustomResourceDefinitions, which kubernetes-validate does not bundle.
CRD_KINDS = {"HTTPRoute", "CiliumNetworkPolicy", "PrometheusRule", "ServiceMonitor", "PodMonitor"}


def refusal(values: dict) -> str:
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values)
    return str(refused.value)


def deployment_of(values: dict | None = None) -> dict:
    return one(render(values), "Deployment")


def pod_spec(values: dict | None = None) -> dict:
    return deployment_of(values)["spec"]["template"]["spec"]


# --- 1. several replicas need shared state -------------------------------------------------------------------

def test_the_default_is_one_replica_and_more_without_a_shared_redis_are_refused():
    assert deployment_of()["spec"]["replicas"] == 1
    sentence = refusal({"replicas": 2})
    assert "replicas is 2 but redis.url and redis.existingSecret are empty" in sentence
    assert "set redis.existingSecret (or redis.url)" in sentence and "or set replicas to 1" in sentence


def test_several_replicas_with_a_redis_render_and_the_schema_no_longer_calls_sessions_shared():
    assert deployment_of(merged(REDIS, {"replicas": 3}))["spec"]["replicas"] == 3
    secret = {"replicas": 2, "redis": {"existingSecret": "htrbrowser-redis"},
              "network": {"redis": {"namespace": "htr-redis"}}}
    env = container_env(deployment_of(secret))
    assert env["HTRFLOW_REDIS_URL"]["valueFrom"]["secretKeyRef"]["name"] == "htrbrowser-redis"
    schema = (CHART / "values.schema.json").read_text()
    assert "any number shares them" not in schema
    assert "More than one needs `redis.url` or `redis.existingSecret`" in schema


# --- 2. htrflow-batch's keys taken as they are -----------------------------------------------------------------

def test_https_follows_what_stands_in_front_and_a_plain_node_port_with_https_is_refused():
    def https(values):
        return container_env(deployment_of(values))["HTRFLOW_HTTPS"]["value"]

    assert https({}) == "false"
    assert https(NODE_PORT) == "false"
    assert https(merged(BEHIND_NGINX, {"web": {"ingress": {"enabled": True, "host": "htr.example.org"}}})) == "true"
    assert https(merged(BEHIND_NGINX, ROUTE)) == "true"
    assert https({"web": {"https": True}}) == "true"  # ClusterIP: something else may stand in front
    sentence = refusal(merged(NODE_PORT, {"web": {"https": True}}))
    assert "web.https is true on a NodePort with no Ingress or HTTPRoute in front" in sentence
    assert "set web.https to false (or leave it null)" in sentence


def test_htrflow_web_s_node_port_is_not_taken_unless_asked_and_notes_say_how_to_choose():
    taken = merged(NODE_PORT, {"web": {"nodePort": 30800}})
    assert "nodePort" not in one(render(taken), "Service")["spec"]["ports"][0]
    said = notes(taken)
    assert "web.nodePort 30800 is htrflow-web's, so the cluster picked a node port instead" in said
    assert "web.takeHtrflowWebPort" in said
    asked = merged(taken, {"web": {"takeHtrflowWebPort": True}})
    assert one(render(asked), "Service")["spec"]["ports"][0]["nodePort"] == 30800
    other = merged(NODE_PORT, {"web": {"nodePort": 30801}})
    assert one(render(other), "Service")["spec"]["ports"][0]["nodePort"] == 30801
    assert "htrflow-web's" not in notes(other)


@pytest.mark.parametrize(("given", "requests", "limits"), [
    ({"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}}, "384Mi", "512Mi"),
    ({"requests": {"memory": "500M"}, "limits": {"memory": "1Gi"}}, "500M", "1Gi"),
    ({"requests": {"memory": "400M"}, "limits": {"memory": "1Gi"}}, "384Mi", "1Gi"),  # 400 MB < 384 MiB
    ({"requests": {"memory": None}, "limits": {"memory": None}}, "384Mi", None),  # null drops a default
    ({"requests": {"memory": "0.5Gi"}, "limits": {"memory": "536870912"}}, "0.5Gi", "536870912"),
])
def test_memory_below_this_app_s_measured_need_is_raised_and_said(given, requests, limits):
    values = {"web": {"resources": given}}
    resources = pod_spec(values)["containers"][0]["resources"]
    assert resources["requests"]["memory"] == requests
    assert resources.get("limits", {}).get("memory") == limits
    raised = requests != given["requests"].get("memory") or limits != given["limits"].get("memory")
    assert ("the\nchart raised" in notes(values)) is raised


def test_the_default_sizes_are_this_app_s_own():
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())["web"]["resources"]
    assert defaults["requests"]["memory"] == "384Mi" and defaults["limits"]["memory"] == "768Mi"
    assert "the\nchart raised" not in notes()
    # The figure the floor comes from: the worker at five times the archive.
    assert "There the worker holds about 300 MiB" in (ROOT / "benchmarks" / "RESULTS.md").read_text()


# --- 3. a subchart ---------------------------------------------------------------------------------------------

def render_chart(chart: Path, values: dict, namespace: str = NAMESPACE, release: str = RELEASE) -> list[dict]:
    with helm_python.Chart.load(chart) as loaded:
        files = loaded.render(values, name=release, namespace=namespace, is_install=True)
    return [doc for path, text in sorted(files.items()) if not path.endswith("NOTES.txt")
            and "/templates/tests/" not in path for doc in yaml.safe_load_all(text) if doc]


@pytest.fixture
def umbrella(tmp_path):
    root = tmp_path / "platform"
    shutil.copytree(CHART, root / "charts" / "htrbrowser")
    (root / "Chart.yaml").write_text(yaml.safe_dump({
        "apiVersion": "v2", "name": "platform", "version": "1.0.0",
        "dependencies": [{"name": "htrbrowser",
                          "version": yaml.safe_load((CHART / "Chart.yaml").read_text())["version"]}],
    }))
    (root / "values.yaml").write_text(yaml.safe_dump({"global": {"imageRegistry": "registry.example.org"}}))
    return root


def test_the_chart_renders_inside_an_umbrella_chart_with_global_values(umbrella):
    objects = render_chart(umbrella, {"global": {"imageRegistry": "registry.example.org", "storageClass": "ceph"},
                                      "htrbrowser": OFFLINE}, release="platform")
    deployment = one(objects, "Deployment")
    assert deployment["metadata"]["name"] == "platform-htrbrowser"
    for version in KUBERNETES_VERSIONS:
        for obj in objects:
            kubernetes_validate.validate(obj, version, strict=True)
    with helm_python.Chart.load(CHART) as chart:
        chart.validate_schema({"global": {"anything": True}})


# --- 4. rollouts and drains ------------------------------------------------------------------------------------

def test_the_grace_period_is_the_pre_stop_sleep_and_gunicorn_s_graceful_timeout_together():
    spec = pod_spec()
    container = spec["containers"][0]
    assert container["lifecycle"]["preStop"] == {"exec": {"command": ["sleep", "10"]}}
    assert container_env(deployment_of())["HTRFLOW_GRACEFUL_SECONDS"]["value"] == "120"
    assert spec["terminationGracePeriodSeconds"] == 10 + 120 + 5
    tuned = pod_spec({"web": {"shutdown": {"preStopSeconds": 20, "gracefulSeconds": 600}}})
    assert tuned["terminationGracePeriodSeconds"] == 625
    assert tuned["containers"][0]["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "20"]
    assert "lifecycle" not in pod_spec({"web": {"shutdown": {"preStopSeconds": 0}}})["containers"][0]
    # Readiness fails at once on a stopping pod (it leaves the endpoints), while the listener stays open
    # through the sleep: the sleep is shorter than the grace, and the probes are untouched by it.
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"


@pytest.mark.parametrize(("env", "expected"), [({}, 120), ({"HTRFLOW_GRACEFUL_SECONDS": "600"}, 600)])
def test_gunicorn_s_graceful_timeout_is_the_chart_s(env, expected):
    script = ("import runpy; print(runpy.run_path('htrbrowser/gunicorn_conf.py')['graceful_timeout'])")
    clean = {key: value for key, value in os.environ.items() if not key.startswith("HTRFLOW_")}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**clean, **env}, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == str(expected)


def test_a_graceful_timeout_gunicorn_cannot_read_is_refused_by_the_schema():
    sentence = refusal({"web": {"shutdown": {"gracefulSeconds": 0}}})
    assert "gracefulSeconds" in sentence


# --- 5. network policy -----------------------------------------------------------------------------------------

def policy(values: dict | None = None) -> dict:
    return one(render(values), "NetworkPolicy")["spec"]


def test_an_ingress_or_route_without_the_sources_in_front_is_refused():
    for front in ({"web": {"ingress": {"enabled": True, "host": "htr.example.org"}}}, ROUTE):
        sentence = refusal(front)
        assert "network.ingressFrom and network.ingressCidrs are empty" in sentence
    # No ingress-nginx is assumed: nothing in front, no peer.
    assert all("namespaceSelector" not in str(rule) or "metrics" in str(rule) for rule in policy()["ingress"])


def test_k3s_traefik_or_a_gateway_in_front_is_let_in():
    spec = policy(merged(ROUTE, {"network": {"ingressFrom": [TRAEFIK]}}))
    web = [rule for rule in spec["ingress"] if TRAEFIK in rule["from"]]
    assert web and web[0]["ports"] == [{"port": "http", "protocol": "TCP"}]


def test_node_local_dns_cache_is_a_dns_peer():
    spec = policy({"network": {"dns": {"nodeLocalCidrs": ["169.254.20.10/32"]}}})
    dns = [rule for rule in spec["egress"] if {"port": 53, "protocol": "UDP"} in rule["ports"]]
    assert len(dns) == 1
    assert {"ipBlock": {"cidr": "169.254.20.10/32"}} in dns[0]["to"]
    assert any("podSelector" in peer for peer in dns[0]["to"])  # the kube-dns pods stay


def test_cilium_reaches_the_api_server_as_an_entity_without_addresses():
    values = {"network": {"apiServer": {"cidrs": [], "ciliumEntities": True}}}
    objects = render(values)
    cilium = one(objects, "CiliumNetworkPolicy")
    assert cilium["apiVersion"] == "cilium.io/v2"
    assert cilium["spec"]["endpointSelector"]["matchLabels"]["app.kubernetes.io/instance"] == RELEASE
    egress = cilium["spec"]["egress"]
    assert egress[0]["toEntities"] == ["kube-apiserver"]
    assert {"port": "6443", "protocol": "TCP"} in egress[0]["toPorts"][0]["ports"]
    # No ipBlock rule is left without addresses (an empty `to` would open every address).
    spec = one(objects, "NetworkPolicy")["spec"]
    assert all(rule.get("to") for rule in spec["egress"])
    assert not any("ipBlock" in str(rule) and 6443 in [p["port"] for p in rule["ports"]] for rule in spec["egress"])
    assert of_kind(render(), "CiliumNetworkPolicy") == []
    assert "network.apiServer.ciliumEntities" in refusal({"network": {"apiServer": {"cidrs": []}}})


# --- 6. externalTrafficPolicy ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "expected"), [
    (NODE_PORT, "Cluster"),
    (merged(NODE_PORT, {"network": {"ingressCidrs": ["10.20.0.0/16"]}}), "Local"),
    (merged(NODE_PORT, {"network": {"ingressCidrs": ["10.20.0.0/16"]},
                        "web": {"service": {"externalTrafficPolicy": "Cluster"}}}), "Cluster"),
    (merged(NODE_PORT, {"web": {"service": {"type": "LoadBalancer", "externalTrafficPolicy": "Local"}}}), "Local"),
])
def test_external_traffic_policy_is_a_value_not_forced_local(values, expected):
    assert one(render(values), "Service")["spec"]["externalTrafficPolicy"] == expected


# --- 7. names that cannot collide ------------------------------------------------------------------------------

def test_roles_outside_the_release_namespace_carry_it_so_two_releases_do_not_collide():
    shown = {"namespaces": ["htr-batch", "archive-a"]}
    first = render(shown)
    second = render(shown, namespace="htr-batch-2")
    def names(objects, namespace):
        return {(obj["kind"], obj["metadata"]["name"]) for obj in objects
                if obj["kind"] in ("Role", "RoleBinding") and obj["metadata"]["namespace"] == namespace}
    assert names(first, "archive-a") == {("Role", "htr-batch-htrbrowser"), ("RoleBinding", "htr-batch-htrbrowser")}
    assert not names(first, "archive-a") & names(second, "archive-a")
    assert not names(first, "kueue-system") & names(second, "kueue-system")
    binding = next(obj for obj in first if obj["kind"] == "RoleBinding" and obj["metadata"]["namespace"] == "archive-a")
    assert binding["roleRef"]["name"] == "htr-batch-htrbrowser"
    # In its own namespace a release's Role keeps its plain name.
    assert ("Role", "htrbrowser") in names(first, NAMESPACE)


# --- 8. the smaller items --------------------------------------------------------------------------------------

def test_an_alert_fires_when_no_pod_answers_at_all():
    rule_set = one(render({"metrics": {"enabled": True, "prometheusRule": {"enabled": True, "downMinutes": 3}}}),
                   "PrometheusRule")
    down = next(rule for group in rule_set["spec"]["groups"] for rule in group["rules"]
                if rule.get("alert") == "HtrbrowserDown")
    assert f'up{{job="{RELEASE}", namespace="{NAMESPACE}"}}' in down["expr"]
    assert "absent(" in down["expr"] and down["for"] == "3m" and down["labels"]["severity"] == "critical"


def test_the_log_format_is_a_value():
    assert container_env(deployment_of())["HTRFLOW_LOG_FORMAT"]["value"] == "plain"
    assert container_env(deployment_of({"web": {"logFormat": "json"}}))["HTRFLOW_LOG_FORMAT"]["value"] == "json"


def test_a_wildcard_host_reaches_django_as_its_leading_dot():
    hosts = container_env(deployment_of(merged(BEHIND_NGINX, ROUTE)))["DJANGO_ALLOWED_HOSTS"]["value"].split(",")
    assert ".example.org" in hosts and "*.example.org" not in hosts


def test_spreading_counts_only_the_pods_of_the_same_rollout():
    constraint = pod_spec()["topologySpreadConstraints"][0]
    assert constraint["matchLabelKeys"] == ["pod-template-hash"]


def test_the_version_label_is_the_image_s_tag_and_a_build_version_makes_a_valid_chart_label(tmp_path):
    labels = deployment_of({"image": {"tag": "1.4.2-rc.1"}})["metadata"]["labels"]
    assert labels["app.kubernetes.io/version"] == "1.4.2-rc.1"
    chart = tmp_path / "htrbrowser"
    shutil.copytree(CHART, chart)
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    meta["version"] = "0.1.0+build.7"
    (chart / "Chart.yaml").write_text(yaml.safe_dump(meta))
    objects = render_chart(chart, OFFLINE)
    assert one(objects, "Deployment")["metadata"]["labels"]["helm.sh/chart"] == "htrbrowser-0.1.0_build.7"
    for version in KUBERNETES_VERSIONS:
        kubernetes_validate.validate(one(objects, "Deployment"), version, strict=True)


VARIANTS = {
    "htrflow-batch-node-port": merged(NODE_PORT, {
        "web": {"nodePort": 30800, "resources": {"requests": {"memory": "128Mi"}, "limits": {"memory": "256Mi"}}},
        "network": {"ingressCidrs": ["10.20.0.0/16"]}}),
    "route-behind-traefik": merged(ROUTE, {"network": {"ingressFrom": [TRAEFIK]}}),
    "ingress": merged(BEHIND_NGINX, {"web": {"ingress": {"enabled": True, "host": "htr.example.org"}}}),
    "cilium-nodelocal": {"network": {"apiServer": {"cidrs": [], "ciliumEntities": True},
                                     "dns": {"nodeLocalCidrs": ["169.254.20.10/32"]}}},
    "replicas-with-redis": merged(REDIS, {"replicas": 3, "web": {"shutdown": {"preStopSeconds": 15}}}),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_variant_validates_strictly(variant, version):
    checked = 0
    for obj in render(VARIANTS[variant], hooks=True):
        if obj["kind"] in CRD_KINDS:
            continue
        kubernetes_validate.validate(obj, version, strict=True)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("image", [{}, {"tag": ""}, {"repository": "registry.example.org/htr/htrbrowser"}])
def test_an_image_nobody_named_is_refused_with_where_it_comes_from_and_how_to_build_it(image):
    """No htrbrowser image is published: a default install would end in ImagePullBackOff without a word."""
    values = merged(OFFLINE, {"image": {"tag": ""}})
    values["image"] = {**values["image"], **image}
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values, given=False)
    sentences = [line[2:] for line in str(refused.value).splitlines() if line.startswith("- ")]
    assert len(sentences) == 1, sentences
    sentence = sentences[0]
    repository = image.get("repository", "ghcr.io/riksarkivet/htrbrowser")
    assert sentence.startswith("image.tag and image.digest are empty: no htrbrowser image is published")
    assert f"pull from {repository}," in sentence and "ImagePullBackOff" in sentence
    assert "Dockerfile at the root of this repository" in sentence
    assert 'docs/operating.md, "The container image"' in sentence
    assert "push it" in sentence and "set image.repository with image.digest (sha256:…) or image.tag." in sentence
    # The places the sentence points at are there.
    assert (ROOT / "Dockerfile").exists() and "## The container image" in (ROOT / "docs" / "operating.md").read_text()


@pytest.mark.parametrize("image", [{"tag": "1.0.0"}, {"digest": "sha256:" + "0f" * 32}])
def test_an_image_named_by_tag_or_digest_installs_as_named(image):
    values = merged(OFFLINE, {"image": {"tag": ""}})
    values["image"] = {"repository": "registry.example.org/htr/htrbrowser", **image}
    deployment = one(render(values, given=False), "Deployment")
    reference = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    assert reference == "registry.example.org/htr/htrbrowser" + (f":{image['tag']}" if "tag" in image
                                                                  else f"@{image['digest']}")
    assert "ImagePullBackOff" not in notes(values)


def test_every_install_the_docs_show_names_its_image():
    installing = (ROOT / "docs" / "installing.md").read_text()
    assert "image: { repository: registry.example.org/htr/htrbrowser, tag: 1.0.0 }" in installing
    assert "docker build -t registry.example.org/htr/htrbrowser:1.0.0 ." in installing
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())["image"]
    assert defaults["tag"] == "" and defaults["digest"] == ""  # nothing named for the operator


def test_the_notes_point_at_the_http_route_when_it_is_the_way_in():
    said = notes(merged(BEHIND_NGINX, {"web": {"httpRoute": {
        "enabled": True, "hostnames": ["htr-gw.example.org"], "parentRefs": [{"name": "public"}]}}}))
    assert "Open https://htr-gw.example.org/ (through the HTTPRoute htrbrowser)" in said
