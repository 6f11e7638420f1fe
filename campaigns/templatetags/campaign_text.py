"""Template filters for campaign sentences."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()


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
