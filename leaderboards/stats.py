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
    MetricValue,
    Paper,
    Row,
    RowVerification,
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
        **top_result(leaderboard),
    )


def top_result(leaderboard):
    """The result lists show for a board, as Leaderboard field values.

    The best shown row by the first metric when that metric's direction is
    known (ties to the archive's order); otherwise, or when no row has a
    number for it, the archive's first shown row, and `top_is_best` says so.
    """
    first = leaderboard.metrics.order_by("position").first()
    if first is not None and first.direction:
        order = "-number" if first.direction == "higher" else "number"
        best = (
            MetricValue.objects.filter(metric=first, row__withheld=False, number__isnull=False)
            .order_by(order, "row__rank")
            .values_list("row__model", "raw")
            .first()
        )
        if best is not None:
            return {
                "top_model": best[0],
                "top_metric": first.name,
                "top_value": best[1],
                "top_is_best": True,
            }
    row = Row.objects.filter(leaderboard=leaderboard).shown().order_by("rank").first()
    if row is None:
        return {"top_model": "", "top_metric": "", "top_value": None, "top_is_best": False}
    value = None
    if first is not None:
        value = row.values.filter(metric=first).values_list("raw", flat=True).first()
    return {
        "top_model": row.model,
        "top_metric": first.name if first is not None else "",
        "top_value": value,
        "top_is_best": False,
    }


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
