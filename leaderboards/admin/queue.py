"""The directions queue: every metric name still without a direction, the most used first.

The archive records no directions, so an imported board draws no record line
until an editor gives its metrics one. Names repeat across thousands of
boards ("Accuracy", "F1"), so the queue works by name: an editor accepts the
suggestion, rejects it (the direction stays unknown, and says an editor
looked), or sets one, for every board still undecided on that name at once,
after a page that says how many boards and rows that is. One board at a time
goes through the metrics list, filtered to the name.
"""

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db import OperationalError
from django.http import HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import reverse

from leaderboards import decisions
from leaderboards.admin.directions import affected, queue, suggest_direction
from leaderboards.admin.forms import EditorLimits
from leaderboards.models import Direction, Metric

PAGE_SIZE = 50
NAME_LENGTH = Metric._meta.get_field("name").max_length
BUSY = "The database was busy (a load is writing) and nothing was changed. Please try again."


class Choice:
    """One of the queue's decisions on a name, as the buttons and the record word it."""

    def __init__(self, decision, name):
        self.decision = decision
        self.suggestion = suggest_direction(name)
        if decision == "accept":
            self.direction = self.suggestion.direction if self.suggestion else None
            self.label = f"Accept the suggestion: {self.suggestion}"
            self.reason = f"Accepted the suggested direction: {self.suggestion}"
        elif decision == "reject":
            self.direction = Direction.UNKNOWN
            if self.suggestion:
                self.label = f"Reject the suggestion ({self.suggestion}): leave it unknown"
                self.reason = f"Rejected the suggested direction ({self.suggestion}); left unknown"
            else:
                self.label = "Leave it unknown"
                self.reason = "Looked at: the name does not say which way is better"
        else:
            self.direction = decision
            self.label = f"Set: {Direction(decision).label}"
            self.reason = f"Set by an editor: {Direction(decision).label}"


DECISIONS = ("accept", "reject", Direction.HIGHER.value, Direction.LOWER.value)


class DecideForm(EditorLimits, forms.Form):
    name = forms.CharField(max_length=NAME_LENGTH, widget=forms.HiddenInput, strip=False)
    decision = forms.ChoiceField(choices=[(d, d) for d in DECISIONS], widget=forms.HiddenInput)
    reason = forms.CharField(
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Optional: in your words, why. Kept with each board's decision and "
        "shown in the public record of editors' work; left empty, the line above is kept.",
    )


def boards_url(name):
    """The metrics list showing this name's undecided boards, to decide one by one."""
    query = urlencode({"name": name, "direction": "undecided"})
    return f"{reverse('admin:leaderboards_metric_changelist')}?{query}"


def decide_url(name, decision):
    query = urlencode({"name": name, "decision": decision})
    return f"{reverse('admin:leaderboards_metric_directions_decide')}?{query}"


class DirectionsQueue:
    """The two views, mounted under the metrics' admin URLs (MetricAdmin.get_urls)."""

    def __init__(self, model_admin):
        self.model_admin = model_admin
        self.admin_site = model_admin.admin_site

    def context(self, request, title):
        return {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": Metric._meta,
            "queue_url": reverse("admin:leaderboards_metric_directions"),
        }

    def queue_view(self, request):
        # A page number that is not one shows the first or last page, as lists do.
        search = request.GET.get("q", "").strip()[:NAME_LENGTH]
        page = Paginator(queue(search), PAGE_SIZE).get_page(request.GET.get("page"))
        entries = []
        for entry in page:
            suggestion = suggest_direction(entry["name"])
            decisions_here = ["accept"] if suggestion else []
            decisions_here += ["reject", Direction.HIGHER, Direction.LOWER]
            entries.append(
                {
                    **entry,
                    "suggestion": suggestion,
                    "boards_url": boards_url(entry["name"]),
                    "choices": [
                        (Choice(decision, entry["name"]), decide_url(entry["name"], decision))
                        for decision in decisions_here
                    ],
                }
            )
        context = {
            **self.context(request, "Directions queue"),
            "page_obj": page,
            "entries": entries,
            "search": search,
            "search_query": urlencode({"q": search}) + "&" if search else "",
        }
        return TemplateResponse(request, "admin/leaderboards/metric/directions_queue.html", context)

    def decide_view(self, request):
        form = DecideForm(request.POST if request.method == "POST" else request.GET)
        if not form.is_valid():
            problems = "; ".join(
                f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()
            )
            return HttpResponseBadRequest(
                f"Cannot decide that: {problems}", content_type="text/plain"
            )
        name = form.cleaned_data["name"]
        choice = Choice(form.cleaned_data["decision"], name)
        if choice.direction is None:
            return HttpResponseBadRequest(
                f"There is no suggestion to accept for {name!r}.", content_type="text/plain"
            )
        counts = affected(name)
        if not counts["boards"]:
            get_object_or_404(Metric.objects.filter(name=name)[:1])
            self.model_admin.message_user(
                request, f"Every board already has a direction for {name!r}.", messages.INFO
            )
            return HttpResponseRedirect(reverse("admin:leaderboards_metric_directions"))
        if request.method == "POST":
            return self.decide(request, name, choice, form.cleaned_data["reason"])
        context = {
            **self.context(request, f"Decide the direction of “{name}”"),
            "name": name,
            "choice": choice,
            "counts": counts,
            "form": form,
            "boards_url": boards_url(name),
        }
        template = "admin/leaderboards/metric/directions_decide.html"
        return TemplateResponse(request, template, context)

    def decide(self, request, name, choice, reason):
        try:
            outcome = decisions.decide_name(
                name, choice.direction, request.user, reason=reason or choice.reason
            )
        except OperationalError as error:
            if not decisions.busy(error):
                raise
            self.model_admin.message_user(request, BUSY, messages.ERROR)
            return HttpResponseRedirect(decide_url(name, choice.decision))
        self.model_admin.message_user(
            request,
            f"“{name}”: {Direction(choice.direction).label}, on {outcome.boards:,} "
            f"board{pluralize(outcome.boards)} ({outcome.rows:,} row{pluralize(outcome.rows)}).",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:leaderboards_metric_directions"))
