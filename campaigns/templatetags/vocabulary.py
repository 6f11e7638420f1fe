"""Words for the fixed keys that pages show: campaign phases, volume states, quality bands, page statuses and
warm-up states. The keys stay what they are (CSS classes, filters and the read API use them); a page says
them in the reader's language: ``{% load vocabulary %}{{ c.phase|phase_word }}``, or as a value for a
sentence, ``{% blocktranslate with band=q.band|band_word %}``. A key not listed here is shown as it is.

The words are looked up when a page is rendered (lazy tables), never when this module is imported.
"""

from django import template
from django.utils.translation import pgettext, pgettext_lazy

from campaigns.models import FAILED, PARTIALLY_FAILED, PAUSED, QUEUED, RUNNING, SUCCEEDED, UNKNOWN

register = template.Library()

_PHASES = {
    RUNNING: pgettext_lazy("campaign phase", "Running"),
    SUCCEEDED: pgettext_lazy("campaign phase", "Succeeded"),
    PARTIALLY_FAILED: pgettext_lazy("campaign phase", "Partially failed"),
    FAILED: pgettext_lazy("campaign phase", "Failed"),
    QUEUED: pgettext_lazy("campaign phase", "Queued"),
    PAUSED: pgettext_lazy("campaign phase", "Paused"),
    UNKNOWN: pgettext_lazy("campaign phase", "Unknown"),
}

_VOLUME_STATES = {
    "done": pgettext_lazy("volume state", "done"),
    "failed": pgettext_lazy("volume state", "failed"),
    "active": pgettext_lazy("volume state", "active"),
    "pending": pgettext_lazy("volume state", "pending"),
    "unknown": pgettext_lazy("volume state", "unknown"),
}

_BANDS = {
    "low": pgettext_lazy("predicted quality band", "low"),
    "fair": pgettext_lazy("predicted quality band", "fair"),
    "good": pgettext_lazy("predicted quality band", "good"),
}

_PAGE_STATUSES = {
    "ok": pgettext_lazy("page status in a run's record", "ok"),
    "failed": pgettext_lazy("page status in a run's record", "failed"),
    "skipped": pgettext_lazy("page status in a run's record", "skipped"),
    "unknown": pgettext_lazy("page status in a run's record", "unknown"),
}

# The warm-up chip on a card: the whole words, so a translator can order them.
_WARMUP_CHIPS = {
    "pending": pgettext_lazy("warm-up chip", "Warm-up pending"),
    "running": pgettext_lazy("warm-up chip", "Warm-up running"),
    "failed": pgettext_lazy("warm-up chip", "Warm-up failed"),
    "missing": pgettext_lazy("warm-up chip", "Warm-up missing"),
    "succeeded": pgettext_lazy("warm-up chip", "Warm-up succeeded"),
    "marker_missing": pgettext_lazy("warm-up chip", "Warm-up marker missing"),
}


def _said(table: dict, key) -> str:
    word = table.get(key)
    return str(word) if word is not None else str(key)


@register.filter
def phase_word(phase) -> str:
    """A campaign's phase ("Running", "Partially failed") in the reader's language."""
    return _said(_PHASES, phase)


@register.filter
def volume_state_word(state) -> str:
    """A volume's state ("done", "failed", "active", "pending") in the reader's language."""
    return _said(_VOLUME_STATES, state)


@register.filter
def band_word(band) -> str:
    """A predicted quality band ("low", "fair", "good") in the reader's language."""
    return _said(_BANDS, band)


@register.filter
def page_status_word(status) -> str:
    """A page's status in a volume's record ("ok", "failed", "skipped") in the reader's language."""
    return _said(_PAGE_STATUSES, status)


@register.filter
def warmup_chip(warmup) -> str:
    """The warm-up chip's words: "Warm-up failed", "Warm-up marker missing"."""
    key = "marker_missing" if getattr(warmup, "marker_missing", False) else getattr(warmup, "state", "")
    if key in _WARMUP_CHIPS:
        return str(_WARMUP_CHIPS[key])
    # Translators: a warm-up state this site has no words for, shown as the cluster names it.
    return pgettext("warm-up chip", "Warm-up {state}").format(state=key)
