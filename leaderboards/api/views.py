"""The read-only PwC REST API v1 (SPEC 4), as `paperswithcode-client` calls it.

Built on django-ninja: each operation's parameters and answer are typed with
the schemas in schemas.py, from which /api/v1/openapi.json is generated.
Every list is paginated as PwC's was: `page` and `items_per_page` in, and
`{count, next, previous, results}` out. A bad parameter is a 400 with a JSON
`error`; an unknown id or page is a JSON 404. Each view is two or three
queries for a page, whatever the size of the table behind it. The catalogue
(areas, tasks, datasets) and the evaluation tables are here; papers and what
hangs off them are papers.py's router, the machinery both share lists.py's.
"""

from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404
from django.urls import reverse
from ninja import NinjaAPI, Query
from ninja.errors import ValidationError
from ninja.openapi.docs import Swagger

from leaderboards.api import papers as papers_router
from leaderboards.api import schemas
from leaderboards.api.lists import (
    ADDED_PREFIX,
    LIST_ERRORS,
    NOT_FOUND,
    IntegerId,
    NotFound,
    ResultId,
    Slug,
    Then,
    added_results,
    code_links,
    filtered,
    get,
    named,
    paginate,
    papers,
    rank,
    results,
)
from leaderboards.api.ranking import ranked_from_kept
from leaderboards.models import (
    Area,
    Dataset,
    Leaderboard,
    Metric,
    Paper,
    PaperRepository,
    Row,
    Task,
)
from leaderboards.web.limiter import expensive, take_page_slot, take_slot


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


def _evaluations(queryset):
    # The source block is read for its rows_end_at (the freshness object): a
    # handful of keys a board, unlike the unknown keys (extra) left deferred.
    return queryset.titled().defer("extra").order_by("slug")


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
    return paginate(request, named(Area.objects.order_by("name"), filters), pages)


@api.get("/areas/{id}/", response={200: schemas.Area, **NOT_FOUND})
def area_detail(request, id: str = Slug):
    return get(Area.objects, slug=id)


@api.get("/areas/{id}/tasks/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def area_tasks(request, pages: Query[schemas.PageQuery], id: str = Slug):
    area = get(Area.objects, slug=id)
    return paginate(request, area.tasks.order_by("name", "slug"), pages)


# Tasks ---------------------------------------------------------------------


@api.get("/tasks/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def task_list(request, filters: Query[schemas.Named], pages: Query[schemas.PageQuery]):
    return paginate(request, named(Task.objects.order_by("name", "slug"), filters), pages)


@api.get("/tasks/{id}/", response={200: schemas.Task, **NOT_FOUND})
def task_detail(request, id: str = Slug):
    return get(Task.objects, slug=id)


@api.get(
    "/tasks/{id}/evaluations/",
    response={200: schemas.Page[schemas.EvaluationTable], **LIST_ERRORS},
)
def task_evaluations(request, pages: Query[schemas.PageQuery], id: str = Slug):
    task = get(Task.objects, slug=id)
    return paginate(request, _evaluations(task.leaderboards.all()), pages)


@api.get("/tasks/{id}/parents/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def task_parents(request, pages: Query[schemas.PageQuery], id: str = Slug):
    """The task this one is a subtask of (one at most here)."""
    task = get(Task.objects, slug=id)
    return paginate(request, Task.objects.filter(subtasks=task).order_by("name", "slug"), pages)


@api.get("/tasks/{id}/children/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def task_children(request, pages: Query[schemas.PageQuery], id: str = Slug):
    task = get(Task.objects, slug=id)
    return paginate(request, task.subtasks.order_by("name", "slug"), pages)


@api.get("/tasks/{id}/papers/", response={200: schemas.Page[schemas.Paper], **LIST_ERRORS})
def task_papers(request, pages: Query[schemas.PageQuery], id: str = Slug):
    """Papers the papers file files under the task, and those with results on its boards."""
    task = get(Task.objects, slug=id)
    named = Paper.tasks.through.objects.filter(task=task, paper=OuterRef("pk"))
    measured = Row.objects.shown().filter(leaderboard__task=task, paper=OuterRef("pk"))
    return paginate(request, papers(Paper.objects.filter(Exists(named) | Exists(measured))), pages)


# Datasets ------------------------------------------------------------------


@api.get("/datasets/", response={200: schemas.Page[schemas.Dataset], **LIST_ERRORS})
def dataset_list(request, filters: Query[schemas.DatasetQuery], pages: Query[schemas.PageQuery]):
    datasets = filtered(
        Dataset.objects.order_by("name", "slug"),
        filters,
        q="name__icontains",
        name="name",
        full_name="full_name",
    )
    return paginate(request, datasets, pages)


@api.get("/datasets/{id}/", response={200: schemas.Dataset, **NOT_FOUND})
def dataset_detail(request, id: str = Slug):
    return get(Dataset.objects, slug=id)


@api.get(
    "/datasets/{id}/evaluations/",
    response={200: schemas.Page[schemas.EvaluationTable], **LIST_ERRORS},
)
def dataset_evaluations(request, pages: Query[schemas.PageQuery], id: str = Slug):
    dataset = get(Dataset.objects, slug=id)
    return paginate(request, _evaluations(dataset.leaderboards.all()), pages)


# Evaluation tables ------------------------------------------------------------


@api.get("/evaluations/", response={200: schemas.Page[schemas.EvaluationTable], **LIST_ERRORS})
def evaluation_list(request, pages: Query[schemas.PageQuery]):
    return paginate(request, _evaluations(Leaderboard.objects.all()), pages)


@api.get("/evaluations/{id}/", response={200: schemas.EvaluationTable, **NOT_FOUND})
def evaluation_detail(request, id: str = Slug):
    return get(_evaluations(Leaderboard.objects), slug=id)


@api.get("/evaluations/{id}/metrics/", response={200: schemas.Page[schemas.Metric], **LIST_ERRORS})
def evaluation_metrics(request, pages: Query[schemas.PageQuery], id: str = Slug):
    board = get(Leaderboard.objects.without_blocks(), slug=id)
    return paginate(request, board.metrics.order_by("position"), pages)


@api.get("/evaluations/{id}/metrics/{metric_id}/", response={200: schemas.Metric, **NOT_FOUND})
def evaluation_metric_detail(request, id: str = Slug, metric_id: int = IntegerId):
    board = get(Leaderboard.objects.without_blocks(), slug=id)
    return get(Metric.objects, leaderboard=board, pk=metric_id)


@api.get("/evaluations/{id}/results/", response={200: schemas.Page[schemas.Result], **LIST_ERRORS})
@expensive
def evaluation_results(request, pages: Query[schemas.PageQuery], id: str = Slug):
    board = get(Leaderboard.objects.without_blocks(), slug=id)
    if ranked_from_kept(board):
        take_page_slot()
    else:
        take_slot(board.row_count)
    # The archive's rows in its order, then the results editors added: they compete in best_rank.
    return paginate(request, Then(results(board.rows.all()), added_results(board)), pages, rank)


@api.get("/evaluations/{id}/results/{result_id}/", response={200: schemas.Result, **NOT_FOUND})
def evaluation_result_detail(request, id: str = Slug, result_id: str = ResultId):
    board = get(Leaderboard.objects.without_blocks(), slug=id)
    if result_id.startswith(ADDED_PREFIX):
        row = get(added_results(board), pk=int(result_id.removeprefix(ADDED_PREFIX)))
    else:
        row = get(results(Row.objects.filter(leaderboard=board)), pk=int(result_id))
    rank([row])
    return row


# Search ----------------------------------------------------------------------


@api.get("/search/", response={200: schemas.Page[schemas.SearchHit], **LIST_ERRORS})
def search(request, filters: Query[schemas.SearchQuery], pages: Query[schemas.PageQuery]):
    found = filtered(Paper.objects, filters, q="title__icontains")
    first_code = Prefetch(
        "code_links", queryset=code_links(PaperRepository.objects), to_attr="first_code"
    )
    return paginate(request, papers(found).prefetch_related(first_code), pages)


api.add_router("", papers_router.router)
