from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from .export import PageData, page_json
from .models import Area, Dataset, Leaderboard, Paper, Task


def _page_data(slug):
    return PageData(get_object_or_404(Leaderboard.objects.for_page(), slug=slug))


def leaderboard_detail(request, slug):
    data = _page_data(slug)
    return render(
        request,
        "leaderboards/leaderboard_detail.html",
        {"leaderboard": data.leaderboard, "page": data},
    )


def leaderboard_json(request, slug):
    return HttpResponse(page_json(_page_data(slug).document()), content_type="application/json")


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
