"""The results table of a leaderboard page: its columns and how each one sorts.

Sorting re-orders the view only (SPEC 1.2): every row keeps its archive rank,
and a row with nothing to sort by (no number, no date) goes last either way.
"""

from dataclasses import dataclass

from leaderboards.web.chart import Point

ASC, DESC = "asc", "desc"


@dataclass(slots=True)
class TableRow:
    row: object
    cells: list  # one MetricValue or None per metric, in the page's metric order
    verification: object  # RowVerification of the newest snapshot, or None


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    default_order: str
    numeric: bool = False


# The fixed columns; metric columns sort under the metric's own name.
FIXED_COLUMNS = {
    "rank": Column("rank", "Rank", ASC, numeric=True),
    "model": Column("model", "Model", ASC),
    "extra": Column("extra", "Extra data", DESC),
    "paper": Column("paper", "Paper", ASC),
    "date": Column("date", "Date", DESC),
    "code": Column("code", "Code", DESC),
    "verified": Column("verified", "Verified", DESC),
}


def _casefold(text):
    return text.casefold() if text else None


def _verified(item):
    v = item.verification
    return None if v is None else (v.n_ran, v.n_samples)


FIXED_KEYS = {
    "rank": lambda item: item.row.rank,
    "model": lambda item: _casefold(item.row.model),
    "extra": lambda item: item.row.uses_additional_data,
    "paper": lambda item: _casefold(item.row.paper_title),
    "date": lambda item: item.row.paper_date,
    "code": lambda item: item.row.n_code_links if item.row.code else None,
    "verified": _verified,
}


def metric_order(direction):
    """Best first where the direction is known; largest first where it is not."""
    return ASC if direction == "lower" else DESC


def resolve_sort(params, metrics):
    """(column key, metric index or None, order) from `sort` and `order`; unknown -> rank.

    A metric's own name wins over a fixed column of the same name, since the
    metric headers link with it.
    """
    key = params.get("sort") or "rank"
    names = [metric.name for metric in metrics]
    if key in names:
        index = names.index(key)
        default = metric_order(metrics[index].direction)
    elif key in FIXED_COLUMNS:
        index = None
        default = FIXED_COLUMNS[key].default_order
    else:
        key, index, default = "rank", None, ASC
    order = params.get("order")
    return key, index, order if order in (ASC, DESC) else default


def sort_rows(items, key, index, order):
    """Sorted copy of `items`; rows without a value last, ties in archive order."""
    if index is not None:

        def value(item):
            cell = item.cells[index]
            return None if cell is None else cell.number

    else:
        value = FIXED_KEYS[key]
    present, missing = [], []
    for item in items:
        (missing if value(item) is None else present).append(item)
    # Python's sort is stable, in reverse too: equal values stay in rank order.
    present.sort(key=value, reverse=order == DESC)
    return present + missing


def chart_points(items, index):
    """A chart point for each row with a paper date and a number for metric `index`."""
    points = []
    for item in items:
        cell = item.cells[index]
        if item.row.paper_date is None or cell is None or cell.number is None:
            continue
        points.append(
            Point(
                rank=item.row.rank,
                model=item.row.model,
                date=item.row.paper_date,
                number=cell.number,
                raw=cell.raw,
            )
        )
    return points
