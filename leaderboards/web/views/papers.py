"""Papers and their people: a paper's page with its code, authors' and conferences' pages."""

from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from leaderboards.format.rules import http_url
from leaderboards.models import (
    NEWEST_FIRST,
    Author,
    Conference,
    MetricValue,
    Paper,
    PaperAuthor,
    PaperRepository,
    Row,
    RowVerification,
)
from leaderboards.web.catalogue_filters import linked
from leaderboards.web.views.catalogue import _page, find_or_redirect


def with_results_and_code(papers):
    """Papers with how many shown results they hold and how many code links, official first.

    Subqueries, one row each per paper, so a page of papers costs one query
    whatever their results and links number.
    """
    rows = (
        Row.objects.filter(paper=OuterRef("pk"), withheld=False)
        .order_by()
        .values("paper")
        .annotate(n=Count("pk"))
        .values("n")
    )
    links = PaperRepository.objects.shown().filter(paper=OuterRef("pk"))
    code = links.order_by().values("paper").annotate(n=Count("pk")).values("n")
    return papers.annotate(
        result_count=Coalesce(Subquery(rows, output_field=IntegerField()), Value(0)),
        code_count=Coalesce(Subquery(code, output_field=IntegerField()), Value(0)),
        official_code=Exists(links.official()),
    )


def _rows(paper):
    return list(
        paper.rows.shown()
        .with_boards()
        .without_blocks()
        .prefetch_related(
            Prefetch(
                "values",
                queryset=MetricValue.objects.select_related("metric").order_by("metric__position"),
            ),
            Prefetch(
                "verifications",
                # The snapshot's date only: its blocks are its board's page's.
                queryset=RowVerification.objects.select_related("snapshot")
                .defer("snapshot__since_archive", "snapshot__extra")
                .order_by("-snapshot__read_at"),
                to_attr="newest_verifications",
            ),
        )
        .order_by("leaderboard__slug", "rank")
    )


def paper_detail(request, slug):
    paper, moved = find_or_redirect(
        Paper, slug, Paper.objects.select_related("proceeding__conference")
    )
    if moved is not None:
        return moved
    if paper is None:
        raise Http404("No such paper.")
    if paper.withheld:
        return render(request, "leaderboards/paper_withheld.html", {"paper": paper}, status=410)
    rows = _rows(paper)
    # The counters describe the paper's code, so any row's newest read serves;
    # the newest read over all of them is the one shown.
    readings = [row.newest_verifications[0] for row in rows if row.newest_verifications]
    verification = max(readings, key=lambda v: v.snapshot.read_at, default=None)
    repositories = list(paper.code_links.shown().official_first().select_related("repository"))
    # Without the archive's links, the code its results on boards link.
    row_code = list(dict.fromkeys(http_url(row.code) for row in rows if http_url(row.code)))
    boards_datasets = {row.leaderboard.dataset.pk: row.leaderboard.dataset for row in rows}
    return render(
        request,
        "leaderboards/paper_detail.html",
        {
            "paper": paper,
            "rows": rows,
            "verification": verification,
            "authors": list(
                PaperAuthor.objects.filter(paper=paper)
                .select_related("author")
                .order_by("position")
            ),
            "repositories": repositories,
            "code_links": row_code,
            "tasks": list(paper.tasks.order_by("name")),
            "methods": list(paper.methods.shown().order_by("name")),
            "introduced_datasets": list(paper.introduced_datasets.order_by("name")),
            "board_datasets": sorted(boards_datasets.values(), key=lambda d: d.name),
        },
    )


def author_detail(request, slug):
    author = get_object_or_404(Author, slug=slug)
    # As a list filter through a link table reads them: probing each paper in
    # date order for the author walked most of the 593,000 for page 20 of a
    # common name (780 ms on SQLite at PwC size).
    theirs = linked(Paper, PaperAuthor.objects.filter(author=author), "paper", "author")
    papers = with_results_and_code(
        Paper.objects.filter(theirs, withheld=False).order_by(*NEWEST_FIRST)
    )
    page = _page(request, papers, rows=with_results_and_code(Paper.objects.all()))
    return render(request, "leaderboards/author_detail.html", {"author": author, "page_obj": page})


def conference_detail(request, slug):
    conference = get_object_or_404(Conference, slug=slug)
    proceedings = list(
        conference.proceedings.annotate(
            paper_count=Count("papers", filter=Q(papers__withheld=False))
        ).order_by("-year", "-month", "name")
    )
    papers = with_results_and_code(
        Paper.objects.filter(proceeding__conference=conference, withheld=False).order_by(
            "-proceeding__year", "-proceeding__month", "proceeding__name", "title", "pk"
        )
    )
    page = _page(
        request,
        papers,
        count=sum(p.paper_count for p in proceedings),
        rows=with_results_and_code(Paper.objects.select_related("proceeding")),
    )
    return render(
        request,
        "leaderboards/conference_detail.html",
        {"conference": conference, "proceedings": proceedings, "page_obj": page},
    )
