"""Template filters for run log lines: the failed pages an error line names link to their ALTO pages."""

from urllib.parse import quote

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from results.formats import runlog

register = template.Library()


def alto_link(alto_base: str, page: str) -> str:
    """The ALTO viewer for page ``page`` of the volume whose ALTO files are under ``alto_base``."""
    return "/alto?src=" + quote(f"{alto_base}{page}.xml", safe="")


@register.filter
def log_message(line: runlog.LogLine, alto_base: str = "") -> str:
    """The line's message (its whole text when it has no time or level), escaped; in an error line each
    failed or missing page becomes a link out of the tab order (the page's "Failed pages" list has them too)."""
    text = line.message if (line.time or line.level) else line.text
    if not alto_base or not line.is_error:
        return escape(text)
    html, position = [], 0
    for start, end, page in runlog.page_mentions(text):
        html.append(escape(text[position:start]))
        href = escape(alto_link(alto_base, page))
        html.append(f'<a class="page-link" tabindex="-1" href="{href}">{escape(page)}</a>')
        position = end
    html.append(escape(text[position:]))
    return mark_safe("".join(html))  # noqa: S308 - built from escaped pieces only
