"""The read-only PwC REST API v1 (SPEC 4), as `paperswithcode-client` calls it.

Built on django-ninja: each operation's parameters and answer are typed with
the schemas in schemas.py, from which /api/v1/openapi.json is generated.
Every list is paginated as PwC's was: `page` and `items_per_page` in, and
`{count, next, previous, results}` out. A bad parameter is a 400 with a JSON
`error`; an unknown id or page is a JSON 404. Each view is two or three
queries for a page, whatever the size of the table behind it.
"""

from django.db.models import Prefetch
from django.http import Http404
from django.urls import reverse
from ninja import NinjaAPI, Path, Query
from ninja.errors import ValidationError
from ninja.openapi.docs import Swagger

from leaderboards.api import schemas
from leaderboards.api.ranking import best_ranks
from leaderboards.models import Area, Dataset, Leaderboard, Metric, MetricValue, Paper, Row, Task
from leaderboards.web.limiter import expensive, take_slot


class NotFound(LookupError):
    pass


class ReadOnlyAPI(NinjaAPI):
    def get_content_type(self):
        # JSON is UTF-8 by definition (RFC 8259), and PwC's API sent no charset.
        return self.renderer.media_type

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        # Paths relative to the server, "/tasks/" under "/api/v1", as PwC described them.
        root = self.get_root_path(path_params or {})
        schema = super().get_openapi_schema(path_prefix="", path_params=path_params)
        schema["servers"] = [{"url": root.rstrip("/")}]
        return schema


api = ReadOnlyAPI(
    title="sotasite: Papers with Code API v1 (read-only subset)",
    version="1",
    description=(
        "The read-only part of the Papers with Code REST API that the "
        "paperswithcode-client package (0.3.1) calls, answered from this site's data."
    ),
    urls_namespace="api",
    # Swagger UI from ninja's own static files ("ninja" is an installed app), not
    # a CDN; no validator badge, which would fetch an image from elsewhere.
    docs=Swagger(settings={"validatorUrl": None, "deepLinking": False}),
)

LIST_ERRORS = {400: schemas.Error, 404: schemas.Error}
NOT_FOUND = {404: schemas.Error}
Slug = Path(..., pattern=schemas.SLUG)
IntegerId = Path(..., ge=1)


def _error(request, status, message):
    return api.create_response(request, {"error": message}, status=status)


@api.exception_handler(ValidationError)
def _invalid(request, error):
    # A path part that cannot be an id names nothing: 404, as any unknown id.
    if any(detail["loc"][0] == "path" for detail in error.errors):
        return _error(request, 404, "No object with that id.")
    message = "; ".join(
        f"{detail['loc'][-1]}: {detail['msg'].removeprefix('Value error, ')}"
        for detail in error.errors
    )
    return _error(request, 400, message)


@api.exception_handler(NotFound)
@api.exception_handler(Http404)
def _not_found(request, error):
    return _error(request, 404, str(error) or "Not found.")


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


def _named(queryset, filters, field="name"):
    if filters.q:
        queryset = queryset.filter(**{f"{field}__icontains": filters.q})
    if filters.name is not None:
        queryset = queryset.filter(**{field: filters.name})
    return queryset


def _get(queryset, **lookup):
    try:
        return queryset.get(**lookup)
    except queryset.model.DoesNotExist:
        raise NotFound(f"No {queryset.model._meta.verbose_name} with that id.") from None


def _evaluations(queryset):
    return queryset.titled().without_blocks().order_by("slug")


def _results(queryset):
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


def _rank(rows):
    """Give each row its `best` (rank, metric name) or None: see ranking.best_ranks."""
    ranks = best_ranks(rows)
    for row in rows:
        row.best = ranks.get(row.pk)


# The root ------------------------------------------------------------------


@api.get("/", response=schemas.Root)
def root(request):
    """Every endpoint, read from the API's own routes so the list cannot drift."""
    base = request.path  # /api/v1/
    endpoints = [
        {"path": base + path.lstrip("/"), "summary": operation.summary}
        for _, router in api._routers
        for path, view in router.path_operations.items()
        if path != "/"
        for operation in view.operations
    ]
    return {
        "endpoints": endpoints,
        "openapi": reverse("api:openapi-json"),
        "docs": reverse("api:openapi-view"),
    }


# Areas ---------------------------------------------------------------------


@api.get("/areas/", response={200: schemas.Page[schemas.Area], **LIST_ERRORS})
def area_list(request, filters: Query[schemas.Named], pages: Query[schemas.PageQuery]):
    return paginate(request, _named(Area.objects.order_by("name"), filters), pages)


@api.get("/areas/{id}/", response={200: schemas.Area, **NOT_FOUND})
def area_detail(request, id: str = Slug):
    return _get(Area.objects, slug=id)


@api.get("/areas/{id}/tasks/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def area_tasks(request, pages: Query[schemas.PageQuery], id: str = Slug):
    area = _get(Area.objects, slug=id)
    return paginate(request, area.tasks.order_by("name"), pages)


# Tasks ---------------------------------------------------------------------


@api.get("/tasks/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def task_list(request, filters: Query[schemas.Named], pages: Query[schemas.PageQuery]):
    return paginate(request, _named(Task.objects.order_by("name"), filters), pages)


@api.get("/tasks/{id}/", response={200: schemas.Task, **NOT_FOUND})
def task_detail(request, id: str = Slug):
    return _get(Task.objects, slug=id)


@api.get(
    "/tasks/{id}/evaluations/",
    response={200: schemas.Page[schemas.EvaluationTable], **LIST_ERRORS},
)
def task_evaluations(request, pages: Query[schemas.PageQuery], id: str = Slug):
    task = _get(Task.objects, slug=id)
    return paginate(request, _evaluations(task.leaderboards.all()), pages)


# Datasets ------------------------------------------------------------------


@api.get("/datasets/", response={200: schemas.Page[schemas.Dataset], **LIST_ERRORS})
def dataset_list(request, filters: Query[schemas.DatasetQuery], pages: Query[schemas.PageQuery]):
    datasets = _named(Dataset.objects.order_by("name"), filters)
    if filters.full_name is not None:
        datasets = datasets.filter(full_name=filters.full_name)
    return paginate(request, datasets, pages)


@api.get("/datasets/{id}/", response={200: schemas.Dataset, **NOT_FOUND})
def dataset_detail(request, id: str = Slug):
    return _get(Dataset.objects, slug=id)


@api.get(
    "/datasets/{id}/evaluations/",
    response={200: schemas.Page[schemas.EvaluationTable], **LIST_ERRORS},
)
def dataset_evaluations(request, pages: Query[schemas.PageQuery], id: str = Slug):
    dataset = _get(Dataset.objects, slug=id)
    return paginate(request, _evaluations(dataset.leaderboards.all()), pages)


# Papers --------------------------------------------------------------------


@api.get("/papers/", response={200: schemas.Page[schemas.Paper], **LIST_ERRORS})
def paper_list(request, filters: Query[schemas.PaperQuery], pages: Query[schemas.PageQuery]):
    papers = Paper.objects.order_by("-date", "title", "pk")
    if filters.q:
        papers = papers.filter(title__icontains=filters.q)
    for name in ("arxiv_id", "title"):
        value = getattr(filters, name)
        if value is not None:
            papers = papers.filter(**{name: value})
    return paginate(request, papers, pages)


@api.get("/papers/{id}/", response={200: schemas.Paper, **NOT_FOUND})
def paper_detail(request, id: str = Slug):
    return _get(Paper.objects, slug=id)


@api.get("/papers/{id}/results/", response={200: schemas.Page[schemas.Result], **LIST_ERRORS})
def paper_results(request, pages: Query[schemas.PageQuery], id: str = Slug):
    paper = _get(Paper.objects, slug=id)
    return paginate(request, _results(paper.rows.all()), pages, _rank)


# Evaluation tables ------------------------------------------------------------


@api.get("/evaluations/", response={200: schemas.Page[schemas.EvaluationTable], **LIST_ERRORS})
def evaluation_list(request, pages: Query[schemas.PageQuery]):
    return paginate(request, _evaluations(Leaderboard.objects.all()), pages)


@api.get("/evaluations/{id}/", response={200: schemas.EvaluationTable, **NOT_FOUND})
def evaluation_detail(request, id: str = Slug):
    return _get(_evaluations(Leaderboard.objects), slug=id)


@api.get("/evaluations/{id}/metrics/", response={200: schemas.Page[schemas.Metric], **LIST_ERRORS})
def evaluation_metrics(request, pages: Query[schemas.PageQuery], id: str = Slug):
    board = _get(Leaderboard.objects.without_blocks(), slug=id)
    return paginate(request, board.metrics.order_by("position"), pages)


@api.get("/evaluations/{id}/metrics/{metric_id}/", response={200: schemas.Metric, **NOT_FOUND})
def evaluation_metric_detail(request, id: str = Slug, metric_id: int = IntegerId):
    board = _get(Leaderboard.objects.without_blocks(), slug=id)
    return _get(Metric.objects, leaderboard=board, pk=metric_id)


@api.get("/evaluations/{id}/results/", response={200: schemas.Page[schemas.Result], **LIST_ERRORS})
@expensive
def evaluation_results(request, pages: Query[schemas.PageQuery], id: str = Slug):
    board = _get(Leaderboard.objects.without_blocks(), slug=id)
    take_slot(board.row_count)
    return paginate(request, _results(board.rows.all()), pages, _rank)


@api.get("/evaluations/{id}/results/{result_id}/", response={200: schemas.Result, **NOT_FOUND})
def evaluation_result_detail(request, id: str = Slug, result_id: int = IntegerId):
    board = _get(Leaderboard.objects.without_blocks(), slug=id)
    row = _get(_results(Row.objects.filter(leaderboard=board)), pk=result_id)
    _rank([row])
    return row


# Search ----------------------------------------------------------------------


@api.get("/search/", response={200: schemas.Page[schemas.SearchHit], **LIST_ERRORS})
def search(request, filters: Query[schemas.SearchQuery], pages: Query[schemas.PageQuery]):
    papers = Paper.objects.order_by("-date", "title", "pk")
    if filters.q:
        papers = papers.filter(title__icontains=filters.q)
    return paginate(request, papers, pages)
