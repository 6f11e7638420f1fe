"""A warm-up Job that failed (contracts §3, the guide's "Fix, by what the warm-up Job shows").

The evidence is the Job's ``Failed`` condition and the warm-up container's exit code and termination
message (the warm-up's own JSON: ``stage``, ``permanent``, ``error``), as the projection already parsed
it. Who acts follows what the error says:

- a model or revision the hub does not have (``Repository Not Found``, ``Revision Not Found``, a 404 on
  ``/api/models/<repo>/revision/<rev>``) is the pipeline file's: the person who wrote it corrects it;
- anything else is an operator's: read the warm-up's log, fix the cause, apply again.

The next apply replaces a Failed warm-up by itself (it deletes and re-creates it), so no fix deletes it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.commands import APPLY, change, warmup_logs
from campaigns.domain.diagnosis.objects import as_str, condition, name_of, ref
from campaigns.models import Step, VolumeReason, bounded, parse_time
from campaigns.models.findings import AUTHOR, OPERATOR, Fact, Finding, Subject, values

ERROR_EXCERPT = 500
NOT_ON_HUB = ("Repository Not Found", "RepositoryNotFoundError", "Revision Not Found", "RevisionNotFoundError")
HUB_MODEL = re.compile(r"/api/models/(?P<model>[\w.-]+(?:/[\w.-]+)?)(?:/revision/(?P<revision>[\w.-]+))?")

MODEL_NOT_FOUND = "model_not_found"  # the hub has no such model or revision: the pipeline file names it wrongly
PASSING = "passing"  # the warm-up said it may pass (permanent: false)
OTHER = "other"


def warmup_failed(
    namespace: str,
    pipeline: str,
    job: dict,
    reason: VolumeReason | None,
    steps: Sequence[Step] = (),
    wait_seconds: int | None = None,
) -> Finding | None:
    """``warmup.failed`` for a warm-up Job whose ``Failed`` condition is true; None otherwise. ``wait_seconds``
    is how long the campaign's pods wait for the cache before they give up (the Job's own limit)."""
    failed = condition(job, "Failed") or {}
    if failed.get("status") != "True":
        return None
    job_name = name_of(job)
    job_ref = ref("Job", job_name)
    evidence = [
        Fact(job_ref, "status.conditions[Failed].reason", bounded(as_str(failed.get("reason")), 80)),
        Fact(job_ref, "status.conditions[Failed].message", bounded(as_str(failed.get("message")))),
    ]
    error = bounded(reason.error, ERROR_EXCERPT) if reason is not None else ""
    if reason is not None and reason.pod_name:
        where = f"status.containerStatuses[{reason.container or 'warmup'}].state.terminated"
        evidence += [
            Fact(ref("Pod", reason.pod_name), f"{where}.exitCode", reason.exit_code),
            Fact(ref("Pod", reason.pod_name), f"{where}.message", error or None),
        ]
    kind, model, revision = _kind(reason)
    named = {"warmup_job": job_name, "kind": kind, "error": error, "pod": reason.pod_name if reason else ""}
    named |= {"exit_code": reason.exit_code if reason else None, "job_reason": as_str(failed.get("reason"))}
    named["wait_seconds"] = wait_seconds
    fix = [warmup_logs(namespace, job_name)]
    actor = OPERATOR
    if kind == MODEL_NOT_FOUND:
        actor = AUTHOR
        named |= {"model": model, "revision": revision}
        evidence += _pipeline_facts(pipeline, steps, model)
        fix.append(change("pipeline.model", file=f"pipelines/{pipeline}.yaml", key="model", value=model))
    fix.append(APPLY)
    return Finding(
        code=codes.WARMUP_FAILED,
        subject=Subject("pipeline", namespace, pipeline=pipeline),
        actor=actor,
        values=values(**named),
        evidence=tuple(evidence),
        fix=tuple(fix),
        since=parse_time(failed.get("lastTransitionTime")),
    )


def _kind(reason: VolumeReason | None) -> tuple[str, str, str]:
    """What the error says: (kind, model, revision), the model and revision only for a model not found."""
    if reason is None:
        return OTHER, "", ""
    if any(words in reason.error for words in NOT_ON_HUB):
        found = HUB_MODEL.search(reason.error)
        if found:
            return MODEL_NOT_FOUND, found["model"].rstrip("."), (found["revision"] or "").rstrip(".")
    return (PASSING if reason.permanent is False else OTHER), "", ""


def _pipeline_facts(pipeline: str, steps: Sequence[Step], model: str) -> list[Fact]:
    """Where the pipeline file names that model, as read from its ConfigMap."""
    config_map = ref("ConfigMap", f"htr-pipeline-{pipeline}")
    return [
        Fact(config_map, f"data[pipeline.yaml].steps[{number}].settings.model_settings.model", step.model)
        for number, step in enumerate(steps)
        if step.model and step.model == model
    ]
