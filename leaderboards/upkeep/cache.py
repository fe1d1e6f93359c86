"""The versions that key the cached pages, raised when the data behind them changes.

Three versions key the cached pages (web/page_cache.py), each read once a
request from the database the page itself would be read from:

- a board's own pages (/sota/<slug>, its .json and .csv, its API entries) by
  that board's `Leaderboard.version`, raised when the board changes;
- every other page (lists, catalogue, search, feeds, sitemaps: any of which
  may show any board) by `SiteState.catalogue_version`, raised when any board
  changes;
- every page by `SiteState.data_version` too, raised when something boards
  share changes (a task, a dataset, an area, a paper), which any board's page
  may show.

So an editor's action on one board, or a load of one board, retires that
board's pages and the lists, and leaves every other board's pages cached.

Versions are raised after the change commits (or, for a load, in the same
transaction as the board's rows), never before: a lagging replica gives an
old version with old rows, never a new version with old rows. Bulk writes
send no signals, so the one writer and the editors' decisions say what they
changed (data_changed); single saves and deletes, the admin's included, are
caught by signals.

The write side owns the numbers, so versions(), which the page cache reads,
lives here too: it must know of the bump a transaction holds pending.
"""

import datetime
from typing import NamedTuple

from django.db import connections, router, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from leaderboards.models import (
    BoardChange,
    BusiestTask,
    DataLoad,
    Leaderboard,
    MetricValue,
    PreparedPart,
    RowVerification,
    SearchEntry,
    SearchPrefix,
    SiteState,
    UpkeepPending,
    page_version_now,
)


class Versions(NamedTuple):
    """What a page's cache key is made of; (0, 0, None, None) before the first change."""

    data: int
    catalogue: int
    # When data_version was last raised.
    changed_at: datetime.datetime | None
    # The board's Leaderboard.version, for a board's page; None for other pages
    # and for a slug no board has.
    board: int | None = None
    # The board's id, for a board's page whose slug names one.
    board_id: int | None = None
    # Its shown rows: whether a worker may keep them (web/prepared.py's RowsKept).
    board_rows: int | None = None
    # The key its page's parts were stored under at load time, "" if none.
    board_prepared: str | None = None


def versions(board_slug=None):
    """The versions a page is cached under, for one board's page or any other.

    Plain SQL, not the ORM: it runs on every request, cached or not, and
    building the query cost more than running it.
    """
    alias = router.db_for_read(SiteState)
    connection = connections[alias]
    if connection.in_atomic_block:
        # Read inside a transaction that has written (a test, a shell): what is
        # cached now may hold its writes so far, so its next write needs a
        # bump of its own rather than the one already pending.
        for _, callback, _ in connection.run_on_commit:
            if isinstance(callback, _BumpAfterCommit):
                callback.pending = False
    with connection.cursor() as cursor:
        if board_slug is None:
            cursor.execute(_site_sql(connection))
        else:
            cursor.execute(_board_sql(connection), [board_slug])
        row = cursor.fetchone()
    if row is None:
        return Versions(0, 0, None)
    data, catalogue, changed_at, *board = row
    if data is None:
        data, catalogue = 0, 0
    if isinstance(changed_at, str):
        changed_at = parse_datetime(changed_at)
    if changed_at is not None and changed_at.tzinfo is None:
        # SQLite keeps UTC without saying so.
        changed_at = changed_at.replace(tzinfo=datetime.UTC)
    return Versions(data, catalogue, changed_at, *board)


def _site_sql(connection):
    table = connection.ops.quote_name(SiteState._meta.db_table)
    return f"SELECT data_version, catalogue_version, changed_at FROM {table} WHERE id = 1"


def _board_sql(connection):
    # A row whether or not the site state or the board exists.
    site = connection.ops.quote_name(SiteState._meta.db_table)
    boards = connection.ops.quote_name(Leaderboard._meta.db_table)
    return (
        "SELECT s.data_version, s.catalogue_version, s.changed_at, b.version, b.id, b.row_count, "
        "b.prepared_key "
        "FROM (SELECT 1 AS one) AS o "
        f"LEFT JOIN {site} AS s ON s.id = 1 "
        f"LEFT JOIN {boards} AS b ON b.slug = %s"
    )


def bump_data_version(using="default"):
    """Retire every cached page, in every process sharing this database."""
    now = timezone.now()
    bumped = (
        SiteState.objects.using(using)
        .filter(pk=1)
        .update(data_version=F("data_version") + 1, changed_at=now)
    )
    if not bumped:
        # The row is missing (a flushed database): its first bump makes it.
        SiteState.objects.using(using).bulk_create(
            [SiteState(pk=1, data_version=1, changed_at=now)], ignore_conflicts=True
        )


def bump_catalogue_version(using="default"):
    """Retire every cached page but the boards' own: some board changed.

    The version is a time (microseconds), so it also says when the lists last
    changed (their Last-Modified).
    """
    now = page_version_now()
    bumped = (
        SiteState.objects.using(using)
        .filter(pk=1)
        .update(catalogue_version=Greatest(F("catalogue_version") + 1, Value(now)))
    )
    if not bumped:
        SiteState.objects.using(using).bulk_create(
            [SiteState(pk=1, catalogue_version=now, changed_at=timezone.now())],
            ignore_conflicts=True,
        )


def bump_boards(board_ids, using="default"):
    """Retire these boards' cached pages and the lists that show them."""
    if board_ids:
        Leaderboard.objects.using(using).filter(pk__in=board_ids).update(
            version=Greatest(F("version") + 1, Value(page_version_now()))
        )
    bump_catalogue_version(using)


class _BumpAfterCommit:
    """An on_commit callback that a transaction holds at most once.

    It gathers the boards the transaction changed, or that it changed
    something every board may show. Django drops a savepoint's callbacks when
    the savepoint rolls back, so finding one pending means a bump will follow
    this transaction's commit.
    """

    def __init__(self, using):
        self.using = using
        self.pending = True
        self.everything = False
        self.boards = set()
        # Values and verifications name their board through a row or a
        # snapshot: looked up once at the end, not once for each of the
        # thousands a board's deletion cascades to. Those gone by then went with
        # their board or row, whose own deletion is counted.
        self.rows = set()
        self.snapshots = set()

    def __call__(self):
        if self.everything:
            bump_data_version(self.using)
            return
        boards = Leaderboard.objects.using(self.using)
        found = set(self.boards)
        if self.rows:
            found.update(boards.filter(rows__in=self.rows).values_list("pk", flat=True))
        if self.snapshots:
            found.update(boards.filter(snapshots__in=self.snapshots).values_list("pk", flat=True))
        bump_boards(sorted(found), self.using)


def data_changed(using="default", boards=None):
    """Retire cached pages once the current transaction commits (now, outside one).

    boards: the ids of the only boards changed, whose pages go with the lists;
    None when something any board may show changed, so every page goes.

    After the commit, not inside the transaction: no lock on the SiteState row
    is held while a load or an editor writes, and readers never see the new
    version before the new rows.
    """
    _after_commit(using, boards=boards or (), everything=boards is None)


def _after_commit(using, *, everything=False, boards=(), rows=(), snapshots=()):
    """Add to this transaction's pending bump, or make one.

    A new one is filled before it is scheduled: outside a transaction,
    on_commit runs it at once.
    """
    connection = connections[using]
    callback = None
    if connection.in_atomic_block:
        for _, pending, _ in connection.run_on_commit:
            if isinstance(pending, _BumpAfterCommit) and pending.pending:
                callback = pending
                break
    fresh = callback is None
    if fresh:
        callback = _BumpAfterCommit(using)
    callback.everything |= everything
    callback.boards.update(boards)
    callback.rows.update(rows)
    callback.snapshots.update(snapshots)
    if fresh:
        transaction.on_commit(callback, using=using, robust=True)


def _on_write(sender, instance, using="default", **kwargs):
    _object_changed(instance, using)


def _on_m2m(sender, instance, action, using="default", **kwargs):
    if action.startswith("post_"):
        _object_changed(instance, using)


def _object_changed(instance, using):
    """A single save or delete: its board's pages go, or every page for what boards share."""
    if isinstance(instance, Leaderboard):
        data_changed(using, [instance.pk])
    elif getattr(instance, "leaderboard_id", None) is not None:
        data_changed(using, [instance.leaderboard_id])
    elif isinstance(instance, MetricValue):
        _after_commit(using, rows=[instance.row_id])
    elif isinstance(instance, RowVerification):
        _after_commit(using, snapshots=[instance.snapshot_id])
    else:
        data_changed(using)


def connect_signals():
    from django.apps import apps

    for model in apps.get_app_config("leaderboards").get_models():
        if model in (
            SiteState,
            UpkeepPending,
            BusiestTask,
            SearchEntry,
            SearchPrefix,
            PreparedPart,
            DataLoad,
            BoardChange,
        ):
            # Bookkeeping, or figures, search entries and prepared pages derived
            # from the data at the end of the work that changed it, which retires
            # the pages itself (prepared pages raising their board's version
            # would be stale as soon as stored); or a load's record of what it
            # changed, written by the load, which raises the versions of what it
            # wrote (a DataLoad retiring every page made each one-board load retire
            # every board's pages and prepared parts).
            continue
        post_save.connect(_on_write, sender=model, dispatch_uid=f"page-cache-save-{model}")
        post_delete.connect(_on_write, sender=model, dispatch_uid=f"page-cache-delete-{model}")
        for field in model._meta.local_many_to_many:
            m2m_changed.connect(
                _on_m2m, sender=field.remote_field.through, dispatch_uid=f"page-cache-m2m-{field}"
            )
