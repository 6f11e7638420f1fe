"""What a ResourceFlavor says about a campaign's pods: its taints, and which of its node labels the
pods' nodeSelector or required node affinity does not match (Kueue's own rule: only the keys the
flavor labels count, so a requirement on another key never rules a flavor out).

Requirements are rendered in kubectl's label-selector notation (``gpu=a100``, ``gpu in (a100,h100)``,
``!spot``), taints as ``key=value:Effect``.
"""

from __future__ import annotations

from campaigns.domain.diagnosis.objects import ABSENT, NOT_READABLE, as_dict, as_list, as_str, by_name, get_path, ref
from campaigns.models import bounded
from campaigns.models.findings import Fact

TEXT_LIMIT = 300


def flavor_lookup(resource_flavors: list[dict] | None, flavor: str, field: str) -> tuple[dict | None, Fact | None]:
    """(the ResourceFlavor, None), or (None, a not_read fact saying why it was not read)."""
    if resource_flavors is None:
        return None, Fact(ref("ResourceFlavor", flavor), field, NOT_READABLE)
    found = by_name(resource_flavors, flavor)
    return found, None if found is not None else Fact(ref("ResourceFlavor", flavor), field, ABSENT)


def taint_texts(flavor: dict) -> tuple[str, ...]:
    """A flavor's ``spec.nodeTaints`` as ``key=value:Effect`` (``key:Effect`` without a value)."""
    texts = []
    for taint in as_list(get_path(flavor, "spec", "nodeTaints")):
        if isinstance(taint, dict):
            key, value, effect = (as_str(taint.get(k)) for k in ("key", "value", "effect"))
            texts.append(bounded(f"{key}={value}:{effect}" if value else f"{key}:{effect}", TEXT_LIMIT))
    return tuple(texts)


def node_labels(flavor: dict) -> dict[str, str]:
    return {str(k): as_str(v) for k, v in as_dict(get_path(flavor, "spec", "nodeLabels")).items()}


def _expression_text(expression: dict) -> str:
    key, operator = as_str(expression.get("key")), as_str(expression.get("operator"))
    items = [as_str(v) for v in as_list(expression.get("values"))]
    text = {
        "In": f"{key} in ({','.join(items)})",
        "NotIn": f"{key} notin ({','.join(items)})",
        "Exists": key,
        "DoesNotExist": f"!{key}",
        "Gt": f"{key}>{items[0] if items else ''}",
        "Lt": f"{key}<{items[0] if items else ''}",
    }.get(operator, f"{key} {operator} ({','.join(items)})")
    return bounded(text, TEXT_LIMIT)


def _expression_holds(expression: dict, labels: dict[str, str]) -> bool:
    key, operator = as_str(expression.get("key")), as_str(expression.get("operator"))
    items = [as_str(v) for v in as_list(expression.get("values"))]
    label = labels.get(key)
    if operator in ("Gt", "Lt"):
        try:
            number, bound = int(label or ""), int(items[0] if items else "")
        except ValueError:
            return False
        return number > bound if operator == "Gt" else number < bound
    return {
        "In": label in items,
        "NotIn": label not in items,
        "Exists": label is not None,
        "DoesNotExist": label is None,
    }.get(operator, False)


def _terms(spec: dict, keys: set[str]) -> list[list[dict]]:
    """Required node-affinity terms cut to the flavor's keys; [] when any term is left empty (matches all)."""
    terms = []
    required = get_path(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    for term in as_list(get_path(required, "nodeSelectorTerms")):
        kept = [e for e in as_list(get_path(term, "matchExpressions")) if as_str(get_path(e, "key")) in keys]
        if not kept:
            return []
        terms.append([e for e in kept if isinstance(e, dict)])
    return terms


def label_mismatches(spec: dict, flavor: dict) -> tuple[tuple[str, str], ...]:
    """(the pods' requirement, what the flavor labels) for each requirement the flavor does not meet."""
    labels = node_labels(flavor)
    found = []
    for key, wanted in sorted(as_dict(spec.get("nodeSelector")).items()):
        if key in labels and labels[key] != as_str(wanted):
            found.append((bounded(f"{key}={as_str(wanted)}", TEXT_LIMIT), bounded(f"{key}={labels[key]}", TEXT_LIMIT)))
    terms = _terms(spec, set(labels))
    if terms and not any(all(_expression_holds(e, labels) for e in term) for term in terms):
        for term in terms:
            for expression in term:
                key = as_str(expression.get("key"))
                if not _expression_holds(expression, labels):
                    has = f"{key}={labels[key]}" if key in labels else ""
                    found.append((_expression_text(expression), bounded(has, TEXT_LIMIT)))
    return tuple(dict.fromkeys(found))
