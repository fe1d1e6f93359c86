"""Visitors suggest a correction to a board or a row, or a newer result: a short form each.

The forms are the site's only public writes (web/guards.py lets POST through
to /suggest/ alone). A suggestion lands in the editors' queue
(leaderboards/suggestions.py); the visitor is told that nothing is public
until an editor accepts it. The forms carry a CSRF token, so they are never
kept in the page cache.
"""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache

from leaderboards import suggestions
from leaderboards.models import (
    EditorAddition,
    Leaderboard,
    Row,
    Suggestion,
    SuggestionKind,
)
from leaderboards.web.forms import CorrectionForm, ResultForm
from leaderboards.web.guards import client_address

TOO_LARGE = "A suggestion is a few lines of text: this one is too large to read."


def _board(slug):
    return get_object_or_404(Leaderboard.objects.titled().without_blocks(), slug=slug)


def _about(board, params):
    """(row key, model, what the form shows of it) of the row a correction names, or Nones.

    ?row=<id> names an archive row, ?added=<id> an editor's result; one no
    longer shown (re-loaded, withheld) leaves the correction about the board.
    """
    row_id, added_id = params.get("row", ""), params.get("added", "")
    if row_id.isdigit() and len(row_id) < 19:
        row = Row.objects.shown().filter(leaderboard=board, pk=int(row_id)).first()
        if row is not None:
            return row.key, row.model
    if added_id.isdigit() and len(added_id) < 19:
        added = EditorAddition.objects.filter(
            leaderboard=board, pk=int(added_id), withheld=False
        ).first()
        if added is not None:
            return f"added-{added.pk}", added.model
    return "", ""


def _too_large(request):
    try:
        length = int(request.headers.get("content-length") or 0)
    except ValueError:
        length = 0
    return length > settings.SOTASITE_SUGGESTION_MAX_BYTES


def _take(request, board, form, suggestion, template, context):
    """The POST's answer: thanked (stored, or dropped for a bot), or the form again."""
    if form.is_valid():
        if form.is_bot:
            return redirect("leaderboards:suggest_sent", slug=board.slug)
        suggestion.fingerprint = suggestions.fingerprint(
            [suggestion.row_key, *form.fingerprint_fields()]
        )
        try:
            suggestions.submit(suggestion, client_address(request))
        except suggestions.Limited as limited:
            context["limited"] = limited.message
            return render(request, template, context, status=429)
        return redirect("leaderboards:suggest_sent", slug=board.slug)
    return render(request, template, context, status=400)


@never_cache
def suggest_correction(request, slug):
    board = _board(slug)
    source = request.POST if request.method == "POST" else request.GET
    row_key, row_model = _about(board, source)
    context = {
        "board": board,
        "row_model": row_model,
        "row_id": source.get("row", "") if row_key and not row_key.startswith("added-") else "",
        "added_id": source.get("added", "") if row_key.startswith("added-") else "",
    }
    if request.method != "POST":
        context["form"] = CorrectionForm()
        return render(request, "leaderboards/suggest_correction.html", context)
    if _too_large(request):
        return HttpResponse(TOO_LARGE, status=413, content_type="text/plain; charset=utf-8")
    form = context["form"] = CorrectionForm(request.POST)
    data = form.cleaned_data if form.is_valid() else {}
    suggestion = Suggestion(
        leaderboard=board,
        kind=SuggestionKind.CORRECTION,
        row_key=row_key,
        row_model=row_model,
        what=data.get("what", ""),
        why=data.get("why", ""),
        citation_url=data.get("citation_url", ""),
    )
    return _take(request, board, form, suggestion, "leaderboards/suggest_correction.html", context)


@never_cache
def suggest_result(request, slug):
    board = _board(slug)
    names = list(board.metrics.order_by("position").values_list("name", flat=True))
    context = {"board": board}
    if request.method != "POST":
        context["form"] = ResultForm(metric_names=names)
        return render(request, "leaderboards/suggest_result.html", context)
    if _too_large(request):
        return HttpResponse(TOO_LARGE, status=413, content_type="text/plain; charset=utf-8")
    form = context["form"] = ResultForm(request.POST, metric_names=names)
    data = form.cleaned_data if form.is_valid() else {}
    suggestion = Suggestion(
        leaderboard=board,
        kind=SuggestionKind.RESULT,
        model=data.get("model", ""),
        values=data.get("values", {}),
        paper_title=data.get("paper_title", ""),
        citation_url=data.get("citation_url", ""),
        what=data.get("what", ""),
    )
    return _take(request, board, form, suggestion, "leaderboards/suggest_result.html", context)


def suggest_sent(request, slug):
    board = _board(slug)
    return render(
        request,
        "leaderboards/suggest_sent.html",
        {"board": board, "record": f"{reverse('leaderboards:changes')}?kind=suggestions"},
    )


def suggest_about(request):
    """How suggestions work: what a visitor may send, and what happens to it."""
    return render(
        request,
        "leaderboards/suggest_about.html",
        {"record": f"{reverse('leaderboards:changes')}?kind=suggestions"},
    )
