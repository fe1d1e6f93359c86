"""What every call of the API shares: PwC's pages, filters, lookups, and what is shown.

A list is one page of a queryset as PwC paginated it, `{count, next, previous,
results}`; a filter given no value filters nothing, as on PwC's API. The
querysets here carry the joins their schemas read (schemas.py), so a page costs
the same few queries whatever its length, and leave out what an editor withheld.
"""

from django.db.models import Case, Exists, F, OuterRef, Prefetch, Subquery, When
from ninja import Path

from leaderboards.api import schemas
from leaderboards.api.ranking import best_ranks, result_key
from leaderboards.models import (
    NEWEST_FIRST,
    EditorAddition,
    Method,
    MetricValue,
    PaperAuthor,
    PaperRepository,
    Repository,
)
from leaderboards.models.boards import BOARD_BLOCKS


class NotFound(LookupError):
    pass


LIST_ERRORS = {400: schemas.Error, 404: schemas.Error}
NOT_FOUND = {404: schemas.Error}
Slug = Path(..., pattern=schemas.SLUG)
IntegerId = Path(..., ge=1)
# A result's id: a row's number, or "added-" and an editor-added result's (schemas.Result).
ADDED_PREFIX = "added-"
ResultId = Path(..., pattern=rf"^({ADDED_PREFIX})?[1-9][0-9]{{0,17}}$")
RepositoryPart = Path(..., pattern=schemas.REPOSITORY_PART)


def _page_url(request, page):
    if page is None:
        return None
    query = request.GET.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def paginate(request, queryset, pages, batch=None):
    """One page of `queryset` as PwC's envelope; `batch(items)` may annotate the page's items."""
    page, per_page = pages.page, pages.items_per_page
    count = queryset.count()
    last = max(1, -(-count // per_page))
    if page > last:
        raise NotFound(f"Invalid page: {page} (there are {last})")
    items = list(queryset[(page - 1) * per_page : page * per_page])
    if batch:
        batch(items)
    return {
        "count": count,
        "next": _page_url(request, page + 1 if page < last else None),
        "previous": _page_url(request, page - 1 if page > 1 else None),
        "results": items,
    }


def filtered(queryset, filters, **lookups):
    """`queryset` narrowed by each filter given a value (`name=lookup`); an empty one is none."""
    for name, lookup in lookups.items():
        value = getattr(filters, name)
        if value:
            queryset = queryset.filter(**{lookup: value})
    return queryset


def named(queryset, filters):
    """filtered() by the `q` (part of the name) and `name` (the whole name) filters."""
    return filtered(queryset, filters, q="name__icontains", name="name")


def get(queryset, **lookup):
    """The one object of `queryset` matching `lookup`, else the API's 404."""
    try:
        return queryset.get(**lookup)
    except queryset.model.DoesNotExist:
        raise NotFound(f"No {queryset.model._meta.verbose_name} with that id.") from None


def papers(queryset):
    """Papers no editor withheld, newest first, with what schemas.Paper reads (two queries)."""
    return (
        queryset.filter(withheld=False)
        .select_related("proceeding__conference")
        .prefetch_related(
            Prefetch(
                "authorships",
                queryset=PaperAuthor.objects.select_related("author").order_by("position"),
            )
        )
        .order_by(*NEWEST_FIRST)
    )


def code_links(queryset):
    """Links to a paper's code an editor left linked, official first, with their repository."""
    return queryset.shown().official_first().select_related("repository")


def shown_links():
    """Shown links to a paper no editor withheld: what makes a repository one to list."""
    return PaperRepository.objects.shown().filter(paper__withheld=False)


def repositories(queryset=None):
    """Repositories some shown paper links, by URL, each with the framework of its first link."""
    queryset = Repository.objects.all() if queryset is None else queryset
    links = shown_links().filter(repository=OuterRef("pk"))
    framework = links.exclude(framework="").order_by("paper_id").values("framework")[:1]
    return (
        queryset.filter(Exists(links)).annotate(link_framework=Subquery(framework)).order_by("url")
    )


def with_framework(queryset, framework):
    """Repositories some shown paper links as code in `framework` ("none": in none named)."""
    names = ["", "none"] if framework == "none" else [framework]
    return queryset.filter(
        Exists(shown_links().filter(repository=OuterRef("pk"), framework__in=names))
    )


def methods(queryset=None):
    """Methods no editor withheld, by name, each with the slug of its paper if that is shown."""
    queryset = Method.objects.all() if queryset is None else queryset
    return (
        queryset.shown()
        .annotate(shown_paper=Case(When(paper__withheld=False, then=F("paper__slug"))))
        .order_by("name", "slug")
    )


def results(queryset):
    """Rows no editor withheld, by board and rank, with their paper, board and values."""
    return (
        queryset.shown()
        .select_related("paper", "leaderboard")
        .without_blocks()
        .prefetch_related(
            Prefetch(
                "values",
                queryset=MetricValue.objects.select_related("metric").order_by("position"),
            )
        )
        .order_by("leaderboard__slug", "rank")
    )


def rank(rows):
    """Give each row (or editor-added result) its `best` (rank, metric name) or None:
    see ranking.best_ranks."""
    ranks = best_ranks(rows)
    for row in rows:
        row.best = ranks.get(result_key(row))


def added_results(board):
    """The board's shown editor-added results, oldest first, as the API lists them.

    None without a query on the many boards no editor touched (adding is an
    editorial change)."""
    if not board.editorial_change_count:
        return EditorAddition.objects.none()
    return (
        EditorAddition.objects.filter(leaderboard=board, withheld=False)
        .select_related("leaderboard")
        .defer(*(f"leaderboard__{name}" for name in BOARD_BLOCKS))
        .order_by("added_at", "pk")
    )


class Then:
    """Two querysets as one list for paginate(): the first's items, then the second's."""

    def __init__(self, first, second):
        self.first, self.second = first, second
        self._first_count = None

    def _counted(self):
        if self._first_count is None:
            self._first_count = self.first.count()
        return self._first_count

    def count(self):
        return self._counted() + self.second.count()

    def __getitem__(self, part):
        start, stop = part.start or 0, part.stop
        split = self._counted()
        items = list(self.first[start : min(stop, split)]) if start < split else []
        if stop > split:
            items += list(self.second[max(start - split, 0) : stop - split])
        return items
