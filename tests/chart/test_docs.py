"""docs/installing.md and NOTES.txt say what the rendered chart and the image do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.chart.render import BEHIND_NGINX, FULL_VALUES, NAMESPACE, RELEASE, merged, notes, of_kind, one, render

ROOT = Path(__file__).resolve().parents[2]
INSTALLING = (ROOT / "docs" / "installing.md").read_text()


def fenced_after(marker: str, language: str) -> str:
    start = INSTALLING.index(marker)
    block = INSTALLING.index(f"```{language}\n", start) + len(language) + 4
    return INSTALLING[block:INSTALLING.index("```", block)]


MINIMAL = yaml.safe_load(fenced_after("A minimal values file", "yaml"))


def referenced_secrets(objects) -> set[str]:
    pod = one(objects, "Deployment")["spec"]["template"]["spec"]
    names = {volume["secret"]["secretName"] for volume in pod["volumes"] if "secret" in volume}
    for entry in pod["containers"][0]["env"]:
        if "secretKeyRef" in entry.get("valueFrom", {}):
            names.add(entry["valueFrom"]["secretKeyRef"]["name"])
    return names


def test_the_minimal_values_render_without_a_cluster_and_use_exactly_the_secrets_the_guide_makes():
    objects = render(MINIMAL, given=False)  # as helm template or Argo CD would render it
    made = set(re.findall(r"create secret generic (\S+) \\\n", fenced_after("The Secrets:", "sh")))
    assert made == {"htr-batch-s3", "htrbrowser-session-key", "htrbrowser-django-key"}
    assert referenced_secrets(objects) == made
    assert of_kind(objects, "Secret") == []


def test_the_guide_names_every_kind_the_chart_can_install():
    everything = merged(FULL_VALUES, {"metrics": {"serviceMonitor": {"enabled": True},
                                                  "prometheusRule": {"enabled": True}}})
    kinds = {obj["kind"] for values in ({}, everything, {"metrics": {"enabled": True, "podMonitor": {"enabled": True}}})
             for obj in render(values, hooks=True)}
    described = INSTALLING[:INSTALLING.index("The Secrets:")]
    assert [kind for kind in sorted(kinds) if kind not in described] == []


def test_the_guide_says_how_many_workers_and_threads_the_image_runs():
    line = next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD "))
    command = json.loads(line[4:])
    workers, threads = (command[command.index(flag) + 1] for flag in ("--workers", "--threads"))
    words = {"1": "one worker", "2": "two workers"}
    assert f"({words[workers]} with {threads} threads" in INSTALLING


def test_the_notes_point_at_objects_the_chart_renders():
    text = notes()
    service = one(render(), "Service")
    forward = re.search(r"kubectl -n (\S+) port-forward svc/(\S+) 8080:(\d+)", text)
    assert forward.groups() == (NAMESPACE, service["metadata"]["name"], str(service["spec"]["ports"][0]["port"]))
    assert f"helm test {RELEASE} -n {NAMESPACE}" in text
    node_port = {"web": {"service": {"type": "NodePort"}, "nodePort": 30801}}
    assert one(render(node_port), "Service")["spec"]["ports"][0]["nodePort"] == 30801
    assert "NodePort on node port 30801" in notes(node_port)
    scraped = {"metrics": {"enabled": True, "serviceMonitor": {"enabled": True}}}
    monitor = one(render(scraped), "ServiceMonitor")["metadata"]["name"]
    assert f"Metrics: port 9100 (metrics) of each pod, scraped through the ServiceMonitor {monitor}" in notes(scraped)
    assert "helm test" not in notes({"helmTest": {"enabled": False}})
    ingress = {**BEHIND_NGINX, "web": {"ingress": {"enabled": True, "host": "htr.example.org"}}}
    assert one(render(ingress), "Ingress")["spec"]["rules"][0]["host"] == "htr.example.org"
    assert "Open https://htr.example.org/" in notes(ingress)
