"""The home page: the archive by area, the newest results, site totals."""

from django.db.models import Count, F, Sum, Window
from django.db.models.functions import RowNumber
from django.shortcuts import render

from leaderboards.models import Area, Leaderboard, Paper, Row, Task

BUSIEST_PER_AREA = 5
NEWEST = 10


def home(request):
    ranked = Task.areas.through.objects.annotate(
        place=Window(
            RowNumber(),
            partition_by=[F("area")],
            order_by=[F("task__leaderboard_count").desc(), F("task__name"), F("task")],
        )
    )
    busiest = {}
    # Only the columns shown: the window sorts every task-area link, and narrow rows sort fast.
    busiest_links = (
        ranked.filter(place__lte=BUSIEST_PER_AREA)
        .select_related("task")
        .only("area_id", "task__name", "task__slug", "task__leaderboard_count")
        .order_by("area", "place")
    )
    for link in busiest_links:
        busiest.setdefault(link.area_id, []).append(link.task)
    areas = [
        (area, busiest.get(area.pk, []))
        for area in Area.objects.filter(leaderboard_count__gt=0).order_by("name")
    ]
    newest = (
        Row.objects.shown()
        .filter(paper_date__isnull=False)
        .select_related("leaderboard__task", "leaderboard__dataset", "paper")
        .order_by("-paper_date", "-pk")[:NEWEST]
    )
    totals = Leaderboard.objects.aggregate(leaderboards=Count("pk"), rows=Sum("row_count"))
    totals["tasks"] = Task.objects.filter(leaderboard_count__gt=0).count()
    totals["papers"] = Paper.objects.count()
    return render(
        request,
        "leaderboards/home.html",
        {"areas": areas, "newest": newest, "totals": totals},
    )
