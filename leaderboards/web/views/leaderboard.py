"""The leaderboard page and its exports.

All three read one `PageData`, so the page, the JSON and the CSV show the same
rows and the same figures.
"""

import io
import logging
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db import connections, router
from django.http import HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from leaderboards.format.rules import n_samples
from leaderboards.models import Leaderboard, Row, RowVerification, SyntologySnapshot
from leaderboards.web.chart import build_chart
from leaderboards.web.export import page_csv, page_document, page_json
from leaderboards.web.filters import RowFilter
from leaderboards.web.lead import lead_of
from leaderboards.web.limiter import expensive, take_slot
from leaderboards.web.page_data import PageData, Unservable, bounded
from leaderboards.web.prepared import (
    MetricRef,
    PreparedBoard,
    asks_for_a_view,
    keep,
    keep_order,
    kept,
    kept_order,
    order_ids,
    render_part,
    rows_kept,
    split_ids,
)
from leaderboards.web.table import (
    ASC,
    DESC,
    FIXED_COLUMNS,
    OPEN_ALL,
    TableRow,
    chart_points,
    fold,
    metric_order,
    resolve_sort,
    rows_markup,
    sort_rows,
)
from leaderboards.web.views.reads import consistent_read

logger = logging.getLogger(__name__)

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


def _page_data(slug, *, row_extras=True, only=None, meanwhile=None):
    """The board's PageData; its unknown keys are read only for the export (`row_extras`).

    With `only` (PageData's), one page's rows: cheap whatever the board's size, so no slot.
    `meanwhile`, asked once the slot is taken, gives a response that needs none of the
    rows, or None; a response raises AnsweredMeanwhile.
    """
    boards = bounded(Leaderboard.objects.named(), "source", *(["extra"] if row_extras else []))
    if not row_extras:
        boards = boards.defer("extra")
    board = get_object_or_404(boards, slug=slug)
    if only is None and take_slot(board.row_count):
        response = meanwhile() if meanwhile is not None else None
        if response is not None:
            raise AnsweredMeanwhile(response)
    return PageData(board, row_extras=row_extras, only=only)


def _query(request, **changes):
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
        href = _query(request, metrics=[*asked, name])
        opening.append(FoldLink(name, href, folding.counts[index]))
    everything = _query(request, metrics=[OPEN_ALL]) if len(folding.folded) > 1 else None
    opened_by_query = OPEN_ALL in request.GET.getlist("metrics") or asked
    refold = _query(request, metrics=None) if folding.opened and opened_by_query else None
    return opening, everything, refold


def _headers(request, metrics, sorted_key, sorted_order):
    """Sort links for every column: a first click sorts the column's natural way."""

    def header(key, label, default, numeric=False, direction=None, anchor=None):
        current = key == sorted_key
        order = (ASC if sorted_order == DESC else DESC) if current else default
        return Header(
            label=label,
            href=_query(
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


@dataclass(slots=True)
class HistoryEntry:
    read_at_text: str
    rows_with_line: int
    rows_ran: int
    n_ran: int
    n_samples: int


def _history(leaderboard):
    """Every verification snapshot with its row figures, newest first, in one query.

    Plain SQL: the ORM's building of this grouped query cost more than a tenth
    of the page. Only the columns shown: an old snapshot's blocks are never
    decoded here.
    """
    connection = connections[router.db_for_read(SyntologySnapshot)]
    quote = connection.ops.quote_name
    sql = (
        "SELECT s.read_at_text, COUNT(v.id), COUNT(CASE WHEN v.n_ran > 0 THEN 1 END), "
        "COALESCE(SUM(v.n_ran), 0), COALESCE(SUM(v.n_unverified), 0) "
        f"FROM {quote(SyntologySnapshot._meta.db_table)} s "
        f"LEFT JOIN {quote(RowVerification._meta.db_table)} v ON v.snapshot_id = s.id "
        "WHERE s.leaderboard_id = %s GROUP BY s.id, s.read_at_text, s.read_at "
        "ORDER BY s.read_at DESC"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [leaderboard.pk])
        return [
            HistoryEntry(read_at_text, with_line, ran, n_ran, n_samples(n_ran, n_unverified))
            for read_at_text, with_line, ran, n_ran, n_unverified in cursor.fetchall()
        ]


def _chart_index(chosen, names):
    """The index of the metric named `chosen`, else the first's; None when there is none."""
    if not names:
        return None
    return names.index(chosen) if chosen in names else 0


def _chart(chosen, metrics, items):
    """(metric, chart) for the metric named `chosen`, else the first; (None, None) if none."""
    index = _chart_index(chosen, [metric.name for metric in metrics])
    if index is None:
        return None, None
    metric = metrics[index]
    return metric, build_chart(metric.name, metric.direction, chart_points(items, index))


def _filterset(request, data):
    rows = Row.objects.filter(leaderboard=data.leaderboard).shown()
    return RowFilter(
        request.GET or None, queryset=rows, snapshot=data.snapshot, tags=data.tag_counts()
    )


def _results(data, *, added=True):
    """TableRows of the board's shown rows in archive order, then (with `added`) the
    results editors added, oldest first: they have no archive rank, and compete by value."""
    rows = [TableRow(*triple) for triple in data.table()]
    if added:
        rows += [TableRow(*triple) for triple in data.added_table()]
    return rows


@dataclass(slots=True)
class Selection:
    """The rows a query string picks, so the page and its CSV show the same ones."""

    everything: list  # every shown row, archive order
    matched: list  # those the filters keep, archive order
    sort: tuple  # (key, metric index, order), as resolve_sort gives it
    ordered: list  # matched, sorted

    @classmethod
    def of(cls, request, data, filterset, metrics, *, added=True):
        """`filterset` must be valid (or unbound); `metrics` are `data`'s, as the page has them.

        With `added`, editors' results are among the rows, after the archive's:
        they sort by their values with the others, and the filters judge them alike.
        """
        everything = _results(data, added=added)
        matched = everything
        if filterset.active:
            keep = set(filterset.qs.values_list("pk", flat=True))
            matched = [
                item
                for item in everything
                if item.row.pk in keep or (item.row.added and filterset.keeps_added(item.row))
            ]
        sort = resolve_sort(request.GET, metrics)
        return cls(everything, matched, sort, sort_rows(matched, *sort))


def leaderboard_detail(request, slug):
    """The board's page; from its prepared parts alone when the query string asks for no view."""
    found = getattr(request, "page_versions", None)
    prepared = kept(found)
    if prepared is not None and not asks_for_a_view(request.GET):
        return _from_parts(request, prepared)
    return _detail_from_rows(request, slug, found, prepared)


def _from_parts(request, prepared, board=None):
    """The page of the default view: the archive's order, first page, first metric charted.

    `board`, when the rows were read anyway, gives a signed-in editor's page its "Edit" link.
    """
    total = prepared.total_count + prepared.added_count
    response = _render_page(
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


def _prepare(data):
    """`data`'s page as a PreparedBoard: the parts it shows whatever the query string."""
    board = data.leaderboard
    metrics = tuple(MetricRef(m.name, m.direction, m.direction_set_by) for m in data.metrics)
    everything = _results(data)
    added_count = len(data.additions)
    folding = fold(everything, metrics, QueryDict(), None)
    document = data.summary()
    since = document["since_archive"]
    entries = data.since_table(since)
    if entries is None:
        since = None
    history = _history(board)
    checked = data.snapshot is not None
    chart_metric, chart = _chart(None, metrics, everything)
    # Every block is read by now, so `unshown` names all that could not be.
    context = {
        "leaderboard": board,
        "page": data,
        "document": document,
        "since": since,
        "since_entries": entries,
        "history": history if len(history) > 1 else [],
        "unshown": data.unshown,
        "unshown_blocks": data.unshown_blocks(),
        "code_per_archive": data.code_per_archive(),
        "added_count": added_count,
        "lead": lead_of(data.metrics[0] if data.metrics else None, everything, document["source"]),
    }
    names = [metric.name for metric in metrics]
    first_rows = everything[:ROWS_PER_PAGE]
    syntology = bool(document["syntology"])
    tags = tuple(data.tag_counts())
    return PreparedBoard(
        slug=board.slug,
        url=board.get_absolute_url(),
        json_url=reverse("leaderboards:leaderboard_json", args=[board.slug]),
        csv_url=reverse("leaderboards:leaderboard_csv", args=[board.slug]),
        badge_url=reverse("leaderboards:leaderboard_badge", args=[board.slug]),
        editorial_change_count=board.editorial_change_count,
        task_name=board.task.name,
        dataset_name=board.dataset.name,
        metrics=metrics,
        checked=checked,
        syntology=syntology,
        rows_count=document["counts"]["rows"],
        total_count=len(everything) - added_count,
        added_count=added_count,
        folding=folding,
        header_html=render_part("_header", context),
        unshown_html=render_part("_unshown", context),
        panels_html=render_part("_panels", context),
        chart_html=_chart_html(
            board, chart_metric, chart, filtered=False, shown_count=len(everything)
        ),
        charted=chart is not None,
        first_rows_html=rows_markup(first_rows, names, folding.shown, checked, board.slug),
        filter_html=_filter_html(
            RowFilter(None, queryset=Row.objects.none(), tags=tags), [], syntology
        ),
        tag_counts=tags,
    )


def _chart_html(board, chart_metric, chart, *, filtered, shown_count):
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


def _filter_html(filterset, hidden_params, syntology):
    return render_part(
        "_filters", {"filter": filterset, "hidden_params": hidden_params, "syntology": syntology}
    )


def _too_large_to_keep(prepared):
    """A board whose rows no process keeps (RowsKept): its views that narrow nothing
    read one page along a kept order instead of every row."""
    return prepared.total_count + prepared.added_count > rows_kept.max_rows


def _keep_orders(found, board_id, everything, metrics):
    """Keep the board's order for every sort the page offers, both ways: once its rows are
    read, a second of sorting spares each later view of it reading them again."""
    sorts = [(key, None, order) for key in FIXED_COLUMNS for order in (ASC, DESC)]
    sorts += [
        (metric.name, index, order) for index, metric in enumerate(metrics) for order in (ASC, DESC)
    ]
    for sort in sorts:
        keep_order(found, board_id, sort, order_ids(sort_rows(everything, *sort)))


def _kept_params(request):
    """What the filter form and "clear filters" keep: how the table is sorted, charted, folded."""
    kept_params = [
        (name, request.GET[name]) for name in ("sort", "order", "chart") if name in request.GET
    ]
    return kept_params + [("metrics", name) for name in request.GET.getlist("metrics")]


def _detail_along_order(request, slug, found, prepared):
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
    if _chart_index(request.GET.get("chart"), names) != 0:
        return None
    sort = resolve_sort(request.GET, prepared.metrics)
    ids = kept_order(found, sort)
    if ids is None:
        return None
    page_obj = Paginator(range(len(ids)), ROWS_PER_PAGE).get_page(request.GET.get("page"))
    page_ids = [ids[index] for index in page_obj.object_list]
    data = _page_data(slug, row_extras=False, only=split_ids(page_ids))
    items = _results(data)
    by_id = dict(zip(order_ids(items), items, strict=True))
    # A row gone since the order was kept (a load under way) is left out, not a 500.
    page_rows = [by_id[key] for key in page_ids if key in by_id]
    # Every shown result counts: the order holds them all, as the folding's counts do.
    folding = fold(ids, prepared.metrics, request.GET, sort[1], prepared.folding.counts)
    kept_params = _kept_params(request)
    response = _render_page(
        request,
        prepared,
        sort=sort,
        folding=folding,
        chart_metric=prepared.metrics[0],
        chart_html=prepared.chart_html,
        charted=prepared.charted,
        page_obj=page_obj,
        rows_html=rows_markup(page_rows, names, folding.shown, prepared.checked, prepared.slug),
        filter_html=_filter_html(filterset, kept_params, prepared.syntology),
        filtered=False,
        shown_count=len(ids),
        kept_params=kept_params,
        board=data.leaderboard,
    )
    # Made again in milliseconds: kept whole, one-off addresses would push out
    # pages that cost more to make (the board's prepared parts among them).
    response.remade_cheaply = True
    return response


def _without_rows(request, slug, found):
    """The page from what is kept now (the parts, a large board's order), or None."""
    prepared = kept(found)
    if prepared is None:
        return None
    if not asks_for_a_view(request.GET):
        return _from_parts(request, prepared)
    if _too_large_to_keep(prepared):
        return _detail_along_order(request, slug, found, prepared)
    return None


@expensive
@consistent_read
def _detail_from_rows(request, slug, found, prepared):
    """The page built from the board's rows: a view the query string asks for, or a first visit."""
    if prepared is not None and _too_large_to_keep(prepared):
        response = _detail_along_order(request, slug, found, prepared)
        if response is not None:
            return response
    data = rows_kept.get(found) if prepared is not None else None
    if data is not None:
        # Sorting and drawing kept rows costs as much as reading them.
        take_slot(data.leaderboard.row_count)
    else:
        # The requests that waited for a slot behind the one preparing a large board
        # would each read its rows and sort them again, a worker's memory each.
        def meanwhile():
            if prepared is None or _too_large_to_keep(prepared):
                return _without_rows(request, slug, found)
            return None

        try:
            data = _page_data(slug, row_extras=False, meanwhile=meanwhile)
        except AnsweredMeanwhile as answered:
            return answered.response
        if prepared is not None:
            rows_kept.put(found, data, len(data.rows) + len(data.additions))
    board = data.leaderboard
    filterset = _filterset(request, data)
    if filterset.is_bound and not filterset.is_valid():
        return render(
            request,
            "leaderboards/leaderboard/bad_request.html",
            {"leaderboard": board, "errors": filterset.errors},
            status=400,
        )
    if prepared is None:
        prepared = _prepare(data)
        keep(found, board.pk, prepared)
        if _too_large_to_keep(prepared):
            _keep_orders(found, board.pk, _results(data), prepared.metrics)
        if not asks_for_a_view(request.GET):
            # A first visit, as the next ones will be answered.
            return _from_parts(request, prepared, board)
    metrics = prepared.metrics
    chosen = Selection.of(request, data, filterset, metrics)
    everything, items = chosen.everything, chosen.matched
    ordered = chosen.ordered
    if not filterset.active and _too_large_to_keep(prepared) and not kept_order(found, chosen.sort):
        _keep_orders(found, board.pk, everything, metrics)
    # Paged by index: a Paginator over the rows themselves stays in the template's
    # context, which is a reference cycle, so on a large board every row outlived the
    # request until a garbage collection walked them all (a quarter of a second with
    # the GIL held, stalling every thread of the worker).
    page_obj = Paginator(range(len(ordered)), ROWS_PER_PAGE).get_page(request.GET.get("page"))
    page_rows = [ordered[index] for index in page_obj.object_list]
    sort_index = chosen.sort[1]
    folding = fold(everything, metrics, request.GET, sort_index, prepared.folding.counts)
    filtered = filterset.active
    names = [metric.name for metric in metrics]
    index = _chart_index(request.GET.get("chart"), names)
    if index == 0 and not filtered:
        # The first metric over every row: the chart the prepared parts hold.
        chart_metric, chart_html, charted = metrics[0], prepared.chart_html, prepared.charted
    else:
        chart_metric, chart = _chart(request.GET.get("chart"), metrics, items)
        chart_html = _chart_html(
            board, chart_metric, chart, filtered=filtered, shown_count=len(items)
        )
        charted = chart is not None
    kept_params = _kept_params(request)
    return _render_page(
        request,
        prepared,
        sort=chosen.sort,
        folding=folding,
        chart_metric=chart_metric,
        chart_html=chart_html,
        charted=charted,
        page_obj=page_obj,
        rows_html=rows_markup(page_rows, names, folding.shown, prepared.checked, prepared.slug),
        filter_html=_filter_html(filterset, kept_params, prepared.syntology),
        filtered=filtered,
        shown_count=len(items),
        kept_params=kept_params,
        board=board,
    )


def _render_page(
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
            "chart_links": [(metric, _query(request, chart=metric.name)) for metric in metrics],
            "clear_href": "?" + urlencode(kept_params),
            "dated_href": _query(request, sort="date", order=ASC, page=None),
            # The CSV holds the rows shown, every page of them: the filters and sort go along.
            "csv_query": _query(request, page=None, chart=None),
        },
    )


# Not a 500: the site works, this one page file cannot be written until the
# board is re-loaded or an editor removes it. Not cached (the page cache keeps 200s only).
UNSERVABLE_STATUS = 503


@expensive
@consistent_read
def leaderboard_json(request, slug):
    data = _page_data(slug)
    try:
        text = page_json(page_document(data))
    except Unservable as error:
        logger.error("leaderboard %s: page file cannot be exported: %s", slug, error)
        return JsonResponse(
            {
                "error": "This leaderboard holds a stored value that cannot be written as JSON, "
                "so its page file cannot be exported. The error has been logged.",
                "leaderboard": data.leaderboard.slug,
                "unshown": [{"block": block, "reason": reason} for block, reason in error.problems],
            },
            status=UNSERVABLE_STATUS,
        )
    return HttpResponse(text, content_type="application/json")


def _bad_filter_text(errors):
    lines = [f"{field}: {message}" for field, messages in errors.items() for message in messages]
    return "That filter could not be read:\n" + "\n".join(lines) + "\n"


@expensive
@consistent_read
def leaderboard_csv(request, slug):
    """The rows the page shows for the same query string: its filters and sort, every page.

    With no query string that is every shown row in archive order. A filter
    value that cannot be read is the page's 400, in plain text for the scripts
    that read this.
    """
    data = _page_data(slug, row_extras=False)
    filterset = _filterset(request, data)
    if filterset.is_bound and not filterset.is_valid():
        return HttpResponse(
            _bad_filter_text(filterset.errors), content_type="text/plain; charset=utf-8", status=400
        )
    shown = [
        item.row
        for item in Selection.of(request, data, filterset, data.metrics, added=False).ordered
    ]
    out = io.StringIO()
    page_csv(data, out, shown)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{data.leaderboard.slug}.csv"'
    return response
