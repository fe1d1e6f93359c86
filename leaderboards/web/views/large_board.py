"""Boards too large for a process to keep their rows: their views paged along kept orders.

A board past RowsKept's bound (a 100,000-row board) would have each view read
and sort every row: a second of a worker's time and most of its memory. Once
its rows are read, the order of every sort the page offers is kept
(prepared.keep_order), and each later view that narrows nothing reads only its
page's rows, by id, along the order asked for.
"""

from array import array

from django.core.paginator import Paginator

from leaderboards.models import Row
from leaderboards.web.filters import RowFilter
from leaderboards.web.limiter import take_page_slot
from leaderboards.web.prepared import (
    asks_for_a_view,
    keep_order,
    kept,
    kept_order,
    order_ids,
    rows_kept,
    split_ids,
)
from leaderboards.web.table import (
    ASC,
    DESC,
    FIXED_COLUMNS,
    fold,
    resolve_sort,
    rows_markup,
    sort_rows,
)
from leaderboards.web.views.board_page import (
    ROWS_PER_PAGE,
    chart_index,
    filter_markup,
    form_params,
    from_parts,
    page_data,
    render_page,
    results,
)


def too_large_to_keep(prepared):
    """A board whose rows no process keeps (RowsKept): its views that narrow nothing
    read one page along a kept order instead of every row."""
    return prepared.total_count + prepared.added_count > rows_kept.max_size


def orders_of(everything, metrics):
    """{sort: the ids of `everything` in its order} for every sort the page offers, both
    ways: 8 bytes a result each (as lists of ints, 36)."""
    sorts = [(key, None, order) for key in FIXED_COLUMNS for order in (ASC, DESC)]
    sorts += [
        (metric.name, index, order) for index, metric in enumerate(metrics) for order in (ASC, DESC)
    ]
    return {sort: array("q", order_ids(sort_rows(everything, *sort))) for sort in sorts}


def keep_orders(found, board_id, everything, metrics):
    """Keep the board's order for every sort the page offers, both ways: once its rows are
    read, a second of sorting spares each later view of it reading them again."""
    for sort, ids in orders_of(everything, metrics).items():
        keep_order(found, board_id, sort, ids)


def detail_along_order(request, slug, found, prepared):
    """The view of a large board read one page at a time along its kept order, or None
    when the view narrows the rows, charts another metric or its order is not kept yet.

    The same page _detail_from_rows() builds from every row (a test compares them).
    """
    filterset = RowFilter(
        request.GET or None, queryset=Row.objects.none(), tags=prepared.tag_counts
    )
    if filterset.is_bound and (not filterset.is_valid() or filterset.active):
        return None
    names = [metric.name for metric in prepared.metrics]
    if chart_index(request.GET.get("chart"), names) != 0:
        return None
    sort = resolve_sort(request.GET, prepared.metrics)
    ids = kept_order(found, sort)
    if ids is None:
        return None
    take_page_slot()
    page_obj = Paginator(range(len(ids)), ROWS_PER_PAGE).get_page(request.GET.get("page"))
    page_ids = [ids[index] for index in page_obj.object_list]
    data = page_data(slug, row_extras=False, only=split_ids(page_ids))
    items = results(data)
    by_id = dict(zip(order_ids(items), items, strict=True))
    # A row gone since the order was kept (a load under way) is left out, not a 500.
    page_rows = [by_id[key] for key in page_ids if key in by_id]
    # Every shown result counts: the order holds them all, as the folding's counts do.
    folding = fold(ids, prepared.metrics, request.GET, sort[1], prepared.folding.counts)
    kept_params = form_params(request)
    response = render_page(
        request,
        prepared,
        sort=sort,
        folding=folding,
        chart_metric=prepared.metrics[0],
        chart_html=prepared.chart_html,
        charted=prepared.charted,
        page_obj=page_obj,
        rows_html=rows_markup(page_rows, names, folding.shown, prepared.checked, prepared.slug),
        filter_html=filter_markup(filterset, kept_params, prepared.syntology),
        filtered=False,
        shown_count=len(ids),
        kept_params=kept_params,
        board=data.leaderboard,
    )
    # Made again in milliseconds: kept whole, one-off addresses would push out
    # pages that cost more to make (the board's prepared parts among them).
    response.remade_cheaply = True
    return response


def without_rows(request, slug, found):
    """The page from what is kept now (the parts, a large board's order), or None."""
    prepared = kept(found)
    if prepared is None:
        return None
    if not asks_for_a_view(request.GET):
        return from_parts(request, prepared)
    if too_large_to_keep(prepared):
        return detail_along_order(request, slug, found, prepared)
    return None
