from urllib.parse import urlsplit

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from leaderboards.format import rules
from leaderboards.web import words

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


@register.filter
def as_time(value):
    """A date or timestamp as `<time datetime="machine value">human form</time>`.

    Anything else (a value the file wrote that is not a date) is shown as written.
    """
    both = words.when(value)
    if both is None:
        return "" if value is None else value
    machine, human = both
    # format_html() written out: a results page has one of these per row, and
    # its general machinery cost three times the rest of the work.
    return mark_safe(f'<time datetime="{escape(machine)}">{escape(human)}</time>')  # noqa: S308


@register.filter
def plain(text):
    """A file's prose with its field names in visitors' words (words.plain)."""
    return words.plain(text)


@register.filter
def field_label(name):
    return words.field_label(name)


@register.filter
def without_echo(note, label):
    return words.without_echo(note, label)


@register.simple_tag
def page_window(page_obj):
    """The page numbers to link around the current page: ints, None for a gap.

    Two each side of the current page and the first and last, so a 10-page list
    reads 1 … 4 5 [6] 7 8 … 10 and stays one line on a phone.
    """
    paginator = page_obj.paginator
    return [
        None if number == paginator.ELLIPSIS else number
        for number in paginator.get_elided_page_range(page_obj.number, on_each_side=2, on_ends=1)
    ]


@register.simple_tag
def human_date(value, empty="—"):
    """as_time() for templates that show `empty` where there is no date."""
    return empty if value is None else as_time(value)
