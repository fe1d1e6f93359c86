"""What a field of an archive record must be to be stored: text, a count, a list of names.

Each check returns the value as it is stored, or raises RecordError naming the
field, so the record is refused with a reason and nothing of it written. The
archive writes an empty field as `""` or `null`, and a list as `[]` or `null`
(SPEC 2); both read as empty here.
"""

from leaderboards.format.rules import parse_date
from leaderboards.ingest.joins import optional_pwc_slug
from leaderboards.ingest.records import RecordError

# A PositiveIntegerField's largest value on every database.
MAX_COUNT = 2**31 - 1


def _kind(value):
    return type(value).__name__ if value is not None else "null"


def text(record, field, limit=None):
    """The field's text ("" for null); RecordError if not text or past `limit` characters."""
    value = record.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RecordError(field, f"expected text, got {_kind(value)}")
    if limit is not None and len(value) > limit:
        raise RecordError(field, f"longer than {limit:,} characters ({len(value):,})")
    return value


def name(record, field, limit=None):
    """text(), which must not be empty."""
    value = text(record, field, limit)
    if not value.strip():
        raise RecordError(field, "empty: the record names nothing")
    return value


def count(record, field):
    """A count (an integer from 0), or None where the record gives none."""
    value = record.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise RecordError(field, f"expected a count, got {value!r}")
    return value


def date(record, field):
    """A YYYY-MM-DD date, or None where the record gives none."""
    value = record.get(field)
    if value is None or value == "":
        return None
    try:
        return parse_date(value)
    except ValueError:
        raise RecordError(field, f"expected a date YYYY-MM-DD, got {value!r}") from None


def items(record, field, kind=dict):
    """The field's list ([] for null), each item of `kind`; RecordError naming the bad one."""
    value = record.get(field)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError(field, f"expected a list, got {_kind(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, kind):
            expected = "an object" if kind is dict else "text"
            raise RecordError(f"{field}[{index}]", f"expected {expected}, got {_kind(item)}")
    return value


def names(record, field, limit):
    """A list of names, each once, in order; empty ones left out, a too long one refused."""
    found = []
    for index, item in enumerate(items(record, field, str)):
        if len(item) > limit:
            raise RecordError(f"{field}[{index}]", f"longer than {limit:,} characters")
        if item.strip() and item not in found:
            found.append(item)
    return found


def introducing_paper(record):
    """(PwC slug or None, title, url) of the record's `paper`: {title, url} or null.

    The slug joins the paper here when it is a PwC paper URL; its title and
    URL are kept beside for a paper this site does not hold.
    """
    paper = record.get("paper")
    if paper is None:
        return None, "", ""
    if not isinstance(paper, dict):
        raise RecordError("paper", f"expected an object or null, got {_kind(paper)}")
    try:
        title, url = text(paper, "title"), text(paper, "url")
    except RecordError as error:
        raise RecordError(f"paper.{error.field}", error.reason) from None
    return optional_pwc_slug(url, "paper"), title, url
