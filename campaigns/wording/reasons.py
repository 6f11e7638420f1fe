"""Why a volume stopped: each failure class in its retrying form, its final form, and running again.

Every class says the same things in the same order: what happened (``head``), then whether it will
fix itself and who acts, once for a volume that is tried again (``retrying``) and once for one
that has spent its retries (``final``). ``REASON_WORDS`` holds them as templates in plain words; the
facts a class names (the stage, the attempts so far, how long it waited for the model cache, its time
budget) are filled in by name. The error as the pod gave it, object names and paths are the operator's:
they go in the detail, with the matching ``kubectl`` lines. Nothing here raises on odd input: an unknown
class or stage gets a general sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from campaigns.models import Sentence, Volume, VolumeReason, bounded
from campaigns.wording.pace import duration
from campaigns.wording.words import human_age, lower_first, stage_words
from core.kubectl import kubectl

FINAL_ADVICE = (
    "It has spent its retries, so nothing will run it again in this campaign: once the cause is fixed, the person "
    "who wrote the campaign adds the volume to a new campaign."
)
NO_RETRY_ADVICE = (
    "Trying again cannot help, so nothing will run it again in this campaign: once the cause is fixed, the person "
    "who wrote the campaign adds the volume to a new campaign."
)
DEFAULT_WARMUP_WAIT_SECONDS = 900


@dataclass(frozen=True)
class ReasonWords:
    """One failure class, as ``str.format`` templates over the fields of ``_fields``.

    A form reads ``head`` and then its own words; a class whose forms start differently has no head. Each form
    says who acts (nobody, an operator, or the person who wrote the campaign) in plain words; the error as
    the pod gave it, object names and paths are the operator's, in the detail.
    """

    head: str
    retrying: str
    final: str
    retrying_tone: str = "warn"  # the final form is always "bad"
    marker: bool = False  # says how long the volume waited for the model cache, and what the warm-up is now


REASON_WORDS = {
    "config": ReasonWords(
        head="The volume could not start because the settings of the installation are incomplete. This is not a "
        "problem with the volume.",
        retrying="Another attempt will fail the same way until an operator fixes the settings.",
        final="An operator has to fix the settings; {no_retry_advice_lower}",
    ),
    "setup_permanent": ReasonWords(
        head="The volume's list of pages (its IIIF manifest) could not be read.",
        retrying="Another attempt is running but will most likely fail the same way: the person who wrote the "
        "campaign should check the volume's address.",
        final="The person who wrote the campaign has to check the volume's address in the campaign file. "
        "{no_retry_advice}",
    ),
    # A failure a retry may cure; in its final form the last attempt failed the same way.
    "transient": ReasonWords(
        head="",
        retrying="An attempt failed while {stage}, with an error that may pass{attempts}. The volume is tried again "
        "by itself and resumes from its finished pages. Nothing to do unless it keeps failing.",
        final="The last attempt failed while {stage}, with an error that may pass. {final_advice} If it keeps "
        "happening, an operator should read its run log.",
    ),
    "permanent": ReasonWords(
        head="The volume stopped for good while {stage}.",
        retrying="Trying again changes nothing: another attempt fails the same way until an operator finds the "
        "cause in its run log and fixes it.",
        final="An operator has to find the cause in its run log. {no_retry_advice}",
    ),
    "verify": ReasonWords(
        head="After processing, some pages were missing or failed.",
        retrying="The volume is tried again by itself and redoes only those pages. Nothing to do.",
        final="{final_advice} Its run log lists the pages.",
    ),
    "sigterm": ReasonWords(
        head="The volume was stopped from outside (a machine emptied for maintenance, or a pause).",
        retrying="It continues from its finished pages when it runs again. Nothing to do.",
        final="{final_advice}",
        retrying_tone="idle",
    ),
    "deadline": ReasonWords(
        head="The volume ran out of its time budget{budget}.",
        retrying="The next attempt resumes from the finished pages. Nothing to do.",
        final="{final_advice} A new campaign resumes from the pages already finished; for a very large volume "
        "an operator may give campaigns more time (max_seconds in converter.yaml).",
    ),
    "oom": ReasonWords(
        head="The volume ran out of memory and was stopped.",
        retrying="It is tried again by itself and resumes from its finished pages; if this repeats, an operator "
        "has to give it more memory.",
        final="{final_advice} If it happens again, an operator has to give it more memory.",
    ),
    "evicted": ReasonWords(
        head="The machine it ran on stopped the volume to free room.",
        retrying="It is tried again by itself and resumes from its finished pages. Nothing to do.",
        final="{final_advice}",
    ),
    "warmup_marker": ReasonWords(
        head="The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
        "up{warmup_then}.",
        retrying="{warmup_retrying}",
        final="This failure is not retried, so nothing will run the volume again in this campaign: {warmup_final}",
        marker=True,
    ),
    # A failure of no known class: said in the past tense, with its stage when the reason has one.
    "unknown": ReasonWords(
        head="",
        retrying="An attempt failed{during}. It is tried again by itself; if it keeps failing, an operator should "
        "read its run log.",
        final="Its last attempt failed{during}. {final_advice} An operator finds the cause in its run log.",
    ),
}
REASON_WORDS["transient_final"] = REASON_WORDS["transient"]  # the same class, seen on its last attempt

_ADVICE = {
    "final_advice": FINAL_ADVICE,
    "final_advice_lower": lower_first(FINAL_ADVICE),
    "no_retry_advice": NO_RETRY_ADVICE,
    "no_retry_advice_lower": lower_first(NO_RETRY_ADVICE),
}


def reason_sentence(
    reason: VolumeReason,
    final: bool,
    volume: Volume | None = None,
    namespace: str = "",
) -> Sentence:
    """Why a volume stopped, in its retrying form (``final=False``) or its final form."""
    words = REASON_WORDS.get(reason.kind, REASON_WORDS["unknown"])
    form = words.final if final else words.retrying
    template = f"{words.head} {form}" if words.head else form
    return Sentence(
        template.format_map(_fields(reason, volume, words)),
        detail=reason_detail(reason, volume),
        commands=reason_commands(reason, namespace),
        tone="bad" if final else words.retrying_tone,
    )


def _fields(reason: VolumeReason, volume: Volume | None, words: ReasonWords) -> dict[str, str]:
    fields = {
        **_ADVICE,
        "stage": stage_words(reason.stage),
        "during": f" while {stage_words(reason.stage)}" if reason.stage else "",
        "attempts": _attempts(volume),
        "budget": f" ({duration(volume.time_budget, up=False)} per attempt)" if volume and volume.time_budget else "",
    }
    if words.marker:
        marker, waited = marker_from_message(reason.error, volume.pipeline if volume else "")
        fields["marker"] = marker
        fields["waited"] = human_age(waited)
        then, retrying, final = _warmup_now(volume.warmup_state if volume else "")
        fields["warmup_then"] = then
        fields["warmup_retrying"] = retrying
        fields["warmup_final"] = final
    return fields


def _warmup_now(state: str) -> tuple[str, str, str]:
    """Why the volume gave up, by what the warm-up is now (``Volume.warmup_state``, the chip's own state), and
    what another attempt will do and who acts: the same account of the warm-up as the chip's, and pointing at
    nothing that may not be shown beside the row (the feed and the API have no chip)."""
    redo = "then the person who wrote the campaign adds the volume to a new campaign."
    if state == "failed":
        return (
            ", because filling the model cache failed",
            "Another attempt will wait and give up the same way until the cache is filled; see the warm-up.",
            f"once the model cache is filled, {redo}",
        )
    if state in ("running", "pending"):
        now = "is still being filled" if state == "running" else "has still not started being filled"
        return (
            ", because the model cache was not filled yet; it " + now,
            "Another attempt waits for it again and starts by itself once it is filled. Nothing to do.",
            f"once the model cache is filled, {redo}",
        )
    if state == "missing":
        return (
            ", because nothing fills the model cache of its pipeline",
            "Another attempt will give up the same way until an operator applies the campaigns again, which sets "
            "up filling the cache.",
            f"an operator applies the campaigns again, which fills the cache, {redo}",
        )
    if state == "marker_missing":
        return (
            ", although the model cache had been filled: the volume did not find it",
            "Another attempt will give up the same way until an operator finds why and fills the cache again.",
            f"an operator has to find why and fill the cache again, {redo}",
        )
    if state == "succeeded":
        return (
            ", because the model cache was not filled yet then; it has been filled since",
            "Another attempt finds the cache ready. Nothing to do.",
            "the cache is ready now, so the person who wrote the campaign can add the volume to a new campaign.",
        )
    return (
        " before the model cache was filled",
        "Another attempt waits for the cache again and starts by itself once it is filled.",
        f"once the model cache is filled, {redo}",
    )


# What the previous attempt did, in the past tense, per failure class (for a volume running again).
_PREVIOUS_ATTEMPT = {
    "config": "could not start because the settings of the installation were incomplete",
    "setup_permanent": "could not read the volume's list of pages (its IIIF manifest)",
    "verify": "left some pages missing or failed",
    "sigterm": "was stopped from outside (a machine emptied for maintenance, or a pause)",
    "deadline": "ran out of its time budget",
    "oom": "ran out of memory and was killed",
    "evicted": "was stopped by the machine it ran on, to free room",
    "warmup_marker": "gave up waiting for the model cache",
}
# Classes where another attempt fails the same way unless someone fixes the cause.
_REPEATS_UNLESS_FIXED = ("config", "setup_permanent", "permanent")


def running_again_sentence(volume: Volume, namespace: str = "") -> Sentence:
    """A volume whose earlier attempt failed and that runs again now: the failure is in the past."""
    reason = volume.reason or VolumeReason()
    if volume.attempts > 0:
        attempt = f"attempt {volume.attempts + 1} of {volume.retry_limit + 1}"
        text = f"Running again ({attempt}): the previous attempt "
    else:
        text = "Running again: the previous attempt "
    during = f" while {stage_words(reason.stage)}" if reason.stage else ""
    text += _PREVIOUS_ATTEMPT.get(reason.kind, f"failed{during}") + "."
    if reason.kind in _REPEATS_UNLESS_FIXED:
        text += " This attempt will most likely fail the same way until the cause is fixed; see its run log."
        tone = "warn"
    else:
        text += " It resumes from its finished pages. Nothing to do."
        tone = "info"
    return Sentence(
        text, detail=reason_detail(reason, volume), commands=reason_commands(reason, namespace), tone=tone
    )


def _attempts(volume: Volume | None) -> str:
    if volume is None or volume.attempts <= 0:
        return ""
    return f" ({volume.attempts} of {volume.retry_limit + 1} attempts failed so far)"


def reason_detail(reason: VolumeReason, volume: Volume | None) -> str:
    """The operator's detail: the volume, pod, container, exit code, stage and the raw error."""
    parts = []
    if volume is not None:
        parts.append(f"volume {volume.id} (index {volume.index}" + (f" of Job {volume.job})" if volume.job else ")"))
    if reason.pod_name:
        parts.append(f"pod {reason.pod_name}")
    if reason.container:
        parts.append(f"container {reason.container}")
    if reason.exit_code is not None:
        parts.append(f"exit code {reason.exit_code}")
    if reason.stage:
        parts.append(f"stage {reason.stage}")
    if reason.permanent is not None:
        parts.append("permanent" if reason.permanent else "transient")
    text = ", ".join(parts)
    if reason.error:
        text = f"{text}: {bounded(reason.error)}" if text else bounded(reason.error)
    return text


def reason_commands(reason: VolumeReason, namespace: str) -> tuple[str, ...]:
    if not reason.pod_name:
        return ()
    container = ("-c", reason.container) if reason.container else ()
    return (
        kubectl("logs", reason.pod_name, *container, namespace=namespace),
        kubectl("describe", "pod", reason.pod_name, namespace=namespace),
    )


_MARKER_RE = re.compile(r"no warm-up marker at (\S+) after (\d+)\s*s")


def marker_from_message(message: str, pipeline: str = "") -> tuple[str, int]:
    """The marker path and wait seconds named by a warmup-wait message, with fallbacks."""
    match = _MARKER_RE.search(message or "")
    if match:
        return bounded(match.group(1), 300), int(match.group(2)[:9])
    marker = f"/data/warmup/{pipeline}.done" if pipeline else "/data/warmup/<pipeline>.done"
    return marker, DEFAULT_WARMUP_WAIT_SECONDS
