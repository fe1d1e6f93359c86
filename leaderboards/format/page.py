"""The page file format (SPEC 1): reading a file and checking it whole.

`read_page` turns bytes into a checked page dict or raises `PageError` naming
the JSON path and what is wrong there; nothing here touches the database.

Every value that passes can be stored and served again: besides the shape
SPEC 1 asks for, `check_values` refuses what a database or Python cannot hold
or re-encode (see the limits below), and any string breaking the character
rule every writer needs (rules.text_problem), wherever in the file it stands.
"""

import datetime
import decimal
import functools
import hashlib
import json
import math
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from django.apps import apps

from leaderboards.format import derive, rules
from leaderboards.format.rules import ROW_COUNTERS

PAGE_KEYS = (
    "url", "task", "dataset", "category", "categories", "category_note",
    "description", "description_from", "source", "metrics", "metric_direction",
    "counts", "rows", "since_archive", "syntology",
)  # fmt: skip
ROW_KEYS = (
    "rank_in_archive_order", "model", "metrics", "uses_additional_data",
    "paper_date", "paper", "paper_url", "paper_title", "code", "n_code_links",
    "syntology",
)  # fmt: skip
KNOWN_DIRECTIONS = ("higher", "lower")

_SLUG = rules.SLUG_PATTERN
_PATHS = {
    "sota": re.compile(rf"/sota/({_SLUG})"),
    "task": re.compile(rf"/task/({_SLUG})"),
    "dataset": re.compile(rf"/dataset/({_SLUG})"),
    "paper": re.compile(rf"/paper/({_SLUG})"),
}
# No real page comes near these; past them a file is broken or hostile.
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_STRING = 100_000
# Verbatim blocks (`source`, `since_archive`) and unknown fields, measured as
# stored (compact JSON): each at most MAX_BLOCK_CHARS, a page's together at
# most MAX_PAGE_BLOCK_CHARS. A page reads a stored block whole, so these, not
# the file limit, bound what one request holds (docs/format.md).
MAX_BLOCK_CHARS = 1_000_000
MAX_PAGE_BLOCK_CHARS = 4_000_000
MAX_INTEGER = 2**31 - 1  # the database's integer columns
# A metric's, a value's and an area link's place is a small integer column.
MAX_NAMES = 2**15 - 1
# Anywhere in a file, verbatim blocks and unknown fields included. A real page
# is 5 levels deep; Python re-encodes a stored block recursively, so a value
# some 1,000 levels deep loads and then fails every page that shows it.
MAX_DEPTH = 64
# Any other integer, kept verbatim: what a 64-bit column or reader can hold.
INTEGER_RANGE = (-(2**63), 2**63 - 1)
# Moments and dates a page may state, checked in UTC. Python's datetime ends at
# years 1 and 9999 and the databases store UTC, so a moment near either end
# (0001-01-01T00:00:00+01:00 is year 0 in UTC) loads and then cannot be read
# back; this range keeps far from both ends and holds any real snapshot or paper.
EARLIEST = datetime.datetime(1900, 1, 1, tzinfo=datetime.UTC)
LATEST = datetime.datetime(9000, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.UTC)

# The column each stored string lands in: its length limit is that column's
# max_length, so each limit has one home, the model.
COLUMNS = {
    "slug": ("Leaderboard", "slug"),
    "task": ("Task", "slug"),
    "dataset": ("Dataset", "slug"),
    "paper": ("Paper", "slug"),
    "task.name": ("Task", "name"),
    "dataset.name": ("Dataset", "name"),
    "area": ("Area", "name"),
    "description_from": ("Leaderboard", "description_from"),
    "metric": ("Metric", "name"),
    "direction": ("Metric", "source_direction"),
    "read_at": ("SyntologySnapshot", "read_at_text"),
}


class PageError(ValueError):
    """A page file that cannot be loaded: where in the JSON, and why."""

    def __init__(self, path, message):
        # One readable line, whatever the file holds: a key or value it echoes
        # may be a megabyte long.
        super().__init__(f"{_short(path, 400)}: {_short(message, 400)}")
        self.path = path
        self.message = message


@functools.cache
def column_limit(column):
    """The max_length of the column a page value of this kind is stored in."""
    model, field = COLUMNS[column]
    return apps.get_model("leaderboards", model)._meta.get_field(field).max_length


def _type_name(value):
    return {
        dict: "an object", list: "a list", str: "a string", bool: "true/false",
        int: "an integer", float: "a number", type(None): "null",
        decimal.Decimal: "a number",
    }.get(type(value), type(value).__name__)  # fmt: skip


def _object(value, path, required, optional=(), extra_ok=False):
    """Check an object's keys; return those this format does not define."""
    if not isinstance(value, dict):
        raise PageError(path, f"expected an object, found {_type_name(value)}")
    for key in required:
        if key not in value:
            raise PageError(path, f"missing field {key!r}")
    unknown = [key for key in value if key not in required and key not in optional]
    if unknown and not extra_ok:
        raise PageError(path, f"unknown field {unknown[0]!r}")
    return unknown


def _string(value, path, nullable=False, non_empty=False, column=None):
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        expected = "a string or null" if nullable else "a string"
        raise PageError(path, f"expected {expected}, found {_type_name(value)}")
    if non_empty and not value.strip():
        raise PageError(path, "must not be empty")
    if len(value) > MAX_STRING:
        raise PageError(path, f"string of {len(value):,} characters is over {MAX_STRING:,}")
    if problem := rules.text_problem(value):
        raise PageError(path, problem)
    if column is not None:
        check_length(value, path, column)
    return value


def check_text(value, path, column=None):
    """A string a text column can hold, checked as a page's text fields are."""
    return _string(value, path, column=column)


def check_length(text, path, column):
    limit = column_limit(column)
    if len(text) > limit:
        model, field = COLUMNS[column]
        raise PageError(
            path, f"{len(text):,} characters, over the {limit} its column ({model}.{field}) holds"
        )


def _integer(value, path, minimum=0):
    # bool is an int in Python; true is no count.
    if isinstance(value, bool) or not isinstance(value, int):
        raise PageError(path, f"expected an integer, found {_type_name(value)}")
    if value < minimum:
        raise PageError(path, f"must be at least {minimum}, found {value}")
    if value > MAX_INTEGER:
        raise PageError(path, f"must be at most {MAX_INTEGER:,}, found {value}")
    return value


def _boolean(value, path):
    if not isinstance(value, bool):
        raise PageError(path, f"expected true or false, found {_type_name(value)}")
    return value


def _site_path(value, path, kind, nullable=False):
    text = _string(value, path, nullable=nullable)
    if text is None:
        return None
    match = _PATHS[kind].fullmatch(text)
    if not match:
        raise PageError(path, f"expected a path like /{kind}/<slug>, found {_short(text)!r}")
    check_length(match.group(1), path, "slug" if kind == "sota" else kind)
    return match.group(1)


def _short(text, limit=80):
    return text if len(text) <= limit else f"{text[:limit]}..."


def parse_date(value, path):
    """A date YYYY-MM-DD in the stated range, or None for null."""
    text = _string(value, path, nullable=True)
    if text is None:
        return None
    try:
        day = rules.parse_date(text)
    except ValueError:
        raise PageError(
            path, f"expected a date YYYY-MM-DD or null, found {_short(text)!r}"
        ) from None
    return check_day(day, path)


def check_day(day, path):
    """A date within the range a page may state (EARLIEST to LATEST), or PageError.

    Editors' dates are held to it too, so what they add loads again.
    """
    if not EARLIEST.date() <= day <= LATEST.date():
        raise PageError(path, f"date {day.isoformat()} is outside {_range_text()}")
    return day


def _range_text():
    return f"{EARLIEST.date()} to {LATEST.date()} (UTC)"


def parse_timestamp(value, path):
    text = _string(value, path, non_empty=True, column="read_at")
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise PageError(path, f"expected an ISO 8601 timestamp, found {text!r}") from None
    if moment.tzinfo is None:
        raise PageError(path, f"timestamp {text!r} has no time zone")
    try:
        in_utc = moment.astimezone(datetime.UTC)
    except OverflowError:
        in_utc = None  # past year 1 or 9999 in UTC: out of range below
    if in_utc is None or not EARLIEST <= in_utc <= LATEST:
        raise PageError(path, f"timestamp {text} is outside {_range_text()}")
    return moment


def version_moment(page):
    """The moment that orders a checked page's versions (docs/format.md), or None.

    A verified page is versioned by `syntology.read_at`; one that no
    verification has read by its archive copy's date, `source.snapshot`, taken
    as midnight UTC. A page with neither has no known moment.
    """
    if page["syntology"] is not None:
        return parse_timestamp(page["syntology"]["read_at"], "syntology.read_at")
    day = parse_date(page["source"].get("snapshot"), "source.snapshot")
    if day is None:
        return None
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)


def _check_row(row, path, metric_names):
    _object(row, path, ROW_KEYS, extra_ok=True)
    _integer(row["rank_in_archive_order"], f"{path}.rank_in_archive_order", minimum=1)
    _string(row["model"], f"{path}.model")
    values = row["metrics"]
    if not isinstance(values, dict):
        raise PageError(f"{path}.metrics", f"expected an object, found {_type_name(values)}")
    for name, value in values.items():
        if name not in metric_names:
            raise PageError(f"{path}.metrics", f"{name!r} is not one of the page's metrics")
        _string(value, f"{path}.metrics.{name}", nullable=True)
    _boolean(row["uses_additional_data"], f"{path}.uses_additional_data")
    parse_date(row["paper_date"], f"{path}.paper_date")
    _site_path(row["paper"], f"{path}.paper", "paper", nullable=True)
    _string(row["paper_url"], f"{path}.paper_url", nullable=True)
    _string(row["paper_title"], f"{path}.paper_title", nullable=True)
    _string(row["code"], f"{path}.code", nullable=True)
    _integer(row["n_code_links"], f"{path}.n_code_links")
    block = row["syntology"]
    if block is not None:
        _object(block, f"{path}.syntology", ROW_COUNTERS)
        for name in ROW_COUNTERS:
            _integer(block[name], f"{path}.syntology.{name}")


def _names(values, path, what, column):
    """A list of distinct, non-empty names; returned as given.

    Seen names are kept in a set: a hostile file's list of a million names is
    checked in one pass, not compared with every name before it.
    """
    if not isinstance(values, list):
        raise PageError(path, f"expected a list, found {_type_name(values)}")
    if len(values) > MAX_NAMES:
        raise PageError(path, f"{len(values):,} names, over the {MAX_NAMES:,} a page may list")
    seen = set()
    for index, name in enumerate(values):
        _string(name, f"{path}[{index}]", non_empty=True, column=column)
        if name in seen:
            raise PageError(f"{path}[{index}]", f"{what} {name!r} is listed twice")
        seen.add(name)
    return values


def _check_metrics(page):
    names = _names(page["metrics"], "metrics", "metric", column="metric")
    known = set(names)
    directions = page["metric_direction"]
    _object(directions, "metric_direction", ("note", "by_metric"))
    _string(directions["note"], "metric_direction.note", nullable=True)
    by_metric = directions["by_metric"]
    if not isinstance(by_metric, dict):
        raise PageError("metric_direction.by_metric", "expected an object")
    if by_metric.keys() != known:
        missing = [name for name in names if name not in by_metric]
        stray = [name for name in by_metric if name not in known]
        what = (
            f"no direction for {missing[0]!r}"
            if missing
            else (f"{stray[0]!r} is not one of the page's metrics")
        )
        raise PageError("metric_direction.by_metric", what)
    warnings = []
    for name, value in by_metric.items():
        _string(value, f"metric_direction.by_metric.{name}", nullable=True, column="direction")
        if value is not None and value not in KNOWN_DIRECTIONS:
            warnings.append(
                f"metric_direction.by_metric.{name}: unknown direction {value!r} "
                "kept as written; the chart treats it as unknown"
            )
    return known, warnings


def _check_syntology(block, rows):
    if block is None:
        # No verification has read the page (docs/format.md): no row can carry counters.
        for index, row in enumerate(rows):
            if row["syntology"] is not None:
                raise PageError(
                    f"rows[{index}].syntology",
                    "the page's syntology is null, so no row's can be set",
                )
        return
    _object(block, "syntology", ("read_at", "claim"), extra_ok=True)
    parse_timestamp(block["read_at"], "syntology.read_at")
    _string(block["claim"], "syntology.claim", nullable=True)
    for name in ("samples_over_distinct_papers", "samples_row_weighted"):
        sums = block.get(name)
        if sums is not None:
            _object(sums, f"syntology.{name}", (), optional=(*ROW_COUNTERS, "note"))
            _string(sums.get("note"), f"syntology.{name}.note", nullable=True)


def _check_since_archive(block):
    if block is None:
        return
    _object(block, "since_archive", ("columns", "entries"), extra_ok=True)
    columns = block["columns"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise PageError("since_archive.columns", "expected a list of column names")
    entries = block["entries"]
    if not isinstance(entries, list):
        raise PageError("since_archive.entries", f"expected a list, found {_type_name(entries)}")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise PageError(f"since_archive.entries[{index}]", "expected an object")
    measurement = block.get("measurement")
    if measurement is not None:
        _object(measurement, "since_archive.measurement", ("judged_true", "judged"), extra_ok=True)
        judged = _integer(measurement["judged"], "since_archive.measurement.judged")
        judged_true = _integer(measurement["judged_true"], "since_archive.measurement.judged_true")
        if judged_true > judged:
            raise PageError(
                "since_archive.measurement.judged_true",
                f"{judged_true} judged true out of {judged} judged",
            )


def check_page(page):
    """Check a parsed page against SPEC 1; return warnings, raise PageError."""
    unknown = _object(page, "(top level)", PAGE_KEYS, extra_ok=True)
    warnings = [f"(top level): unknown field {_short(key)!r} kept as written" for key in unknown]
    _site_path(page["url"], "url", "sota")
    _object(page["task"], "task", ("name", "url", "note"))
    _string(page["task"]["name"], "task.name", non_empty=True, column="task.name")
    _site_path(page["task"]["url"], "task.url", "task")
    _string(page["task"]["note"], "task.note", nullable=True)
    _object(page["dataset"], "dataset", ("name", "url"))
    _string(page["dataset"]["name"], "dataset.name", non_empty=True, column="dataset.name")
    _site_path(page["dataset"]["url"], "dataset.url", "dataset")
    _string(page["category"], "category", nullable=True, column="area")
    _names(page["categories"], "categories", "area", column="area")
    _string(page["category_note"], "category_note", nullable=True)
    _string(page["description"], "description", nullable=True)
    _string(page["description_from"], "description_from", nullable=True, column="description_from")
    _object(page["source"], "source", ("rows_withheld_as_spam",), extra_ok=True)
    _integer(page["source"]["rows_withheld_as_spam"], "source.rows_withheld_as_spam")
    metric_names, direction_warnings = _check_metrics(page)
    warnings += direction_warnings
    if not isinstance(page["counts"], dict):
        raise PageError("counts", f"expected an object, found {_type_name(page['counts'])}")
    rows = page["rows"]
    if not isinstance(rows, list):
        raise PageError("rows", f"expected a list, found {_type_name(rows)}")
    ranks = set()
    for index, row in enumerate(rows):
        _check_row(row, f"rows[{index}]", metric_names)
        rank = row["rank_in_archive_order"]
        if rank in ranks:
            raise PageError(f"rows[{index}].rank_in_archive_order", f"rank {rank} appears twice")
        ranks.add(rank)
    _check_since_archive(page["since_archive"])
    _check_syntology(page["syntology"], rows)
    if page["syntology"] is None and page["since_archive"] is not None:
        # Since-archive results are Syntology's reading too, stored with its snapshot.
        raise PageError("since_archive", "the page's syntology is null, so this must be null too")
    version_moment(page)
    check_block_sizes(page)
    return warnings


def check_block_sizes(page):
    """Refuse a verbatim block or unknown field past its size limit, with its JSON path."""
    total = 0
    for path, value in _verbatim(page):
        size = len(rules.compact_json(value))
        if size > MAX_BLOCK_CHARS:
            raise PageError(
                path,
                f"{size:,} characters as stored, over the {MAX_BLOCK_CHARS:,} "
                "a verbatim block or unknown field may hold",
            )
        total += size
        if total > MAX_PAGE_BLOCK_CHARS:
            raise PageError(
                path,
                f"the page's verbatim blocks and unknown fields reach {total:,} characters "
                f"here, over the {MAX_PAGE_BLOCK_CHARS:,} a page may hold",
            )


def _verbatim(page):
    """(JSON path, value) of each block and unknown field a checked page stores as it came."""
    yield "source", page["source"]
    if page["since_archive"] is not None:
        yield "since_archive", page["since_archive"]
    for key in page:
        if key not in PAGE_KEYS:
            yield json_path((key,)), page[key]
    if page["syntology"] is not None:
        known = {"read_at", "claim", *derive.syntology_figures([])}
        for key in page["syntology"]:
            if key not in known:
                yield json_path(("syntology", key)), page["syntology"][key]
    for index, row in enumerate(page["rows"]):
        # Every row holds every known key (check_page), so only a longer one has others.
        if len(row) > len(ROW_KEYS):
            for key in row:
                if key not in ROW_KEYS:
                    yield json_path(("rows", index, key)), row[key]


def check_size(size):
    if size > MAX_FILE_BYTES:
        raise PageError(
            "(file)", f"{size:,} bytes is over the {MAX_FILE_BYTES:,}-byte limit for a page"
        )


class CheckedPage(NamedTuple):
    """A page file read and checked: the page, the sha256 of its bytes, its warnings."""

    page: dict
    sha256: str
    warnings: list


def read_page(data):
    """Parse and check page bytes: a CheckedPage, or PageError."""
    check_size(len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PageError("(file)", f"not UTF-8 text (byte {error.start})") from None
    try:
        page = _parse(text)
    except json.JSONDecodeError as error:
        raise PageError(
            "(file)", f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise PageError("(file)", f"nested deeper than {MAX_DEPTH} levels") from None
    check_values(page)
    warnings = check_page(page)
    return CheckedPage(page, hashlib.sha256(data).hexdigest(), warnings)


# The character rule's search (rules.UNSTORABLE), bound once: the walk below
# calls it for every string of a file.
_unstorable = rules.UNSTORABLE.search

_NOT_FINITE = "is not a finite number; a page's JSON cannot carry it"


def _parse(text):
    """json.loads, with what Python would read as NaN, infinity or a duplicate key
    left as markers that check_values refuses with their JSON path."""
    hooks: dict[str, Any] = {
        "object_pairs_hook": _pairs,
        "parse_constant": Refused.constant,
        "parse_float": _float,
    }
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError:
        raise
    except ValueError:
        # Only an integer past Python's 4,300-digit conversion limit gets here;
        # read again with a hook for every integer (slower) to find where it is.
        return json.loads(text, **hooks, parse_int=_int)


class Refused:
    """A value refused while parsing, left in its place until the walk knows its path."""

    def __init__(self, reason):
        self.reason = reason

    @classmethod
    def constant(cls, name):
        return cls(f"{name} {_NOT_FINITE}")


def _pairs(pairs):
    # JSON leaves a repeated key's meaning to the reader: Python keeps the last,
    # other readers the first, so the page shown would not be the file's for all.
    found = dict(pairs)
    if len(found) < len(pairs):
        seen = set()
        # set.add returns None, so the test is "seen before", adding it if not.
        key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        return Refused(f"key {_short(key)!r} appears twice in one object")
    return found


def _float(text):
    number = float(text)
    if math.isinf(number):
        return Refused(f"{_short(text, 20)} is beyond the range of a 64-bit float")
    return number


def _int(text):
    # Past 20 digits no integer fits in 64 bits, and past 4,300 Python refuses
    # to convert it at all (a ValueError that named no file).
    if len(text.lstrip("-")) > 20:
        return Refused(f"integer of {len(text.lstrip('-')):,} digits is beyond 64 bits")
    return int(text)


def check_values(page):
    """Refuse any value that cannot be stored and re-encoded, anywhere in a page.

    The walk is iterative, so a deep file cannot exhaust the stack here, and it
    also checks pages a program built (the archive's, with Decimal numbers).
    Only containers wait on the stack and a path is spelled out only for an
    error, so a file of millions of tiny values costs little more than its parse.
    """
    if not isinstance(page, dict | list):
        if problem := _problem(page):
            raise PageError("(top level)", problem)
        return
    stack: list[tuple[tuple, Any]] = [((), page)]
    while stack:
        keys, container = stack.pop()
        if len(keys) >= MAX_DEPTH:
            raise PageError(json_path(keys), f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(container, dict):
            for key in container:
                if type(key) is str and not _unstorable(key):
                    continue  # nearly every key: checked inline, as values are below
                # A bad key is named by its object's path: the key itself may not print.
                if problem := _problem(key):
                    raise PageError(json_path(keys), problem)
            items: Iterable[tuple[Any, Any]] = container.items()
        else:
            items = enumerate(container)
        nested: list[tuple[tuple, Any]] = []
        for key, item in items:
            kind = type(item)
            # The common cases first and inline: this loop runs once per value.
            if kind is dict or kind is list:
                nested.append(((*keys, key), item))
            elif (
                (kind is str and not _unstorable(item))
                or (kind is int and INTEGER_RANGE[0] <= item <= INTEGER_RANGE[1])
                or kind is bool
                or item is None
            ):
                continue
            elif problem := _problem(item):
                raise PageError(json_path((*keys, key)), problem)
        stack.extend(reversed(nested))


def json_path(keys):
    """Keys and list indexes as an error names them: rows[3].metrics.AUROC."""
    path = ""
    for key in keys:
        path += f"[{key}]" if isinstance(key, int) else f".{key}" if path else key
    return path or "(top level)"


def _problem(value):
    """Why a scalar (or key) cannot be stored and re-encoded; None if it can."""
    if isinstance(value, str):
        return rules.text_problem(value)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        if INTEGER_RANGE[0] <= value <= INTEGER_RANGE[1]:
            return None
        # str() of an integer past 4,300 digits is itself an error.
        shown = str(value) if value.bit_length() < 4000 else f"of {value.bit_length():,} bits"
        return f"integer {_short(shown, 30)} is beyond 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} {_NOT_FINITE}"
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return f"{value} {_NOT_FINITE}"
        # The archive's numbers: a page keeps them as text (see ingest.archive),
        # so one that is still a number here has no place to go.
        return f"the number {_short(str(value), 20)} where the page has text"
    if isinstance(value, Refused):
        return value.reason
    return f"{_type_name(value)} is not a JSON value"


def slug_of(site_path):
    """The slug at the end of a validated site path like /task/<slug>."""
    return site_path.rsplit("/", 1)[1]
