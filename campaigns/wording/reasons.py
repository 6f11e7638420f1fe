"""Why a volume stopped: each failure class in its retrying form, its final form, and running again.

Every class says the same things in the same order: what happened (``head``), then whether it will
fix itself and who acts, once for a volume that is tried again (``retrying``) and once for one
that has spent its retries (``final``). ``REASON_WORDS`` holds them as lazy templates in plain words,
each a whole sentence marked for translation and said in the reader's language when filled in; the
facts a class names (the stage, the attempts so far, how long it waited for the model cache, its time
budget) are filled in by name, and a fact not known picks the form that does without it. The error as
the pod gave it, object names and paths are the operator's: they go in the detail, with the matching
``kubectl`` lines. Nothing here raises on odd input: an unknown class or stage gets a general sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from campaigns.models import Sentence, Volume, VolumeReason, bounded
from campaigns.wording.evidence import Templates, fill
from campaigns.wording.pace import duration
from campaigns.wording.words import human_age, stage_words
from core.kubectl import kubectl

FINAL_ADVICE = gettext_lazy(
    "It has spent its retries, so nothing will run it again in this campaign: once the cause is fixed, the person "
    "who wrote the campaign adds the volume to a new campaign."
)
NO_RETRY_ADVICE = gettext_lazy(
    "Trying again cannot help, so nothing will run it again in this campaign: once the cause is fixed, the person "
    "who wrote the campaign adds the volume to a new campaign."
)
DEFAULT_WARMUP_WAIT_SECONDS = 900


@dataclass(frozen=True)
class ReasonWords:
    """One failure class, as lazy ``str.format`` templates over the fields of ``_fields``.

    A form reads ``head`` and then its own words; a class whose forms start differently has no head. A part may
    give alternatives: the first whose names are all known is said (a time budget not read, no attempt counted
    yet). Each form says who acts (nobody, an operator, or the person who wrote the campaign) in plain words; the
    error as the pod gave it, object names and paths are the operator's, in the detail.
    """

    head: Templates
    retrying: Templates
    final: Templates
    retrying_tone: str = "warn"  # the final form is always "bad"
    marker: bool = False  # says how long the volume waited for the model cache, and what the warm-up is now


# Placeholders every form may use. {stage} is what the volume was doing, from STAGE_WORDS ("processing pages");
# {final_advice} and {no_retry_advice} are whole sentences (FINAL_ADVICE, NO_RETRY_ADVICE); {failed_so_far} is
# "2 of 4 attempts failed so far"; {budget} a duration ("1 h 30 min"); {waited} a duration ("15 min").
REASON_WORDS = {
    "config": ReasonWords(
        head=gettext_lazy(
            "The volume could not start because the settings of the installation are incomplete. This is not a "
            "problem with the volume."
        ),
        retrying=gettext_lazy("Another attempt will fail the same way until an operator fixes the settings."),
        final=gettext_lazy(
            "An operator has to fix the settings; trying again cannot help, so nothing will run it again in this "
            "campaign: once the cause is fixed, the person who wrote the campaign adds the volume to a new campaign."
        ),
    ),
    "setup_permanent": ReasonWords(
        head=gettext_lazy("The volume's list of pages (its IIIF manifest) could not be read."),
        retrying=gettext_lazy(
            "Another attempt is running but will most likely fail the same way: the person who wrote the campaign "
            "should check the volume's address."
        ),
        final=gettext_lazy(
            # Translators: {no_retry_advice} is a whole sentence: "Trying again cannot help, so nothing will run it ..."
            "The person who wrote the campaign has to check the volume's address in the campaign file. "
            "{no_retry_advice}"
        ),
    ),
    # A failure a retry may cure; in its final form the last attempt failed the same way.
    "transient": ReasonWords(
        head="",
        retrying=(
            gettext_lazy(
                # Translators: {stage} is what the volume was doing (processing pages); {failed_so_far} says how many
                # attempts failed: "2 of 4 attempts failed so far".
                "An attempt failed while {stage}, with an error that may pass ({failed_so_far}). The volume is tried "
                "again by itself and resumes from its finished pages. Nothing to do unless it keeps failing."
            ),
            gettext_lazy(
                # Translators: {stage} is what the volume was doing (processing pages).
                "An attempt failed while {stage}, with an error that may pass. The volume is tried again by itself "
                "and resumes from its finished pages. Nothing to do unless it keeps failing."
            ),
        ),
        final=gettext_lazy(
            # Translators: {stage} is what the volume was doing (processing pages); {final_advice} is a whole sentence:
            # "It has spent its retries, so nothing will run it again ...".
            "The last attempt failed while {stage}, with an error that may pass. {final_advice} If it keeps "
            "happening, an operator should read its run log."
        ),
    ),
    "permanent": ReasonWords(
        # Translators: {stage} is what the volume was doing (loading models).
        head=gettext_lazy("The volume stopped for good while {stage}."),
        retrying=gettext_lazy(
            "Trying again changes nothing: another attempt fails the same way until an operator finds the cause in "
            "its run log and fixes it."
        ),
        # Translators: {no_retry_advice} is a whole sentence: "Trying again cannot help, so nothing will run it ..."
        final=gettext_lazy("An operator has to find the cause in its run log. {no_retry_advice}"),
    ),
    "verify": ReasonWords(
        head=gettext_lazy("After processing, some pages were missing or failed."),
        retrying=gettext_lazy("The volume is tried again by itself and redoes only those pages. Nothing to do."),
        # Translators: {final_advice} is a whole sentence: "It has spent its retries, so nothing will run it ...".
        final=gettext_lazy("{final_advice} Its run log lists the pages."),
    ),
    "sigterm": ReasonWords(
        head=gettext_lazy("The volume was stopped from outside (a machine emptied for maintenance, or a pause)."),
        retrying=gettext_lazy("It continues from its finished pages when it runs again. Nothing to do."),
        final="{final_advice}",
        retrying_tone="idle",
    ),
    "deadline": ReasonWords(
        head=(
            # Translators: {budget} is how long one attempt may run (1 h 30 min).
            gettext_lazy("The volume ran out of its time budget ({budget} per attempt)."),
            gettext_lazy("The volume ran out of its time budget."),
        ),
        retrying=gettext_lazy("The next attempt resumes from the finished pages. Nothing to do."),
        final=gettext_lazy(
            # Translators: {final_advice} is a whole sentence: "It has spent its retries, so nothing will run it ...".
            # max_seconds and converter.yaml are a setting and a file: they stay as they are.
            "{final_advice} A new campaign resumes from the pages already finished; for a very large volume an "
            "operator may give campaigns more time (max_seconds in converter.yaml)."
        ),
    ),
    "oom": ReasonWords(
        head=gettext_lazy("The volume ran out of memory and was stopped."),
        retrying=gettext_lazy(
            "It is tried again by itself and resumes from its finished pages; if this repeats, an operator has to "
            "give it more memory."
        ),
        # Translators: {final_advice} is a whole sentence: "It has spent its retries, so nothing will run it ...".
        final=gettext_lazy("{final_advice} If it happens again, an operator has to give it more memory."),
    ),
    "evicted": ReasonWords(
        head=gettext_lazy("The machine it ran on stopped the volume to free room."),
        retrying=gettext_lazy("It is tried again by itself and resumes from its finished pages. Nothing to do."),
        final="{final_advice}",
    ),
    # The words when what the warm-up is now is not known; WARMUP_MARKER_WORDS has them by its state.
    "warmup_marker": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave up "
            "before the model cache was filled."
        ),
        retrying=gettext_lazy("Another attempt waits for the cache again and starts by itself once it is filled."),
        final=gettext_lazy(
            "This failure is not retried, so nothing will run the volume again in this campaign: once the model "
            "cache is filled, then the person who wrote the campaign adds the volume to a new campaign."
        ),
        marker=True,
    ),
    # A failure of no known class, with its stage; UNSTAGED says one whose reason has none.
    "unknown": ReasonWords(
        head="",
        retrying=gettext_lazy(
            # Translators: {stage} is what the volume was doing (processing pages).
            "An attempt failed while {stage}. It is tried again by itself; if it keeps failing, an operator should "
            "read its run log."
        ),
        final=gettext_lazy(
            # Translators: {stage} is what the volume was doing (processing pages); {final_advice} is a whole sentence:
            # "It has spent its retries, so nothing will run it again ...".
            "Its last attempt failed while {stage}. {final_advice} An operator finds the cause in its run log."
        ),
    ),
}
REASON_WORDS["transient_final"] = REASON_WORDS["transient"]  # the same class, seen on its last attempt
UNSTAGED = ReasonWords(
    head="",
    retrying=gettext_lazy(
        "An attempt failed. It is tried again by itself; if it keeps failing, an operator should read its run log."
    ),
    # Translators: {final_advice} is a whole sentence: "It has spent its retries, so nothing will run it again ...".
    final=gettext_lazy("Its last attempt failed. {final_advice} An operator finds the cause in its run log."),
)

_ONCE_FILLED = REASON_WORDS["warmup_marker"].final
# A volume that gave up waiting for the model cache, by what the warm-up is now (``Volume.warmup_state``, the
# chip's own state): why it gave up, what another attempt will do and who acts, the same account of the warm-up
# as the chip's, and pointing at nothing that may not be shown beside the row (the feed and the API have no chip).
# {waited} is how long the volume waited (15 min).
WARMUP_MARKER_WORDS = {
    "failed": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited for the model cache (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
            "up, because filling the model cache failed."
        ),
        retrying=gettext_lazy(
            "Another attempt will wait and give up the same way until the cache is filled; see the warm-up."
        ),
        final=_ONCE_FILLED,
        marker=True,
    ),
    "running": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited for the model cache (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
            "up, because the model cache was not filled yet; it is still being filled."
        ),
        retrying=gettext_lazy(
            "Another attempt waits for it again and starts by itself once it is filled. Nothing to do."
        ),
        final=_ONCE_FILLED,
        marker=True,
    ),
    "pending": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited for the model cache (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
            "up, because the model cache was not filled yet; it has still not started being filled."
        ),
        retrying=gettext_lazy(
            "Another attempt waits for it again and starts by itself once it is filled. Nothing to do."
        ),
        final=_ONCE_FILLED,
        marker=True,
    ),
    "missing": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited for the model cache (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
            "up, because nothing fills the model cache of its pipeline."
        ),
        retrying=gettext_lazy(
            "Another attempt will give up the same way until an operator applies the campaigns again, which sets up "
            "filling the cache."
        ),
        final=gettext_lazy(
            "This failure is not retried, so nothing will run the volume again in this campaign: an operator "
            "applies the campaigns again, which fills the cache, then the person who wrote the campaign adds the "
            "volume to a new campaign."
        ),
        marker=True,
    ),
    "marker_missing": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited for the model cache (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
            "up, although the model cache had been filled: the volume did not find it."
        ),
        retrying=gettext_lazy(
            "Another attempt will give up the same way until an operator finds why and fills the cache again."
        ),
        final=gettext_lazy(
            "This failure is not retried, so nothing will run the volume again in this campaign: an operator has "
            "to find why and fill the cache again, then the person who wrote the campaign adds the volume to a new "
            "campaign."
        ),
        marker=True,
    ),
    "succeeded": ReasonWords(
        head=gettext_lazy(
            # Translators: {waited} is how long the volume waited for the model cache (15 min).
            "The volume never started: the model cache was not ready. It waited {waited} for the cache and gave "
            "up, because the model cache was not filled yet then; it has been filled since."
        ),
        retrying=gettext_lazy("Another attempt finds the cache ready. Nothing to do."),
        final=gettext_lazy(
            "This failure is not retried, so nothing will run the volume again in this campaign: the cache is ready "
            "now, so the person who wrote the campaign can add the volume to a new campaign."
        ),
        marker=True,
    ),
}


def reason_sentence(
    reason: VolumeReason,
    final: bool,
    volume: Volume | None = None,
    namespace: str = "",
) -> Sentence:
    """Why a volume stopped, in its retrying form (``final=False``) or its final form."""
    words = REASON_WORDS.get(reason.kind, REASON_WORDS["unknown"])
    if words is REASON_WORDS["unknown"] and not reason.stage:
        words = UNSTAGED
    if words.marker:
        words = WARMUP_MARKER_WORDS.get(volume.warmup_state if volume else "", words)
    fields = _fields(reason, volume, words)
    said = (fill(words.head, fields), fill(words.final if final else words.retrying, fields))
    return Sentence(
        " ".join(part for part in said if part),
        detail=reason_detail(reason, volume),
        commands=reason_commands(reason, namespace),
        tone="bad" if final else words.retrying_tone,
    )


def _fields(reason: VolumeReason, volume: Volume | None, words: ReasonWords) -> dict[str, str]:
    """The names a form may use; one not known (no attempt counted, no time budget read) is left out, and the
    form without it is said."""
    fields = {
        "final_advice": str(FINAL_ADVICE),
        "no_retry_advice": str(NO_RETRY_ADVICE),
        "stage": stage_words(reason.stage),
    }
    if volume is not None and volume.attempts > 0:
        total = volume.retry_limit + 1
        fields["failed_so_far"] = ngettext(
            # Translators: {failed} attempts of the {total} a volume is given have failed.
            "{failed} of {total} attempt failed so far",
            "{failed} of {total} attempts failed so far",
            total,
        ).format(failed=volume.attempts, total=total)
    if volume is not None and volume.time_budget:
        fields["budget"] = duration(volume.time_budget, up=False)
    if words.marker:
        marker, waited = marker_from_message(reason.error, volume.pipeline if volume else "")
        fields["marker"] = marker
        fields["waited"] = human_age(waited)
    return fields


# The previous attempt, in the past tense, per failure class (for a volume running again). {running_again} says
# it runs again, with which attempt it is when known: "Running again (attempt 2 of 4)", or "Running again".
_PREVIOUS_ATTEMPT = {
    "config": gettext_lazy(
        # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
        "{running_again}: the previous attempt could not start because the settings of the installation were "
        "incomplete."
    ),
    "setup_permanent": gettext_lazy(
        # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
        "{running_again}: the previous attempt could not read the volume's list of pages (its IIIF manifest)."
    ),
    # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
    "verify": gettext_lazy("{running_again}: the previous attempt left some pages missing or failed."),
    "sigterm": gettext_lazy(
        # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
        "{running_again}: the previous attempt was stopped from outside (a machine emptied for maintenance, or a "
        "pause)."
    ),
    # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
    "deadline": gettext_lazy("{running_again}: the previous attempt ran out of its time budget."),
    # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
    "oom": gettext_lazy("{running_again}: the previous attempt ran out of memory and was killed."),
    "evicted": gettext_lazy(
        # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
        "{running_again}: the previous attempt was stopped by the machine it ran on, to free room."
    ),
    # Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
    "warmup_marker": gettext_lazy("{running_again}: the previous attempt gave up waiting for the model cache."),
}
# Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again"; {stage} is what the volume
# was doing (processing pages).
_PREVIOUS_FAILED_DURING = gettext_lazy("{running_again}: the previous attempt failed while {stage}.")
# Translators: {running_again} is "Running again (attempt 2 of 4)" or "Running again".
_PREVIOUS_FAILED = gettext_lazy("{running_again}: the previous attempt failed.")
# Classes where another attempt fails the same way unless someone fixes the cause.
_REPEATS_UNLESS_FIXED = ("config", "setup_permanent", "permanent")


def running_again_sentence(volume: Volume, namespace: str = "") -> Sentence:
    """A volume whose earlier attempt failed and that runs again now: the failure is in the past."""
    reason = volume.reason or VolumeReason()
    if volume.attempts > 0:
        # Translators: the start of a sentence about a volume that runs again; {attempt} is which attempt this is,
        # {attempts} how many it is given.
        again = _("Running again (attempt {attempt} of {attempts})").format(
            attempt=volume.attempts + 1, attempts=volume.retry_limit + 1
        )
    else:
        again = _("Running again")
    template = _PREVIOUS_ATTEMPT.get(reason.kind) or (_PREVIOUS_FAILED_DURING if reason.stage else _PREVIOUS_FAILED)
    previous = str(template).format(running_again=again, stage=stage_words(reason.stage))
    if reason.kind in _REPEATS_UNLESS_FIXED:
        then = _("This attempt will most likely fail the same way until the cause is fixed; see its run log.")
        tone = "warn"
    else:
        then = _("It resumes from its finished pages. Nothing to do.")
        tone = "info"
    return Sentence(
        " ".join((previous, then)),
        detail=reason_detail(reason, volume),
        commands=reason_commands(reason, namespace),
        tone=tone,
    )


def reason_detail(reason: VolumeReason, volume: Volume | None) -> str:
    """The operator's detail: the volume, pod, container, exit code, stage and the raw error."""
    parts = []
    if volume is not None and volume.job:
        parts.append(
            # Translators: the operator's detail; {volume} is a volume's id, {index} its line in the campaign's list
            # (from 0), {job} the campaign's Job: "volume C0074517 (index 6 of Job court-rolls-1650)".
            _("volume {volume} (index {index} of Job {job})").format(
                volume=volume.id, index=volume.index, job=volume.job
            )
        )
    elif volume is not None:
        # Translators: the operator's detail; {volume} is a volume's id, {index} its line in the campaign's list.
        parts.append(_("volume {volume} (index {index})").format(volume=volume.id, index=volume.index))
    if reason.pod_name:
        parts.append(pgettext("the operator's detail of a failure", "pod {pod}").format(pod=reason.pod_name))
    if reason.container:
        parts.append(
            pgettext("the operator's detail of a failure", "container {container}").format(container=reason.container)
        )
    if reason.exit_code is not None:
        parts.append(pgettext("the operator's detail of a failure", "exit code {code}").format(code=reason.exit_code))
    if reason.stage:
        # Translators: {stage} is a stage's code as the volume's wrapper names it (stream, load), not translated.
        parts.append(pgettext("the operator's detail of a failure", "stage {stage}").format(stage=reason.stage))
    if reason.permanent is not None:
        parts.append(
            pgettext("the operator's detail of a failure", "permanent")
            if reason.permanent
            else pgettext("the operator's detail of a failure", "transient")
        )
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
