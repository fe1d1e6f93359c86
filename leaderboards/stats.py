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
    Two queries, as the loader calls this for every board it writes.
    """
    first = leaderboard.metrics.order_by("position").first()
    value = MetricValue.objects.filter(row=OuterRef("pk"), metric=first)
    rows = list(
        Row.objects.filter(leaderboard=leaderboard)
        .shown()
        .order_by("rank")
        .values_list(
            "model",
            Subquery(value.values("raw")[:1]),
            Subquery(value.values("number")[:1]),
        )
    )
    if not rows:
        return {"top_model": "", "top_metric": "", "top_value": None, "top_is_best": False}
    direction = first.direction if first is not None else None
    numbered = [row for row in rows if row[2] is not None]
    if direction and numbered:
        sign = 1 if direction == "higher" else -1
        # max() keeps the first of equal rows: the archive's order breaks ties.
        model, raw, _ = max(numbered, key=lambda row: sign * row[2])
        return {"top_model": model, "top_metric": first.name, "top_value": raw, "top_is_best": True}
    model, raw, _ = rows[0]
    return {
        "top_model": model,
        "top_metric": first.name if first is not None else "",
        "top_value": raw,
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
