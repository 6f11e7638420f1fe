"""Predicted quality in words: what a score means, its bands, and which volumes a figure covers.

Said when a page is rendered (the ``campaign_text`` template filters); ``campaigns.domain.quality`` holds
only the figures.
"""

from __future__ import annotations

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.quality import target_words  # noqa: F401 - what each target means is the contract's


def bands_sentence(low_below: float, fair_below: float) -> str:
    """The words beside each score, so a score never speaks through colour alone (``0.60``, Swedish ``0,60``)."""
    # Translators: {low} and {fair} are scores between 0 and 1 (0.60, 0.80).
    return _("Below {low} is low and worth a person's check, below {fair} fair, higher good.").format(
        low=_score(low_below), fair=_score(fair_below)
    )


def _score(value: float) -> str:
    """Two decimals in the reader's language, rounded first (Django's number_format cuts)."""
    return number_format(round(value, 2), 2)


def uncounted_words(counted: int, eligible: int, forbidden: int) -> str:
    """Why some volumes are not in a figure: "your account may not read 2 and 3 not read yet"."""
    unread = eligible - counted - forbidden
    if forbidden and unread:
        # Translators: the end of a sentence saying why some volumes are not counted: {forbidden} volumes the
        # reader's account may not read, {unread} not read yet.
        return _("your account may not read {forbidden} and {unread} not read yet").format(
            forbidden=forbidden, unread=unread
        )
    if forbidden:
        # Translators: the end of a sentence saying why some volumes are not counted: {forbidden} volumes the
        # reader's account may not read.
        return _("your account may not read {forbidden}").format(forbidden=forbidden)
    if unread:
        # Translators: the end of a sentence saying why some volumes are not counted: {unread} volumes not read yet.
        return _("{unread} not read yet").format(unread=unread)
    return ""


def coverage_sentence(counted: int, eligible: int, forbidden: int) -> str:
    """Which volumes a campaign's quality figures cover, in words ("" when all of them)."""
    if counted == eligible:
        return ""
    return ngettext(
        # Translators: {counted} of {count} volumes read; {uncounted} says why the others are not ("your account may
        # not read 1 and 2 not read yet").
        "From the {counted} of {count} volume read so far; {uncounted}.",
        "From the {counted} of {count} volumes read so far; {uncounted}.",
        eligible,
    ).format(counted=counted, count=eligible, uncounted=uncounted_words(counted, eligible, forbidden))
