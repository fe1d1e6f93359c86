"""The public record of editors' work: /changes/, newest first, by board if asked."""

from django import forms
from django.shortcuts import get_object_or_404, render

from leaderboards.models import KIND_GROUPS, EditorialChange, Leaderboard

PER_PAGE = 50
KIND_CHOICES = [(name, label) for name, (label, _) in KIND_GROUPS.items()]


class RecordParams(forms.Form):
    """The query string: a board's slug, a kind of change, a decision's batch,
    and a key to page from (never an offset)."""

    board = forms.SlugField(required=False, max_length=300)
    kind = forms.ChoiceField(required=False, choices=[("", "All"), *KIND_CHOICES])
    batch = forms.RegexField(required=False, regex=r"^[0-9a-f]{32}$")
    before = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    after = forms.IntegerField(required=False, min_value=0, max_value=2**63 - 1)


def record_entries(params):
    """(board or None, the entries RecordParams data asks for, newest first).

    Every board's record lists a decision on many rows or boards as one entry
    (EditorialChangeQuerySet.grouped()); a board's record, or a batch's, lists
    each of its entries.
    """
    board = None
    entries = EditorialChange.objects.for_record()
    if params.get("board"):
        board = get_object_or_404(
            Leaderboard.objects.titled().without_blocks(), slug=params["board"]
        )
        entries = entries.filter(leaderboard=board)
    if params.get("kind"):
        entries = entries.of_kind(params["kind"])
    if params.get("batch"):
        entries = entries.filter(batch=params["batch"])
    elif board is None:
        entries = entries.grouped()
    return board, entries


def record_page(params):
    """(board or None, entries, older key, newer key) for valid RecordParams data.

    Keyset pages over the primary key, newest first: the last page costs
    what the first does, at two queries with a board, one without.
    """
    board, entries = record_entries(params)
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
        {
            "board": board,
            "entries": entries,
            "older": older,
            "newer": newer,
            "kind": params.cleaned_data["kind"],
            "batch": params.cleaned_data["batch"],
            "kinds": KIND_CHOICES,
        },
    )
