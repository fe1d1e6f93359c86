"""Figures kept on rows of the catalogue so lists can sort and filter by them.

They are derived, never edited: the loader, the importer and editors' actions
call these functions after they change rows.
"""

from django.db import connection
from django.db.models import Count, Exists, IntegerField, Max, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce

from .models import (
    Area,
    Dataset,
    Leaderboard,
    LeaderboardArea,
    Paper,
    Row,
    RowVerification,
    SyntologySnapshot,
    Task,
)


def refresh_leaderboard(leaderboard):
    refresh_leaderboards([leaderboard.pk])


def refresh_leaderboards(ids):
    """Row count, newest paper date, verified rows and since-archive entries of boards.

    A fixed number of statements however many boards: the loader calls this
    once per chunk of pages.
    """
    figures = {
        entry["leaderboard"]: entry
        for entry in Row.objects.filter(leaderboard__in=ids)
        .shown()
        .order_by()
        .values("leaderboard")
        .annotate(
            rows=Count("pk", distinct=True),
            newest=Max("paper_date"),
            verified=Count("pk", distinct=True, filter=Q(verifications__n_ran__gt=0)),
        )
    }
    entries = {}
    # Newest snapshot first, so the first seen for a board is the one shown.
    for board, since in (
        SyntologySnapshot.objects.filter(leaderboard__in=ids)
        .order_by("leaderboard", "-read_at")
        .values_list("leaderboard", "since_archive")
    ):
        entries.setdefault(board, len((since or {}).get("entries") or []))
    # One plain UPDATE per board, sent together: bulk_update's CASE expression
    # over a chunk of boards took seconds on SQLite.
    quote = connection.ops.quote_name
    columns = ("row_count", "newest_paper_date", "verified_row_count", "since_archive_entry_count")
    assignments = ", ".join(f"{quote(column)} = %s" for column in columns)
    values = []
    for pk in ids:
        found = figures.get(pk, {})
        newest = connection.ops.adapt_datefield_value(found.get("newest"))
        values.append(
            (found.get("rows", 0), newest, found.get("verified", 0), entries.get(pk, 0), pk)
        )
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(Leaderboard._meta.db_table)} SET {assignments} WHERE id = %s", values
        )


def _count(queryset, field, aggregate):
    """A correlated subquery giving one aggregate per outer row, 0 when none."""
    return Coalesce(
        Subquery(
            queryset.filter(**{field: OuterRef("pk")})
            .order_by()
            .values(field)
            .annotate(value=aggregate)
            .values("value"),
            output_field=IntegerField(),
        ),
        0,
    )


def refresh_counts():
    """Recompute every catalogue count; a handful of set-based statements."""
    _link_tasks_to_areas()
    boards = Leaderboard.objects.all()
    Task.objects.update(
        leaderboard_count=_count(boards, "task", Count("pk")),
        row_count=_count(boards, "task", Sum("row_count")),
    )
    Dataset.objects.update(
        leaderboard_count=_count(boards, "dataset", Count("pk")),
        row_count=_count(boards, "dataset", Sum("row_count")),
    )
    Area.objects.update(
        task_count=_count(Task.areas.through.objects.all(), "area", Count("pk")),
        leaderboard_count=_count(LeaderboardArea.objects.all(), "area", Count("pk")),
    )
    shown = Row.objects.shown().filter(paper=OuterRef("pk"))
    Paper.objects.update(
        has_code=Exists(
            shown.filter(Q(code__startswith="http://") | Q(code__startswith="https://"))
        ),
        verified=Exists(
            RowVerification.objects.filter(
                row__paper=OuterRef("pk"), row__withheld=False, n_ran__gt=0
            )
        ),
    )


def _link_tasks_to_areas():
    """A task belongs to every area one of its leaderboards is filed under."""
    through = Task.areas.through
    wanted = set(LeaderboardArea.objects.values_list("leaderboard__task_id", "area_id").distinct())
    have = set(through.objects.values_list("task_id", "area_id"))
    through.objects.bulk_create(
        [through(task_id=task, area_id=area) for task, area in wanted - have],
        batch_size=1000,
    )
