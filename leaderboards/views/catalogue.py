"""Browsing the catalogue: areas, tasks, datasets and papers."""

from django.shortcuts import get_object_or_404, render

from ..models import Area, Dataset, Paper, Task


def area_detail(request, slug):
    area = get_object_or_404(Area, slug=slug)
    tasks = area.tasks.order_by("name")
    return render(request, "leaderboards/area_detail.html", {"area": area, "tasks": tasks})


def task_detail(request, slug):
    task = get_object_or_404(Task, slug=slug)
    leaderboards = task.leaderboards.select_related("dataset").order_by("dataset__name")
    return render(
        request, "leaderboards/task_detail.html", {"task": task, "leaderboards": leaderboards}
    )


def dataset_detail(request, slug):
    dataset = get_object_or_404(Dataset, slug=slug)
    leaderboards = dataset.leaderboards.select_related("task").order_by("task__name")
    return render(
        request,
        "leaderboards/dataset_detail.html",
        {"dataset": dataset, "leaderboards": leaderboards},
    )


def paper_detail(request, slug):
    paper = get_object_or_404(Paper, slug=slug)
    rows = (
        paper.rows.shown()
        .select_related("leaderboard__task", "leaderboard__dataset")
        .order_by("leaderboard__slug", "rank")
    )
    return render(request, "leaderboards/paper_detail.html", {"paper": paper, "rows": rows})
