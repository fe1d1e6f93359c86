"""The leaderboard page and its exports.

All three read one `PageData`, so the page, the JSON and the CSV show the same
rows and the same figures.
"""

import io
import logging
import zlib
from dataclasses import dataclass

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control

from leaderboards.models import Row
from leaderboards.templatetags.editing import without_session
from leaderboards.web.export import page_csv, page_document, page_json
from leaderboards.web.filters import RowFilter
from leaderboards.web.limiter import expensive, page_limiter, take_slot
from leaderboards.web.page_data import Unservable
from leaderboards.web.prepared import (
    asks_for_a_view,
    asks_for_other_rows,
    has_stored_file,
    keep,
    kept,
    kept_order,
    rows_kept,
    stored_file,
    stored_file_tag,
    stored_page,
)
from leaderboards.web.table import (
    fold,
    resolve_sort,
    sort_rows,
)
from leaderboards.web.views.board_page import (
    ROWS_PER_PAGE,
    AnsweredMeanwhile,
    bad_filter,
    chart_index,
    chart_markup,
    chart_of,
    from_parts,
    page_data,
    results,
    view_page,
)
from leaderboards.web.views.large_board import (
    detail_along_order,
    keep_orders,
    too_large_to_keep,
    without_rows,
)
from leaderboards.web.views.preparing import prepare
from leaderboards.web.views.reads import consistent_read

logger = logging.getLogger(__name__)


def _filterset(request, data):
    rows = Row.objects.filter(leaderboard=data.leaderboard).shown()
    return RowFilter(
        request.GET or None, queryset=rows, snapshot=data.snapshot, tags=data.tag_counts()
    )


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
        everything = results(data, added=added)
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
    """The board's page; as prepare_boards stored it when asked with no query string, from
    its prepared parts alone when the query string asks for no view."""
    found = getattr(request, "page_versions", None)
    # Only with no cookie of a session: the page would read it (an editor's "Edit" link).
    if not request.META.get("QUERY_STRING") and without_session(request):
        page = stored_page(found, request.scheme, request.get_host())
        if page is not None:
            return HttpResponse(page)
    prepared = kept(found)
    if prepared is not None and not asks_for_a_view(request.GET):
        return from_parts(request, prepared)
    return _detail_from_rows(request, slug, found, prepared)


@expensive
@consistent_read
def _detail_from_rows(request, slug, found, prepared):
    """The page built from the board's rows: a view the query string asks for, or a first visit."""
    if prepared is not None and too_large_to_keep(prepared):
        response = detail_along_order(request, slug, found, prepared)
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
            if prepared is None or too_large_to_keep(prepared):
                return without_rows(request, slug, found)
            return None

        try:
            data = page_data(slug, row_extras=False, meanwhile=meanwhile)
        except AnsweredMeanwhile as answered:
            return answered.response
        if prepared is not None:
            rows_kept.put(found, data, len(data.rows) + len(data.additions))
    board = data.leaderboard
    filterset = _filterset(request, data)
    if filterset.is_bound and not filterset.is_valid():
        return bad_filter(request, board, filterset.errors)
    if prepared is None:
        prepared = prepare(data)
        keep(found, board.pk, prepared)
        if too_large_to_keep(prepared):
            keep_orders(found, board.pk, results(data), prepared.metrics)
        if not asks_for_a_view(request.GET):
            # A first visit, as the next ones will be answered.
            return from_parts(request, prepared, board)
    metrics = prepared.metrics
    chosen = Selection.of(request, data, filterset, metrics)
    everything, items = chosen.everything, chosen.matched
    ordered = chosen.ordered
    if not filterset.active and too_large_to_keep(prepared) and not kept_order(found, chosen.sort):
        keep_orders(found, board.pk, everything, metrics)
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
    index = chart_index(request.GET.get("chart"), names)
    if index == 0 and not filtered:
        # The first metric over every row: the chart the prepared parts hold.
        chart_metric, chart_html, charted = metrics[0], prepared.chart_html, prepared.charted
    else:
        chart_metric, chart = chart_of(request.GET.get("chart"), metrics, items)
        chart_html = chart_markup(
            board, chart_metric, chart, filtered=filtered, shown_count=len(items)
        )
        charted = chart is not None
    return view_page(
        request,
        prepared,
        board,
        filterset,
        (chart_metric, chart_html, charted),
        sort=chosen.sort,
        folding=folding,
        page_obj=page_obj,
        page_rows=page_rows,
        shown_count=len(items),
    )


UNSERVABLE_STATUS = 503


@expensive
def leaderboard_json(request, slug):
    """The board's page file; a large board's as prepare_boards stored it."""
    stored = _stored_file(request, "json", "application/json")
    return stored if stored is not None else _json_from_rows(request, slug)


def _stored_file(request, kind, content_type):
    """The response of a large board's file as prepare_boards stored it, or None.

    Streamed as it is inflated: whole, two 31 MB page files at once and their copies
    took a worker past 300 MB, and it was replaced. Not kept in the page cache (it is
    kept already), so its ETag and conditional answers are made here.
    """
    found = getattr(request, "page_versions", None)
    tag = stored_file_tag(found, kind)
    if tag is None:
        return None
    etag = f'"{tag}"'
    # A browser's kept copy is answered without reading the file (3 MB from the database).
    if request.headers.get("If-None-Match") == etag and has_stored_file(found, kind):
        return get_conditional_response(request, etag=etag, response=HttpResponse())
    packed = stored_file(found, kind)
    if packed is None:
        return None
    # A page slot held while it is sent (a second of a worker for 31 MB), not only
    # while the view runs: sixteen clients downloading it starved the cached pages.
    slot = page_limiter().slot()
    slot.__enter__()  # Busy: the 503 expensive() gives
    response = StreamingHttpResponse(_Inflated(packed, slot), content_type=content_type)
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=settings.SOTASITE_PAGE_MAX_AGE)
    return response


class _Inflated:
    """`packed` inflated a piece at a time. The server closes the response when it is
    sent, dropped or never read (a HEAD): `close` gives its slot back then, which a
    generator's `finally` would not do for one never started."""

    STEP = 1 << 16

    def __init__(self, packed, slot):
        self.packed, self.slot = packed, slot

    def __iter__(self):
        inflate = zlib.decompressobj()
        for start in range(0, len(self.packed), self.STEP):
            yield inflate.decompress(self.packed[start : start + self.STEP])
        yield inflate.flush()

    def close(self):
        slot, self.slot = self.slot, None
        if slot is not None:
            slot.__exit__(None, None, None)


@consistent_read
def _json_from_rows(request, slug):
    data = page_data(slug)
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
def leaderboard_csv(request, slug):
    """The rows the page shows for the same query string: its filters and sort, every page.

    With no query string that is every shown row in archive order. A filter
    value that cannot be read is the page's 400, in plain text for the scripts
    that read this.
    """
    stored = None
    if not asks_for_other_rows(request.GET):
        stored = _stored_file(request, "csv", "text/csv; charset=utf-8")
    if stored is None:
        return _csv_from_rows(request, slug)
    stored["Content-Disposition"] = f'inline; filename="{slug}.csv"'
    return stored


@consistent_read
def _csv_from_rows(request, slug):
    data = page_data(slug, row_extras=False)
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
