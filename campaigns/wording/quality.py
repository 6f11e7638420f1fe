"""Predicted quality in words: what a score means, its bands, and which volumes a figure covers.

Said when a page is rendered (the ``campaign_text`` template filters); ``campaigns.domain.quality`` holds
only the figures.
"""

from __future__ import annotations

from core.quality import target_words  # noqa: F401 - what each target means is the contract's


def bands_sentence(low_below: float, fair_below: float) -> str:
    """The words beside each score, so a score never speaks through colour alone."""
    return f"Below {low_below:.2f} is low and worth a person's check, below {fair_below:.2f} fair, higher good."


def uncounted_words(counted: int, eligible: int, forbidden: int) -> str:
    """Why some volumes are not in a figure: "your account may not read 2 and 3 not read yet"."""
    missing = []
    if forbidden:
        missing.append(f"your account may not read {forbidden}")
    unread = eligible - counted - forbidden
    if unread:
        missing.append(f"{unread} not read yet")
    return " and ".join(missing)


def coverage_sentence(counted: int, eligible: int, forbidden: int) -> str:
    """Which volumes a campaign's quality figures cover, in words ("" when all of them)."""
    if counted == eligible:
        return ""
    return f"From the {counted} of {eligible} volumes read so far; {uncounted_words(counted, eligible, forbidden)}."
