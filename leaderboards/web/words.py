"""Visitors' words for what the page files say in fields' names, and dates as people write them.

A page file's notes and claims are prose written beside its data, and they name
the data's fields (`n_pointer_only_licence counts samples ...`). The page shows
that prose with each known field name put as a visitor would say it; the exact
text stays in a tooltip and in the JSON export.
"""

import datetime
import re

from django.utils import dateformat
from django.utils.html import escape
from django.utils.safestring import mark_safe

from leaderboards.format.rules import MONTH_PATTERN

# Months as dates read on the pages ("12 Mar 2021") and the chart's axis: the
# site is in English only (USE_I18N is off).
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# Field names as the page says them, wherever a file's prose names them.
FIELD_WORDS = {
    "n_pointer_only_licence": "the pointer-only count",
    "n_ran": "the number that ran",
    "n_unverified": "the number unverified",
    "n_samples": "the number of samples",
    "samples_over_distinct_papers": "the per-paper totals",
    "samples_row_weighted": "the per-row totals",
    "rows_with_graph_line": "the rows Syntology checked",
    "rows_with_any_sample_ran": "the rows with a code sample that ran",
    "rows_end_at": "the date the archive's rows end",
    "wilson95_lower": "the Wilson lower bound",
    "syntology blocks": "verification figures",
    # In a direction note: what the file wrote as null, the page shows as "direction unknown".
    "null": "unknown",
}

_FIELDS = re.compile(r"\b(" + "|".join(map(re.escape, FIELD_WORDS)) + r")\b")
_SENTENCE_END = re.compile(r"(?:^|[.!?]\s+)$")


def counted(count, one, many):
    """ "1 row", "2 rows", "1,496 rows": a count with its noun agreeing, as people read it."""
    return f"{count:,} {one if count == 1 else many}"


def already(count):
    """What an editor's action left as it was: "1 already was.", "3 already were."."""
    return f"{count:,} already {'was' if count == 1 else 'were'}."


def plain(text):
    """`text` with every known field name in visitors' words; other text untouched."""
    if not isinstance(text, str):
        return text

    def words_for(match):
        said = FIELD_WORDS[match.group(1)]
        starts_sentence = _SENTENCE_END.search(text[: match.start()]) is not None
        return said[:1].upper() + said[1:] if starts_sentence else said

    return _FIELDS.sub(words_for, text)


def field_label(name):
    """A column named by a field ("paper_date") as a heading reads ("Paper date")."""
    if not isinstance(name, str):
        return name
    spaced = name.replace("_", " ").strip()
    return spaced[:1].upper() + spaced[1:]


def without_echo(note, *labels):
    """A note without a leading "label:" that repeats the label the page puts before it.

    The seed's per-row note starts "row-weighted: ...", under a label that says so already.
    """
    if not isinstance(note, str):
        return note
    stripped = note.lstrip()
    for label in labels:
        head = f"{label}:"
        if stripped[: len(head)].casefold() == head.casefold():
            rest = stripped[len(head) :].lstrip()
            return rest[:1].upper() + rest[1:]
    return note


def when(value):
    """(machine value, human form) of a date or timestamp, or None when it is neither.

    A date reads "12 Mar 2021"; a timestamp "25 Sep 2026, 09:33 UTC", in UTC
    whatever zone it was written in. Strings are read as ISO 8601, the page
    format's only way of writing them; the machine value is then the string
    itself, so the page's `<time datetime>` is exactly what the file says.
    """
    machine = value
    written = isinstance(value, str)
    if written:
        try:
            value = (
                datetime.date.fromisoformat(value)
                if len(value) == 10
                else datetime.datetime.fromisoformat(value)
            )
        except ValueError:
            return None
    elif isinstance(value, datetime.date):
        machine = value.isoformat()
    else:
        return None
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            return machine, dateformat.format(value, "j M Y, H:i")
        try:
            value = value.astimezone(datetime.UTC)
        except OverflowError:
            # Year 1 or 9999 with an offset that crosses the range's end: no
            # moment Python can hold, so the text is shown as it was written.
            return None
        if not written:
            # A stored moment, not a file's string: machine and human forms both in UTC.
            machine = value.isoformat()
        return machine, dateformat.format(value, "j M Y, H:i") + " UTC"
    # dateformat's "j M Y", written out: a results page formats a date per row,
    # and dateformat's general machinery cost more than the rest of the row.
    return machine, f"{value.day} {MONTHS[value.month - 1]} {value.year:04d}"


def month_words(value):
    """ "Oct 2025" for a month written "2025-10", "" for anything else."""
    if not isinstance(value, str) or not MONTH_PATTERN.match(value):
        return ""
    year, month = value.split("-")
    return f"{MONTHS[int(month) - 1]} {year}"


def as_time(value):
    """A date or timestamp as `<time datetime="machine value">human form</time>`.

    Anything else (a value the file wrote that is not a date) is shown as written.
    """
    both = when(value)
    if both is None:
        return "" if value is None else value
    machine, human = both
    # format_html() written out: a results page has one of these per row, and
    # its general machinery cost three times the rest of the work.
    return mark_safe(f'<time datetime="{escape(machine)}">{escape(human)}</time>')  # noqa: S308
