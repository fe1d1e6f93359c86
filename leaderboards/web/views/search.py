"""The site search page."""

from django.shortcuts import render

from leaderboards.models import SearchKind
from leaderboards.upkeep.search import MAX_QUERY_LENGTH, search

PER_KIND = 10


def search_page(request):
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    groups = [
        (SearchKind(kind).label, total, entries)
        for kind, (total, entries) in search(query, per_kind=PER_KIND).items()
    ]
    return render(
        request,
        "leaderboards/search.html",
        {"query": query, "groups": groups, "per_kind": PER_KIND},
    )
