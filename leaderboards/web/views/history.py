"""A board's history: /sota/<slug>/history and its .json, a page of each part at a time."""

from django import forms
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from leaderboards.models import Leaderboard
from leaderboards.web.history import (
    change_json,
    data_changes,
    recorded_since,
    snapshot_steps,
    step_json,
)

# Past any page a board can have at a thousand loads a day for a century.
MAX_PAGE = 10**6


class HistoryParams(forms.Form):
    """Which page of the loads' changes (`page`) and of the snapshots (`snapshots`)."""

    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)
    snapshots = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)


def _history(request, slug):
    """(board, params, context) or (None, params, None) when the query string is unreadable."""
    board = get_object_or_404(Leaderboard.objects.titled().without_blocks(), slug=slug)
    params = HistoryParams(request.GET)
    if not params.is_valid():
        return board, params, None
    changes = data_changes(board, params.cleaned_data["page"] or 1)
    snapshot_page, steps = snapshot_steps(board, params.cleaned_data["snapshots"] or 1)
    return (
        board,
        params,
        {
            "board": board,
            "changes": changes,
            "snapshot_page": snapshot_page,
            "steps": steps,
            "recorded_since": recorded_since(),
        },
    )


def leaderboard_history(request, slug):
    board, params, context = _history(request, slug)
    if context is None:
        return render(
            request,
            "leaderboards/history_bad_request.html",
            {"board": board, "form": params},
            status=400,
        )
    return render(request, "leaderboards/history.html", context)


def leaderboard_history_json(request, slug):
    board, params, context = _history(request, slug)
    if context is None:
        return JsonResponse({"errors": params.errors.get_json_data()}, status=400)
    changes, snapshots = context["changes"], context["snapshot_page"]
    since = context["recorded_since"]
    return JsonResponse(
        {
            "board": reverse("leaderboards:leaderboard", args=[board.slug]),
            "values_recorded_since": since.isoformat() if since else None,
            "loads": {
                "page": changes.number,
                "pages": changes.paginator.num_pages,
                "count": changes.paginator.count,
                "items": [change_json(change) for change in changes],
            },
            "snapshots": {
                "page": snapshots.number,
                "pages": snapshots.paginator.num_pages,
                "count": snapshots.paginator.count,
                "items": [step_json(step) for step in context["steps"]],
            },
        },
        json_dumps_params={"ensure_ascii": False},
    )
