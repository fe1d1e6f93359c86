"""The site search page, and the suggestions its search boxes offer as you type."""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from leaderboards.models import SearchKind
from leaderboards.search import search, search_abstracts, suggest
from leaderboards.search.terms import MAX_QUERY_LENGTH

PER_KIND = 10
# A few of each kind, tasks first: enough to tell whether a task exists, short
# enough to read at a glance under the box.
SUGGESTIONS_PER_KIND = 3
MAX_SUGGESTIONS = 8
# "Task" beside one suggestion: each kind's label is the plural of one word.
ONE_OF_KIND = {kind: label.removesuffix("s") for kind, label in SearchKind.choices}
# Papers found by their abstract, listed after those found by their title.
ABSTRACTS_LABEL = "Papers by their abstract"
BEFORE_ABSTRACTS = SearchKind.values[: SearchKind.values.index(SearchKind.PAPER) + 1]


def search_page(request):
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    found = search(query, per_kind=PER_KIND)
    groups = [
        (SearchKind(kind).label, total, entries, False) for kind, (total, entries) in found.items()
    ]
    total, more, entries = search_abstracts(query, per_kind=PER_KIND)
    if entries:
        # After the papers whose titles match, and every kind listed before them.
        place = sum(kind in BEFORE_ABSTRACTS for kind in found)
        groups.insert(place, (ABSTRACTS_LABEL, total, entries, more))
    return render(
        request,
        "leaderboards/search.html",
        {"query": query, "groups": groups, "per_kind": PER_KIND},
    )


@require_safe
def search_suggest(request):
    """The closest names for a partly typed query, as JSON: the search's first few of each kind.

    Public and the same for everyone, so the page cache keeps it
    like a page (keyed by the query string, retired when the data changes).
    """
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    found = suggest(query, per_kind=SUGGESTIONS_PER_KIND)
    suggestions = [
        {
            "name": entry.name,
            "kind": ONE_OF_KIND[kind],
            "context": entry.context,
            "url": entry.get_absolute_url(),
        }
        for kind, entries in found.items()
        for entry in entries
    ]
    return JsonResponse({"query": query, "suggestions": suggestions[:MAX_SUGGESTIONS]})
