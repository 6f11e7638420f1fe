"""Template filters for campaign text."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from campaigns.domain.quality import CampaignQuality
from campaigns.wording.quality import bands_sentence, coverage_sentence
from core import text as text_rules
from core.quality import FAIR_BELOW, LOW_BELOW, target_words

register = template.Library()


@register.filter(is_safe=True)
def reveal_invisible(value) -> str:
    """Invisible formatting characters shown as ⟨U+202E⟩ (core.text), so that a volume id like
    "C00\\u202egpj.exe" cannot read as "C00exe.jpg".

    Every template a campaign view renders applies it to all it outputs, ``{% filter reveal_invisible %}``
    around its content (tests/campaigns/presentation/test_invisible.py checks that each one does): names, ids, sentences
    and whatever a template shows later are marked without a filter on each value. Attribute values are
    marked too (a tooltip, a label), but an address has them percent-encoded, so a link or a form field
    still names the same file; it adds no markup, so escaped HTML stays safe; the read API's JSON keeps
    the raw values.
    """
    return text_rules.reveal_invisible_in_html(str(value))


@register.filter
def with_code(text) -> str:
    """A sentence with its `backticked` names (settings, files, commands) shown as code.

    Every piece is escaped first; only the <code> tags added here are markup. An unpaired
    backtick stays as it is.
    """
    pieces = str(text or "").split("`")
    if len(pieces) % 2 == 0:  # an odd number of backticks: the last one has no partner
        pieces[-2:] = [pieces[-2] + "`" + pieces[-1]]
    html = [escape(piece) if i % 2 == 0 else f"<code>{escape(piece)}</code>" for i, piece in enumerate(pieces)]
    return mark_safe("".join(html))  # noqa: S308 - built from escaped pieces only


# A campaign's predicted quality in words (campaigns.wording.quality), made when the page is rendered:
# the domain's CampaignQuality holds only figures.


@register.filter
def quality_meaning(quality: CampaignQuality) -> str:
    """What a score measures, by the pipeline's target."""
    return target_words(quality.target)


@register.filter
def quality_bands(quality: CampaignQuality) -> str:
    """The words beside each score, so a score never speaks through colour alone."""
    return bands_sentence(LOW_BELOW, FAIR_BELOW)


@register.filter
def quality_coverage(quality: CampaignQuality) -> str:
    """Which volumes the figures cover ("" when all of them)."""
    return coverage_sentence(quality.counted, quality.eligible, quality.forbidden)
