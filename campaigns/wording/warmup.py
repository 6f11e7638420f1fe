"""The model-cache warm-up chip: each warm-up state in words, with what to look at."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.models import Campaign, Sentence, Warmup, bounded
from campaigns.wording.findings import finding_sentence
from campaigns.wording.pace import duration
from campaigns.wording.reasons import DEFAULT_WARMUP_WAIT_SECONDS
from campaigns.wording.words import QUOTE_LIMIT, trimmed_message
from core.kubectl import job_pods, kubectl

# kubectl lines as the words after ``kubectl [-n <namespace>]``, templates over the warm-up Job.
_LOOK = (("get", "job", "{job}"), ("logs", "job/{job}", "--tail=50"))

# States that say the same whatever the warm-up's message: text, kubectl lines, tone (templates over the
# pipeline, the warm-up Job and how long volumes wait; the sentences said in the reader's language when worded).
_STATE_WORDS = {
    # Translators: {pipeline} is a pipeline's name (swe-lines-v3), or "this pipeline".
    "succeeded": (gettext_lazy("The model cache for {pipeline} is ready."), (), "ok"),
    "running": (
        # Translators: {pipeline} is a pipeline's name (swe-lines-v3), or "this pipeline".
        gettext_lazy("The model cache for {pipeline} is being filled. Volumes wait for it and start by themselves."),
        _LOOK,
        "info",
    ),
    "pending": (
        gettext_lazy(
            # Translators: {pipeline} is a pipeline's name (swe-lines-v3); {wait} how long volumes wait (1 h).
            "The model cache warm-up for {pipeline} has not started yet. Volumes wait for it (up to {wait}) and "
            "start by themselves once it is done; if it does not start, an operator should look at the warm-up Job."
        ),
        (("describe", "job", "{job}"),),
        "idle",
    ),
    "missing": (
        gettext_lazy(
            # Translators: {pipeline} is a pipeline's name (swe-lines-v3); {wait} how long volumes wait (1 h); {job}
            # the warm-up Job's name.
            "There is no model cache warm-up for {pipeline}. If its cache was not filled before, its volumes wait "
            "for a marker nobody writes and give up after {wait}. Applying the campaigns again creates the warm-up "
            "Job {job}."
        ),
        (("get", "jobs", "-l", "app=htrflow-warmup"),),
        "warn",
    ),
}
# Translators: {pipeline} is a pipeline's name (swe-lines-v3), or "this pipeline".
_UNKNOWN_STATE = (gettext_lazy("The state of the model cache for {pipeline} is not known."), (), "idle")


WARMUP_WAITING = "warmup.waiting"  # said on the card's note of waiting volumes, not on the chip


def campaign_warmup_sentence(campaign: Campaign) -> Sentence | None:
    """The warm-up chip's sentence of a campaign (None: it has no warm-up), with its own wait limit."""
    if campaign.warmup is None:
        return None
    found = next((f for f in campaign.findings if f.area in ("warmup", "cache") and f.code != WARMUP_WAITING), None)
    if (campaign.warmup.marker_missing or campaign.warmup.state == "failed") and found is not None:
        return finding_sentence(found)
    return warmup_sentence(campaign.warmup, campaign.namespace, campaign.warmup_wait_seconds)


def warmup_sentence(warmup: Warmup, namespace: str = "", wait_seconds: int = DEFAULT_WARMUP_WAIT_SECONDS) -> Sentence:
    """The warm-up chip's sentence for each warm-up state; ``wait_seconds`` is how long the campaign's pods
    wait for the marker (`Campaign.warmup_wait_seconds`, from its Job)."""
    names = {
        "wait": duration(wait_seconds, up=False),
        "pipeline": warmup.pipeline or _("this pipeline"),
        "job": warmup.job_name or f"htr-warmup-{warmup.pipeline}",
        "namespace": namespace,
    }
    detail = _detail(warmup, names["job"])
    if warmup.state == "succeeded" and warmup.marker_missing:
        return _marker_missing(warmup, names, detail)
    if warmup.state == "failed":
        return _failed(warmup, names, detail)
    text, commands, tone = _STATE_WORDS.get(warmup.state, _UNKNOWN_STATE)
    return Sentence(
        str(text).format_map(names),
        detail=detail,
        commands=_commands(commands, names),
        tone=tone,
    )


def _detail(warmup: Warmup, job: str) -> str:
    """The operator's detail: names and paths as they are, the words before them in the reader's language."""
    # Translators: {job} is the warm-up Job's name (htr-warmup-swe-lines-v3).
    parts = [_("warm-up Job {job}").format(job=job)]
    if warmup.recipe_sha256:
        # Translators: {sha256} is the recipe's SHA-256 checksum.
        parts.append(_("recipe sha256 {sha256}").format(sha256=warmup.recipe_sha256))
    if warmup.cache_dir:
        parts.append(_("cache directory {path}").format(path=warmup.cache_dir))
    if warmup.marker_path:
        # Translators: {path} is the path of the file the warm-up writes when the cache is filled.
        parts.append(_("marker {path}").format(path=warmup.marker_path))
    return ", ".join(parts)


def _commands(templates, names: dict[str, str]) -> tuple[str, ...]:
    namespace = names["namespace"]
    return tuple(kubectl(*(word.format_map(names) for word in words), namespace=namespace) for words in templates)


def _look(names: dict[str, str]) -> tuple[str, ...]:
    return _commands(_LOOK, names)


def _marker_missing(warmup: Warmup, names: dict[str, str], detail: str) -> Sentence:
    job, namespace = names["job"], names["namespace"]
    text = _(
        # Translators: {pipeline} is a pipeline's name (swe-lines-v3); {marker} the marker file's path; {job} the
        # warm-up Job's name.
        "The model cache warm-up for {pipeline} finished, yet campaign pods did not find its marker {marker}. Why "
        "could not be checked: the pods that gave up, or the warm-up Job, are no longer there to compare. This does "
        "not fix itself: an operator has to find the cause, delete the finished warm-up Job {job} by hand and apply "
        "again."
    ).format(pipeline=names["pipeline"], marker=warmup.marker_path, job=job)
    return Sentence(
        text,
        detail=detail,
        commands=(*_look(names), kubectl("delete", "job", job, namespace=namespace)),
        tone="bad",
    )


def _failed(warmup: Warmup, names: dict[str, str], detail: str) -> Sentence:
    pipeline, job, namespace = names["pipeline"], names["job"], names["namespace"]
    message = trimmed_message(warmup.message, QUOTE_LIMIT)
    if message:
        # Translators: {pipeline} is a pipeline's name (swe-lines-v3); {message} the warm-up's error, quoted.
        failed = _("The model cache warm-up for {pipeline} failed: {message}.").format(
            pipeline=pipeline, message=message.rstrip(".")
        )
    else:
        # Translators: {pipeline} is a pipeline's name (swe-lines-v3).
        failed = _("The model cache warm-up for {pipeline} failed.").format(pipeline=pipeline)
    # Translators: {wait} is how long a volume waits for the model cache (1 h).
    stuck = _("Volumes of this pipeline cannot start and give up after waiting {wait}.").format(wait=names["wait"])
    if warmup.reason is not None and warmup.reason.permanent is False:
        will = _("The failure may have been temporary; applying again replaces the failed warm-up and retries it.")
    else:
        will = _(
            "This will not fix itself: fix the cause (the warm-up's log says it) "
            "and apply again, which replaces the failed warm-up."
        )
    return Sentence(
        " ".join((failed, stuck, will)),
        detail=f"{detail}: {bounded(warmup.message)}" if warmup.message else detail,
        commands=(
            *_look(names),
            kubectl(
                "get",
                "pods",
                "-l",
                job_pods(job),
                "-o",
                "jsonpath='{.items[*].status.containerStatuses[*].state.terminated.message}'",
                namespace=namespace,
            ),
        ),
        tone="bad",
    )
