"""A pipeline's model cache as the operator details show it: each fact's label and value, in the guide's order.

The cache is data (`campaigns.models.findings.ModelCache`); here it becomes labelled facts (recipe, directory
and marker, the claim, the warm-up Job and the node its pod ran on, where the debug pod is pinned, what could
not be read). The debug pod's command is a shell line, shown among the card's commands.
"""

from __future__ import annotations

from campaigns.models import Warmup
from campaigns.models.findings import ModelCache
from campaigns.wording.evidence import NOT_READ_FACT, NOT_READ_WHY, fill, when

HEADING = "Model cache"
CHIP_LINK = "Show the model cache under Operator details"

RECIPE = "Recipe sha256"
DIRECTORY = "Cache directory"
MARKER = "Warm-up marker"
MARKER_IN_PODS = "Marker as the pods see it"
CLAIM = "Cache claim"
STORAGE_CLASS = "Storage class"
ACCESS_MODES = "Access modes"
SIZE = "Size"
CREATED = "Claim created"
WARMUP_JOB = "Warm-up Job"
WARMUP_POD = "Warm-up pod"
WARMUP_NODE = "Warm-up ran on node"
PINNED = "Debug pod pinned to node"
NOT_READ = "Not read"

# Names and paths an operator pastes into a terminal get a copy button beside them.
COPYABLE = {RECIPE, DIRECTORY, MARKER, MARKER_IN_PODS, CLAIM, WARMUP_JOB, WARMUP_POD, WARMUP_NODE}

PINNED_BY = "{node} (where {pod} runs with the volume mounted)"
PINNED_TO_WARMUP = "{node} (where the warm-up ran)"


def cache_facts(cache: ModelCache | None, warmup: Warmup | None = None) -> list[tuple[str, str, bool]]:
    """(label, value, copyable) for each fact known; without a cache, the warm-up's own recipe and paths."""
    if cache is None:
        facts = _warmup_facts(warmup) if warmup is not None else []
    else:
        facts = _cache_facts(cache)
    return [(label, value, label in COPYABLE) for label, value in facts if value]


def _warmup_facts(warmup: Warmup) -> list[tuple[str, str]]:
    return [
        (WARMUP_JOB, warmup.job_name),
        (RECIPE, warmup.recipe_sha256),
        (DIRECTORY, warmup.cache_dir),
        (MARKER_IN_PODS, warmup.marker_path),
    ]


def _cache_facts(cache: ModelCache) -> list[tuple[str, str]]:
    claim = cache.claim
    facts = [
        (RECIPE, cache.recipe_sha256),
        (DIRECTORY, cache.cache_dir),
        (MARKER, cache.marker),
        (MARKER_IN_PODS, cache.marker_in_pods),
        (CLAIM, cache.claim_name),
    ]
    if claim is not None:
        facts += [
            (STORAGE_CLASS, claim.storage_class),
            (ACCESS_MODES, ", ".join(claim.access_modes)),
            (SIZE, claim.size),
            (CREATED, when(claim.created) if claim.created is not None else ""),
        ]
    facts += [(WARMUP_JOB, cache.warmup_job), (WARMUP_POD, cache.warmup_pod), (WARMUP_NODE, cache.warmup_node)]
    if cache.pinned_node:
        words = PINNED_TO_WARMUP if cache.pinned_by in ("", cache.warmup_pod) else PINNED_BY
        facts.append((PINNED, words.format_map({"node": cache.pinned_node, "pod": cache.pinned_by})))
    unread = [
        fill(NOT_READ_FACT, {"object": fact.object, "why": NOT_READ_WHY.get(str(fact.value), str(fact.value))}
             | ({"field": fact.field} if fact.field else {}))
        for fact in cache.not_read
    ]
    facts.append((NOT_READ, "; ".join(unread)))
    return facts
