"""``{% feed_link %}``: the ``<link rel="alternate">`` that lets a browser or feed reader find the person's feed
on the pages the feed covers (the list and campaign pages)."""

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext as _

from campaigns.web.feed_views import discovery_address

register = template.Library()


@register.simple_tag(takes_context=True)
def feed_link(context) -> str:
    request = context.get("request")
    address = discovery_address(request) if request is not None else ""
    if not address:
        return ""
    title = _("Your campaigns (Atom feed)")
    return format_html('<link rel="alternate" type="application/atom+xml" title="{}" href="{}">', title, address)
