"""Failures named by what the error says, not only by their stage (contracts §8).

A model or revision missing from the cache fails loading with huggingface_hub's
``LocalEntryNotFoundError`` ("Cannot find the requested files in the disk cache and outgoing traffic
has been disabled …", pods run with ``HF_HUB_OFFLINE=1``): retries cannot help until the warm-up fills
the cache again, whatever ``permanent`` says. The models are named from the pipeline's steps, as the
projection already parsed them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.commands import redo_warmup
from campaigns.domain.diagnosis.objects import as_str, ref
from campaigns.models import Step, bounded
from campaigns.models.findings import OPERATOR, Fact, Finding, Subject, values

# The error class, and the words both of huggingface_hub's offline misses end with ("Cannot find the
# requested files in the disk cache and …", "Cannot find an appropriate cached snapshot folder … and …").
NOT_IN_CACHE = ("LocalEntryNotFoundError", "outgoing traffic has been disabled")
ERROR_EXCERPT = 500


def _error(message: str) -> tuple[str, str]:
    """(stage, error) of a wrapper or warm-up termination message; plain text is all error."""
    text = message.strip() if isinstance(message, str) else ""
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            return bounded(as_str(data.get("stage")), 40), as_str(data.get("error"))
    return "", text


def model_not_in_cache(
    subject: Subject,
    pod: str,
    message: str,
    steps: Sequence[Step],
    container: str = "wrapper",
    config_map: str = "",
    stage: str = "",
) -> Finding | None:
    """``model.not_in_cache`` when a termination message says the model is not in the offline cache.

    ``steps`` are the pipeline's steps as the projection parsed them; the models named in the error
    come first, else every step's model is named (huggingface_hub does not say which one it missed).
    ``stage`` is the stage already read from the message, when the caller has only its error text.
    """
    said_stage, error = _error(message)
    stage = said_stage or stage
    if not any(marker in error for marker in NOT_IN_CACHE):
        return None
    pipeline = subject.pipeline
    config_map = config_map or f"htr-pipeline-{pipeline}"
    numbered = [(number, step) for number, step in enumerate(steps) if step.model]
    named = [(number, step) for number, step in numbered if step.model in error] or numbered
    evidence = [
        Fact(
            ref("Pod", pod),
            f"status.containerStatuses[{container}].state.terminated.message",
            bounded(error, ERROR_EXCERPT),
        )
    ]
    for number, step in named:
        where = f"data[pipeline.yaml].steps[{number}].settings.model_settings"
        evidence += [
            Fact(ref("ConfigMap", config_map), f"{where}.model", step.model),
            Fact(ref("ConfigMap", config_map), f"{where}.revision", step.revision or None),
        ]
    warmup_job = f"htr-warmup-{pipeline}"
    return Finding(
        code=codes.MODEL_NOT_IN_CACHE,
        subject=subject,
        actor=OPERATOR,
        values=values(
            pod=pod,
            stage=stage,
            models=tuple((step.name, step.model, step.revision) for _, step in named),
            model=named[0][1].model if named else "",
            revision=named[0][1].revision if named else "",
            retries_help=False,
            warmup_job=warmup_job,
        ),
        evidence=tuple(evidence),
        fix=redo_warmup(subject.namespace, warmup_job),
    )
