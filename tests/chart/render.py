"""Rendering charts/htrbrowser with the real Helm engine, offline.

PyPI's ``helm-python-sdk`` (import name ``helm_python``) ships Helm's Go SDK as a shared library
and calls it through ctypes: no helm binary, no cluster. Rendering runs the same engine
``helm template`` does, values.schema.json included; ``lookup`` finds nothing, as with
``helm template``. What the chart cannot look up it must then be given (``OFFLINE``), as an
operator rendering with ``helm template`` or Argo CD must; ``given=False`` renders without it.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import helm_python
import yaml

CHART = Path(__file__).resolve().parents[2] / "charts" / "htrbrowser"
NAMESPACE = "htr-batch"
RELEASE = "htrbrowser"

# Every value set to something other than its default, every optional object switched on.
FULL_VALUES = {
    "image": {"repository": "registry.example.org/htr/htrbrowser", "digest": "sha256:" + "ab" * 32,
              "pullPolicy": "Always"},
    "imagePullSecrets": [{"name": "registry-login"}],
    "replicas": 3,
    "resultsUrl": "https://htr.example.org/results",
    "namespaces": ["htr-batch", "htr-batch-2"],
    "resultsNamespace": "htr-batch",
    "results": {"sessionSecret": "htrbrowser-session-key", "sessionHours": 12, "keyDerivation": "hcp"},
    "s3": {"existingSecret": "store-settings", "timeoutSeconds": 8},
    "django": {"secretKeySecret": "htrbrowser-django-key", "logLevel": "WARNING"},
    "statusRecords": {"enabled": True},
    "kube": {"timeoutSeconds": 3.5, "snapshotSeconds": 10},
    "redis": {"url": "", "existingSecret": "htrbrowser-redis", "existingSecretKey": "address"},
    "metrics": {"enabled": True},
    "web": {
        "https": True,
        "trustedHops": None,
        "allowedHosts": ["htr-internal.example.org"],
        "hsts": {"seconds": 63072000, "includeSubdomains": False, "preload": True},
        "resources": {"requests": {"cpu": "200m", "memory": "300Mi"}, "limits": {"cpu": "2", "memory": "1Gi"}},
        "service": {"port": 8080},
        "ingress": {
            "enabled": True,
            "className": "nginx",
            "host": "htr.example.org",
            "tlsSecretName": "htr-example-org-tls",
            "annotations": {"nginx.ingress.kubernetes.io/proxy-read-timeout": "120"},
        },
        "httpRoute": {
            "enabled": True,
            "hostnames": ["htr-gw.example.org"],
            "parentRefs": [{"name": "public", "namespace": "gateways", "sectionName": "https"}],
            "annotations": {"example.org/owner": "archive"},
        },
        "podDisruptionBudget": {"maxUnavailable": "50%"},
        "podAnnotations": {"example.org/team": "htr"},
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "web", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 100,
            "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "htrbrowser"}}},
        }]}},
    },
    "serviceAccount": {"annotations": {"example.org/purpose": "campaign browser"}},
    "network": {
        "enabled": True,
        "ingressFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress"}},
                         "podSelector": {"matchLabels": {"app": "controller"}}}],
        "ingressCidrs": ["192.0.2.0/24"],
        "s3Cidrs": ["198.51.100.10/32", "2001:db8::/64"],
        "s3Ports": [443, 9000],
        "apiServer": {"cidrs": ["203.0.113.5/32"], "port": 6443},
        "dns": {"namespace": "kube-system", "podLabels": {"k8s-app": "kube-dns"}},
        "redis": {"cidrs": ["192.0.2.80/32"], "namespace": "", "podLabels": {}, "port": 6380},
        "extraEgress": [{"to": [{"ipBlock": {"cidr": "192.0.2.90/32"}}], "ports": [{"port": 3128, "protocol": "TCP"}]}],
    },
}


# The NetworkPolicy peer of an ingress-nginx in front: required whenever an Ingress or HTTPRoute is rendered.
BEHIND_NGINX = {"network": {"ingressFrom": [
    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}}}]}}

# What a render without a cluster must be given: the chart refuses to guess it (tests/chart/test_offline.py,
# tests/chart/test_secrets.py), and the image every install must name (tests/chart/test_production.py).
OFFLINE = {
    "image": {"tag": "1.0.0"},  # no image is published: every install names the one it built
    "network": {"apiServer": {"cidrs": ["192.0.2.1/32"]}},
    "results": {"sessionSecret": "htrbrowser-session-key"},
    "django": {"secretKeySecret": "htrbrowser-django-key"},
}


def merged(base: dict, changes: dict) -> dict:
    """``base`` with ``changes`` merged in, nested dicts key by key (as Helm merges -f files)."""
    out = copy.deepcopy(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def render_files(values: dict | None = None, namespace: str = NAMESPACE, given: bool = True) -> dict[str, str]:
    """Template path -> rendered text, ``OFFLINE`` under ``values`` unless ``given`` is False.
    Raises helm_python.HelmValuesError / HelmRenderError."""
    values = merged(OFFLINE, values or {}) if given else values or {}
    return dict(_render_cached(json.dumps(values, sort_keys=True), namespace))


@functools.lru_cache(maxsize=64)
def _render_cached(values_json: str, namespace: str) -> tuple:
    with helm_python.Chart.load(CHART) as chart:
        files = chart.render(json.loads(values_json), name=RELEASE, namespace=namespace, is_install=True)
    return tuple(files.items())


def render(values: dict | None = None, namespace: str = NAMESPACE, given: bool = True,
           hooks: bool = False) -> list[dict]:
    """Every object the chart installs (NOTES.txt and empty documents left out); with ``hooks`` also the
    `helm test` objects (templates/tests/), which Helm creates only when the test runs."""
    objects = []
    for path, text in sorted(render_files(values, namespace, given).items()):
        if path.endswith("NOTES.txt") or ("/templates/tests/" in path and not hooks):
            continue
        objects.extend(doc for doc in yaml.safe_load_all(text) if doc)
    return objects


def notes(values: dict | None = None) -> str:
    return next(text for path, text in render_files(values).items() if path.endswith("NOTES.txt"))


def of_kind(objects: list[dict], kind: str) -> list[dict]:
    return [obj for obj in objects if obj["kind"] == kind]


def one(objects: list[dict], kind: str) -> dict:
    found = of_kind(objects, kind)
    assert len(found) == 1, f"expected one {kind}, rendered {len(found)}"
    return found[0]


def container_env(deployment: dict) -> dict[str, dict]:
    """The web container's environment: name -> its entry (``value`` or ``valueFrom``)."""
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    return {entry["name"]: entry for entry in container.get("env", [])}
