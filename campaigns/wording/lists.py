"""The campaign list's words: its filter labels, the campaign page's state choices, and what the
page's live region says when a poll brings news."""

from __future__ import annotations

from campaigns.models import Campaign
from campaigns.wording.pace import stall_short
from campaigns.wording.states import campaign_sentence

ALL_CAMPAIGNS = "All"
NEED_ATTENTION = "Need attention"
ALL_VOLUME_STATES = "All states"
NEW_ROWS_NOTICE = "New campaigns were added at the end of the list."
ANNOUNCED_MOST = 5  # campaigns named one by one in an announcement; the rest are counted


def volume_state_choices(states: tuple[str, ...]) -> list[tuple[str, str]]:
    """The campaign page's filter: (value, label) for all states, then each state."""
    return [("", ALL_VOLUME_STATES)] + [(state, state.capitalize()) for state in states]


def attention_announcement(campaigns: list[Campaign]) -> str:
    """One sentence per campaign that newly needs attention, for the page's live region."""
    sentences = []
    for campaign in campaigns[:ANNOUNCED_MOST]:
        failed = campaign.counts.failed
        why = f"{failed} volume{'s' if failed != 1 else ''} failed" if failed else (
            campaign_sentence(campaign).text.rstrip(".") or "something needs a look"
        )
        if campaign.stalled and not failed:
            why = stall_short(campaign.pace)
        sentences.append(f"{campaign.name} now needs attention: {why}.")
    if len(campaigns) > ANNOUNCED_MOST:
        sentences.append(f"{len(campaigns) - ANNOUNCED_MOST} more campaigns now need attention.")
    return " ".join(sentences)
