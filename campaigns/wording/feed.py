"""The campaign feed's words: its title, and each entry's title and sentence. Pure."""

from __future__ import annotations

from campaigns.models import Campaign, Sentence
from campaigns.wording.volumes import volume_sentence
from campaigns.wording.words import as_sentence, campaign_label, plural

FEED_TITLE = "Campaigns that need attention or finished"
FEED_SUBTITLE = (
    "One entry each time a campaign you may see newly needs attention (with why) or finishes (with how it "
    "ended). Open an entry to see the campaign."
)
KIND_LABELS = {"attention": "Needs attention", "finished": "Finished"}


def attention_title(campaign: Campaign) -> str:
    return f"{campaign_label(campaign.name)} needs attention"


def finished_title(campaign: Campaign) -> str:
    return f"{campaign_label(campaign.name)} finished: {campaign.phase.lower()}"


def failed_volumes_why(campaign: Campaign) -> str:
    """Why a campaign with failed volumes needs attention: how many, and the first one's sentence."""
    failed = campaign.counts.failed or sum(1 for v in campaign.failures if v.state == "failed")
    first = next((v for v in campaign.failures if v.state == "failed"), None)
    text = f"{plural(failed, 'volume')} failed."
    said = volume_sentence(first).text if first is not None else ""
    if said:
        text += f" {first.id}: {as_sentence(said)}"
    return text


def sentence_or(sentence: Sentence | None, fallback: str) -> str:
    return as_sentence(sentence.text) if sentence is not None and sentence.text else fallback


SOMETHING = "Something about it needs a look; its page says what."


def outcome(campaign: Campaign, line: str = "") -> str:
    """How a finished campaign ended: the list line's own sentence when it has one (it says the outcome
    and what to do), else its phase and counts."""
    if line:
        return as_sentence(line)
    counts = campaign.counts
    text = f"{campaign.phase}: {counts.done} of {plural(counts.total, 'volume')} done"
    return text + (f", {counts.failed} failed." if counts.failed else ".")
