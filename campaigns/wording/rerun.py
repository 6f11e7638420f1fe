"""The re-run panel in words: what applying the file does, what to fix first, and why a volume is left out.

campaigns.domain.rerun works the plan out as facts (a start kind, failure classes, refusal codes); this module
says them in the reader's language when the panel or a refusal is rendered. Files and paths in the panel's
sentences are `backticked`: the template shows them as code.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# What to fix before a re-run, by failure class (the permanent ones: a re-run fails the same way until then).
FIX_FIRST = {
    "config": gettext_lazy("the batch settings were incomplete: an operator must fix the deployment's settings"),
    "setup_permanent": gettext_lazy("the volume's IIIF manifest could not be read: correct its address in the file"),
    "permanent": gettext_lazy("the volume stopped for good: fix what its run log names"),
    "warmup_marker": gettext_lazy("the model cache was not ready: fix the pipeline's warm-up Job"),
}
# Why a volume may fail again, by failure class.
MAY_REPEAT = {
    "oom": gettext_lazy("ran out of memory: if it fails again, an operator should raise the memory limit"),
    "deadline": gettext_lazy(
        # Translators: max_seconds is a setting and converter.yaml a file: they stay as they are.
        "ran out of its time budget: it resumes from finished pages, but a very large volume may need a longer "
        "budget (`max_seconds` in `converter.yaml`)"
    ),
}
# Why a volume could not be put in the file, or the file not written (campaigns.domain.rerun.RerunRefused codes).
REFUSALS = {
    "no_line": gettext_lazy("the campaign record holds no readable line for it"),
    "too_long": gettext_lazy(
        "its line in the campaign record is too long to be copied here; copy it from `volumes.txt`"
    ),
    "no_images": gettext_lazy("its line in the campaign record lists no images"),
    "spaces": gettext_lazy("its manifest address in the campaign record contains spaces"),
    "pipeline_id": gettext_lazy(
        "A pipeline id is a file stem in pipelines/: letters, digits, '.', '_' and '-', at most 63 characters."
    ),
}


@dataclass(frozen=True)
class OutlookWords:
    start: str
    resume: str
    fix_first: list[tuple[str, list[str]]]  # (what to fix, volume ids)
    may_repeat: list[tuple[str, list[str]]]
    should_pass: list[str]
    left_out: list[tuple[str, str]]  # (volume id, why it is not in the file)


def refusal(code: str) -> str:
    return str(REFUSALS.get(code, code))


def outlook_words(plan, outlook) -> OutlookWords:
    """The panel's words for campaigns.domain.rerun's RerunPlan and Outlook (wording reads the models, never the
    domain: the two are passed in)."""
    return OutlookWords(
        start=_start(plan, outlook.start),
        resume=_resume(plan, outlook.same_pipeline),
        fix_first=[(str(FIX_FIRST[kind]), ids) for kind, ids in outlook.fix_first],
        may_repeat=[(str(MAY_REPEAT[kind]), ids) for kind, ids in outlook.may_repeat],
        should_pass=outlook.should_pass,
        left_out=[(volume_id, refusal(code)) for volume_id, code in plan.left_out],
    )


def _start(plan, start: str) -> str:
    name = plan.campaign.campaign or plan.campaign.name
    if start == "held_back":
        # Translators: {campaign} is the campaign being re-run, {pipeline} its pipeline id (swe-lines-v2).
        sentence = _(
            "Held back while {campaign} still runs: it shares these volumes with {campaign} on the same pipeline "
            "id ({pipeline}), and an apply holds such a campaign back until the other has finished. It starts once "
            "{campaign} has finished."
        )
    elif start == "at_once":
        # Translators: {campaign} is the campaign being re-run, {pipeline} its pipeline id (swe-lines-v2).
        sentence = _(
            "Starts at once (when the queue has room): {campaign} has finished, so nothing on pipeline {pipeline} "
            "holds it back."
        )
    else:
        sentence = _(
            # Translators: {campaign} is the campaign being re-run, {pipeline} the new pipeline id (swe-lines-v3).
            "Starts at once (when the queue has room), even while {campaign} still runs: it uses a new pipeline id "
            "({pipeline}), and only campaigns on the same pipeline id hold each other back. The pipeline file "
            "`pipelines/{pipeline}.yaml` must exist."
        )
    return sentence.format(campaign=name, pipeline=plan.pipeline)


def _resume(plan, same_pipeline: bool) -> str:
    campaign = plan.campaign
    where = f"`{campaign.namespace}/{plan.pipeline}/`"
    if same_pipeline:
        # Translators: {place} is where the results are kept (`htr-batch/swe-lines-v2/`).
        return _("Each volume resumes from the pages it already finished under {place}.").format(place=where)
    return _(
        # Translators: {place} is where the results go (`htr-batch/swe-lines-v3/`), {old} the old pipeline id.
        "Its results go under {place}, so every page is processed again: nothing is reused from {old}."
    ).format(place=where, old=campaign.pipeline)
