"""The chart's ServiceMonitor, PodMonitor and PrometheusRule validate against prometheus-operator's own CRDs.

tests/chart/crds/ holds the three CRDs as prometheus-operator ships them (README.md there names the commit).
Each rendered object is checked against the openAPIV3Schema of the served version its apiVersion names,
read as a JSON schema (x-kubernetes-* keys are ignored by jsonschema; int-or-string fields carry their own
anyOf). The schema is made strict first: an object schema that declares its properties and does not
preserve unknown fields gets ``additionalProperties: false``, as the API server prunes such a field
(or, with strict field validation, refuses it), so a misspelled field would otherwise pass here and
silently vanish in the cluster. Patterns are Go (RE2) regular expressions; ``python_pattern`` rewrites the
one form Python reads differently.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.chart.render import FULL_VALUES, NAMESPACE, RELEASE, merged, one, render

CRDS = Path(__file__).resolve().parent / "crds"
FILES = {
    "ServiceMonitor": "monitoring.coreos.com_servicemonitors.yaml",
    "PodMonitor": "monitoring.coreos.com_podmonitors.yaml",
    "PrometheusRule": "monitoring.coreos.com_prometheusrules.yaml",
}
KINDS = tuple(FILES)

SERVICE_MONITOR = {"metrics": {"enabled": True, "serviceMonitor": {"enabled": True, "labels": {"release": "kps"}},
                               "prometheusRule": {"enabled": True, "labels": {"release": "kps"}}}}
POD_MONITOR = {"metrics": {"enabled": True, "podMonitor": {"enabled": True, "labels": {"release": "kps"}},
                           "prometheusRule": {"enabled": True}}}
TUNED = {"metrics": {"interval": "1m", "scrapeTimeout": "500ms",
                     "prometheusRule": {"clusterUnreadableMinutes": 3, "storeUnreachableMinutes": 1,
                                        "statusWriterMinutes": 60, "loginFailuresPerMinute": 12}}}
RENDERINGS = {
    "service monitor": SERVICE_MONITOR,
    "pod monitor": POD_MONITOR,
    "service monitor, every value set": merged(merged(FULL_VALUES, SERVICE_MONITOR), TUNED),
    "pod monitor, every value set": merged(merged(FULL_VALUES, POD_MONITOR), TUNED),
}


def python_pattern(pattern: str) -> str:
    """A CRD ``pattern`` (Go's RE2 syntax) as Python's re reads it. RE2 takes a flag group anywhere and
    applies it from there on; Python takes a global flag only at the very start. Right after ``^`` the
    two mean the same, so ``^(?i)x`` becomes ``(?i)^x``; any other pattern Python cannot compile fails
    ``check_schema`` rather than being skipped."""
    flags = re.match(r"\^(\(\?[a-z]+\))", pattern)
    return flags.group(1) + "^" + pattern[flags.end():] if flags else pattern


def strict(schema, close: bool = True):
    """``schema`` with every pattern as Python reads it and, with ``close``, ``additionalProperties: false``
    on every object schema that lists its properties, does not say what to do with other keys and does
    not preserve unknown fields."""
    if isinstance(schema, list):
        return [strict(item, close) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict(value, close) if key not in ("properties", "patternProperties") else
           {name: strict(sub, close) for name, sub in value.items()} for key, value in schema.items()}
    if isinstance(out.get("pattern"), str):
        out["pattern"] = python_pattern(out["pattern"])
    if (close and "properties" in out and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


@functools.cache
def crd(kind: str) -> dict:
    document = yaml.safe_load((CRDS / FILES[kind]).read_text())
    assert document["kind"] == "CustomResourceDefinition" and document["spec"]["names"]["kind"] == kind
    return document


def schema_for(obj: dict, strictly: bool = True) -> dict:
    """The openAPIV3Schema of the served CRD version ``obj``'s apiVersion names (the test fails if none)."""
    definition = crd(obj["kind"])
    group, _, version = obj["apiVersion"].rpartition("/")
    assert group == definition["spec"]["group"], obj["apiVersion"]
    served = {v["name"]: v for v in definition["spec"]["versions"] if v.get("served")}
    assert version in served, f"{obj['kind']} {obj['apiVersion']}: served are {sorted(served)}"
    schema = served[version]["schema"]["openAPIV3Schema"]
    return strict(schema, close=strictly)


def problems(obj: dict, strictly: bool = True) -> list[str]:
    """Every way ``obj`` breaks its CRD's schema, each as '<path>: <message>'; [] when it validates."""
    schema = schema_for(obj, strictly)
    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft4Validator)
    validator_class.check_schema(schema)
    found = [f"/{'/'.join(map(str, error.absolute_path))}: {error.message}"
             for error in validator_class(schema).iter_errors(obj)]
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return found + ["/metadata: missing"]
    # The CRD leaves metadata open (the API server checks it): check what the chart must always give.
    for key in ("name", "namespace"):
        if not isinstance(metadata.get(key), str) or not metadata[key]:
            found.append(f"/metadata/{key}: missing or empty")
    return found


def monitoring_objects(values: dict) -> list[dict]:
    return [obj for obj in render(values) if obj["kind"] in KINDS]


@pytest.mark.parametrize("values", RENDERINGS.values(), ids=RENDERINGS.keys())
def test_every_rendered_monitor_and_rule_validates_against_the_crd_strictly(values):
    objects = monitoring_objects(values)
    monitor = "PodMonitor" if values["metrics"].get("podMonitor", {}).get("enabled") else "ServiceMonitor"
    assert sorted(obj["kind"] for obj in objects) == sorted([monitor, "PrometheusRule"])
    for obj in objects:
        assert obj["metadata"]["namespace"] == NAMESPACE and obj["metadata"]["name"] == RELEASE
        assert problems(obj) == [], obj["kind"]


def test_every_kind_the_chart_can_render_has_been_validated():
    rendered = {obj["kind"] for values in RENDERINGS.values() for obj in monitoring_objects(values)}
    assert rendered == set(KINDS)


def test_the_stored_crds_are_prometheus_operator_s_and_serve_v1():
    for kind in KINDS:
        definition = crd(kind)
        assert definition["spec"]["group"] == "monitoring.coreos.com"
        assert definition["metadata"]["annotations"]["operator.prometheus.io/version"]
        assert any(v["name"] == "v1" and v["served"] for v in definition["spec"]["versions"])


def rendered(kind: str) -> dict:
    return one(render(POD_MONITOR if kind == "PodMonitor" else SERVICE_MONITOR), kind)


# (kind, how to break the rendered object, the path the complaint must name, a word of the complaint)
BREAKAGES = [
    ("ServiceMonitor", lambda o: o["spec"]["endpoints"][0].update(scrapeTimout="10s"),
     "/spec/endpoints/0", "scrapeTimout"),
    ("ServiceMonitor", lambda o: o["spec"]["endpoints"][0].update(interval=30), "/spec/endpoints/0/interval",
     "is not of type 'string'"),
    ("ServiceMonitor", lambda o: o["spec"]["endpoints"][0].update(interval="30 seconds"),
     "/spec/endpoints/0/interval", "does not match"),
    ("ServiceMonitor", lambda o: o["spec"]["endpoints"][0]["relabelings"][0].update(action="rename"),
     "/spec/endpoints/0/relabelings/0/action", "is not one of"),
    ("ServiceMonitor", lambda o: o["spec"].pop("selector"), "/spec", "'selector' is a required property"),
    ("ServiceMonitor", lambda o: o["spec"]["namespaceSelector"].update(matchNames="htr-batch"),
     "/spec/namespaceSelector/matchNames", "is not of type 'array'"),
    ("PodMonitor", lambda o: o["spec"]["podMetricsEndpoints"][0].update(targetPort="metrics", paht="/metrics"),
     "/spec/podMetricsEndpoints/0", "paht"),
    ("PodMonitor", lambda o: o["spec"].update(endpoints=o["spec"].pop("podMetricsEndpoints")), "/spec",
     "endpoints"),
    ("PrometheusRule", lambda o: o["spec"]["groups"][0]["rules"][1].update({"fore": "10m"}),
     "/spec/groups/0/rules/1", "fore"),
    ("PrometheusRule", lambda o: o["spec"]["groups"][0]["rules"][1].update({"for": "ten minutes"}),
     "/spec/groups/0/rules/1/for", "does not match"),
    ("PrometheusRule", lambda o: o["spec"]["groups"][0]["rules"][0]["labels"].update(severity=3),
     "/spec/groups/0/rules/0/labels/severity", "is not of type 'string'"),
    ("PrometheusRule", lambda o: o["spec"]["groups"][0].pop("name"), "/spec/groups/0",
     "'name' is a required property"),
    ("PrometheusRule", lambda o: o["metadata"].pop("namespace"), "/metadata/namespace", "missing"),
    ("ServiceMonitor", lambda o: o["metadata"].update(name=""), "/metadata/name", "missing or empty"),
]


@pytest.mark.parametrize("kind, breaking, path, word", BREAKAGES,
                         ids=[f"{kind}:{path}:{word}" for kind, _b, path, word in BREAKAGES])
def test_the_validation_refuses_a_broken_object(kind, breaking, path, word):
    obj = copy.deepcopy(rendered(kind))
    assert problems(obj) == []
    breaking(obj)
    found = problems(obj)
    assert any(problem.startswith(path + ":") and word in problem for problem in found), found


def test_without_the_strict_schema_a_misspelled_field_would_pass_unseen():
    """Why ``strict`` is needed: the CRD alone lets an unknown endpoint field through (the API server
    would drop it), so the strict reading is what catches a misspelling."""
    obj = copy.deepcopy(rendered("ServiceMonitor"))
    obj["spec"]["endpoints"][0]["scrapeTimout"] = "10s"
    assert problems(obj, strictly=False) == []
    assert problems(obj) != []


def test_strict_leaves_maps_and_preserved_fields_open():
    schema = {"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "free": {"type": "object", "properties": {"a": {}}, "x-kubernetes-preserve-unknown-fields": True},
        "fixed": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    made = strict(schema)
    assert made["additionalProperties"] is False
    assert made["properties"]["labels"]["additionalProperties"] == {"type": "string"}
    assert "additionalProperties" not in made["properties"]["free"]
    assert made["properties"]["fixed"]["additionalProperties"] is False


def test_a_go_flag_group_after_the_anchor_reads_the_same_in_python():
    pattern = python_pattern("^(?i)(abort|warn)?$")
    assert pattern == "(?i)^(abort|warn)?$"
    assert all(re.search(pattern, text) for text in ("", "abort", "WARN", "Abort"))
    assert not re.search(pattern, "abandon")
    assert python_pattern("^(http|https)://.+$") == "^(http|https)://.+$"
