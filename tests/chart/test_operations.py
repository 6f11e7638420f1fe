"""The smaller things an operator expects of a chart: spread, probes, names, extras, a helm test, scope."""

import helm_python
import pytest
import yaml

from tests.chart.render import CHART, NAMESPACE, RELEASE, container_env, of_kind, one, render, render_files


def pod_of(objects):
    return one(objects, "Deployment")["spec"]["template"]


def selects(selector: dict, labels: dict) -> bool:
    return selector.items() <= labels.items()


def test_the_replicas_spread_over_nodes_by_default_counting_this_release_s_pods():
    deployment = one(render(), "Deployment")
    [constraint] = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert (constraint["topologyKey"], constraint["maxSkew"]) == ("kubernetes.io/hostname", 1)
    assert constraint["whenUnsatisfiable"] == "ScheduleAnyway"  # one node left still runs both
    assert constraint["labelSelector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]
    assert "topologySpreadConstraints" not in pod_of(render({"web": {"topologySpreadConstraints": []}}))["spec"]
    zone = {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"tier": "web"}}}
    assert pod_of(render({"web": {"topologySpreadConstraints": [zone]}}))["spec"]["topologySpreadConstraints"] == [zone]


def test_every_probe_waits_longer_than_a_second():
    container = pod_of(render())["spec"]["containers"][0]
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert container[probe]["timeoutSeconds"] >= 3, probe


def test_pod_labels_extra_env_and_volumes_reach_the_pod_but_not_the_selector():
    extra = {"web": {"podLabels": {"example.org/team": "htr"},
                     "extraEnv": [{"name": "TZ", "value": "Europe/Stockholm"}],
                     "extraVolumes": [{"name": "ca", "configMap": {"name": "site-ca"}}],
                     "extraVolumeMounts": [{"name": "ca", "mountPath": "/etc/site-ca", "readOnly": True}]}}
    objects = render(extra)
    deployment = one(objects, "Deployment")
    template = deployment["spec"]["template"]
    assert template["metadata"]["labels"]["example.org/team"] == "htr"
    assert "example.org/team" not in deployment["spec"]["selector"]["matchLabels"]
    assert container_env(deployment)["TZ"] == {"name": "TZ", "value": "Europe/Stockholm"}
    assert {"name": "ca", "configMap": {"name": "site-ca"}} in template["spec"]["volumes"]
    assert {"name": "ca", "mountPath": "/etc/site-ca", "readOnly": True} in template["spec"]["containers"][0][
        "volumeMounts"]


def test_name_overrides_rename_objects_and_labels_together():
    objects = render({"nameOverride": "web-ui"})
    deployment = one(objects, "Deployment")
    assert deployment["metadata"]["name"] == f"{RELEASE}-web-ui"
    assert deployment["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] == "web-ui"
    assert one(objects, "Service")["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    named = render({"fullnameOverride": "campaigns"})
    assert {obj["metadata"]["name"] for obj in named if obj["kind"] in ("Deployment", "Service", "Role")} == {
        "campaigns", f"{NAMESPACE}-campaigns-kueue"}  # outside its namespace a Role carries the release's namespace


def test_an_existing_service_account_is_bound_and_named_in_the_admission_policy():
    objects = render({"serviceAccount": {"create": False, "name": "htr-web"}})
    assert of_kind(objects, "ServiceAccount") == []
    assert pod_of(objects)["spec"]["serviceAccountName"] == "htr-web"
    bindings = of_kind(objects, "RoleBinding")  # the shown namespace's, and Kueue's namespace's
    assert len(bindings) == 2
    assert all(binding["subjects"] == [{"kind": "ServiceAccount", "name": "htr-web", "namespace": NAMESPACE}]
               for binding in bindings)
    condition = one(objects, "ValidatingAdmissionPolicy")["spec"]["matchConditions"][0]["expression"]
    assert f'"system:serviceaccount:{NAMESPACE}:htr-web"' in condition
    with pytest.raises(helm_python.HelmError, match="serviceAccount.create is false and serviceAccount.name is empty"):
        render_files({"serviceAccount": {"create": False}})


def test_without_cluster_scoped_objects_only_namespaced_ones_render_and_status_records_must_be_off():
    objects = render({"clusterScoped": False, "statusRecords": {"enabled": False}})
    cluster_kinds = {"ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy",
                     "ValidatingAdmissionPolicyBinding"}
    assert not {obj["kind"] for obj in objects} & cluster_kinds
    assert all(obj["metadata"].get("namespace") == NAMESPACE for obj in objects)
    with pytest.raises(helm_python.HelmError, match="clusterScoped is false while statusRecords.enabled is true"):
        render_files({"clusterScoped": False})


def test_helm_test_asks_the_site_for_readyz_and_for_each_namespace_and_is_let_through():
    objects = render({"namespaces": ["htr-a", "htr-b"]}, hooks=True)
    pods = of_kind(objects, "Pod")
    [pod] = pods
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    deployment = one(objects, "Deployment")
    labels = pod["metadata"]["labels"]
    assert not selects(deployment["spec"]["selector"]["matchLabels"], labels)  # no ReplicaSet adopts it
    assert not selects(one(objects, "Service")["spec"]["selector"], labels)  # no Service sends it traffic
    # Its own account, not the app's (tests/chart/test_helm_test.py: one no Role binds, with no token).
    assert pod["spec"]["serviceAccountName"] == f"{RELEASE}-test"
    assert pod["spec"]["serviceAccountName"] != deployment["spec"]["template"]["spec"]["serviceAccountName"]
    container = pod["spec"]["containers"][0]
    assert container["image"] == deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    env = {entry["name"]: entry["value"] for entry in container["env"]}
    assert env == {"SITE": f"http://{RELEASE}.{NAMESPACE}.svc:80", "NAMESPACES": "htr-a,htr-b", "WAIT_SECONDS": "70"}
    compile(container["args"][0], "helm-test", "exec")  # the script is Python the image can run
    policies = {policy["metadata"]["name"]: policy["spec"] for policy in of_kind(objects, "NetworkPolicy")}
    site, test = policies[RELEASE], policies[f"{RELEASE}-test"]
    assert any(peer.get("podSelector", {}).get("matchLabels") == labels
               for rule in site["ingress"] for peer in rule["from"])
    assert selects(test["podSelector"]["matchLabels"], labels)
    assert all("to" in rule for rule in test["egress"])
    assert of_kind(render({"helmTest": {"enabled": False}}, hooks=True), "Pod") == []


def test_chart_metadata_names_its_home_sources_and_maintainers():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["home"].startswith("https://") and chart["sources"]
    assert all(maintainer["name"] for maintainer in chart["maintainers"])
