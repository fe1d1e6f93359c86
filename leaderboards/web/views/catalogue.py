"""Browsing the catalogue: lists and pages of areas, tasks, datasets, papers, leaderboards."""

import datetime

from django.core.paginator import Paginator
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.functional import cached_property

from leaderboards.models import (
    Area,
    Dataset,
    Leaderboard,
    Paper,
    Row,
    Task,
)
from leaderboards.web.catalogue_filters import (
    DatasetFilter,
    LeaderboardFilter,
    PaperFilter,
    TaskFilter,
)

PER_PAGE = 50


# A list whose count no figure the loader keeps says is counted up to this
# many; past it the page says "more than" and offers 20 pages of them, read
# forwards. At ten times the archive, counting every match of a broad filter
# (63,000 papers with "learning" in the title) took 150 ms on PostgreSQL, and
# the 100th page of a 5,000 limit 160 ms on SQLite (an OFFSET reads every row
# it skips). A reader past the 20th page narrows the list or turns its sort.
COUNT_LIMIT = 1000


class ListPaginator(Paginator):
    """Pages of a query ordered to a unique last column, each read from its nearer end.

    A page past the middle is read in the reverse order and turned round: the
    OFFSET, which reads every row it skips, then counts from the end, so the
    last page of a long list costs what the first does. `count`, where a count
    kept by the loader says it, is the number of items, which then is not
    counted; else the items are counted up to COUNT_LIMIT, and `capped` says
    when there are more.

    A page in the second half of the limit, asked for when the count is not
    kept, is read with the count in one walk (see read_with_count).
    """

    capped = False
    # The first COUNT_LIMIT + 1 items in order, when read_with_count() read them.
    first = None

    def __init__(self, object_list, per_page, count=None):
        super().__init__(object_list, per_page)
        if count is not None:
            # Paginator.count is a cached property: set, it is never counted.
            self.count = count

    @cached_property
    def count(self):
        # Unordered: the database stops at the limit by whatever path is cheapest.
        found = self.object_list.order_by()[: COUNT_LIMIT + 1].count()
        self.capped = found > COUNT_LIMIT
        return min(found, COUNT_LIMIT)

    def get_page(self, number):
        self.read_with_count(number)
        return super().get_page(number)

    def read_with_count(self, number):
        """Count by reading the first COUNT_LIMIT + 1 items in order, if page `number` is deep.

        The count stops at the limit's match and the page's walk at its own
        last: for a page near the limit's end they walk the same rows, and on
        a filter that matches a board in ten (`/sota/?task=detection&min_rows=5`
        at ten times the archive, PostgreSQL) each took 30 ms. One walk in
        order that keeps the ids gives both; for a first page it would walk
        twenty times as far as the page does, so it is kept for the deep half.
        """
        if "count" in self.__dict__:
            return
        try:
            number = int(number)
        except (TypeError, ValueError):
            return
        if number * self.per_page * 2 <= COUNT_LIMIT:
            return
        self.first = list(self.object_list[: COUNT_LIMIT + 1])
        self.capped = len(self.first) > COUNT_LIMIT
        self.count = min(len(self.first), COUNT_LIMIT)

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = min(bottom + self.per_page, self.count)
        if self.first is not None:
            return self._get_page(self.first[bottom:top], number, self)
        # A capped list's end is not the end of its items: read forwards.
        if self.capped or bottom <= self.count - top:
            return self._get_page(self.object_list[bottom:top], number, self)
        backwards = self.object_list.reverse()[self.count - top : self.count - bottom]
        return self._get_page(list(backwards)[::-1], number, self)


def _page(request, queryset, per_page=PER_PAGE, count=None, rows=None):
    """One page of a list; an unreadable or out-of-range ?page= gives the nearest page.

    The page is found on primary keys alone, which the sort's index covers, and
    only its rows are then read whole, from `rows` (the list's query before its
    filters; by default `queryset`): their ids say which, and a filter's
    subquery, run again, cost as much as finding them. `count`, when given, is
    the number of items, which then is not counted.
    """
    paginator = ListPaginator(queryset.values_list("pk", flat=True), per_page, count)
    page = paginator.get_page(request.GET.get("page"))
    ids = list(page.object_list)
    by_id = (queryset if rows is None else rows).order_by().in_bulk(ids)
    # A row deleted between the two reads (a load running) is left out, not a 500.
    page.object_list = [by_id[pk] for pk in ids if pk in by_id]
    return page


def find_or_redirect(model, slug, queryset=None):
    """(object, None) by its slug, or (None, a permanent redirect) from the PwC slug it had.

    A paper or dataset first known from a page file keeps that file's slug;
    where its PwC URL's slug differs, PwC's address for it still arrives.
    """
    found = (queryset if queryset is not None else model.objects).filter(slug=slug).first()
    if found is not None:
        return found, None
    moved = model.objects.filter(pwc_slug=slug).values_list("slug", flat=True).first()
    if moved is None:
        return None, None
    return None, redirect(model(slug=moved).get_absolute_url(), permanent=True)


def _filtered_list(request, filter_class, queryset, template):
    """A list page: its filter form, one page of results, and 400 for unreadable filters."""
    filterset = filter_class(request.GET, queryset=queryset)
    valid = filterset.is_valid()
    if valid:
        page = _page(request, filterset.qs, count=filterset.known_count(), rows=queryset)
    else:
        page = _page(request, queryset.none())
    return render(
        request,
        template,
        {"filter": filterset, "page_obj": page},
        status=200 if valid else 400,
    )


def area_list(request):
    # A handful of areas: one page, no filters.
    return render(request, "leaderboards/area_list.html", {"areas": Area.objects.order_by("name")})


def area_detail(request, slug):
    area = get_object_or_404(Area, slug=slug)
    tasks = Task.objects.in_area(area).order_by("-leaderboard_count", "name", "pk")
    page = _page(request, tasks, count=area.task_count)
    return render(request, "leaderboards/area_detail.html", {"area": area, "page_obj": page})


def task_list(request):
    return _filtered_list(request, TaskFilter, Task.objects.all(), "leaderboards/task_list.html")


def task_detail(request, slug):
    task = get_object_or_404(Task.objects.select_related("parent"), slug=slug)
    leaderboards = task.leaderboards.for_list().order_by("slug")
    return render(
        request,
        "leaderboards/task_detail.html",
        {
            "task": task,
            "areas": task.areas.order_by("name"),
            "subtasks": task.subtasks.order_by("-tree_leaderboard_count", "name", "pk"),
            "page_obj": _page(request, leaderboards),
        },
    )


def dataset_list(request):
    return _filtered_list(
        request, DatasetFilter, Dataset.objects.all(), "leaderboards/dataset_list.html"
    )


# The newest of a dataset's papers its page names; the paper list filtered
# by the dataset pages through them all.
DATASET_PAPERS = 10


def dataset_papers(dataset):
    """The papers of a dataset's boards' shown rows, newest first.

    Found from the dataset's boards' rows, then sorted: asked as a filter on every paper
    (EXISTS a row), SQLite walked the papers newest first, probing each, and a dataset
    whose papers are few read all 576,000 (0.5 to 1 s at PwC's size; 2 ms now)."""
    rows = Row.objects.filter(leaderboard__dataset=dataset, withheld=False).values("paper_id")
    # NEWEST_FIRST's order (undated last, as the earliest date), written so that no
    # index of papers serves it: else a planner may walk every paper in that order,
    # probing each for a row, which at this test's size SQLite and PostgreSQL chose.
    undated_last = Coalesce("date", Value(datetime.date.min))
    return Paper.objects.filter(pk__in=rows, withheld=False).order_by(undated_last.desc(), "slug")


def _loaders(data_loaders):
    """The file's data loaders as {url, repo, frameworks}, whatever odd shapes it held."""
    loaders = []
    for loader in data_loaders if isinstance(data_loaders, list) else []:
        if not isinstance(loader, dict):
            continue
        frameworks = loader.get("frameworks")
        frameworks = frameworks if isinstance(frameworks, list) else []
        loaders.append(
            {
                "url": str(loader.get("url") or ""),
                "repo": str(loader.get("repo") or ""),
                "frameworks": [str(name) for name in frameworks if name],
            }
        )
    return loaders


def dataset_detail(request, slug):
    dataset, moved = find_or_redirect(Dataset, slug, Dataset.objects.select_related("paper"))
    if moved is not None:
        return moved
    if dataset is None:
        raise Http404("No such dataset.")
    leaderboards = dataset.leaderboards.for_list().order_by("slug")
    return render(
        request,
        "leaderboards/dataset_detail.html",
        {
            "dataset": dataset,
            "page_obj": _page(request, leaderboards),
            "modalities": list(dataset.modalities.order_by("name")),
            "languages": list(dataset.languages.order_by("name")),
            "tasks": list(dataset.tasks.order_by("name")),
            "papers": list(dataset_papers(dataset)[:DATASET_PAPERS]),
            "loaders": [loader for loader in dataset.data_loaders if isinstance(loader, dict)],
        },
    )


def paper_list(request):
    # A withheld paper's page answers 410: the list does not offer it.
    return _filtered_list(
        request, PaperFilter, Paper.objects.filter(withheld=False), "leaderboards/paper_list.html"
    )


def leaderboard_list(request):
    return _filtered_list(
        request,
        LeaderboardFilter,
        Leaderboard.objects.for_list(),
        "leaderboards/leaderboard_list.html",
    )
