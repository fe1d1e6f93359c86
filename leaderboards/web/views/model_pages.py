"""A model across boards (issue #30): its page, and two to four of them side by side."""

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render

from leaderboards.format.rules import is_model_slug
from leaderboards.web.model_data import (
    COMPARE_MAX,
    COMPARE_MIN,
    compare_boards,
    heads_and_shared,
    model_rows,
    results,
)
from leaderboards.web.views.catalogue import PER_PAGE


def model_detail(request, slug):
    if not is_model_slug(slug):
        raise Http404("No such model.")
    page = Paginator(model_rows([slug]), PER_PAGE).get_page(request.GET.get("page"))
    rows = list(page.object_list)
    if not rows:
        raise Http404("No such model.")
    page.object_list = results(rows)
    first = rows[0]
    return render(
        request,
        "leaderboards/model_detail.html",
        {
            "slug": slug,
            "first": first,
            # The spellings this page's rows give the name, first as the first row has it.
            "spellings": list(dict.fromkeys(row.model for row in rows)),
            "page_obj": page,
        },
    )


def compare_problem(slugs):
    """Why `slugs` (the ?m= values) cannot be compared, or "" if they can be read."""
    if not COMPARE_MIN <= len(slugs) <= COMPARE_MAX:
        return f"Give {COMPARE_MIN} to {COMPARE_MAX} models to compare (?m=…), not {len(slugs)}."
    if len(set(slugs)) != len(slugs):
        return "A model is given twice: give each once."
    bad = [slug for slug in slugs if not is_model_slug(slug)]
    if bad:
        return f"Not a model's address: {bad[0][:100]}"
    return ""


def model_compare(request):
    slugs = request.GET.getlist("m")
    problem = compare_problem(slugs)
    if problem:
        return render(
            request, "leaderboards/model_compare_bad.html", {"problem": problem}, status=400
        )
    heads, shared = heads_and_shared(slugs, list(model_rows(slugs)))
    if len(heads) < len(slugs):
        found = {head.slug for head in heads}
        raise Http404(f"No such model: {next(slug for slug in slugs if slug not in found)}")
    page = Paginator(shared, PER_PAGE).get_page(request.GET.get("page"))
    page.object_list = compare_boards(list(page.object_list), heads)
    return render(
        request,
        "leaderboards/model_compare.html",
        {"heads": heads, "page_obj": page, "shared_count": len(shared)},
    )
