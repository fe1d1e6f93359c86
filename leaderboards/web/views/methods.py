"""Papers with Code's methods: the taxonomy's areas and nested categories, and each method."""

from django.db.models import Count, Exists, F, OuterRef, Q, Window
from django.db.models.functions import ExtractYear, RowNumber
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from leaderboards.models import NEWEST_FIRST, Method, MethodArea, MethodCategory, Paper
from leaderboards.web.methods_chart import years_chart
from leaderboards.web.views.catalogue import _page, find_or_redirect
from leaderboards.web.views.papers import with_results_and_code

# How many of a category's methods the index names; its page lists them all.
TOP_METHODS = 5
METHOD_ORDER = ("-paper_count", "name", "pk")
# PwC's taxonomy nests two or three deep.
MAX_DEPTH = 6


def _category_tree(categories):
    """Categories nested through their parents: (category, children) pairs, roots first.

    A category whose parent is not among them is a root; a cycle of parents
    (bad data) is broken where it is first met, and a chain deeper than
    MAX_DEPTH goes on as roots, so every category shows once.
    """
    by_id = {category.pk: category for category in categories}
    children = {}
    roots = []
    for category in categories:
        if category.parent_id in by_id and category.parent_id != category.pk:
            children.setdefault(category.parent_id, []).append(category)
        else:
            roots.append(category)
    placed = set()

    def grow(category, depth=0):
        placed.add(category.pk)
        if depth >= MAX_DEPTH:
            return (category, [])
        below = [child for child in children.get(category.pk, []) if child.pk not in placed]
        return (category, [grow(child, depth + 1) for child in below])

    tree = [grow(root) for root in roots]
    # Categories only reachable through a cycle: shown as roots.
    tree += [grow(category) for category in categories if category.pk not in placed]
    return tree


def _categories(queryset):
    """Categories with their shown methods' count and their few most used methods."""
    categories = list(
        queryset.annotate(
            method_count=Count("methods", filter=Q(methods__withheld=False))
        ).order_by("name", "pk")
    )
    links = (
        Method.categories.through.objects.filter(
            methodcategory__in=[category.pk for category in categories], method__withheld=False
        )
        .annotate(
            place=Window(
                RowNumber(),
                partition_by=F("methodcategory"),
                order_by=[F("method__paper_count").desc(), F("method__name").asc(), F("method")],
            )
        )
        .filter(place__lte=TOP_METHODS)
        .select_related("method")
        .order_by("methodcategory", "place")
    )
    top = {}
    for link in links:
        top.setdefault(link.methodcategory_id, []).append(link.method)
    for category in categories:
        category.top_methods = top.get(category.pk, [])
    return categories


def method_list(request):
    areas = list(MethodArea.objects.order_by("name"))
    categories = _categories(MethodCategory.objects.all())
    by_area = {}
    for category in categories:
        by_area.setdefault(category.area_id, []).append(category)
    sections = [(area, _category_tree(by_area.get(area.pk, []))) for area in areas]
    unfiled = _category_tree(by_area.get(None, []))
    return render(
        request,
        "leaderboards/method_list.html",
        {
            "sections": sections,
            "unfiled": unfiled,
            "method_total": Method.objects.shown().count(),
        },
    )


def method_area(request, slug):
    area = get_object_or_404(MethodArea, slug=slug)
    categories = _categories(MethodCategory.objects.filter(area=area))
    methods = Method.objects.shown().filter(
        Exists(
            Method.categories.through.objects.filter(
                method=OuterRef("pk"), methodcategory__area=area
            )
        )
    )
    page = _page(request, methods.order_by(*METHOD_ORDER))
    return render(
        request,
        "leaderboards/method_area.html",
        {"area": area, "tree": _category_tree(categories), "page_obj": page},
    )


def method_category(request, slug):
    category = get_object_or_404(MethodCategory.objects.select_related("area", "parent"), slug=slug)
    methods = category.methods.shown().order_by(*METHOD_ORDER)
    return render(
        request,
        "leaderboards/method_category.html",
        {
            "category": category,
            "children": list(category.children.order_by("name")),
            "page_obj": _page(request, methods),
        },
    )


def method_detail(request, slug):
    method, moved = find_or_redirect(Method, slug, Method.objects.select_related("paper"))
    if moved is not None:
        return moved
    if method is None:
        raise Http404("No such method.")
    if method.withheld:
        raise Http404("This method is withheld.")
    papers = method.papers.filter(withheld=False)
    years = list(
        papers.filter(date__isnull=False)
        .annotate(year=ExtractYear("date"))
        .order_by("year")
        .values_list("year")
        .annotate(n=Count("pk"))
    )
    page = _page(
        request,
        papers.order_by(*NEWEST_FIRST),
        rows=with_results_and_code(Paper.objects.all()),
    )
    return render(
        request,
        "leaderboards/method_detail.html",
        {
            "method": method,
            "categories": list(method.categories.select_related("area").order_by("name")),
            "page_obj": page,
            "chart": years_chart(years),
        },
    )
