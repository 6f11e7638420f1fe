"""A campaign's pipeline: the pipeline ConfigMap its Job mounts, its ``pipeline.yaml`` and the steps
it names, each with its model and revision (none when the YAML is unreadable or too large).
"""

from __future__ import annotations

from functools import lru_cache

import yaml

from campaigns.domain.projection.index import SnapshotIndex
from campaigns.domain.projection.jobs import template_config_map
from campaigns.domain.projection.readers import annotations_of, as_dict, as_list, as_str, get_path
from campaigns.models import Campaign, Step, bounded
from core.contract import ANNOTATION_PIPELINE_SHA

MAX_PIPELINE_YAML = 256 * 1024


def fill_pipeline(campaign: Campaign, index: SnapshotIndex, job: dict | None) -> None:
    name = (template_config_map(job, "pipeline") if job else "") or f"htr-pipeline-{campaign.pipeline}"
    config_map = index.pipelines.get(name) or index.pipelines.get(f"htr-pipeline-{campaign.pipeline}")
    if not config_map:
        return
    text = as_str(get_path(config_map, "data", "pipeline.yaml"))
    campaign.pipeline_yaml = text[:MAX_PIPELINE_YAML]
    campaign.pipeline_sha256 = bounded(annotations_of(config_map).get(ANNOTATION_PIPELINE_SHA), 80)
    campaign.pipeline_steps = pipeline_steps(text)


def pipeline_steps(text: str) -> list[Step]:
    """The steps of a pipeline.yaml with each step's model and revision; [] when unreadable."""
    if not isinstance(text, str) or not text or len(text) > MAX_PIPELINE_YAML:
        return []
    return list(_steps(text))


@lru_cache(maxsize=64)
def _steps(text: str) -> tuple[Step, ...]:
    """Parsed once per text: every campaign of a pipeline names the same few YAML files."""
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return ()
    steps = []
    for item in as_list(get_path(data, "steps"))[:100]:
        if not isinstance(item, dict):
            continue
        settings = as_dict(item.get("settings"))
        model_settings = as_dict(settings.get("model_settings"))
        model = model_settings.get("model") or settings.get("model") or ""
        revision = model_settings.get("revision") or get_path(model_settings, "model_kwargs", "revision") or ""
        steps.append(
            Step(
                name=bounded(item.get("step") or "step", 80),
                model=bounded(model if isinstance(model, str) else "", 200),
                revision=bounded(revision if isinstance(revision, str) else "", 80),
            )
        )
    return tuple(steps)
