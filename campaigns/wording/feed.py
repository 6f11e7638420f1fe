"""The campaign feed's words: its title, and each entry's title and sentence. Pure."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy

from campaigns.models import FAILED, PARTIALLY_FAILED, SUCCEEDED, Campaign, Sentence
from campaigns.wording.volumes import volume_sentence
from campaigns.wording.words import as_sentence, campaign_label

# Lazy: said in the language of the feed's reader when the feed is written.
FEED_TITLE = gettext_lazy("Campaigns that need attention or finished")
FEED_SUBTITLE = gettext_lazy(
    "One entry each time a campaign you may see newly needs attention (with why) or finishes (with how it "
    "ended). Open an entry to see the campaign."
)
KIND_LABELS = {
    "attention": pgettext_lazy("a feed entry's kind", "Needs attention"),
    "finished": pgettext_lazy("a feed entry's kind", "Finished"),
}
SOMETHING = gettext_lazy("Something about it needs a look; its page says what.")

# How a finished campaign ended, after "finished:" in its entry's title.
_ENDINGS = {
    SUCCEEDED: pgettext_lazy("how a campaign ended, in a feed entry's title", "succeeded"),
    PARTIALLY_FAILED: pgettext_lazy("how a campaign ended, in a feed entry's title", "partially failed"),
    FAILED: pgettext_lazy("how a campaign ended, in a feed entry's title", "failed"),
}
# A campaign's phase at the head of a finished entry's summary ("Succeeded: 40 of 40 volumes done.").
_PHASES = {
    SUCCEEDED: pgettext_lazy("campaign phase", "Succeeded"),
    PARTIALLY_FAILED: pgettext_lazy("campaign phase", "Partially failed"),
    FAILED: pgettext_lazy("campaign phase", "Failed"),
}


def attention_title(campaign: Campaign) -> str:
    # Translators: a feed entry's title; {campaign} is the campaign's name.
    return _("{campaign} needs attention").format(campaign=campaign_label(campaign.name))


def finished_title(campaign: Campaign) -> str:
    # Translators: a feed entry's title; {campaign} is the campaign's name, {ending} how it ended ("succeeded").
    return _("{campaign} finished: {ending}").format(
        campaign=campaign_label(campaign.name), ending=_ENDINGS.get(campaign.phase, campaign.phase.lower())
    )


def failed_volumes_why(campaign: Campaign) -> str:
    """Why a campaign with failed volumes needs attention: how many, and the first one's sentence."""
    failed = campaign.counts.failed or sum(1 for v in campaign.failures if v.state == "failed")
    first = next((v for v in campaign.failures if v.state == "failed"), None)
    text = ngettext("{count} volume failed.", "{count} volumes failed.", failed).format(count=failed)
    said = volume_sentence(first).text if first is not None else ""
    if not said:
        return text
    # Translators: {volume} is a volume's id (C0074519); {sentence} what happened to it.
    first_said = pgettext("a volume's id, then what happened to it", "{volume}: {sentence}").format(
        volume=first.id, sentence=as_sentence(said)
    )
    return " ".join((text, first_said))


def sentence_or(sentence: Sentence | None, fallback: str) -> str:
    return as_sentence(sentence.text) if sentence is not None and sentence.text else str(fallback)


def outcome(campaign: Campaign, line: str = "") -> str:
    """How a finished campaign ended: the list line's own sentence when it has one (it says the outcome
    and what to do), else its phase and counts."""
    if line:
        return as_sentence(line)
    counts = campaign.counts
    phase = _PHASES.get(campaign.phase, campaign.phase)
    if counts.failed:
        said = ngettext(
            # Translators: {phase} is how the campaign ended (Partially failed); {done} of {total} volumes done and
            # {failed} failed.
            "{phase}: {done} of {total} volume done, {failed} failed.",
            "{phase}: {done} of {total} volumes done, {failed} failed.",
            counts.total,
        )
    else:
        said = ngettext(
            # Translators: {phase} is how the campaign ended (Succeeded); {done} of {total} volumes done.
            "{phase}: {done} of {total} volume done.",
            "{phase}: {done} of {total} volumes done.",
            counts.total,
        )
    return said.format(phase=phase, done=counts.done, total=counts.total, failed=counts.failed)
