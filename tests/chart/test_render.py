"""The chart renders with defaults and with every value set, and every object is valid Kubernetes."""

from pathlib import Path

import kubernetes_validate
import pytest

from htrbrowser.configuration import SETTINGS
from tests.chart.render import BEHIND_NGINX, FULL_VALUES, NAMESPACE, container_env, notes, of_kind, one, render

CONFIGURATION_DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"

# The oldest Kubernetes the chart supports (ValidatingAdmissionPolicy v1) and the newest schemas bundled.
KUBERNETES_VERSIONS = ("1.30.0", kubernetes_validate.latest_version())
# Kinds defined by CustomResourceDefinitions: kubernetes-validate bundles only the built-in schemas.
CRD_KINDS = {("gateway.networking.k8s.io/v1", "HTTPRoute"): "Gateway API is installed as CRDs, not built in"}

CASES = {"defaults": {}, "full": FULL_VALUES}


@pytest.fixture(params=sorted(CASES), scope="module")
def rendered(request):
    return request.param, render(CASES[request.param], hooks=True)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_rendered_object_validates_strictly(rendered, version):
    _case, objects = rendered
    checked = 0
    for obj in objects:
        if (obj["apiVersion"], obj["kind"]) in CRD_KINDS:
            continue
        kubernetes_validate.validate(obj, version, strict=True)
        checked += 1
    assert checked >= 10


def test_crd_kinds_are_the_only_ones_left_unvalidated_and_have_their_required_fields():
    route = one(render(FULL_VALUES), "HTTPRoute")
    assert route["spec"]["parentRefs"] == FULL_VALUES["web"]["httpRoute"]["parentRefs"]
    assert route["spec"]["hostnames"] == ["htr-gw.example.org"]
    backend = route["spec"]["rules"][0]["backendRefs"][0]
    assert backend == {"name": "htrbrowser", "port": 8080}


def test_the_defaults_install_what_the_issue_lists():
    objects = render()
    kinds = sorted({obj["kind"] for obj in objects})
    assert kinds == sorted([
        "ClusterRole", "ClusterRoleBinding", "Deployment", "NetworkPolicy", "PodDisruptionBudget", "Role",
        "RoleBinding", "Service", "ServiceAccount", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ])
    assert one(objects, "Deployment")["spec"]["replicas"] >= 1
    # Kueue's namespace holds one Role (and its binding): reading its controller's Deployments and pods.
    assert {obj["metadata"]["namespace"] for obj in objects if "namespace" in obj["metadata"]} == {
        NAMESPACE, "kueue-system"}
    assert sorted(obj["kind"] for obj in objects if obj["metadata"].get("namespace") == "kueue-system") == [
        "Role", "RoleBinding"]


def test_full_values_render_the_ingress_route_and_no_generated_secret():
    objects = render(FULL_VALUES)
    assert of_kind(objects, "Secret") == []  # both Secrets are the operator's
    ingress = one(objects, "Ingress")
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"] == [{"hosts": ["htr.example.org"], "secretName": "htr-example-org-tls"}]
    assert ingress["metadata"]["annotations"] == {"nginx.ingress.kubernetes.io/proxy-read-timeout": "120"}
    assert sorted(role["metadata"]["namespace"] for role in of_kind(objects, "Role")) == [
        "htr-batch", "htr-batch-2", "kueue-system"]
    deployment = one(objects, "Deployment")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "registry.example.org/htr/htrbrowser@sha256:" + "ab" * 32
    )


def test_the_chart_sets_hops_and_hosts_from_what_it_installs():
    plain = container_env(one(render(), "Deployment"))
    assert plain["HTRFLOW_TRUSTED_HOPS"]["value"] == "0"
    assert "htrbrowser.htr-batch.svc" in plain["DJANGO_ALLOWED_HOSTS"]["value"].split(",")

    behind = container_env(one(render(FULL_VALUES), "Deployment"))
    assert behind["HTRFLOW_TRUSTED_HOPS"]["value"] == "1"
    hosts = behind["DJANGO_ALLOWED_HOSTS"]["value"].split(",")
    assert {"htr.example.org", "htr-gw.example.org", "htr-internal.example.org"} <= set(hosts)

    told = container_env(one(render({**BEHIND_NGINX, "web": {"ingress": {"enabled": True, "host": "a.example.org"},
                                                             "trustedHops": 2}}), "Deployment"))
    assert told["HTRFLOW_TRUSTED_HOPS"]["value"] == "2"


def test_every_environment_variable_is_one_the_app_reads():
    documented = CONFIGURATION_DOC.read_text()
    env = container_env(one(render(FULL_VALUES), "Deployment"))
    # Every one has its entry in the registry the app reads its environment through, and its line in
    # docs/configuration.md (tests/test_configuration.py checks the two agree, and the other way round).
    for name in env:
        assert name in SETTINGS, f"{name} is set by the chart but has no entry in htrbrowser/configuration.py"
        assert f"`{name}`" in documented, f"{name} is set by the chart but not in docs/configuration.md"


def test_secrets_come_from_secrets_and_the_store_credentials_are_never_read():
    env = container_env(one(render(FULL_VALUES), "Deployment"))
    assert "DJANGO_SECRET_KEY" not in env  # a file, as the session key: in no process environment
    assert env["DJANGO_SECRET_KEY_FILE"]["value"] == "/secrets/django/key"
    assert env["S3_BUCKET"]["valueFrom"]["secretKeyRef"]["name"] == "store-settings"
    assert env["HTRFLOW_REDIS_URL"]["valueFrom"]["secretKeyRef"] == {"name": "htrbrowser-redis", "key": "address"}
    keys = {entry["valueFrom"]["secretKeyRef"]["key"] for entry in env.values() if "valueFrom" in entry}
    assert "credentials" not in keys
    deployment = one(render(FULL_VALUES), "Deployment")
    assert "envFrom" not in deployment["spec"]["template"]["spec"]["containers"][0]


def test_status_records_off_grants_no_write_and_installs_no_policy():
    objects = render({"statusRecords": {"enabled": False}})
    assert of_kind(objects, "ValidatingAdmissionPolicy") == []
    assert of_kind(objects, "ValidatingAdmissionPolicyBinding") == []
    rules = [rule for role in of_kind(objects, "Role") for rule in role["rules"]]
    verbs = {verb for rule in rules for verb in rule["verbs"]}
    assert verbs == {"list", "watch"}  # reads only: lists and the watches that follow them
    assert not any("leases" in rule["resources"] for rule in rules)  # no Lease: no writer to elect
    assert container_env(one(objects, "Deployment"))["HTRFLOW_WRITE_STATUS"]["value"] == "false"


def test_the_admission_policy_binds_to_this_service_account_only():
    objects = render()
    policy = one(objects, "ValidatingAdmissionPolicy")
    binding = one(objects, "ValidatingAdmissionPolicyBinding")
    assert binding["spec"]["policyName"] == policy["metadata"]["name"]
    assert binding["spec"]["validationActions"] == ["Deny"]
    assert policy["spec"]["failurePolicy"] == "Fail"
    condition = policy["spec"]["matchConditions"][0]["expression"]
    assert '"system:serviceaccount:htr-batch:htrbrowser"' in condition
    rules = policy["spec"]["matchConstraints"]["resourceRules"]
    assert [(rule["apiGroups"], rule["resources"]) for rule in rules] == [
        ([""], ["configmaps"]), (["coordination.k8s.io"], ["leases"])]
    assert all(set(rule["operations"]) == {"CREATE", "UPDATE", "DELETE"} for rule in rules)


def test_network_policy_allows_only_the_controller_in_and_dns_api_store_out():
    policy = one(render(FULL_VALUES), "NetworkPolicy")["spec"]
    assert policy["policyTypes"] == ["Ingress", "Egress"]
    helm_test = {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "htrbrowser-test",
                                                 "app.kubernetes.io/instance": "htrbrowser",
                                                 "app.kubernetes.io/component": "helm-test"}}}
    # Besides the scraper's rule (metrics port) and the helm test pod's rule.
    [ingress] = [rule for rule in policy["ingress"] if rule["ports"] != [{"port": "metrics", "protocol": "TCP"}]
                 and rule["from"] != [helm_test]]
    assert ingress["ports"] == [{"port": "http", "protocol": "TCP"}]
    assert ingress["from"][1] == {"ipBlock": {"cidr": "192.0.2.0/24"}}
    destinations = [peer for rule in policy["egress"] for peer in rule.get("to", [])]
    cidrs = sorted(peer["ipBlock"]["cidr"] for peer in destinations if "ipBlock" in peer)
    assert cidrs == sorted(["203.0.113.5/32", "198.51.100.10/32", "2001:db8::/64", "192.0.2.80/32", "192.0.2.90/32"])
    [redis] = [rule for rule in policy["egress"] if {"ipBlock": {"cidr": "192.0.2.80/32"}} in rule["to"]]
    assert redis["ports"] == [{"port": 6380, "protocol": "TCP"}]
    assert all("to" in rule for rule in policy["egress"])  # no rule open to any address


def test_the_api_server_is_reached_on_443_and_6443_at_its_addresses_only_and_the_notes_say_what_is_missing():
    egress = one(render(), "NetworkPolicy")["spec"]["egress"]
    assert all("to" in rule for rule in egress)  # nothing open to any address
    [api] = [rule for rule in egress if {"ipBlock": {"cidr": "192.0.2.1/32"}} in rule["to"]]
    assert sorted(port["port"] for port in api["ports"]) == [443, 6443]
    more = one(render({"network": {"apiServer": {"port": 16443}}}), "NetworkPolicy")["spec"]["egress"]
    assert any(sorted(port["port"] for port in rule["ports"]) == [443, 6443, 16443] for rule in more)
    text = notes()
    assert "network.s3Cidrs is empty" in text


def test_network_policy_can_be_left_out():
    assert of_kind(render({"network": {"enabled": False}}), "NetworkPolicy") == []


def test_metrics_get_a_writable_directory_named_by_an_environment_variable():
    deployment = one(render({"metrics": {"enabled": True}}), "Deployment")
    env = container_env(deployment)
    assert env["HTRFLOW_METRICS"]["value"] == "true"
    folder = env["PROMETHEUS_MULTIPROC_DIR"]["value"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    assert "emptyDir" in volumes[mounts[folder]]


def test_redis_url_is_passed_when_given_inline():
    env = container_env(one(render({"redis": {"url": "redis://redis.htr-batch.svc:6379/0"}}), "Deployment"))
    assert env["HTRFLOW_REDIS_URL"]["value"] == "redis://redis.htr-batch.svc:6379/0"
    assert "HTRFLOW_REDIS_URL" not in container_env(one(render(), "Deployment"))


def test_the_store_wait_is_always_passed_and_the_stall_time_only_when_set():
    plain = container_env(one(render(), "Deployment"))
    assert plain["HTRFLOW_STORE_WAIT_SECONDS"]["value"] == "0.4"
    assert "HTRFLOW_STALL_MINUTES" not in plain  # worked out from each campaign's pace
    told = container_env(one(render({"kube": {"stallMinutes": 45}, "s3": {"pageWaitSeconds": 1}}), "Deployment"))
    assert told["HTRFLOW_STALL_MINUTES"]["value"] == "45"
    assert told["HTRFLOW_STORE_WAIT_SECONDS"]["value"] == "1"


def test_probes_are_the_app_s_health_and_readiness_answers():
    container = one(render(), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    # The chart keeps the image's command: the tests of the Dockerfile's CMD are the tests of the pod.
    assert "command" not in container and "args" not in container


@pytest.mark.parametrize("case", sorted(CASES))
def test_helm_lint_finds_no_warning_or_error(case):
    import helm_python

    from tests.chart.render import CHART, OFFLINE, merged

    values = merged(OFFLINE, CASES[case])
    report = helm_python.lint(CHART, values, strict=True, namespace=NAMESPACE, kube_version="v1.30.0")
    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= 2] == []
