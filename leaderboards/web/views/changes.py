"""The public record of editors' work: /changes/, newest first, by board if asked."""

from django import forms
from django.shortcuts import get_object_or_404, render

from leaderboards.models import EditorialChange, Leaderboard

PER_PAGE = 50


class RecordParams(forms.Form):
    """The query string: a board's slug, and a key to page from (never an offset)."""

    board = forms.SlugField(required=False, max_length=300)
    before = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    after = forms.IntegerField(required=False, min_value=0, max_value=2**63 - 1)


def record_page(params):
    """(board or None, entries, older key, newer key) for valid RecordParams data.

    Keyset pages over the primary key, newest first: the last page costs
    what the first does, at two queries with a board, one without.
    """
    board = None
    entries = EditorialChange.objects.for_record()
    if params["board"]:
        board = get_object_or_404(
            Leaderboard.objects.titled().without_blocks(), slug=params["board"]
        )
        entries = entries.filter(leaderboard=board)
    before, after = params["before"], params["after"]
    if after is not None and before is None:
        # Newer ones: the PER_PAGE just above the key, still shown newest first.
        found = list(entries.filter(pk__gt=after).order_by("pk")[: PER_PAGE + 1])
        newer = found[PER_PAGE - 1].pk if len(found) > PER_PAGE else None
        found = found[:PER_PAGE][::-1]
        older = found[-1].pk if found else None
        return board, found, older, newer
    if before is not None:
        entries = entries.filter(pk__lt=before)
    found = list(entries[: PER_PAGE + 1])
    older = found[PER_PAGE - 1].pk if len(found) > PER_PAGE else None
    found = found[:PER_PAGE]
    newer = found[0].pk if found and before is not None else None
    return board, found, older, newer


def changes(request):
    params = RecordParams(request.GET)
    if not params.is_valid():
        return render(
            request, "leaderboards/changes_bad_request.html", {"form": params}, status=400
        )
    board, entries, older, newer = record_page(params.cleaned_data)
    return render(
        request,
        "leaderboards/changes.html",
        {"board": board, "entries": entries, "older": older, "newer": newer},
    )
