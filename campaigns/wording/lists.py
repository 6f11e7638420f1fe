"""The campaign list's words: its filter labels, the campaign page's state choices, and what the
page's live region says when a poll brings news."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from campaigns.models import Campaign
from campaigns.wording.pace import stall_short
from campaigns.wording.states import campaign_sentence

# Lazy: said in the reader's language when a page is rendered.
ALL_CAMPAIGNS = pgettext_lazy("the campaign list's filter", "All")
NEED_ATTENTION = pgettext_lazy("the campaign list's filter", "Need attention")
ALL_VOLUME_STATES = pgettext_lazy("a campaign page's filter of volume states", "All states")
NEW_ROWS_NOTICE = gettext_lazy("New campaigns were added at the end of the list.")
ANNOUNCED_MOST = 5  # campaigns named one by one in an announcement; the rest are counted

# A volume state as a choice of the campaign page's filter; a state not listed is shown capitalised.
_STATE_CHOICES = {
    "done": pgettext_lazy("a campaign page's filter of volume states", "Done"),
    "failed": pgettext_lazy("a campaign page's filter of volume states", "Failed"),
    "active": pgettext_lazy("a campaign page's filter of volume states", "Active"),
    "pending": pgettext_lazy("a campaign page's filter of volume states", "Pending"),
    "unknown": pgettext_lazy("a campaign page's filter of volume states", "Unknown"),
}


def volume_state_choices(states: tuple[str, ...]) -> list[tuple[str, str]]:
    """The campaign page's filter: (value, label) for all states, then each state."""
    return [("", str(ALL_VOLUME_STATES))] + [
        (state, str(_STATE_CHOICES.get(state, state.capitalize()))) for state in states
    ]


def attention_announcement(campaigns: list[Campaign]) -> str:
    """One sentence per campaign that newly needs attention, for the page's live region."""
    sentences = []
    for campaign in campaigns[:ANNOUNCED_MOST]:
        failed = campaign.counts.failed
        if failed:
            why = ngettext("{count} volume failed", "{count} volumes failed", failed).format(count=failed)
        elif campaign.stalled:
            why = stall_short(campaign.pace)
        else:
            why = campaign_sentence(campaign).text.rstrip(".") or _("something needs a look")
        # Translators: {campaign} is a campaign's name; {why} says why it needs attention ("1 volume failed").
        sentences.append(_("{campaign} now needs attention: {why}.").format(campaign=campaign.name, why=why))
    if len(campaigns) > ANNOUNCED_MOST:
        more = len(campaigns) - ANNOUNCED_MOST
        sentences.append(
            ngettext(
                "{count} more campaign now needs attention.", "{count} more campaigns now need attention.", more
            ).format(count=more)
        )
    return " ".join(sentences)
