"""Figures kept on rows of the catalogue so lists can sort and filter by them.

They are derived, never edited: the loader, the importer and editors' actions
call these functions after they change rows.
"""

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
    """Row count, newest paper date and verified rows of one leaderboard's shown rows."""
    figures = (
        Row.objects.filter(leaderboard=leaderboard)
        .shown()
        .aggregate(
            rows=Count("pk"),
            newest=Max("paper_date"),
            verified=Count("pk", filter=Q(verifications__n_ran__gt=0)),
        )
    )
    since = leaderboard.snapshots.newest_first().values_list("since_archive", flat=True).first()
    Leaderboard.objects.filter(pk=leaderboard.pk).update(
        row_count=figures["rows"],
        newest_paper_date=figures["newest"],
        verified_row_count=figures["verified"],
        since_archive_entry_count=len((since or {}).get("entries") or []),
    )


def refresh_leaderboards(ids):
    """refresh_leaderboard for many boards at once, in three statements.

    The same figures by the same rules; the bulk import calls it for each chunk
    of new boards, where one call per board would be most of the import's time.
    """
    shown = Row.objects.shown()
    newest = (
        shown.filter(leaderboard=OuterRef("pk"))
        .order_by()
        .values("leaderboard")
        .annotate(value=Max("paper_date"))
        .values("value")
    )
    Leaderboard.objects.filter(pk__in=ids).update(
        row_count=_count(shown, "leaderboard", Count("pk")),
        newest_paper_date=Subquery(newest),
        verified_row_count=_count(
            shown.filter(verifications__n_ran__gt=0), "leaderboard", Count("pk")
        ),
    )
    entries = {}
    for board, since in (
        SyntologySnapshot.objects.filter(leaderboard__in=ids)
        .order_by("leaderboard", "-read_at")
        .values_list("leaderboard", "since_archive")
    ):
        entries.setdefault(board, len((since or {}).get("entries") or []))
    Leaderboard.objects.bulk_update(
        [Leaderboard(pk=pk, since_archive_entry_count=n) for pk, n in entries.items()],
        ["since_archive_entry_count"],
        batch_size=500,
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
