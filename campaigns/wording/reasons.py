"""Why a volume stopped: each failure class in its retrying form, its final form, and running again.

Every class says the same things in the same order: what happened (``head``), then whether it will
fix itself and what to do, once for a volume that is tried again (``retrying``) and once for one
that has spent its retries (``final``). ``REASON_WORDS`` holds them as templates; the facts a class
quotes (the error, the stage, the attempts so far, the warm-up marker) are filled in by name.
Object names, paths and raw messages for operators go in the detail, with the matching ``kubectl``
lines. Nothing here raises on odd input: an unknown class or stage gets a general sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from campaigns.models import Sentence, Volume, VolumeReason, bounded
from campaigns.wording.words import QUOTE_LIMIT, human_age, lower_first, stage_words
from core.kubectl import kubectl

FINAL_ADVICE = (
    "It has spent its retries and nothing will run it again in this campaign: "
    "fix the cause, then add the volume to a new campaign."
)
NO_RETRY_ADVICE = (
    "Retrying cannot help, so nothing will run it again in this campaign: "
    "fix the cause, then add the volume to a new campaign."
)
DEFAULT_WARMUP_WAIT_SECONDS = 900


@dataclass(frozen=True)
class ReasonWords:
    """One failure class, as ``str.format`` templates over the fields of ``_fields``.

    A form reads ``head`` and then its own words; a class whose forms start differently has no head.
    """

    head: str
    retrying: str
    final: str
    retrying_tone: str = "warn"  # the final form is always "bad"
    marker: bool = False  # quotes the warm-up marker, how long the pod waited and the warm-up Job


REASON_WORDS = {
    "config": ReasonWords(
        head="The volume could not start because the batch settings are incomplete{quote}. "
        "This is a deployment problem, not a problem with the volume.",
        retrying="Another attempt will fail the same way until an operator fixes the settings.",
        final="An operator must fix the settings; {no_retry_advice_lower}",
    ),
    "setup_permanent": ReasonWords(
        head="The volume's IIIF manifest could not be read{quote}.",
        retrying="Another attempt is running but will most likely fail the same way; check the address.",
        final="Check the manifest address (or the volume reference) in the campaign file. {no_retry_advice}",
    ),
    # A failure a retry may cure; in its final form the last attempt failed the same way.
    "transient": ReasonWords(
        head="",
        retrying="An attempt failed while {stage}{quote}. Failures like this usually pass: the volume is tried "
        "again automatically and resumes from its finished pages{attempts}. Nothing to do unless it keeps failing.",
        final="The last attempt failed while {stage}{quote}. The failure may have been temporary (a network or "
        "storage outage), but {final_advice_lower}",
    ),
    "permanent": ReasonWords(
        head="The volume stopped for good while {stage}{quote}.",
        retrying="Retrying changes nothing; another attempt will fail the same way until the cause is fixed.",
        final="{no_retry_advice}",
    ),
    "verify": ReasonWords(
        head="After processing, some pages were missing or failed{quote}.",
        retrying="The volume is tried again automatically and redoes only those pages.",
        final="{final_advice} Its run log lists the pages.",
    ),
    "sigterm": ReasonWords(
        head="The volume's pod was stopped from outside (a node drain or a pause).",
        retrying="It continues from its finished pages when it runs again; nothing to do.",
        final="{final_advice}",
        retrying_tone="idle",
    ),
    "deadline": ReasonWords(
        head="The volume ran out of its time budget (6 hours unless configured otherwise).",
        retrying="The next attempt resumes from the finished pages; nothing to do.",
        final="{final_advice} A new campaign resumes from the pages already finished; "
        "a very large volume may need a longer budget (max_seconds in converter.yaml).",
    ),
    "oom": ReasonWords(
        head="The volume's pod ran out of memory and was killed.",
        retrying="It is tried again automatically and resumes from its finished pages; "
        "if this repeats, an operator should raise the memory limit.",
        final="{final_advice} If it happens again, an operator should raise the memory limit.",
    ),
    "evicted": ReasonWords(
        head="The node evicted the volume's pod{quote}.",
        retrying="It is tried again automatically and resumes from its finished pages; nothing to do.",
        final="{final_advice}",
    ),
    "warmup_marker": ReasonWords(
        head="The volume never started: the model cache was not ready. Its pod waited {waited} for the "
        "warm-up marker {marker} and gave up{warmup_then}.",
        retrying="{warmup_retrying}",
        final="This failure is not retried, so nothing will run the volume again in this campaign: {warmup_final}",
        marker=True,
    ),
    # A failure of no known class: said in the past tense, with its stage when the reason has one.
    "unknown": ReasonWords(
        head="",
        retrying="An attempt failed{during}{quote}. It is tried again automatically; its run log may tell more.",
        final="Its last attempt failed{during}{quote}. {final_advice} Its run log may tell more.",
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
        "quote": quote(reason),
        "stage": stage_words(reason.stage),
        "during": f" while {stage_words(reason.stage)}" if reason.stage else "",
        "attempts": _attempts(volume),
    }
    if words.marker:
        marker, waited = marker_from_message(reason.error, volume.pipeline if volume else "")
        pipeline = volume.pipeline if volume and volume.pipeline else _pipeline_from_marker(marker)
        fields["marker"] = marker
        fields["waited"] = human_age(waited)
        job = f"htr-warmup-{pipeline}" if pipeline else "of its pipeline"
        then, retrying, final = _warmup_now(volume.warmup_state if volume else "")
        fields["warmup_then"] = then.format(job=job)
        fields["warmup_retrying"] = retrying
        fields["warmup_final"] = final
    return fields


def _warmup_now(state: str) -> tuple[str, str, str]:
    """Why the pod gave up, by what the warm-up is now (``Volume.warmup_state``, the chip's own state), and what
    another attempt will do and what to do: the same account of the warm-up as the chip's, and pointing at
    nothing that may not be shown beside the row (the feed and the API have no chip)."""
    redo = "then add the volume to a new campaign."
    if state == "failed":
        return (
            ", because the warm-up Job {job} failed",
            "Another attempt will wait and give up the same way until the warm-up is fixed and applied again.",
            f"fix the warm-up and apply again, {redo}",
        )
    if state in ("running", "pending"):
        now = "is still running" if state == "running" else "has still not started"
        return (
            ", because the warm-up Job {job} had not finished; it " + now,
            "Another attempt waits for it again and starts by itself once it is done.",
            f"let the warm-up finish, {redo}",
        )
    if state == "missing":
        return (
            ", because there is no warm-up Job {job}",
            "Another attempt will give up the same way until the campaigns are applied again, which creates it.",
            f"apply the campaigns again, which creates the warm-up, {redo}",
        )
    if state == "marker_missing":
        return (
            ", although the warm-up Job {job} had completed: its marker was not where the pod looked",
            "Another attempt will give up the same way until an operator finds why and redoes the warm-up.",
            f"an operator has to find why the marker is missing and redo the warm-up, {redo}",
        )
    if state == "succeeded":
        return (
            ", because the warm-up Job {job} had not finished then; it has completed since",
            "Another attempt finds the cache ready; nothing to do.",
            "the cache is ready now, so adding the volume to a new campaign runs it.",
        )
    return (
        " before the warm-up Job {job} wrote it",
        "Another attempt waits for the marker again.",
        f"make sure the warm-up has completed, {redo}",
    )


# What the previous attempt did, in the past tense, per failure class (for a volume running again).
_PREVIOUS_ATTEMPT = {
    "config": "could not start because the batch settings were incomplete",
    "setup_permanent": "could not read the volume's IIIF manifest",
    "verify": "left some pages missing or failed",
    "sigterm": "was stopped from outside (a node drain or a pause)",
    "deadline": "ran out of its time budget",
    "oom": "ran out of memory and was killed",
    "evicted": "was evicted from its node",
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
    said = "" if reason.kind in ("deadline", "oom", "sigterm", "warmup_marker") else quote(reason)
    text += _PREVIOUS_ATTEMPT.get(reason.kind, f"failed{during}") + f"{said}."
    if reason.kind in _REPEATS_UNLESS_FIXED:
        text += " This attempt will most likely fail the same way until the cause is fixed."
        tone = "warn"
    else:
        text += " It resumes from its finished pages; nothing to do."
        tone = "info"
    return Sentence(
        text, detail=reason_detail(reason, volume), commands=reason_commands(reason, namespace), tone=tone
    )


def quote(reason: VolumeReason) -> str:
    """The reason's own error, short, in brackets after the words that explain it."""
    error = bounded(reason.error, QUOTE_LIMIT)
    return f" ({error})" if error else ""


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


def _pipeline_from_marker(marker: str) -> str:
    name = marker.rsplit("/", 1)[-1]
    return name[: -len(".done")] if name.endswith(".done") else ""
