"""Papers with Code's methods: the taxonomy's areas and nested categories, and each method."""

import heapq

from django.db.models import Count, Exists, OuterRef
from django.db.models.functions import ExtractYear
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
    """Categories with their shown methods' count and their few most used methods.

    One read of their links with each method's name and count, ranked here: a
    window over the links joined to their methods, with a COUNT over the same
    join, took 63 ms at PwC's size (9,600 links) on SQLite, against reading them.
    """
    categories = list(queryset.order_by("name", "pk"))
    links = Method.categories.through.objects.filter(
        methodcategory__in=[category.pk for category in categories], method__withheld=False
    ).values_list(
        "methodcategory_id", "method_id", "method__name", "method__slug", "method__paper_count"
    )
    by_category = {}
    for category_id, *method in links:
        by_category.setdefault(category_id, []).append(method)
    for category in categories:
        methods = by_category.get(category.pk, [])
        category.method_count = len(methods)
        # METHOD_ORDER's: most papers first, then by name and id.
        top = heapq.nsmallest(TOP_METHODS, methods, key=lambda m: (-m[3], m[1], m[0]))
        category.top_methods = [
            Method(pk=pk, name=name, slug=slug, paper_count=papers)
            for pk, name, slug, papers in top
        ]
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
