"""The read-only PwC REST API v1 (SPEC 4), as `paperswithcode-client` calls it.

Every list is paginated as PwC's was: `page` and `items_per_page` in, and
`{count, next, previous, results}` out. A bad parameter is a 400 with a JSON
`error`; an unknown id or page is a JSON 404. Each view is two or three
queries for a page, whatever the size of the table behind it.
"""

from django.db.models import Prefetch
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from leaderboards.api import serializers
from leaderboards.api.openapi import document
from leaderboards.api.ranking import best_ranks
from leaderboards.models import Area, Dataset, Leaderboard, Metric, MetricValue, Paper, Row, Task

DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 500
MAX_QUERY = 200


class BadParameter(ValueError):
    pass


class NotFound(LookupError):
    pass


def _positive(request, name, default, maximum=None):
    text = request.GET.get(name)
    if text is None:
        return default
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise BadParameter(f"{name}: expected a positive integer, got {text[:50]!r}")
    value = int(text)
    if maximum is not None and value > maximum:
        raise BadParameter(f"{name}: at most {maximum}, got {value}")
    return value


def _text(request, name):
    text = request.GET.get(name)
    if text is None:
        return None
    if len(text) > MAX_QUERY:
        raise BadParameter(f"{name}: expected text of at most {MAX_QUERY} characters")
    if "\x00" in text:
        raise BadParameter(f"{name}: a NUL character cannot be in text")
    return text


def _page_url(request, page):
    if page is None:
        return None
    query = request.GET.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def paginate(request, queryset, serialize, batch=None):
    """One page of `queryset` as PwC's envelope; `batch(items)` may prefetch for serialize."""
    page = _positive(request, "page", 1)
    per_page = _positive(request, "items_per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE)
    count = queryset.count()
    last = max(1, -(-count // per_page))
    if page > last:
        raise NotFound(f"Invalid page: {page} (there are {last})")
    items = list(queryset[(page - 1) * per_page : page * per_page])
    context = batch(items) if batch else None
    return JsonResponse(
        {
            "count": count,
            "next": _page_url(request, page + 1 if page < last else None),
            "previous": _page_url(request, page - 1 if page > 1 else None),
            "results": [serialize(item, context) if batch else serialize(item) for item in items],
        }
    )


def api_view(view):
    """GET only; BadParameter -> 400 and NotFound/Http404 -> 404, both as JSON."""

    # Exempt because nothing here writes or reads a session: without it the CSRF
    # check answered POST, PUT or DELETE with a 403 before require_safe could
    # give the 405 (with its Allow header) that a read-only API owes them.
    @csrf_exempt
    @require_safe
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except BadParameter as error:
            return JsonResponse({"error": str(error)}, status=400)
        except (NotFound, Http404) as error:
            return JsonResponse({"error": str(error) or "Not found."}, status=404)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def _named(queryset, request, field="name"):
    """PwC's list filters: `q` (contains) and `name` (exact)."""
    q = _text(request, "q")
    if q:
        queryset = queryset.filter(**{f"{field}__icontains": q})
    name = _text(request, "name")
    if name is not None:
        queryset = queryset.filter(**{field: name})
    return queryset


def _get(queryset, **lookup):
    if any(isinstance(value, str) and "\x00" in value for value in lookup.values()):
        # PostgreSQL refuses NUL in text; no stored id holds one.
        raise NotFound("No object with that id.")
    try:
        return queryset.get(**lookup)
    except queryset.model.DoesNotExist:
        raise NotFound(f"No {queryset.model._meta.verbose_name} with that id.") from None


def _evaluations(queryset):
    return queryset.select_related("task", "dataset").order_by("slug")


def _results(queryset):
    return (
        queryset.shown()
        .select_related("paper", "leaderboard")
        .prefetch_related(
            Prefetch(
                "values",
                queryset=MetricValue.objects.select_related("metric").order_by("position"),
            )
        )
        .order_by("leaderboard__slug", "rank")
    )


def _result(row, ranks):
    return serializers.result(row, ranks.get(row.pk))


# Areas ---------------------------------------------------------------------


@api_view
def area_list(request):
    return paginate(request, _named(Area.objects.order_by("name"), request), serializers.area)


@api_view
def area_detail(request, id):
    return JsonResponse(serializers.area(_get(Area.objects, slug=id)))


@api_view
def area_tasks(request, id):
    area = _get(Area.objects, slug=id)
    return paginate(request, area.tasks.order_by("name"), serializers.task)


# Tasks ---------------------------------------------------------------------


@api_view
def task_list(request):
    return paginate(request, _named(Task.objects.order_by("name"), request), serializers.task)


@api_view
def task_detail(request, id):
    return JsonResponse(serializers.task(_get(Task.objects, slug=id)))


@api_view
def task_evaluations(request, id):
    task = _get(Task.objects, slug=id)
    return paginate(request, _evaluations(task.leaderboards.all()), serializers.evaluation)


# Datasets ------------------------------------------------------------------


@api_view
def dataset_list(request):
    datasets = _named(Dataset.objects.order_by("name"), request)
    full_name = _text(request, "full_name")
    if full_name is not None:
        datasets = datasets.filter(full_name=full_name)
    return paginate(request, datasets, serializers.dataset)


@api_view
def dataset_detail(request, id):
    return JsonResponse(serializers.dataset(_get(Dataset.objects, slug=id)))


@api_view
def dataset_evaluations(request, id):
    dataset = _get(Dataset.objects, slug=id)
    return paginate(request, _evaluations(dataset.leaderboards.all()), serializers.evaluation)


# Papers --------------------------------------------------------------------


@api_view
def paper_list(request):
    papers = _named(Paper.objects.order_by("-date", "title", "pk"), request, field="title")
    for name in ("arxiv_id", "title"):
        value = _text(request, name)
        if value is not None:
            papers = papers.filter(**{name: value})
    return paginate(request, papers, serializers.paper)


@api_view
def paper_detail(request, id):
    return JsonResponse(serializers.paper(_get(Paper.objects, slug=id)))


@api_view
def paper_results(request, id):
    paper = _get(Paper.objects, slug=id)
    return paginate(request, _results(paper.rows.all()), _result, best_ranks)


# Evaluation tables ------------------------------------------------------------


@api_view
def evaluation_list(request):
    return paginate(request, _evaluations(Leaderboard.objects.all()), serializers.evaluation)


@api_view
def evaluation_detail(request, id):
    return JsonResponse(serializers.evaluation(_get(_evaluations(Leaderboard.objects), slug=id)))


@api_view
def evaluation_metrics(request, id):
    board = _get(Leaderboard.objects, slug=id)
    return paginate(request, board.metrics.order_by("position"), serializers.metric)


@api_view
def evaluation_metric_detail(request, id, metric_id):
    board = _get(Leaderboard.objects, slug=id)
    return JsonResponse(serializers.metric(_get(Metric.objects, leaderboard=board, pk=metric_id)))


@api_view
def evaluation_results(request, id):
    board = _get(Leaderboard.objects, slug=id)
    return paginate(request, _results(board.rows.all()), _result, best_ranks)


@api_view
def evaluation_result_detail(request, id, result_id):
    board = _get(Leaderboard.objects, slug=id)
    row = _get(_results(Row.objects.filter(leaderboard=board)), pk=result_id)
    return JsonResponse(_result(row, best_ranks([row])))


# Search and the description --------------------------------------------------


@api_view
def search(request):
    q = _text(request, "q") or ""
    papers = Paper.objects.order_by("-date", "title", "pk")
    if q:
        papers = papers.filter(title__icontains=q)
    return paginate(request, papers, serializers.search_hit)


@api_view
def openapi(request):
    return JsonResponse(document(request.build_absolute_uri("/api/v1")))


@api_view
def not_found(request, rest):
    raise NotFound("No such endpoint.")
