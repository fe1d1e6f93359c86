import datetime
from urllib.parse import urlsplit

from django import template
from django.utils.dateformat import format as format_date
from django.utils.html import format_html

from leaderboards.format import rules

register = template.Library()


@register.filter
def http_url(value):
    """The URL if it is http(s) with a host, else "": data decides no other scheme."""
    if not value or not isinstance(value, str):
        return ""
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return ""
    if parts.scheme.lower() in ("http", "https") and parts.netloc:
        return value.strip()
    return ""


@register.simple_tag
def paper_name(title, url, slug=""):
    """A row's paper as readers know it: its title, else its arXiv id or URL, else the slug."""
    return rules.paper_name(title, url) or slug


@register.simple_tag
def human_date(value, empty="—"):
    """A date as visitors read it ("12 Mar 2021"), a time with its minute in UTC;
    the machine value stays in <time datetime>. `empty` stands in for None."""
    if value is None:
        return empty
    if isinstance(value, datetime.datetime):
        moment = value.astimezone(datetime.UTC)
        shown = format_date(moment, "j M Y, H:i") + " UTC"
        return format_html('<time datetime="{}">{}</time>', moment.isoformat(), shown)
    return format_html(
        '<time datetime="{}">{}</time>', value.isoformat(), format_date(value, "j M Y")
    )
