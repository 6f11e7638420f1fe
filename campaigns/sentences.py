"""Pure wording: a reason or a state -> one sentence a person can act on.

Every sentence says what happened, whether it will fix itself, and what to do. Plain words for
archivists go in ``Sentence.text``; object names, paths and raw messages for operators go in
``Sentence.detail``, and the matching ``kubectl`` lines in ``Sentence.commands``. Nothing here
raises on odd input: an unknown stage or shape gets a general sentence.
"""

from __future__ import annotations

import re
from datetime import datetime

from campaigns.models import (
    FAILED,
    PARTIALLY_FAILED,
    PAUSED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    Campaign,
    Progress,
    QueueState,
    Sentence,
    Volume,
    VolumeReason,
    Warmup,
    bounded,
)

# How much of a raw error an archivist-facing sentence quotes; the detail keeps up to TEXT_LIMIT.
QUOTE_LIMIT = 300
# A running volume whose progress has not moved for this long reads as "no update for ...".
STALE_PROGRESS_SECONDS = 600
DEFAULT_WARMUP_WAIT_SECONDS = 900
KNOWN_PRIORITY_CLASSES = ("htr-interactive", "htr-bulk", "htr-idle")

STAGE_WORDS = {
    "config": "reading its settings",
    "setup": "reading the volume's IIIF manifest",
    "resume": "checking earlier results",
    "load": "loading models",
    "stream": "processing pages",
    "verify": "checking that every page has a result",
    "publish": "writing the final files",
    "warmup": "filling the model cache",
    "done": "all pages written, finishing",
    "failed": "stopped",
}

FINAL_ADVICE = (
    "It has spent its retries and nothing will run it again in this campaign: "
    "fix the cause, then add the volume to a new campaign."
)
NO_RETRY_ADVICE = (
    "Retrying cannot help, so nothing will run it again in this campaign: "
    "fix the cause, then add the volume to a new campaign."
)

_MARKER_RE = re.compile(r"no warm-up marker at (\S+) after (\d+)\s*s")


def stage_words(stage: str | None) -> str:
    """What a wrapper stage means in plain words; a general phrase for stages we do not know."""
    if not stage:
        return "working on the volume"
    return STAGE_WORDS.get(stage, "working on the volume")


def human_age(seconds: float | None) -> str:
    """A short human duration: ``12 s``, ``4 min``, ``3 h``, ``2 d``."""
    if seconds is None:
        return "an unknown time"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400 * 2:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def _ns(namespace: str) -> str:
    """The ``-n <namespace> `` part of a kubectl command."""
    return f"-n {namespace} " if namespace else ""


def progress_sentence(progress: Progress | None, now: datetime | None = None) -> str:
    """``processing pages · updated 12 s ago``; stale or missing progress is said so."""
    if progress is None:
        return "no progress reported yet"
    age = progress.age_seconds
    if age is None and progress.updated_at is not None and now is not None:
        age = max(0.0, (now - progress.updated_at).total_seconds())
    what = stage_words(progress.stage)
    if age is None:
        return what
    if progress.stage not in ("done", "failed") and age >= STALE_PROGRESS_SECONDS:
        return f"{what} · no update for {human_age(age)}"
    return f"{what} · updated {human_age(age)} ago"


# ---------------------------------------------------------------------------------------------
# Volumes


def volume_sentence(volume: Volume, namespace: str = "", held: bool = False) -> Sentence:
    """The sentence for one volume row: its failure (retrying or final) or its plain state.

    ``held``: the campaign itself is queued or paused, so a pending volume waits for the campaign.
    """
    namespace = namespace or volume.namespace
    if volume.reason is not None and volume.state == "active" and not volume.waiting_for_cache:
        return running_again_sentence(volume, namespace)
    if volume.reason is not None and volume.state in ("failed", "active", "pending", "unknown"):
        final = volume.state == "failed"
        return reason_sentence(volume.reason, final=final, volume=volume, namespace=namespace)
    if volume.malformed and volume.state not in ("done", "active"):
        return Sentence(
            f"The campaign's volume list has no readable line {volume.index + 1}, so this volume's name is not known "
            "here and it may not run. If it is missing from the campaign file, add it to a new campaign.",
            detail=f"volumes.txt line {volume.index + 1}: expected '<volume id><TAB><source>'",
            tone="warn",
        )
    if volume.state == "done":
        return Sentence("Done.", tone="ok")
    if volume.state == "active" and volume.waiting_for_cache:
        return Sentence(
            "Waiting for the model cache to be ready (at most 15 minutes); "
            "it starts by itself once the warm-up is done.",
            detail=f"warmup-wait is waiting for /data/warmup/{volume.pipeline}.done",
            tone="idle",
        )
    if volume.state == "active":
        return Sentence("Being processed now.", tone="info")
    if volume.state == "pending" and held:
        return Sentence("Not started: the whole campaign is held back, and its state above says why.", tone="idle")
    if volume.state == "pending":
        return Sentence("Waiting for a free slot; it starts by itself.", tone="idle")
    if volume.state == "failed":
        return Sentence(
            f"Failed, and the pod that would say why is gone. {FINAL_ADVICE} Its run log may tell more.",
            tone="bad",
        )
    return Sentence("State not known: the campaign's Job is gone or did not report this volume.", tone="idle")


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
    quote = "" if reason.kind in ("deadline", "oom", "sigterm", "warmup_marker") else _quote(reason)
    text += _PREVIOUS_ATTEMPT.get(reason.kind, f"failed{during}") + f"{quote}."
    if reason.kind in _REPEATS_UNLESS_FIXED:
        text += " This attempt will most likely fail the same way until the cause is fixed."
        tone = "warn"
    else:
        text += " It resumes from its finished pages; nothing to do."
        tone = "info"
    return Sentence(
        text, detail=_reason_detail(reason, volume), commands=_reason_commands(reason, namespace), tone=tone
    )


def reason_sentence(
    reason: VolumeReason,
    final: bool,
    volume: Volume | None = None,
    namespace: str = "",
) -> Sentence:
    """Why a volume stopped, in its retrying form (``final=False``) or its final form."""
    writer = _REASON_WRITERS.get(reason.kind, _unknown_reason)
    text, tone = writer(reason, final, volume)
    return Sentence(
        text, detail=_reason_detail(reason, volume), commands=_reason_commands(reason, namespace), tone=tone
    )


_REQUEST_ID_RE = re.compile(r"\s*\(?\bRequest ID:\s*[^)\s]*\)?\.?", re.IGNORECASE)


def trimmed_message(text: str, limit: int) -> str:
    """An error message fit to quote: request ids dropped, cut after a whole sentence when one fits.

    A cut text ends with a single " (…)", so a sentence around it can still end with its own full stop.
    """
    text = " ".join(_REQUEST_ID_RE.sub(" ", text or "").split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    sentence_end = max(head.rfind(". "), head.rfind("; "))
    if sentence_end >= limit // 3:
        return head[:sentence_end] + " (…)"
    word_end = head.rfind(" ")
    cut = head[:word_end] if word_end >= limit // 2 else head[: limit - 4]
    return cut.rstrip(" .,;:") + " (…)"


def _quote(reason: VolumeReason) -> str:
    error = bounded(reason.error, QUOTE_LIMIT)
    return f" ({error})" if error else ""


def _attempts(volume: Volume | None) -> str:
    if volume is None or volume.attempts <= 0:
        return ""
    return f" ({volume.attempts} of {volume.retry_limit + 1} attempts failed so far)"


def _config_reason(reason, final, volume):
    head = f"The volume could not start because the batch settings are incomplete{_quote(reason)}."
    head += " This is a deployment problem, not a problem with the volume."
    if final:
        return f"{head} An operator must fix the settings; {_lower_first(NO_RETRY_ADVICE)}", "bad"
    return f"{head} Another attempt will fail the same way until an operator fixes the settings.", "warn"


def _setup_permanent_reason(reason, final, volume):
    head = f"The volume's IIIF manifest could not be read{_quote(reason)}."
    if final:
        return (
            f"{head} Check the manifest address (or the volume reference) in the campaign file. {NO_RETRY_ADVICE}",
            "bad",
        )
    return f"{head} Another attempt is running but will most likely fail the same way; check the address.", "warn"


def _transient_reason(reason, final, volume):
    """A failure a retry may cure; in its final form the last attempt failed the same way."""
    if final:
        return (
            f"The last attempt failed while {stage_words(reason.stage)}{_quote(reason)}. The failure may have been "
            f"temporary (a network or storage outage), but {_lower_first(FINAL_ADVICE)}",
            "bad",
        )
    return (
        f"An attempt failed while {stage_words(reason.stage)}{_quote(reason)}. Failures like this usually pass: "
        f"the volume is tried again automatically and resumes from its finished pages{_attempts(volume)}. "
        "Nothing to do unless it keeps failing.",
        "warn",
    )


def _permanent_reason(reason, final, volume):
    head = f"The volume stopped for good while {stage_words(reason.stage)}{_quote(reason)}."
    if final:
        return f"{head} {NO_RETRY_ADVICE}", "bad"
    return f"{head} Retrying changes nothing; another attempt will fail the same way until the cause is fixed.", "warn"


def _verify_reason(reason, final, volume):
    head = f"After processing, some pages were missing or failed{_quote(reason)}."
    if final:
        return f"{head} {FINAL_ADVICE} Its run log lists the pages.", "bad"
    return f"{head} The volume is tried again automatically and redoes only those pages.", "warn"


def _sigterm_reason(reason, final, volume):
    head = "The volume's pod was stopped from outside (a node drain or a pause)."
    if final:
        return f"{head} {FINAL_ADVICE}", "bad"
    return f"{head} It continues from its finished pages when it runs again; nothing to do.", "idle"


def _deadline_reason(reason, final, volume):
    head = "The volume ran out of its time budget (6 hours unless configured otherwise)."
    if final:
        return (
            f"{head} {FINAL_ADVICE} A new campaign resumes from the pages already finished; "
            "a very large volume may need a longer budget (max_seconds in converter.yaml).",
            "bad",
        )
    return f"{head} The next attempt resumes from the finished pages; nothing to do.", "warn"


def _oom_reason(reason, final, volume):
    head = "The volume's pod ran out of memory and was killed."
    if final:
        return f"{head} {FINAL_ADVICE} If it happens again, an operator should raise the memory limit.", "bad"
    return (
        f"{head} It is tried again automatically and resumes from its finished pages; "
        "if this repeats, an operator should raise the memory limit.",
        "warn",
    )


def _evicted_reason(reason, final, volume):
    head = f"The node evicted the volume's pod{_quote(reason)}."
    if final:
        return f"{head} {FINAL_ADVICE}", "bad"
    return f"{head} It is tried again automatically and resumes from its finished pages; nothing to do.", "warn"


def _warmup_marker_reason(reason, final, volume):
    marker, waited = marker_from_message(reason.error, volume.pipeline if volume else "")
    pipeline = volume.pipeline if volume and volume.pipeline else _pipeline_from_marker(marker)
    job = f"htr-warmup-{pipeline}" if pipeline else "the pipeline's warm-up Job"
    head = (
        f"The volume never started: the model cache was not ready. Its pod waited {human_age(waited)} for the "
        f"warm-up marker {marker} and gave up, because the warm-up Job {job} had not finished."
    )
    if final:
        return (
            f"{head} See the warm-up chip for why. This failure is not retried, so nothing will run the volume again "
            f"in this campaign: fix the warm-up, then add the volume to a new campaign.",
            "bad",
        )
    return f"{head} Another attempt will wait again; fix the warm-up (see the warm-up chip).", "warn"


def _unknown_reason(reason, final, volume):
    """A failure of no known class: said in the past tense, with its stage when the reason has one."""
    during = f" while {stage_words(reason.stage)}" if reason.stage else ""
    if final:
        return f"Its last attempt failed{during}{_quote(reason)}. {FINAL_ADVICE} Its run log may tell more.", "bad"
    return (
        f"An attempt failed{during}{_quote(reason)}. It is tried again automatically; its run log may tell more.",
        "warn",
    )


_REASON_WRITERS = {
    "config": _config_reason,
    "setup_permanent": _setup_permanent_reason,
    "transient": _transient_reason,
    "transient_final": _transient_reason,  # the same class, seen on its last attempt
    "permanent": _permanent_reason,
    "verify": _verify_reason,
    "sigterm": _sigterm_reason,
    "deadline": _deadline_reason,
    "oom": _oom_reason,
    "evicted": _evicted_reason,
    "warmup_marker": _warmup_marker_reason,
    "unknown": _unknown_reason,
}


def _reason_detail(reason: VolumeReason, volume: Volume | None) -> str:
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


def _reason_commands(reason: VolumeReason, namespace: str) -> tuple[str, ...]:
    if not reason.pod_name:
        return ()
    ns = _ns(namespace)
    container = f" -c {reason.container}" if reason.container else ""
    return (f"kubectl {ns}logs {reason.pod_name}{container}", f"kubectl {ns}describe pod {reason.pod_name}")


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


def _as_sentence(text: str) -> str:
    """Quoted words that end like a sentence, so the next sentence can follow them."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


# ---------------------------------------------------------------------------------------------
# Warm-up


def warmup_sentence(warmup: Warmup, namespace: str = "") -> Sentence:
    """The warm-up chip's sentence for each warm-up state."""
    pipeline = warmup.pipeline or "this pipeline"
    job = warmup.job_name or f"htr-warmup-{warmup.pipeline}"
    ns = _ns(namespace)
    detail_parts = [f"warm-up Job {job}"]
    if warmup.recipe_sha256:
        detail_parts.append(f"recipe sha256 {warmup.recipe_sha256}")
    if warmup.cache_dir:
        detail_parts.append(f"cache directory {warmup.cache_dir}")
    if warmup.marker_path:
        detail_parts.append(f"marker {warmup.marker_path}")
    detail = ", ".join(detail_parts)
    look = (f"kubectl {ns}get job {job}", f"kubectl {ns}logs job/{job} --tail=50")

    if warmup.state == "succeeded" and warmup.marker_missing:
        return Sentence(
            f"The model cache warm-up for {pipeline} finished, yet campaign pods did not find its marker "
            f"{warmup.marker_path}. Usually the warm-up Job runs with a different runtimeClassName, nodeSelector or "
            "tolerations than the campaign Job, or a ReadWriteOnce cache was filled on another node. "
            f"This does not fix itself: an operator should fix that, delete the finished warm-up Job {job} by hand "
            "and apply again.",
            detail=detail,
            commands=(*look, f"kubectl {ns}delete job {job}"),
            tone="bad",
        )
    if warmup.state == "succeeded":
        return Sentence(f"The model cache for {pipeline} is ready.", detail=detail, tone="ok")
    if warmup.state == "running":
        return Sentence(
            f"The model cache for {pipeline} is being filled. Volumes wait for it and start by themselves.",
            detail=detail,
            commands=look,
            tone="info",
        )
    if warmup.state == "pending":
        return Sentence(
            f"The model cache warm-up for {pipeline} has not started yet. Volumes wait for it (up to 15 minutes) and "
            "start by themselves once it is done; if it does not start, an operator should look at the warm-up Job.",
            detail=detail,
            commands=(f"kubectl {ns}describe job {job}",),
            tone="idle",
        )
    if warmup.state == "missing":
        return Sentence(
            f"There is no model cache warm-up for {pipeline}. If its cache was not filled before, its volumes wait for "
            f"a marker nobody writes and give up after 15 minutes. Applying the campaigns again creates the warm-up "
            f"Job {job}.",
            detail=detail,
            commands=(f"kubectl {ns}get jobs -l app=htrflow-warmup",),
            tone="warn",
        )
    if warmup.state == "failed":
        message = trimmed_message(warmup.message, QUOTE_LIMIT)
        said = f": {message.rstrip('.')}" if message else ""
        if warmup.reason is not None and warmup.reason.permanent is False:
            will = "The failure may have been temporary; applying again replaces the failed warm-up and retries it."
        else:
            will = (
                "This will not fix itself: fix the cause (often a model name or revision in the pipeline file) "
                "and apply again, which replaces the failed warm-up."
            )
        return Sentence(
            f"The model cache warm-up for {pipeline} failed{said}. Volumes of this pipeline cannot start and give up "
            f"after waiting 15 minutes. {will}",
            detail=f"{detail}: {bounded(warmup.message)}" if warmup.message else detail,
            commands=(
                *look,
                f"kubectl {ns}get pods -l batch.kubernetes.io/job-name={job} "
                "-o jsonpath='{.items[*].status.containerStatuses[*].state.terminated.message}'",
            ),
            tone="bad",
        )
    return Sentence(f"The state of the model cache for {pipeline} is not known.", detail=detail, tone="idle")


# ---------------------------------------------------------------------------------------------
# Queue


def queue_sentence(queue: QueueState, namespace: str = "", job: str = "") -> Sentence:
    """Why a Queued or Paused campaign is not running, in plain words, with operator detail."""
    writer = _QUEUE_WRITERS.get(queue.kind, _queue_unknown)
    text, tone, commands = writer(queue, namespace, job)
    return Sentence(text, detail=_queue_detail(queue), commands=commands, tone=tone)


def _queue_commands(queue: QueueState, namespace: str) -> tuple[str, ...]:
    commands = []
    if queue.workload_name:
        commands.append(f"kubectl {_ns(namespace)}describe workload {queue.workload_name}")
    if queue.cluster_queue:
        commands.append(f"kubectl get clusterqueue {queue.cluster_queue} -o yaml")
    return tuple(commands)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


_PART_RE = re.compile(r"^(.+)-part(\d{1,4})$")


def campaign_label(job_name: str) -> str:
    """A Job name as people know the campaign: ``poll-tax-1810-part2`` reads ``poll-tax-1810 (part 2)``."""
    match = _PART_RE.match(job_name or "")
    if not match:
        return job_name
    return f"{match.group(1)} (part {int(match.group(2))})"


def _names(job_names: list[str], most: int = 5) -> str:
    """Campaign labels, each once, in order, at most ``most`` of them and "others"."""
    labels = list(dict.fromkeys(campaign_label(name) for name in job_names))
    text = ", ".join(labels[:most])
    return text + (" and others" if len(labels) > most else "")


def _queue_waiting(queue, namespace, job):
    if queue.ahead is None:
        text = "Waiting its turn in the queue."
    elif queue.ahead == 0:
        text = "Waiting its turn in the queue; it is next."
    else:
        text = f"Waiting its turn in the queue: {_plural(queue.ahead, 'campaign')} ahead"
        text += f" ({_names(queue.ahead_names)})." if queue.ahead_names else "."
    if queue.holders:
        text += f" The queue's capacity is in use by {_names(queue.holders)}."
    text += " It starts by itself when capacity frees up; to hurry it, an operator can raise the queue's quota."
    return text, "idle", _queue_commands(queue, namespace)


def _queue_never_fits(queue, namespace, job):
    too_big = [f for f in queue.fits if not f.fits]
    if too_big:
        asks = "; ".join(
            f"{f.resource}: asks {f.requested}, quota {f.quota}"
            if f.quota
            else f"{f.resource}: asks {f.requested}, the queue has none"
            for f in too_big
        )
        what = f" It asks for more at once than the queue can ever give ({asks})."
    else:
        what = " It asks for more at once than the queue can ever give."
    return (
        "This campaign can never start as it is." + what + " It will not fix itself: lower `window` in converter.yaml "
        "(or in the campaign file) so that parallel pods × their requests fit the quota, then render and apply again.",
        "bad",
        _queue_commands(queue, namespace),
    )


def _queue_no_priority_class(queue, namespace, job):
    name = queue.priority_class or "(unnamed)"
    known = ", ".join(f"`{c}`" for c in KNOWN_PRIORITY_CLASSES)
    return (
        f"The queue ignores it: its priority `{name}` names a priority class that does not exist, so no Workload "
        f"was made for it. It will not fix itself: set the campaign's priority to one of {known} (or leave it out) "
        "and apply again.",
        "bad",
        ("kubectl get workloadpriorityclasses", _job_events(namespace, job)),
    )


def _queue_not_yet(queue, namespace, job):
    return (
        "Just submitted; the queue has not picked it up yet. This normally takes a few seconds.",
        "idle",
        (),
    )


def _job_events(namespace: str, job: str) -> str:
    if job:
        return f"kubectl {_ns(namespace)}get events --field-selector involvedObject.name={job}"
    return f"kubectl {_ns(namespace)}get events --sort-by=.lastTimestamp"


def _queue_kueue_silent(queue, namespace, job):
    events = _job_events(namespace, job)
    return (
        "The queue has not acted on this campaign for some minutes: Kueue, the queueing system, may not be running. "
        "It starts by itself once Kueue works again; an operator should check whether Kueue is running.",
        "bad",
        ("kubectl -n kueue-system get pods", events),
    )


def _queue_paused(queue, namespace, job):
    return (
        "Its campaign file holds it back with `suspend: true` (paused in git). It does not run until someone removes "
        "`suspend: true` from the campaign file and applies again.",
        "idle",
        _queue_commands(queue, namespace),
    )


def _queue_inadmissible(queue, namespace, job):
    said = f": {_as_sentence(bounded(queue.message, QUOTE_LIMIT))}" if queue.message else "."
    local = f"kubectl {_ns(namespace)}get localqueue {queue.queue_name}" if queue.queue_name else ""
    commands = tuple(c for c in (local, *_queue_commands(queue, namespace)) if c)
    return (
        f"The queue cannot admit this campaign{said} It stays queued until an operator fixes the queue "
        "(the LocalQueue or ClusterQueue named in the detail).",
        "bad",
        commands,
    )


def _queue_evicted(queue, namespace, job):
    why = {
        "PodsReadyTimeout": "its pods did not become ready in time",
        "InactiveWorkload": "it was deactivated",
        "Deactivated": "it was paused",
        "Preempted": "a more urgent campaign needed the capacity",
        "ClusterQueueStopped": "the queue was stopped",
        "AdmissionCheck": "an admission check withdrew it",
    }.get(queue.reason, "")
    said = f" because {why}" if why else (f" ({bounded(queue.message, QUOTE_LIMIT)})" if queue.message else "")
    return (
        f"The queue stopped this campaign's pods{said}. It is queued again and resumes from finished pages when "
        "capacity frees up; nothing to do unless this keeps happening.",
        "warn",
        _queue_commands(queue, namespace),
    )


def _queue_preempted(queue, namespace, job):
    return (
        "Pushed aside by a more urgent campaign. It waits in the queue and resumes from finished pages when "
        "capacity frees up; nothing to do.",
        "idle",
        _queue_commands(queue, namespace),
    )


def _queue_not_looked_at(queue, namespace, job):
    return (
        "The queue has not looked at it yet; this normally takes a few seconds.",
        "idle",
        _queue_commands(queue, namespace),
    )


def _queue_admitted(queue, namespace, job):
    return ("Admitted by the queue.", "ok", _queue_commands(queue, namespace))


def _queue_unknown(queue, namespace, job):
    return (
        "The reason it waits is not known; an operator can look at its Workload.",
        "idle",
        _queue_commands(queue, namespace),
    )


_QUEUE_WRITERS = {
    "waiting": _queue_waiting,
    "never_fits": _queue_never_fits,
    "no_workload_priority_class": _queue_no_priority_class,
    "no_workload_yet": _queue_not_yet,
    "kueue_silent": _queue_kueue_silent,
    "paused": _queue_paused,
    "inadmissible": _queue_inadmissible,
    "evicted": _queue_evicted,
    "preempted": _queue_preempted,
    "not_looked_at": _queue_not_looked_at,
    "admitted": _queue_admitted,
}


def _queue_detail(queue: QueueState) -> str:
    parts = []
    if queue.workload_name:
        parts.append(f"Workload {queue.workload_name}")
    else:
        parts.append("no Workload")
    if queue.queue_name:
        parts.append(f"LocalQueue {queue.queue_name}")
    if queue.cluster_queue:
        parts.append(f"ClusterQueue {queue.cluster_queue}")
    if queue.priority_class:
        parts.append(f"priority class {queue.priority_class}")
    if queue.reason:
        parts.append(f"reason {queue.reason}")
    for fit in queue.fits:
        parts.append(f"{fit.resource} {fit.requested} of quota {fit.quota or 'none'}")
    if queue.pending_in_queue is not None:
        parts.append(f"{queue.pending_in_queue} pending in the ClusterQueue across all namespaces")
    text = ", ".join(parts)
    if queue.message:
        text += f"; Kueue says: {bounded(queue.message)}"
    return text


# ---------------------------------------------------------------------------------------------
# Campaign


def campaign_sentence(campaign: Campaign) -> Sentence:
    """The state chip's sentence: the phase with its reason."""
    counts = campaign.counts
    gone = " Its Job has been removed; this card is kept from the campaign's records." if campaign.job_gone else ""
    if campaign.phase == RUNNING:
        text = f"Running: {counts.done} of {counts.total} volumes done, {counts.active} being processed."
        if counts.failed:
            text += f" {_plural(counts.failed, 'volume')} failed for good; see the problems below."
        tone = "warn" if counts.failed else "info"
        if campaign.warmup is not None and campaign.warmup.state == "failed":
            text += " The model cache is not ready, so volumes cannot start; see the warm-up."
            tone = "bad"
        return Sentence(text, detail=_job_detail(campaign), tone=tone)
    if campaign.phase == SUCCEEDED:
        return Sentence(f"Finished: all {counts.total} volumes done.{gone}", detail=_job_detail(campaign), tone="ok")
    if campaign.phase == PARTIALLY_FAILED:
        return Sentence(
            f"Finished with problems: {counts.done} of {counts.total} volumes done, {counts.failed} failed for good. "
            f"Nothing will run those again in this campaign: fix their causes and add them to a new campaign.{gone}",
            detail=_job_detail(campaign),
            tone="bad",
        )
    if campaign.phase == FAILED:
        why = "see the problems below"
        if not campaign.failures and campaign.job_message:
            why = f"Kubernetes ended the Job with: {bounded(campaign.job_message, QUOTE_LIMIT)}"
        return Sentence(
            f"Failed: the campaign stopped with {counts.done} of {counts.total} volumes done. Nothing will run the "
            f"rest in this campaign: fix the cause ({why}) and add the volumes to a new campaign.{gone}",
            detail=_job_detail(campaign),
            tone="bad",
        )
    if campaign.phase in (QUEUED, PAUSED):
        prefix = "Queued" if campaign.phase == QUEUED else f"Paused after {counts.done} of {counts.total} volumes"
        if campaign.queue is not None and campaign.queue.sentence is not None:
            inner = campaign.queue.sentence
            return Sentence(f"{prefix}. {inner.text}", detail=inner.detail, commands=inner.commands, tone=inner.tone)
        return Sentence(f"{prefix}: waiting for the queue to admit it.", detail=_job_detail(campaign), tone="idle")
    if campaign.job_gone and not campaign.stored_phase:
        return Sentence(
            "There is no Job for this campaign, only its volume list: the Job was removed, or it has not been created "
            "yet (an apply holds a campaign back while another one on the same pipeline still runs any of its "
            "volumes). If it does not appear, an operator should apply the campaigns again.",
            detail=_job_detail(campaign),
            tone="idle",
        )
    if campaign.job_gone:
        return Sentence(
            "Its Job has been removed and the last recorded state was not final, so how it ended is not known. "
            "The run logs of its volumes tell more.",
            detail=_job_detail(campaign),
            tone="idle",
        )
    return Sentence("The state of this campaign is not known.", detail=_job_detail(campaign), tone="idle")


def _job_detail(campaign: Campaign) -> str:
    parts = []
    if campaign.parts:
        parts.append(("Jobs " if len(campaign.parts) > 1 else "Job ") + ", ".join(campaign.parts))
    if campaign.workload_name:
        parts.append(f"Workload {campaign.workload_name}")
    if campaign.queue_name:
        parts.append(f"LocalQueue {campaign.queue_name}")
    if campaign.cluster_queue_name:
        parts.append(f"ClusterQueue {campaign.cluster_queue_name}")
    text = ", ".join(parts)
    if campaign.job_message:
        text += f"; Job condition: {bounded(campaign.job_message)}"
    return text
