from django import template

from leaderboards.format import rules
from leaderboards.web import markup, words

register = template.Library()


# The one rule of which URLs from data are linked (format.rules).
register.filter("http_url", rules.http_url)

# Text from the public, rendered through the one sanitiser (web.markup).
register.filter("markdown", markup.markdown_html, is_safe=True)
register.filter("abstract", markup.abstract_html, is_safe=True)


@register.simple_tag
def paper_name(title, url, slug=""):
    """A row's paper as readers know it: its title, else its arXiv id or URL, else the slug."""
    return rules.paper_name(title, url) or slug


register.filter("as_time", words.as_time)


@register.filter
def pairs(mapping):
    """A dict's (key, value) pairs: `.items` in a template would look up a key "items" first,
    and a metric may be named anything."""
    return list(mapping.items()) if isinstance(mapping, dict) else []


@register.filter
def thousands(number):
    """A count as people read it: 1,496,839, not 1496839. Text only, never in an address."""
    if isinstance(number, bool) or not isinstance(number, int):
        return number
    return f"{number:,}"


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
    return empty if value is None else words.as_time(value)
