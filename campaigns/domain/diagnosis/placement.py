"""Where two pod templates may land: the placement fields compared between the warm-up Job and a
campaign Job (contracts §8), each normalised so that only a real difference counts.

- ``runtimeClassName``: absent == "";
- ``nodeSelector``: absent == {} (key order never matters);
- ``tolerations``: absent == [], order-insensitive, ``operator`` absent == ``Equal``;
- ``affinity.nodeAffinity``: absent == {}, compared as canonical JSON.

Each field also has a rendered value for the finding (``gpu=a100``, ``dedicated=ocr-only:NoSchedule``,
kubectl's own notations); the evidence keeps the value as read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from campaigns.domain.diagnosis.objects import as_dict, as_list, as_str, get_path
from campaigns.models import bounded

VALUE_LIMIT = 1000  # a rendered placement value at most (hostile templates stay small on a page)


@dataclass(frozen=True)
class PlacementField:
    field: str  # runtimeClassName | nodeSelector | tolerations | nodeAffinity
    path: str  # where it is read in a Job: spec.template.spec.<...>
    warmup: Any  # as read from the warm-up Job (None when absent)
    campaign: Any  # as read from the campaign Job
    warmup_value: Any  # rendered: a string, or a tuple of strings
    campaign_value: Any
    equal: bool


def _runtime_class(spec: dict) -> tuple[Any, Any, str]:
    raw = spec.get("runtimeClassName")
    return raw, as_str(raw), bounded(as_str(raw), VALUE_LIMIT)


def _node_selector(spec: dict) -> tuple[Any, Any, tuple[str, ...]]:
    raw = spec.get("nodeSelector")
    pairs = sorted((str(key), as_str(value)) for key, value in as_dict(raw).items())
    return raw, tuple(pairs), tuple(bounded(f"{key}={value}", VALUE_LIMIT) for key, value in pairs)


def toleration_text(item: dict) -> str:
    """kubectl's notation: ``key=value:Effect``, ``key:Effect op=Exists``, then ``tolerationSeconds=300`` if set."""
    key, value, effect = as_str(item.get("key")), as_str(item.get("value")), as_str(item.get("effect"))
    operator = as_str(item.get("operator")) or "Equal"
    text = f"{key}={value}" if operator == "Equal" else key
    if effect:
        text = f"{text}:{effect}"
    if operator != "Equal":
        text = f"{text} op={operator}".strip()
    seconds = item.get("tolerationSeconds")
    if isinstance(seconds, int) and not isinstance(seconds, bool):
        text = f"{text} tolerationSeconds={seconds}"
    return bounded(text, VALUE_LIMIT)


def _toleration_key(item: dict) -> tuple:
    seconds = item.get("tolerationSeconds")
    return (
        as_str(item.get("key")),
        as_str(item.get("operator")) or "Equal",
        as_str(item.get("value")),
        as_str(item.get("effect")),
        seconds if isinstance(seconds, int) and not isinstance(seconds, bool) else None,
    )


def _tolerations(spec: dict) -> tuple[Any, Any, tuple[str, ...]]:
    raw = spec.get("tolerations")
    items = sorted((i for i in as_list(raw) if isinstance(i, dict)), key=lambda i: repr(_toleration_key(i)))
    return raw, tuple(_toleration_key(item) for item in items), tuple(toleration_text(item) for item in items)


def _node_affinity(spec: dict) -> tuple[Any, Any, str]:
    raw = get_path(spec, "affinity", "nodeAffinity")
    if not as_dict(raw):
        return raw, "", ""
    canonical = json.dumps(raw, sort_keys=True, separators=(",", ":"), default=str)
    return raw, canonical, bounded(canonical, VALUE_LIMIT)


_READERS = (
    ("runtimeClassName", "spec.template.spec.runtimeClassName", _runtime_class),
    ("nodeSelector", "spec.template.spec.nodeSelector", _node_selector),
    ("tolerations", "spec.template.spec.tolerations", _tolerations),
    ("nodeAffinity", "spec.template.spec.affinity.nodeAffinity", _node_affinity),
)


def compare_placement(warmup_spec: dict, campaign_spec: dict) -> tuple[PlacementField, ...]:
    """The four placement fields of two pod template specs, each with whether they agree."""
    fields = []
    for field, path, read in _READERS:
        warmup_raw, warmup_canonical, warmup_value = read(warmup_spec)
        campaign_raw, campaign_canonical, campaign_value = read(campaign_spec)
        fields.append(
            PlacementField(
                field=field,
                path=path,
                warmup=warmup_raw,
                campaign=campaign_raw,
                warmup_value=warmup_value,
                campaign_value=campaign_value,
                equal=warmup_canonical == campaign_canonical,
            )
        )
    return tuple(fields)
