"""How a board's page is put together: its prepared parts, a view's rows, links that keep the query.

The board's view (leaderboard.py) and the paging of boards too large to keep
(large_board.py) both render through here, so the page is the same whichever
made its rows.
"""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from leaderboards.models import Leaderboard
from leaderboards.web.chart import build_chart
from leaderboards.web.limiter import take_slot
from leaderboards.web.page_data import PageData, bounded
from leaderboards.web.prepared import (
    render_part,
)
from leaderboards.web.table import (
    ASC,
    DESC,
    FIXED_COLUMNS,
    OPEN_ALL,
    TableRow,
    chart_points,
    metric_order,
    rows_markup,
)

ROWS_PER_PAGE = 100


@dataclass(slots=True)
class Header:
    label: str
    href: str
    sort: str | None  # "ascending" / "descending" on the sorted column, for aria-sort
    numeric: bool = False
    direction: str | None = None
    # The link's id, and its target on the page it opens: focus stays on the column sorted.
    anchor: str = ""


class AnsweredMeanwhile(Exception):
    """What another request kept while this one waited for a render slot answers it."""

    def __init__(self, response):
        self.response = response


def page_data(slug, *, row_extras=True, only=None, meanwhile=None, slot=True):
    """The board's PageData; its unknown keys are read only for the export (`row_extras`).

    With `only` (PageData's), one page's rows: cheap whatever the board's size, so no slot;
    nor without `slot`, where no visitor waits (prepare_boards).
    `meanwhile`, asked once the slot is taken, gives a response that needs none of the
    rows, or None; a response raises AnsweredMeanwhile.
    """
    boards = bounded(Leaderboard.objects.named(), "source", *(["extra"] if row_extras else []))
    if not row_extras:
        boards = boards.defer("extra")
    board = get_object_or_404(boards, slug=slug)
    if slot and only is None and take_slot(board.row_count):
        response = meanwhile() if meanwhile is not None else None
        if response is not None:
            raise AnsweredMeanwhile(response)
    return PageData(board, row_extras=row_extras, only=only)


def bad_filter(request, board, errors):
    return render(
        request,
        "leaderboards/leaderboard/bad_request.html",
        {"leaderboard": board, "errors": errors},
        status=400,
    )


def query_with(request, **changes):
    """The current query string with `changes` applied (None drops a key, a list repeats it).

    What QueryDict.urlencode() writes for the changed copy, from pairs encoded
    once a request: a page has some twenty of these links, and copying and
    encoding the whole query string for each was a tenth of a page made from
    its prepared parts.
    """
    pairs = getattr(request, "_encoded_query", None)
    if pairs is None:
        pairs = request._encoded_query = [
            (name, urlencode({name: value}))
            for name, values in request.GET.lists()
            for value in values
        ]
    parts = [encoded for name, encoded in pairs if name not in changes]
    for name, value in changes.items():
        if isinstance(value, list):
            parts.extend(urlencode({name: item}) for item in value)
        elif value is not None:
            parts.append(urlencode({name: value}))
    return "?" + "&".join(parts)


@dataclass(slots=True)
class FoldLink:
    label: str
    href: str
    rows: int  # rows with a value for the metric


def _fold_links(request, metrics, folding):
    """Links that open each folded metric, or all of them, and the one that folds them again.

    They keep every other parameter, the page too (the columns change, not the
    rows), and the metrics already opened, so opening is one step at a time.
    """
    names = [metric.name for metric in metrics]
    asked = [name for name in request.GET.getlist("metrics") if name in names]
    opening = []
    for index in folding.folded:
        name = names[index]
        href = query_with(request, metrics=[*asked, name])
        opening.append(FoldLink(name, href, folding.counts[index]))
    everything = query_with(request, metrics=[OPEN_ALL]) if len(folding.folded) > 1 else None
    opened_by_query = OPEN_ALL in request.GET.getlist("metrics") or asked
    refold = query_with(request, metrics=None) if folding.opened and opened_by_query else None
    return opening, everything, refold


def _headers(request, metrics, sorted_key, sorted_order):
    """Sort links for every column: a first click sorts the column's natural way."""

    def header(key, label, default, numeric=False, direction=None, anchor=None):
        current = key == sorted_key
        order = (ASC if sorted_order == DESC else DESC) if current else default
        return Header(
            label=label,
            href=query_with(
                request,
                sort=None if key == "rank" and order == ASC else key,
                order=None if order == default else order,
                page=None,
            ),
            sort=("ascending" if sorted_order == ASC else "descending") if current else None,
            numeric=numeric,
            direction=direction,
            anchor=anchor or f"sort-{key}",
        )

    fixed = {
        key: header(key, column.label, column.default_order, column.numeric)
        for key, column in FIXED_COLUMNS.items()
    }
    by_metric = [
        header(m.name, m.name, metric_order(m.direction), True, m.direction, f"sort-metric-{index}")
        for index, m in enumerate(metrics)
    ]
    return fixed, by_metric


def chart_index(chosen, names):
    """The index of the metric named `chosen`, else the first's; None when there is none."""
    if not names:
        return None
    return names.index(chosen) if chosen in names else 0


def chart_of(chosen, metrics, items):
    """(metric, chart) for the metric named `chosen`, else the first; (None, None) if none."""
    index = chart_index(chosen, [metric.name for metric in metrics])
    if index is None:
        return None, None
    metric = metrics[index]
    return metric, build_chart(metric.name, metric.direction, chart_points(items, index))


def results(data, *, added=True):
    """TableRows of the board's shown rows in archive order, then (with `added`) the
    results editors added, oldest first: they have no archive rank, and compete by value."""
    rows = [TableRow(*triple) for triple in data.table()]
    if added:
        rows += [TableRow(*triple) for triple in data.added_table()]
    return rows


def from_parts(request, prepared, board=None):
    """The page of the default view: the archive's order, first page, first metric charted.

    `board`, when the rows were read anyway, gives a signed-in editor's page its "Edit" link.
    """
    total = prepared.total_count + prepared.added_count
    response = render_page(
        request,
        prepared,
        sort=("rank", None, ASC),
        folding=prepared.folding,
        chart_metric=prepared.metrics[0] if prepared.metrics else None,
        chart_html=prepared.chart_html,
        charted=prepared.charted,
        page_obj=Paginator(range(total), ROWS_PER_PAGE).get_page(None),
        rows_html=prepared.first_rows_html,
        filter_html=prepared.filter_html,
        filtered=False,
        shown_count=prepared.total_count,
        board=board,
    )
    # The board's own address is kept whole (the page most asked for); any
    # other is made again from the parts (web/page_cache.py).
    response.remade_cheaply = bool(request.GET)
    return response


def chart_markup(board, chart_metric, chart, *, filtered, shown_count):
    return render_part(
        "_chart_figure",
        {
            "leaderboard": board,
            "chart": chart,
            "chart_metric": chart_metric,
            "filtered": filtered,
            "shown_count": shown_count,
        },
    )


def filter_markup(filterset, hidden_params, syntology):
    return render_part(
        "_filters", {"filter": filterset, "hidden_params": hidden_params, "syntology": syntology}
    )


def form_params(request):
    """What the filter form and "clear filters" keep: how the table is sorted, charted, folded."""
    kept_params = [
        (name, request.GET[name]) for name in ("sort", "order", "chart") if name in request.GET
    ]
    return kept_params + [("metrics", name) for name in request.GET.getlist("metrics")]


def view_page(
    request, prepared, board, filterset, chart, *, sort, folding, page_obj, page_rows, shown_count
):
    """A view's page (sorted, paged, filtered or charted): its rows and the filter's form
    made into markup, with links that keep the query. `chart` is (metric, markup, charted)."""
    kept_params = form_params(request)
    names = [metric.name for metric in prepared.metrics]
    chart_metric, chart_html, charted = chart
    return render_page(
        request,
        prepared,
        sort=sort,
        folding=folding,
        chart_metric=chart_metric,
        chart_html=chart_html,
        charted=charted,
        page_obj=page_obj,
        rows_html=rows_markup(page_rows, names, folding.shown, prepared.checked, prepared.slug),
        filter_html=filter_markup(filterset, kept_params, prepared.syntology),
        filtered=filterset.active,
        shown_count=shown_count,
        kept_params=kept_params,
        board=board,
    )


def render_page(
    request,
    prepared,
    *,
    sort,
    folding,
    chart_metric,
    chart_html,
    charted,
    page_obj,
    rows_html,
    filter_html,
    filtered,
    shown_count,
    kept_params=(),
    board=None,
):
    """The page: `prepared`'s parts, the view's table and chart, and links that keep the query."""
    metrics = prepared.metrics
    sort_key, _, sort_order = sort
    fixed, by_metric = _headers(request, metrics, sort_key, sort_order)
    names = [metric.name for metric in metrics]
    fold_links, open_all_href, refold_href = _fold_links(request, metrics, folding)
    return render(
        request,
        "leaderboards/leaderboard_detail.html",
        {
            # The model, for an editor's "Edit" link; an editor's page is never made from the
            # prepared parts alone, as it is never cached (web/page_cache.py).
            "leaderboard": board,
            "prepared": prepared,
            "filter_html": filter_html,
            "filtered": filtered,
            "shown_count": shown_count,
            "total_count": prepared.total_count,
            "added_count": prepared.added_count,
            "page_obj": page_obj,
            "fixed": fixed,
            "metric_headers": [by_metric[index] for index in folding.shown],
            "folding": folding,
            "fold_links": fold_links,
            "open_all_href": open_all_href,
            "refold_href": refold_href,
            "opened_names": [names[index] for index in folding.opened],
            "checked": prepared.checked,
            "rows_markup": rows_html,
            "sort_key": sort_key,
            "chart_html": chart_html,
            "charted": charted,
            "chart_metric": chart_metric,
            "chart_links": [(metric, query_with(request, chart=metric.name)) for metric in metrics],
            "clear_href": "?" + urlencode(kept_params),
            "dated_href": query_with(request, sort="date", order=ASC, page=None),
            # The CSV holds the rows shown, every page of them: the filters and sort go along.
            "csv_query": query_with(request, page=None, chart=None),
        },
    )
