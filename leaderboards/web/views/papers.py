"""Papers and their people: a paper's page with its code, authors' and conferences' pages."""

from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, Subquery, Value
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
from leaderboards.web.views.catalogue import PER_PAGE, _page, find_or_redirect


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


class EditionsPapers:
    """A conference's shown papers' ids, edition after edition (newest edition first), each
    edition's newest first: a page reads the editions it spans, one statement of a slice of
    each, along paper_proceeding_newest_idx. Sorted by edition across the join, every
    paper of the conference was read and sorted for each page (AAAI's 14,000 at PwC's size:
    77 ms on PostgreSQL, 126 on SQLite)."""

    def __init__(self, editions):
        self.editions = [edition for edition in editions if edition.paper_count]

    def __len__(self):
        return sum(edition.paper_count for edition in self.editions)

    def __getitem__(self, part):
        start, stop, parts, before = part.start or 0, part.stop, [], 0
        for place, edition in enumerate(self.editions):
            low, high = max(start - before, 0), min(stop - before, edition.paper_count)
            if low < high:
                shown = Paper.objects.filter(proceeding=edition, withheld=False)
                ids = shown.order_by(*NEWEST_FIRST).values_list("date", "slug", "pk")[low:high]
                sql, params = ids.query.sql_with_params()
                parts.append((f"SELECT {place} AS edition, * FROM ({sql}) AS part{place}", params))
            before += edition.paper_count
        if not parts:
            return []
        with connection.cursor() as cursor:
            cursor.execute(
                " UNION ALL ".join(sql for sql, _ in parts),
                [param for _, params in parts for param in params],
            )
            found = cursor.fetchall()
        # NEWEST_FIRST within each edition: by slug, then by date descending (Python's
        # sort keeps the slugs' order among a date's papers), undated last (a date may
        # arrive as ISO text, which sorts as the date does).
        found.sort(key=lambda row: row[2])
        found.sort(key=lambda row: str(row[1]), reverse=True)
        found.sort(key=lambda row: (row[0], row[1] is None))
        return [pk for *_, pk in found]


def conference_detail(request, slug):
    conference = get_object_or_404(Conference, slug=slug)
    # Counted along paper_proceeding_newest_idx, an edition at a time: a COUNT over the
    # join read each paper's wide row to learn whether it was withheld (18 ms for AAAI).
    shown = Paper.objects.filter(proceeding=OuterRef("pk"), withheld=False).order_by()
    counted = shown.values("proceeding").annotate(n=Count("pk")).values("n")
    proceedings = list(
        conference.proceedings.annotate(
            paper_count=Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))
        ).order_by("-year", "-month", "name")
    )
    page = Paginator(EditionsPapers(proceedings), PER_PAGE).get_page(request.GET.get("page"))
    ids = list(page.object_list)
    rows = with_results_and_code(Paper.objects.select_related("proceeding"))
    by_id = rows.in_bulk(ids)
    # A paper withheld between the two reads is left out, not a 500.
    page.object_list = [by_id[pk] for pk in ids if pk in by_id]
    return render(
        request,
        "leaderboards/conference_detail.html",
        {"conference": conference, "proceedings": proceedings, "page_obj": page},
    )
