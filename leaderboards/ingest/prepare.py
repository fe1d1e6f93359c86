"""What the writer derives from a checked page without the database, found where it is read.

A large load reads its files in a second process (loader._read_ahead), idle
most of the time while the writer inserts. Row keys and their digests,
parsed metric values, dates, flags, the stated-against-computed differences
and a new board's figures need nothing but the page, and were a seventh of
the writer's time at PwC size: they are worked out there, beside the reading,
and travel to the writer with the page. A page read in the writer's own
process is prepared there the same way.

Columns, not an object per row: the prepared page is pickled between the two
processes, and lists of strings and floats cost little to send.
"""

import dataclasses
import datetime

from leaderboards.format import derive
from leaderboards.format.figures import (
    FirstMetric,
    OrderEvidence,
    file_direction,
    new_board_figures,
    order_evidence,
)
from leaderboards.format.page import ROW_KEYS, slug_of, version_moment
from leaderboards.format.rules import (
    date_or_none,
    has_code,
    key_digest,
    model_slug,
    paper_identity,
    row_keys,
)
from leaderboards.format.values import parse_metric_value


@dataclasses.dataclass(slots=True)
class PreparedPage:
    """A checked page's database-free figures; each row list follows page["rows"]."""

    read_at: datetime.datetime | None
    # derive.differences(page): (json path, stated, computed).
    differences: list
    # The Leaderboard figures of a board made from this page (see new_board_figures).
    figures: dict
    # How the first metric's values run down the archive's order (None: no metric).
    order: OrderEvidence | None
    keys: list  # key_digest of each row's key
    model_slugs: list  # each row's model_slug(), the model it names across boards
    papers: list  # each row's paper slug, or None
    dates: list  # each row's paper date, or None
    has_code: list
    # Whether the row's code ran, on a page a verification read.
    ran: list
    # Each row's metric values parsed, in the order of its `metrics` object.
    numbers: list
    # Each row's fields beyond the format's, kept as they came.
    extras: list


def prepare(page):
    rows = page["rows"]
    verified = page["syntology"] is not None
    dates = [date_or_none(row["paper_date"]) for row in rows]
    numbers = [[parse_metric_value(raw) for raw in row["metrics"].values()] for row in rows]
    ran = [verified and _code_ran(row) for row in rows]
    order = _order(page, numbers)
    return PreparedPage(
        read_at=version_moment(page),
        differences=derive.differences(page),
        figures=_figures(page, dates, numbers, ran, order),
        order=order,
        keys=[key_digest(key) for key in row_keys(rows)],
        model_slugs=[model_slug(row["model"], paper_identity(row)) for row in rows],
        papers=[slug_of(row["paper"]) if row["paper"] else None for row in rows],
        dates=dates,
        has_code=[has_code(row["code"]) for row in rows],
        ran=ran,
        numbers=numbers,
        extras=[{k: row[k] for k in row if k not in ROW_KEYS} for row in rows],
    )


def _code_ran(row):
    """Whether a page row's code ran, as its Syntology counters say (on a page
    that carries a Syntology block: a row's counters count only there)."""
    return row["syntology"] is not None and row["syntology"]["n_ran"] > 0


def _order(page, numbers):
    """order_evidence() of the page's first metric over its rows in the archive's order."""
    if not page["metrics"]:
        return None
    name = page["metrics"][0]
    ranked = sorted(
        (row["rank_in_archive_order"], _number_of(row, parsed, name))
        for row, parsed in zip(page["rows"], numbers, strict=True)
    )
    return order_evidence([number for _, number in ranked])


def _number_of(row, parsed, name):
    """The row's parsed value of metric `name` (None without one)."""
    if name not in row["metrics"]:
        return None
    return parsed[list(row["metrics"]).index(name)]


def _figures(page, dates, numbers, ran, order):
    """new_board_figures() of a board made from this page."""
    first = None
    if page["metrics"]:
        name = page["metrics"][0]
        # A board made from this page has no editor's direction yet: the file's
        # word, else what the archive's order settles.
        stated = file_direction(page["metric_direction"]["by_metric"][name])
        inferred = None if stated else order.settled
        first = FirstMetric(name, stated or inferred, inferred)
    rows = []
    for data, date, parsed, row_ran in zip(page["rows"], dates, numbers, ran, strict=True):
        value = None
        if first is not None and first.name in data["metrics"]:
            # The first metric's place in this row's values.
            index = list(data["metrics"]).index(first.name)
            value = (data["metrics"][first.name], parsed[index])
        rows.append((data["rank_in_archive_order"], data["model"], date, row_ran, value))
    verified = page["syntology"] is not None
    if not verified:
        return new_board_figures(rows, first, None)
    # A verified page's version moment is its syntology.read_at (version_moment()).
    return new_board_figures(rows, first, page["since_archive"], version_moment(page))
