"""The site search page, and the suggestions its search boxes offer as you type."""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from leaderboards.models import SearchKind
from leaderboards.search import search, search_abstracts, suggest
from leaderboards.search.terms import MAX_QUERY_LENGTH
from leaderboards.web.words import counted

PER_KIND = 10
# One kind's matches, all of them ("Show all 37"), a page at a time. The search
# reads a kind's first matches in order, so a page costs what reading up to it
# does: deep pages are refused (a narrower query finds them sooner).
PER_PAGE = 50
MAX_PAGES = 40
# A few of each kind, tasks first: enough to tell whether a task exists, short
# enough to read at a glance under the box.
SUGGESTIONS_PER_KIND = 3
MAX_SUGGESTIONS = 8
# "Task" beside one suggestion: each kind's label is the plural of one word.
ONE_OF_KIND = {kind: label.removesuffix("s") for kind, label in SearchKind.choices}
# Papers found by their abstract, listed after those found by their title.
ABSTRACTS_LABEL = "Papers by their abstract"
BEFORE_ABSTRACTS = SearchKind.values[: SearchKind.values.index(SearchKind.PAPER) + 1]


def _page_number(text):
    return int(text) if text.isdigit() and len(text) < 4 and int(text) >= 1 else 1


def with_counts(entries):
    """Each leaderboard entry with `rows`, its board's row count (the entry's
    context): look-alike boards (the same task and dataset names) told apart.
    Each model entry with `boards`, its number of boards when it has several
    (its context; with one, the context is that board's name)."""
    for entry in entries:
        count = int(entry.context) if entry.context.isdigit() else None
        if entry.kind == SearchKind.LEADERBOARD:
            entry.rows = count
        elif entry.kind == SearchKind.MODEL:
            entry.boards = count
    return entries


def search_page(request):
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    kind = request.GET.get("kind", "")
    if kind in SearchKind.values:
        return _one_kind(request, query, SearchKind(kind))
    found = search(query, per_kind=PER_KIND)
    groups = [
        (SearchKind(kind), SearchKind(kind).label, total, with_counts(entries), False)
        for kind, (total, entries) in found.items()
    ]
    total, more, entries = search_abstracts(query, per_kind=PER_KIND)
    if entries:
        # After the papers whose titles match, and every kind listed before them.
        place = sum(kind in BEFORE_ABSTRACTS for kind in found)
        groups.insert(place, (None, ABSTRACTS_LABEL, total, entries, more))
    return render(
        request,
        "leaderboards/search.html",
        {"query": query, "groups": groups, "per_kind": PER_KIND},
    )


def _one_kind(request, query, kind):
    """Every match of one kind, PER_PAGE at a time, in the search's order."""
    page = min(_page_number(request.GET.get("page", "")), MAX_PAGES)
    found = search(query, per_kind=page * PER_PAGE, kinds=[kind])
    total, entries = found.get(kind, (0, []))
    shown = with_counts(entries[(page - 1) * PER_PAGE : page * PER_PAGE])
    last = min(-(-total // PER_PAGE), MAX_PAGES)
    return render(
        request,
        "leaderboards/search_kind.html",
        {
            "query": query,
            "kind": kind,
            "total": total,
            "entries": shown,
            "page": page,
            "first_index": (page - 1) * PER_PAGE + 1,
            "last_index": (page - 1) * PER_PAGE + len(shown),
            "previous": page - 1 if page > 1 else None,
            "next": page + 1 if page < last else None,
            "cut": total > MAX_PAGES * PER_PAGE and page == MAX_PAGES,
            "listed": MAX_PAGES * PER_PAGE,
        },
    )


@require_safe
def search_suggest(request):
    """The closest names for a partly typed query, as JSON: the search's first few of each kind.

    Public and the same for everyone, so the page cache keeps it
    like a page (keyed by the query string, retired when the data changes).
    """
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    found = suggest(query, per_kind=SUGGESTIONS_PER_KIND)
    entries = [entry for entries in found.values() for entry in entries][:MAX_SUGGESTIONS]
    suggestions = [
        {
            "name": entry.name,
            "kind": ONE_OF_KIND[entry.kind],
            "context": _counted(entry) or entry.context,
            "url": entry.get_absolute_url(),
        }
        for entry in with_counts(entries)
    ]
    return JsonResponse({"query": query, "suggestions": suggestions})


def _counted(entry):
    """What with_counts() read from an entry's context, in words; "" for none."""
    rows, boards = getattr(entry, "rows", None), getattr(entry, "boards", None)
    if rows is not None:
        return counted(rows, "result", "results")
    return counted(boards, "leaderboard", "leaderboards") if boards is not None else ""
