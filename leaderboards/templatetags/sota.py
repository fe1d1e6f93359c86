from urllib.parse import urlsplit

from django import template

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
