"""The home page: the archive by area, the newest results, site totals."""

from django.shortcuts import render

from leaderboards.models import Area, BusiestTask, Row, SiteState

NEWEST = 10
TOTALS = ("leaderboard_count", "task_count", "row_count", "paper_count")


def home(request):
    # Ranked and counted at the end of each load (upkeep.figures.refresh_counts):
    # ranking every task-area link and counting every board and paper here
    # took 300 ms at ten times the archive.
    busiest = {}
    for link in (
        BusiestTask.objects.select_related("task")
        .only("area_id", "task__name", "task__slug", "task__leaderboard_count")
        .order_by("area", "place")
    ):
        busiest.setdefault(link.area_id, []).append(link.task)
    areas = [
        (area, busiest.get(area.pk, []))
        for area in Area.objects.filter(leaderboard_count__gt=0).order_by("name")
    ]
    newest = Row.objects.newest_results()[:NEWEST]
    # No row, or no totals, before the first load: nothing loaded, nothing counted.
    totals = SiteState.objects.filter(pk=1).values(*TOTALS).first() or {}
    return render(
        request,
        "leaderboards/home.html",
        {"areas": areas, "newest": newest, "totals": totals},
    )
