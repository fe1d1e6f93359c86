"""A board's page made ready before a visitor asks: its parts, and for a board too large
for a worker to keep, its orders and files, stored at load time (`manage.py prepare_boards`).

The view (leaderboard.py) prepares a board its worker finds unprepared with prepare(); the
loads and prepare_boards store every board's with prepare_boards().
"""

import contextlib
import io
from dataclasses import dataclass

from django.db import connections, router
from django.http import Http404, HttpRequest, QueryDict
from django.urls import reverse

from leaderboards.format.freshness import freshness
from leaderboards.format.rules import n_samples
from leaderboards.models import (
    Leaderboard,
    PreparedPart,
    Row,
    RowVerification,
    SyntologySnapshot,
)
from leaderboards.upkeep.cache import versions
from leaderboards.upkeep.statistics import refresh_changed_statistics, vacuum_rewritten
from leaderboards.web.export import page_csv, page_document, page_json
from leaderboards.web.filters import RowFilter
from leaderboards.web.lead import lead_of
from leaderboards.web.page_data import Unservable
from leaderboards.web.prepared import (
    ASKED_HOST,
    ASKED_SCHEME,
    MetricRef,
    PreparedBoard,
    render_part,
    store,
    stored_key,
)
from leaderboards.web.table import fold, rows_markup
from leaderboards.web.views.board_page import (
    ROWS_PER_PAGE,
    chart_markup,
    chart_of,
    filter_markup,
    from_parts,
    page_data,
    results,
)
from leaderboards.web.views.large_board import orders_of, too_large_to_keep
from leaderboards.web.views.reads import consistent_read


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


def prepare(data):
    """`data`'s page as a PreparedBoard: the parts it shows whatever the query string."""
    board = data.leaderboard
    metrics = tuple(MetricRef(m.name, m.direction, m.direction_set_by) for m in data.metrics)
    everything = results(data)
    added_count = len(data.additions)
    folding = fold(everything, metrics, QueryDict(), None)
    document = data.summary()
    since = document["since_archive"]
    entries = data.since_table(since)
    if entries is None:
        since = None
    history = _history(board)
    checked = data.snapshot is not None
    chart_metric, chart = chart_of(None, metrics, everything)
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
        "freshness": freshness(board, document["source"]),
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
        chart_html=chart_markup(
            board, chart_metric, chart, filtered=False, shown_count=len(everything)
        ),
        charted=chart is not None,
        first_rows_html=rows_markup(first_rows, names, folding.shown, checked, board.slug),
        filter_html=filter_markup(
            RowFilter(None, queryset=Row.objects.none(), tags=tags), [], syntology
        ),
        tag_counts=tags,
    )


class _AskedNowhere(HttpRequest):
    """A visitor's request for a board's own address, no query string, no cookie, on the
    scheme and host the stored page holds in place of the asked ones (prepared.ASKED_ORIGIN)."""

    scheme = ASKED_SCHEME

    def __init__(self, path):
        super().__init__()
        self.method = "GET"
        self.path = self.path_info = path

    def get_host(self):
        return ASKED_HOST


def whole_page(prepared):
    """The board's page with no query string, as from_parts renders it for a visitor, as
    bytes: what the view serves from the store, the asked scheme and host filled in."""
    return from_parts(_AskedNowhere(prepared.url), prepared).content


@dataclass(slots=True)
class Prepared:
    """What prepare_boards() did: boards prepared, with the bytes stored, and left."""

    made: list  # (slug, rows, bytes stored)
    unchanged: list  # slugs whose parts were made for their current versions already


def prepare_boards(slugs=None, *, on_made=None):
    """Make and store (prepared.store) the page parts of each board and its page with no
    query string, and for a board too large for a worker to keep every sort's order and its
    files, for its current versions;
    `slugs` narrows the boards. `on_made(slug, rows, size)` hears of each as it is stored.

    Run at the end of every load: a crawler's first visit to a board since the load is
    then answered from its stored page, read once, not from its rows (a cold page cost 18
    ms of a worker's time, 2.7% of the static file's rate) nor rendered around its parts,
    in any worker, after any restart; and no worker reads a large board's rows for a view
    that narrows nothing (large_board.py). A board whose parts are its current versions'
    already is left, so the work is in proportion to what the load changed.
    """
    site = versions()
    boards = Leaderboard.objects.order_by("slug")
    if slugs is not None:
        boards = boards.filter(slug__in=slugs)
    outcome = Prepared([], [])
    fields = ("slug", "id", "version", "row_count", "prepared_key")
    for slug, board_id, version, rows, prepared_key in boards.values_list(*fields):
        found = site._replace(board=version, board_id=board_id, board_rows=rows)
        if prepared_key and prepared_key == stored_key(found):
            outcome.unchanged.append(slug)
            continue
        try:
            found, board_id, prepared, orders, files = _read_for_store(None, slug)
        except Http404:
            continue  # deleted since
        size = store(found, board_id, prepared, orders, files, whole_page(prepared))
        rows = prepared.total_count + prepared.added_count
        outcome.made.append((slug, rows, size))
        if on_made is not None:
            on_made(slug, rows, size)
    if outcome.made:
        # Each board prepared names its parts: past autovacuum's share of the boards (a
        # whole import), the lists' index-only scans would read the table until a VACUUM.
        vacuum_rewritten(Leaderboard, len(outcome.made), len(outcome.made) + len(outcome.unchanged))
        # And the parts' own table, as the load's end does its tables, or the next load's
        # end would find it changed and analyze it for this one.
        refresh_changed_statistics(PreparedPart._meta.db_table.replace("_", "\\_"))
    return outcome


@consistent_read
def _read_for_store(_request, slug):
    """A board's versions, parts, and a large board's orders and files, read at one
    moment (as a page's are)."""
    found = versions(slug)
    data = page_data(slug, row_extras=False, slot=False)
    prepared = prepare(data)
    if not too_large_to_keep(prepared):
        # A worker keeps such a board's rows once read: its views sort those.
        return found, found.board_id, prepared, {}, {}
    orders = orders_of(results(data), prepared.metrics)
    out = io.StringIO()
    page_csv(data, out, [item.row for item in results(data, added=False)])
    files = {"csv": out.getvalue()}
    del data, out  # the rows read again, with their extra keys, for the page file
    # One that cannot be written answers 503, as it does made from the rows.
    with contextlib.suppress(Unservable):
        files["json"] = page_json(page_document(page_data(slug, slot=False)))
    return found, found.board_id, prepared, orders, files
