"""The editors' queue of visitors' suggestions: read one, then accept it by deciding, or reject it.

Waiting suggestions come first, the most supported and newest first. A
suggestion's page says what the visitor wrote (never shown in public) and
offers the decisions it can become: for a newer result, the add form filled
from it; for a correction, the row withheld, a metric's direction, or a
corrected result added. Whichever is made, its entry in the public record
credits the suggestion (leaderboards/suggestions.py). Rejecting asks for a
reason, which stays with the editors.
"""

from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from leaderboards import decisions, suggestions
from leaderboards.admin.additions import already_decided
from leaderboards.admin.filters import LeaderboardSlugFilter
from leaderboards.admin.forms import EditorLimits
from leaderboards.models import (
    QUEUE_ORDER,
    Direction,
    Metric,
    Row,
    Suggestion,
    SuggestionKind,
    SuggestionState,
)
from leaderboards.web.forms import VALUE_PREFIX
from leaderboards.web.words import counted


class ReasonForm(EditorLimits, forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}))


class WithholdRowForm(ReasonForm):
    """The reason is public: the record shows it for the withheld row."""


class DirectionForm(ReasonForm):
    metric = forms.ChoiceField()
    direction = forms.ChoiceField(choices=Direction.choices)

    def __init__(self, *args, metrics=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["metric"].choices = [(name, name) for name in metrics]


class StateFilter(admin.SimpleListFilter):
    """The queue opens on the suggestions waiting for an editor; the decided ones a click away."""

    title = "state"
    parameter_name = "state"
    ALL = "all"

    def lookups(self, request, model_admin):
        return [*SuggestionState.choices[1:], (self.ALL, "All")]

    def choices(self, changelist):
        waiting = self.value() in (None, SuggestionState.PENDING)
        yield {
            "selected": waiting,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": SuggestionState.PENDING.label.capitalize(),
        }
        for value, label in self.lookup_choices:
            yield {
                "selected": self.value() == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label.capitalize(),
            }

    def queryset(self, request, queryset):
        value = self.value()
        if value == self.ALL:
            return queryset
        if value not in SuggestionState.values:
            value = SuggestionState.PENDING
        return queryset.filter(state=value)


@admin.register(Suggestion)
class SuggestionAdmin(admin.ModelAdmin):
    # The summary names the kind ("Correction: ...", "Newer result: ...").
    list_display = ["summary", "leaderboard", "support", "created_at", "state"]
    list_filter = [StateFilter, "kind", LeaderboardSlugFilter]
    # The suggestion's own words only: a join to the boards in the search sent
    # SQLite through every board for each match.
    search_fields = ["what", "model", "row_model", "paper_title"]
    # Not joined: for_queue() reads the page's boards apart.
    list_select_related = ()
    list_per_page = 50
    ordering = QUEUE_ORDER
    # A count of every match is a second scan of a queue that may hold thousands.
    show_full_result_count = False
    actions = ["reject"]
    readonly_fields = [
        "leaderboard",
        "kind",
        "row_model",
        "model",
        "values_shown",
        "paper_title",
        "citation",
        "what",
        "why",
        "support",
        "created_at",
        "state",
        "decided_at",
        "decided_by",
        "decision_reason",
    ]
    # What each kind says; the rest of the fields would read "-".
    KIND_FIELDS = {
        SuggestionKind.RESULT: {"model", "values_shown", "paper_title", "citation", "what"},
        SuggestionKind.CORRECTION: {"row_model", "what", "why", "citation"},
    }

    def get_fields(self, request, obj=None):
        said = self.KIND_FIELDS.get(obj.kind, set()) if obj is not None else set()
        common = {"leaderboard", "kind", "support", "created_at", "state"}
        if obj is not None and obj.state != SuggestionState.PENDING:
            common |= {"decided_at", "decided_by", "decision_reason"}
        return [name for name in self.readonly_fields if name in said | common]

    def get_queryset(self, request):
        return super().get_queryset(request).for_queue()

    @admin.display(description="suggestion")
    def summary(self, obj):
        return str(obj)

    @admin.display(description="values")
    def values_shown(self, obj):
        return ", ".join(f"{name} {value}" for name, value in obj.values.items()) or "—"

    @admin.display(description="citation")
    def citation(self, obj):
        if not obj.citation_url:
            return "—"
        return format_html('<a href="{0}" rel="nofollow noopener">{0}</a>', obj.citation_url)

    def has_add_permission(self, request):
        return False

    def get_urls(self):
        decide = self.admin_site.admin_view(self.decide_view)
        return [
            path("<int:pk>/decide/", decide, name="leaderboards_suggestion_decide"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if request.method == "POST":
            # Decided by the decisions its page offers (decide_view); never edited.
            return HttpResponseRedirect(request.path)
        suggestion = self.get_object(request, object_id)
        extra = {**self.decisions(suggestion), **(extra_context or {})} if suggestion else {}
        return super().change_view(request, object_id, form_url, extra)

    def decisions(self, suggestion):
        """What the suggestion's page offers: forms and links, each a decision."""
        board = suggestion.leaderboard
        metrics = list(board.metrics.order_by("position").values_list("name", flat=True))
        add = reverse("admin:leaderboards_editoraddition_add")
        offered = {"suggestion": suggestion, "waiting": suggestion.state == SuggestionState.PENDING}
        offered["reject_form"] = ReasonForm()
        offered["decide_url"] = reverse(
            "admin:leaderboards_suggestion_decide", args=[suggestion.pk]
        )
        offered["record"] = list(suggestion.changes.order_by("pk"))
        fill = {"board": board.slug, "suggestion": suggestion.pk}
        if suggestion.kind == SuggestionKind.RESULT:
            fill |= {
                "model": suggestion.model,
                "paper_title": suggestion.paper_title,
                "paper_url": suggestion.citation_url,
                "note": "Suggested by a visitor; checked against the paper by an editor.",
            }
            for name, value in suggestion.values.items():
                if name in metrics:
                    fill[f"{VALUE_PREFIX}{metrics.index(name)}"] = value
            offered["add_url"] = f"{add}?{urlencode(fill)}"
            return offered
        row = self.row(suggestion)
        if row is not None:
            offered["row"] = row
            offered["withhold_form"] = WithholdRowForm()
            fill |= {"model": row.model, "paper_title": row.paper_title or "", "paper_url": ""}
        fill["note"] = "A correction a visitor suggested; checked against the paper by an editor."
        offered["add_url"] = f"{add}?{urlencode(fill)}"
        offered["direction_form"] = DirectionForm(metrics=metrics)
        return offered

    def row(self, suggestion):
        """The archive row a correction is about, as stored now (by key), or None."""
        if not suggestion.row_key or suggestion.row_key.startswith("added-"):
            return None
        return Row.objects.filter(
            leaderboard_id=suggestion.leaderboard_id, key=suggestion.row_key
        ).first()

    def decide_view(self, request, pk):
        """Accept by withholding the row or setting a direction, or reject: POST only."""
        suggestion = get_object_or_404(Suggestion.objects.select_related("leaderboard"), pk=pk)
        back = reverse("admin:leaderboards_suggestion_change", args=[pk])
        if request.method != "POST" or not self.has_change_permission(request, suggestion):
            return HttpResponseRedirect(back)
        decision = request.POST.get("decision")
        board = suggestion.leaderboard
        metrics = list(board.metrics.order_by("position").values_list("name", flat=True))
        try:
            if decision == "reject":
                form = ReasonForm(request.POST)
                if not form.is_valid():
                    return self.again(request, suggestion, reject_form=form)
                suggestions.reject(
                    Suggestion.objects.filter(pk=pk), form.cleaned_data["reason"], request.user
                )
                self.message_user(
                    request,
                    "Rejected: the visitor's words stay with the editors.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:leaderboards_suggestion_changelist"))
            if decision == "withhold" and (row := self.row(suggestion)) is not None:
                form = WithholdRowForm(request.POST)
                if not form.is_valid():
                    return self.again(request, suggestion, withhold_form=form)
                reason = form.cleaned_data["reason"]
                suggestions.accept(
                    pk,
                    request.user,
                    lambda: decisions.withhold([row], reason, request.user, new_reason=True),
                )
            elif decision == "direction":
                form = DirectionForm(request.POST, metrics=metrics)
                if not form.is_valid():
                    return self.again(request, suggestion, direction_form=form)
                data = form.cleaned_data
                metric = Metric(leaderboard_id=board.pk, name=data["metric"])
                suggestions.accept(
                    pk,
                    request.user,
                    lambda: decisions.set_direction(
                        [metric], data["direction"], request.user, reason=data["reason"]
                    ),
                )
            else:
                self.message_user(request, "That decision is not offered here.", messages.ERROR)
                return HttpResponseRedirect(back)
        except suggestions.AlreadyDecided as decided:
            self.message_user(request, already_decided(decided.suggestion), messages.WARNING)
            return HttpResponseRedirect(back)
        except suggestions.NothingDecided:
            self.message_user(
                request,
                "Nothing changed: the board already shows it so. The suggestion still waits: "
                "reject it, saying so.",
                messages.WARNING,
            )
            return HttpResponseRedirect(back)
        self.message_user(
            request,
            format_html(
                'Accepted: the change is on <a href="{}">{}</a>, and the public record credits '
                "the suggestion.",
                board.get_absolute_url(),
                board,
            ),
            messages.SUCCESS,
        )
        return HttpResponseRedirect(back)

    def again(self, request, suggestion, **forms_with_errors):
        """The suggestion's page again, with the form that was wrong and its errors.

        Shown as a GET: the change view would otherwise take the POST as an edit.
        """
        request.method = "GET"
        return self.change_view(request, str(suggestion.pk), extra_context=forms_with_errors)

    @admin.action(description="Reject selected suggestions…", permissions=["change"])
    def reject(self, request, queryset):
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            count = suggestions.reject(queryset, form.cleaned_data["reason"], request.user)
            self.message_user(
                request,
                f"{counted(count, 'suggestion', 'suggestions')} rejected.",
                messages.SUCCESS,
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Reject suggestions",
            "opts": self.model._meta,
            "chosen": list(queryset.for_queue()[:100]),
            "count": queryset.count(),
            "select_across": request.POST.get("select_across") == "1",
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leaderboards/suggestion/reject.html", context)
