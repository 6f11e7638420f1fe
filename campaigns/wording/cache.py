"""A pipeline's model cache as the operator details show it: each fact's label and value, in the guide's order.

The cache is data (`campaigns.models.findings.ModelCache`); here it becomes labelled facts (recipe, directory
and marker, the claim, the warm-up Job and the node its pod ran on, where the debug pod is pinned, what could
not be read). The debug pod's command is a shell line, shown among the card's commands.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy, pgettext_lazy

from campaigns.models import Warmup
from campaigns.models.findings import ModelCache
from campaigns.wording.evidence import NOT_READ_FACT, NOT_READ_WHY, fill, when

# Lazy: each label is said in the reader's language when the card is rendered.
HEADING = gettext_lazy("Model cache")
CHIP_LINK = gettext_lazy("Show the model cache under Operator details")

RECIPE = pgettext_lazy("a model cache fact", "Recipe sha256")
DIRECTORY = pgettext_lazy("a model cache fact", "Cache directory")
MARKER = pgettext_lazy("a model cache fact", "Warm-up marker")
MARKER_IN_PODS = pgettext_lazy("a model cache fact", "Marker as the pods see it")
CLAIM = pgettext_lazy("a model cache fact", "Cache claim")
STORAGE_CLASS = pgettext_lazy("a model cache fact", "Storage class")
ACCESS_MODES = pgettext_lazy("a model cache fact", "Access modes")
SIZE = pgettext_lazy("a model cache fact", "Size")
CREATED = pgettext_lazy("a model cache fact", "Claim created")
WARMUP_JOB = pgettext_lazy("a model cache fact", "Warm-up Job")
WARMUP_POD = pgettext_lazy("a model cache fact", "Warm-up pod")
WARMUP_NODE = pgettext_lazy("a model cache fact", "Warm-up ran on node")
PINNED = pgettext_lazy("a model cache fact", "Debug pod pinned to node")
NOT_READ = pgettext_lazy("a model cache fact", "Not read")

# Names and paths an operator pastes into a terminal get a copy button beside them (a tuple, not a set: a set
# would hash, and so translate, each label when this module is imported).
COPYABLE = (RECIPE, DIRECTORY, MARKER, MARKER_IN_PODS, CLAIM, WARMUP_JOB, WARMUP_POD, WARMUP_NODE)

# Translators: where the debug pod is pinned: {node} is a node's name, {pod} a pod's name.
PINNED_BY = gettext_lazy("{node} (where {pod} runs with the volume mounted)")
# Translators: where the debug pod is pinned: {node} is a node's name.
PINNED_TO_WARMUP = gettext_lazy("{node} (where the warm-up ran)")


def cache_facts(cache: ModelCache | None, warmup: Warmup | None = None) -> list[tuple[str, str, bool]]:
    """(label, value, copyable) for each fact known, the label in the reader's language; without a cache, the
    warm-up's own recipe and paths."""
    if cache is None:
        facts = _warmup_facts(warmup) if warmup is not None else []
    else:
        facts = _cache_facts(cache)
    return [(str(label), value, any(label is each for each in COPYABLE)) for label, value in facts if value]


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
        fill(
            NOT_READ_FACT,
            {"object": fact.object, "why": NOT_READ_WHY.get(str(fact.value), str(fact.value))}
            | ({"field": fact.field} if fact.field else {}),
        )
        for fact in cache.not_read
    ]
    facts.append((NOT_READ, "; ".join(unread)))
    return facts
