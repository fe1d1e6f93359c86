"""The results table of a leaderboard page: its columns, how each one sorts, which fold.

Sorting re-orders the view only (SPEC 1.2): every row keeps its archive rank,
and a row with nothing to sort by (no number, no date) goes last either way.
"""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe

from leaderboards.format.rules import http_url, paper_name
from leaderboards.web.chart import Point
from leaderboards.web.words import as_time, month_words

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


# Editors' results have no archive rank; on one day they come after the archive's.
ADDED_ORDER = 10**9


def chart_points(items, index, start=0):
    """A chart point for each row with a paper date and a number for metric `index`;
    an editor-added result's is marked as such. `start`: the first item's place."""
    points = []
    for position, item in enumerate(items, start):
        cell = item.cells[index]
        if item.row.paper_date is None or cell is None or cell.number is None:
            continue
        added = item.row.added is not None
        points.append(
            Point(
                rank=ADDED_ORDER + position if added else item.row.rank,
                model=item.row.model,
                date=item.row.paper_date,
                number=cell.number,
                raw=cell.raw,
                added=added,
            )
        )
    return points


# `?metrics=all` opens every folded metric; `?metrics=<name>` (repeatable) opens one.
OPEN_ALL = "all"


@dataclass(frozen=True, slots=True)
class Folding:
    """Which metric columns the table shows.

    A metric is mostly empty when fewer than half of the board's rows have a
    value for it (ImageNet's "Hardware Burden": 7 of 951). Such columns are
    folded unless the query string opens them, and the board's first metric,
    the one the chart starts on, is never folded. The rule reads the whole
    board, not the filtered rows, so a filter never moves columns about.
    """

    shown: tuple  # metric indexes shown as columns, in the page's order
    folded: tuple  # mostly empty and not opened
    opened: tuple  # mostly empty and opened by the query string or the sort
    counts: tuple  # rows with a value, per metric

    @property
    def any_folded(self):
        return bool(self.folded)


def _has_value(cell):
    return cell is not None and cell.raw is not None and cell.raw.strip() != ""


def value_counts(items, n_metrics):
    """How many rows have a non-blank value for each metric."""
    counts = [0] * n_metrics
    for item in items:
        for index, cell in enumerate(item.cells):
            if _has_value(cell):
                counts[index] += 1
    return tuple(counts)


def mostly_empty(counts, n_rows):
    """Indexes of the metrics with a value in fewer than half of the rows; never the first."""
    return [index for index, count in enumerate(counts) if index > 0 and count * 2 < n_rows]


def fold(items, metrics, params, sort_index, counts=None):
    """The Folding for `items` (every shown row of the board) and the query string.

    `metrics` values that are neither "all" nor a metric's name are ignored,
    as is anything else a query string can carry. `counts`, when the board's
    value counts are known already (its prepared parts hold them), spares
    counting them again.
    """
    if counts is None:
        counts = value_counts(items, len(metrics))
    empty = mostly_empty(counts, len(items))
    asked = set(params.getlist("metrics"))
    names = [metric.name for metric in metrics]
    opened = {index for index in empty if OPEN_ALL in asked or names[index] in asked}
    if sort_index is not None and sort_index in empty:
        opened.add(sort_index)  # a column sorted on is one the visitor wants to see
    folded = tuple(index for index in empty if index not in opened)
    return Folding(
        shown=tuple(index for index in range(len(metrics)) if index not in folded),
        folded=folded,
        opened=tuple(sorted(opened)),
        counts=counts,
    )


# The results table's body, built here rather than in _table.html: a template
# loop cost about a third of a millisecond per row, most of the page's time
# (22 rows: 8 of 29 ms; a 100-row page of a big board: 35 ms), and this costs
# a few hundredths. Every value from the data is escaped; the markup is the
# template's as it was, byte for byte, so tests and stylesheets see no change.
ROW_INDENT = "\n        "


# A row whose source says its paper has code but gives no link (PwC's
# `paper_has_code`): said so, and counted apart from the rows with a code URL.
CODE_PER_PWC = (
    '<span class="badge code-per-pwc" title="Papers with Code listed code for this paper; '
    'the archive gives no link to it">code exists (per Papers with Code)</span>'
)


def _date_markup(row):
    """The paper's date; an added result known to its month only, the month."""
    if row.paper_date is None and row.added is not None and row.added.paper_month:
        return escape(month_words(row.added.paper_month))
    return conditional_escape(as_time(row.paper_date))


def _tags_markup(tags):
    """The row's tags (PwC's), each a link that filters the board by it."""
    links = " ".join(
        f'<a class="tag" href="?{escape(urlencode({"tag": tag}))}#results">{escape(tag)}</a>'
        for tag in tags
    )
    return f' <span class="tags"><span class="visually-hidden">Tags: </span>{links}</span>'


def rows_markup(items, metric_names, shown, checked, slug):
    """The `<tr>`s of `items` (TableRows) of board `slug`, with the metric columns `shown`."""
    paper_link = _paper_link()
    correction = escape(reverse("leaderboards:suggest_correction", args=[slug]))
    model_link = _model_link()
    parts = []
    for item in items:
        row, v = item.row, item.verification
        rank = "—" if row.rank is None else row.rank
        model = escape(row.model)
        added = ""
        if row.added:
            # Visible text, not a tooltip: a reader on a phone or a keyboard reads it too.
            added = (
                ' <span class="badge added">added by editors</span>'
                f'<span class="added-note">{escape(row.added.note)}</span>'
            )
        if row.tags:
            added += _tags_markup(row.tags)
        # A pencil in the rank cell, named in full for screen readers: a line of
        # text under every model made each row a line taller.
        about = f"added={row.added.pk}" if row.added else f"row={row.pk}"
        suggest = (
            f'<a class="suggest-row" href="{correction}?{about}" rel="nofollow"'
            ' title="Suggest a correction"><span aria-hidden="true">✎</span>'
            f'<span class="visually-hidden">Suggest a correction to {model}</span></a> '
        )
        cells = []
        for index in shown:
            cell = item.cells[index]
            raw = "" if cell is None or cell.raw is None else escape(cell.raw)
            cells.append(
                f'<td class="num metric" data-label="{escape(metric_names[index])}">{raw}</td>'
            )
        if row.uses_additional_data:
            extra = '<td class="extra"><span class="badge warn">Yes</span></td>'
        else:
            extra = '<td class="extra no"><span class="muted">No</span></td>'
        title = f' title="{escape(row.paper_title)}"' if row.paper_title else ""
        if row.paper:
            name = escape(paper_name(row.paper_title, row.paper_url) or row.paper.slug)
            name = f'<a href="{escape(paper_link(row.paper.slug))}">{name}</a>'
        else:
            name = escape(paper_name(row.paper_title, row.paper_url))
        external = http_url(row.paper_url)
        if external:
            external = (
                f' <a class="external" href="{escape(external)}" rel="nofollow noopener"'
                ' title="The paper at its source">↗<span class="visually-hidden">'
                " external link</span></a>"
            )
        code = http_url(row.code)
        if code:
            code = f'<a href="{escape(code)}" rel="nofollow noopener">Code</a>'
        elif row.code:
            code = f'<span class="muted">{escape(row.code)}</span>'
        elif row.archive_says_code:
            code = CODE_PER_PWC
        if row.n_code_links > 1:
            code += (
                ' <span class="badge" title="Code links the archive lists for this row">'
                f"{row.n_code_links} links</span>"
            )
        verified = ""
        if checked:
            badge = ""
            if v:
                good = " good" if v.n_ran else ""
                plural = "" if v.n_samples == 1 else "s"
                badge = (
                    f'<span class="badge{good}">{v.n_ran} of {v.n_samples} code sample{plural}'
                    " ran</span>"
                )
                if v.n_pointer_only_licence:
                    badge += (
                        '<span class="pointer-only small muted" title="Samples the site points'
                        ' at rather than redistributes, for licence reasons">'
                        f"{v.n_pointer_only_licence} pointer-only (licence)</span>"
                    )
            verified = f'<td class="verified">{badge}</td>'
        parts.append(
            "\n      <tr>"
            f'{ROW_INDENT}<td class="num rank">{suggest}{rank}</td>'
            f'{ROW_INDENT}<td class="model"><span class="clamp" title="{model}">'
            f"{model_link(row.model_slug, model)}</span>"
            f"{added}</td>"
            f"{ROW_INDENT}{''.join(cells)}"
            f"{ROW_INDENT}{extra}"
            f'{ROW_INDENT}<td class="paper"><div class="paper-cell"><span class="clamp"{title}>'
            f"{name}</span>{external}</div></td>"
            f'{ROW_INDENT}<td class="date">{_date_markup(row)}</td>'
            f'{ROW_INDENT}<td class="code">{code}</td>'
            f"{ROW_INDENT}{verified}"
            "\n      </tr>\n    "
        )
    return mark_safe("".join(parts))  # noqa: S308 - built from escaped parts above


def _paper_link():
    """A paper page's URL from its slug, reversed once rather than once a row.

    A slug needs no quoting in a path, so the URL of one is the URL of any
    other with the slug swapped.
    """
    marker = "slug-marker"
    prefix, suffix = reverse("leaderboards:paper", args=[marker]).split(marker)
    return lambda slug: f"{prefix}{slug}{suffix}"


def _model_link():
    """A row's model name (escaped) linked to its model's page, as _paper_link() reverses it
    once; the name alone for a row with no model slug (an editor's added result)."""
    marker = "slug-marker"
    prefix, suffix = reverse("leaderboards:model", args=[marker]).split(marker)
    return lambda slug, name: f'<a href="{prefix}{slug}{suffix}">{name}</a>' if slug else name
