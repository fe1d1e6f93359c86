"""Boards too large for a process to keep their rows: their views paged along kept orders.

A board past RowsKept's bound (a 100,000-row board) would have each view read
and sort every row: a second of a worker's time and most of its memory. Once
its rows are read, the order of every sort the page offers is kept
(prepared.keep_order), and each later view that narrows nothing reads only its
page's rows, by id, along the order asked for.
"""

from array import array

from django.core.paginator import Paginator

from leaderboards.models import Leaderboard, MetricValue, Row
from leaderboards.web.chart import Point, build_chart
from leaderboards.web.filters import RowFilter
from leaderboards.web.limiter import take_page_slot, take_slot
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
    chart_points,
    fold,
    resolve_sort,
    sort_rows,
)
from leaderboards.web.views.board_page import (
    ROWS_PER_PAGE,
    bad_filter,
    chart_index,
    chart_markup,
    from_parts,
    page_data,
    results,
    view_page,
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
    when its order is not kept yet (or it has no metric).

    A view that narrows the rows asks the database which rows its filters keep (they
    are queries) and keeps those of the order; a chart of another metric, or of the
    narrowed rows, reads that metric's values with their rows' dates, not the rows.
    The same page _detail_from_rows() builds from every row (a test compares them).
    """
    shown = Row.objects.filter(leaderboard_id=found.board_id).shown()
    filterset = RowFilter(request.GET or None, queryset=shown, tags=prepared.tag_counts)
    names = [metric.name for metric in prepared.metrics]
    index = chart_index(request.GET.get("chart"), names)
    if index is None:
        return None
    if filterset.is_bound and not filterset.is_valid():
        board = Leaderboard.objects.titled().without_blocks().get(pk=found.board_id)
        return bad_filter(request, board, filterset.errors)
    sort = resolve_sort(request.GET, prepared.metrics)
    ids = kept_order(found, sort)
    if ids is None:
        return None
    narrowed = filterset.active
    if narrowed or index != 0:
        # Every row's id or chart point, if not the row: a second of a worker at 100,000.
        take_slot(found.board_rows)
    else:
        take_page_slot()
    everything = ids
    if narrowed:
        ids, additions = _narrowed(slug, filterset, ids, prepared.added_count)
    page_obj = Paginator(range(len(ids)), ROWS_PER_PAGE).get_page(request.GET.get("page"))
    page_ids = [ids[place] for place in page_obj.object_list]
    data = page_data(slug, row_extras=False, only=split_ids(page_ids))
    items = results(data)
    by_id = dict(zip(order_ids(items), items, strict=True))
    # A row gone since the order was kept (a load under way) is left out, not a 500.
    page_rows = [by_id[key] for key in page_ids if key in by_id]
    # Every shown result counts: the order holds them all, as the folding's counts do.
    folding = fold(everything, prepared.metrics, request.GET, sort[1], prepared.folding.counts)
    chart_metric = prepared.metrics[index]
    if index == 0 and not narrowed:
        # The first metric over every row: the chart the prepared parts hold.
        chart_html, charted = prepared.chart_html, prepared.charted
    else:
        if not narrowed:
            additions = _additions(slug, everything, prepared.added_count)
        points = _chart_points(
            found.board_id, filterset.qs, chart_metric, index, additions, len(ids)
        )
        chart = build_chart(chart_metric.name, chart_metric.direction, points)
        chart_html = chart_markup(
            data.leaderboard, chart_metric, chart, filtered=narrowed, shown_count=len(ids)
        )
        charted = chart is not None
    response = view_page(
        request,
        prepared,
        data.leaderboard,
        filterset,
        (chart_metric, chart_html, charted),
        sort=sort,
        folding=folding,
        page_obj=page_obj,
        page_rows=page_rows,
        shown_count=len(ids),
    )
    # Made again in milliseconds: kept whole, one-off addresses would push out
    # pages that cost more to make (the board's prepared parts among them).
    response.remade_cheaply = True
    return response


def _additions(slug, ids, added_count, filterset=None):
    """The editor-added results among `ids` as TableRows, and the board's snapshot; read
    only when there are some, or `filterset` asks whether a code sample ran."""
    added_ids = tuple(-key for key in ids if key < 0) if added_count else ()
    if not added_ids and (filterset is None or filterset.form.cleaned_data.get("ran") is None):
        return []
    data = page_data(slug, row_extras=False, only=((), added_ids))
    if filterset is not None:
        # "A code sample ran" is judged by the newest snapshot, as the page shows it.
        filterset.snapshot = data.snapshot
    return results(data)


def _narrowed(slug, filterset, ids, added_count):
    """(the ids of `ids` the filters keep, in its order; the added results they keep)."""
    additions = _additions(slug, ids, added_count, filterset)
    additions = [item for item in additions if filterset.keeps_added(item.row)]
    rows = set(filterset.qs.values_list("pk", flat=True))
    added = {item.row.added.pk for item in additions}
    kept = array("q", (key for key in ids if (key in rows if key > 0 else -key in added)))
    return kept, additions


def _chart_points(board_id, rows, metric, index, additions, shown):
    """chart_points() of `rows` (a query: the shown rows, narrowed or not) and `additions`
    for the metric at `index`, from its values and the rows' dates alone, in rank order."""
    values = (
        MetricValue.objects.filter(
            metric__leaderboard_id=board_id,
            metric__name=metric.name,
            row__in=rows,
            number__isnull=False,
            row__paper_date__isnull=False,
        )
        .order_by("row__rank", "row_id")
        .values_list("row__rank", "row__model", "row__paper_date", "number", "raw")
    )
    points = [
        Point(rank=rank, model=model, date=date, number=number, raw=raw)
        for rank, model, date, number, raw in values.iterator(2_000)
    ]
    # An added result's place follows every row's, as in the list chart_points() is given.
    return points + chart_points(additions, index, start=shown - len(additions))


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
