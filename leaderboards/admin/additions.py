"""Results editors add to a board: a form per board, a since-archive entry promoted in one click.

The add form is opened for one board (`?board=<slug>`), since its value
fields are the board's metrics. Below the form stand the board's
since-archive entries (Syntology's results from newer papers), each with a
"Promote" link that opens the same form filled from the entry. An added
result is never edited afterwards: it is withheld as spam (with a reason,
shown in the public record) or restored, like an archive row.
"""

import re
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from leaderboards import record, suggestions
from leaderboards.admin.forms import EditorLimits
from leaderboards.format.rules import MONTH_PATTERN, entry_key, http_url
from leaderboards.models import (
    EditorAddition,
    EditorialChange,
    Leaderboard,
    Suggestion,
    SuggestionState,
    SyntologySnapshot,
    public_name,
)
from leaderboards.web.forms import VALUE_PREFIX, typed_values
from leaderboards.web.words import counted

# Since-archive columns (SPEC 1, the generator's and Syntology's names) and
# the form field each fills.
PROMOTED = {"model": "model", "paper": "paper_title", "title": "paper_title", "code": "code"}


class AdditionForm(EditorLimits, forms.ModelForm):
    """The board's metrics become one text box each, values kept as typed."""

    metric_names = ()
    # The visitor's suggestion that saving accepts (admin/suggestions.py), if any.
    suggestion = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    class Meta:
        model = EditorAddition
        fields = [
            "leaderboard",
            "model",
            "paper_title",
            "paper_url",
            "paper_date",
            "paper_month",
            "code",
            "uses_additional_data",
            "note",
            "promoted_from",
        ]
        widgets = {
            "model": forms.TextInput(attrs={"size": 60}),
            "paper_title": forms.TextInput(attrs={"size": 80}),
            "paper_url": forms.URLInput(attrs={"size": 80}),
            "code": forms.URLInput(attrs={"size": 80}),
            "leaderboard": forms.HiddenInput,
            "promoted_from": forms.HiddenInput,
            "paper_month": forms.TextInput(attrs={"size": 8, "placeholder": "YYYY-MM"}),
            "note": forms.Textarea(attrs={"rows": 3, "cols": 80}),
        }

    def clean_paper_url(self):
        url = http_url(self.cleaned_data["paper_url"])
        if not url:
            raise ValidationError("Cite the paper with an http(s) URL.")
        return url

    def clean_paper_month(self):
        month = (self.cleaned_data.get("paper_month") or "").strip()
        if month and not MONTH_PATTERN.match(month):
            raise ValidationError("A month is written YYYY-MM, as 2025-10.")
        return month

    def clean_promoted_from(self):
        key = self.cleaned_data.get("promoted_from") or ""
        if key and not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ValidationError("Not a since-archive entry's key.")
        return key

    def clean_suggestion(self):
        pk = self.cleaned_data.get("suggestion")
        if pk is None:
            return None
        board = self.cleaned_data.get("leaderboard")
        suggestion = Suggestion.objects.filter(pk=pk).first()
        if suggestion is None or board is None or suggestion.leaderboard_id != board.pk:
            raise ValidationError("Not a suggestion on this board.")
        if suggestion.state != SuggestionState.PENDING:
            raise ValidationError(already_decided(suggestion))
        return pk

    def clean_code(self):
        code = self.cleaned_data.get("code") or ""
        if code and not http_url(code):
            raise ValidationError("A code link is an http(s) URL, or left empty.")
        return http_url(code)

    def clean(self):
        cleaned = super().clean()
        values = typed_values(cleaned, self.metric_names)
        if not values:
            raise ValidationError("Give the result's value for at least one metric.")
        self.instance.metrics = values
        key, board = cleaned.get("promoted_from"), cleaned.get("leaderboard")
        if key and board is not None:
            earlier = EditorAddition.objects.filter(leaderboard=board, promoted_from=key).first()
            if earlier is not None:
                raise ValidationError(already_promoted(earlier))
        return cleaned


def already_decided(suggestion):
    """What an editor who decides a suggestion another editor decided first is told."""
    when = suggestion.decided_at.strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Another editor decided this suggestion first ({suggestion.get_state_display()}, {when})."
    )


def already_promoted(earlier):
    """What an editor who promotes an entry a second time is told."""
    when = earlier.added_at.strftime("%Y-%m-%d")
    state = " (since withheld)" if earlier.withheld else ""
    return f"This entry was promoted already, on {when}, as “{earlier.model}”{state}."


def value_fields(metrics):
    return {
        f"{VALUE_PREFIX}{index}": forms.CharField(
            label=metric.name,
            required=False,
            max_length=200,
            help_text="As the paper writes it (97.1, 97.1 ± 0.2); empty if not reported.",
        )
        for index, metric in enumerate(metrics)
    }


class RecordInline(admin.TabularInline):
    """The added result's entries in the public record: added, withheld, restored."""

    model = EditorialChange
    fk_name = "addition"
    fields = ["made_at", "kind", "old_value", "new_value", "reason", "editor"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["-pk"]
    verbose_name_plural = "Editorial history (as the public record shows it)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("made_by")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(EditorAddition)
class EditorAdditionAdmin(admin.ModelAdmin):
    form = AdditionForm
    inlines = [RecordInline]
    list_display = ["model", "leaderboard", "paper_title", "added_at", "added_by_name", "withheld"]
    list_filter = ["withheld", ("added_at", admin.DateFieldListFilter)]
    search_fields = ["model", "paper_title", "leaderboard__slug"]
    list_select_related = ["leaderboard__task", "leaderboard__dataset", "added_by"]
    date_hierarchy = "added_at"
    actions = ["withhold", "restore"]
    readonly_fields = ["board_link", "values", "added_by_name"]

    @admin.display(description="added by")
    def added_by_name(self, obj):
        return public_name(obj.added_by)

    @admin.display(description="leaderboard")
    def board_link(self, obj):
        board = obj.leaderboard
        return format_html('<a href="{}">{}</a>', board.get_absolute_url(), board)

    @admin.display(description="values")
    def values(self, obj):
        return record.describe(obj)

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()

    def has_delete_permission(self, request, obj=None):
        # Removed as spam is: withheld with a reason, which the record keeps.
        return False

    # -- adding: one board at a time --------------------------------------------

    def board(self, request):
        slug = request.GET.get("board", "")
        return (
            Leaderboard.objects.with_areas_and_metrics().filter(slug=slug).first() if slug else None
        )

    def add_view(self, request, form_url="", extra_context=None):
        board = self.board(request)
        if board is None:
            return self.choose_board(request)
        request.sotasite_board = board
        accepting = (request.POST or request.GET).get("suggestion", "")
        context = {
            **(extra_context or {}),
            "board": board,
            "promotable": self.promotable(request, board),
            "accepting": Suggestion.objects.filter(pk=int(accepting), leaderboard=board).first()
            if accepting.isdigit() and len(accepting) < 19
            else None,
        }
        try:
            return super().add_view(request, form_url, context)
        except record.AlreadyPromoted as error:
            # Another editor promoted it between this form's check and its save.
            self.message_user(request, already_promoted(error.addition), messages.WARNING)
            return HttpResponseRedirect(f"{request.path}?{urlencode({'board': board.slug})}")
        except suggestions.AlreadyDecided as error:
            # Another editor decided the suggestion between this form's check and its save.
            self.message_user(request, already_decided(error.suggestion), messages.WARNING)
            return HttpResponseRedirect(
                reverse("admin:leaderboards_suggestion_change", args=[error.suggestion.pk])
            )

    def choose_board(self, request):
        slug = request.GET.get("board", "")
        context = {
            **self.admin_site.each_context(request),
            "title": "Add a result: which leaderboard?",
            "opts": self.model._meta,
            "slug": slug,
            "unknown": bool(slug),
        }
        return TemplateResponse(
            request, "admin/leaderboards/editoraddition/choose_board.html", context
        )

    def get_inlines(self, request, obj):
        # A result being added has no history yet.
        return self.inlines if obj is not None else []

    def get_fieldsets(self, request, obj=None):
        if obj is not None:
            return [
                (None, {"fields": ["board_link", "model", "values", "uses_additional_data"]}),
                (
                    "Citation",
                    {"fields": ["paper_title", "paper_url", "paper_date", "paper_month", "code"]},
                ),
                ("Why", {"fields": ["note", "added_at", "added_by_name", "promoted_from"]}),
                ("Spam", {"fields": ["withheld", "withheld_reason"]}),
            ]
        board = request.sotasite_board
        return [
            (None, {"fields": ["leaderboard", "promoted_from", "suggestion", "model"]}),
            (
                "Values",
                {
                    "fields": list(value_fields(board.metrics.all())),
                    "description": "Under the board's own metrics, exactly as the paper "
                    "reports them; the page shows them as written.",
                },
            ),
            (
                "Citation",
                {"fields": ["paper_title", "paper_url", "paper_date", "paper_month", "code"]},
            ),
            ("Why", {"fields": ["uses_additional_data", "note"]}),
        ]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return self.readonly_fields
        # An added result stands as cited; editors withhold it, never rewrite it.
        return [
            *self.readonly_fields,
            *(field.name for field in self.model._meta.concrete_fields),
        ]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            return super().get_form(request, obj, change, **kwargs)
        metrics = list(request.sotasite_board.metrics.all())
        form = type(
            "BoardAdditionForm",
            (AdditionForm,),
            {**value_fields(metrics), "metric_names": [metric.name for metric in metrics]},
        )
        return super().get_form(request, obj, change, form=form, **kwargs)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial["leaderboard"] = request.sotasite_board.pk
        initial.pop("board", None)
        return initial

    def save_model(self, request, obj, form, change):
        if not change:
            if obj.leaderboard_id != request.sotasite_board.pk:
                # The hidden board field was changed by hand: keep to the form's board.
                obj.leaderboard = request.sotasite_board
            suggestion = form.cleaned_data.get("suggestion")
            if suggestion is None:
                record.add_result(obj, request.user)
            else:
                suggestions.accept(
                    suggestion, request.user, lambda: record.add_result(obj, request.user)
                )

    def promotable(self, request, board):
        """(entry's cells, link to the form filled from it, or None with the result it
        became when it was promoted already) for each since-archive entry."""
        snapshot = SyntologySnapshot.objects.current(board)
        since = snapshot.since_archive if snapshot is not None else None
        if not isinstance(since, dict):
            return []
        columns = since.get("columns") or []
        metrics = [metric.name for metric in board.metrics.all()]
        url = reverse("admin:leaderboards_editoraddition_add")
        entries = [entry for entry in since.get("entries") or [] if isinstance(entry, dict)]
        promoted = {
            addition.promoted_from: addition
            for addition in EditorAddition.objects.filter(leaderboard=board).exclude(
                promoted_from=""
            )
        }
        found = []
        for entry in entries:
            earlier = promoted.get(entry_key(entry))
            href = None if earlier else f"{url}?{urlencode(prefill(entry, board, metrics))}"
            found.append(([entry.get(name) for name in columns], href, earlier))
        return found

    # -- removing, as spam ------------------------------------------------------

    @admin.action(description="Withhold selected added results as spam…", permissions=["change"])
    def withhold(self, request, queryset):
        form = WithholdForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            changed = record.withhold_additions(
                list(queryset), form.cleaned_data["reason"], request.user
            )
            text = f"{counted(len(changed), 'added result', 'added results')} withheld."
            self.message_user(request, text, messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Withhold added results as spam",
            "opts": self.model._meta,
            "additions": list(queryset.select_related("leaderboard__task", "leaderboard__dataset")),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leaderboards/editoraddition/withhold.html", context)

    @admin.action(description="Restore selected added results", permissions=["change"])
    def restore(self, request, queryset):
        changed = record.restore_additions(list(queryset), request.user)
        text = f"{counted(len(changed), 'added result', 'added results')} restored."
        self.message_user(request, text, messages.SUCCESS)

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(
            request,
            format_html(
                'The result is on <a href="{}">{}</a>, marked “added by editors”, and in the '
                "public record.",
                obj.leaderboard.get_absolute_url(),
                obj.leaderboard,
            ),
            messages.SUCCESS,
        )
        return HttpResponseRedirect(
            reverse("admin:leaderboards_editoraddition_change", args=[obj.pk])
        )


class WithholdForm(EditorLimits, forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown in the public record of editorial changes; the result's content is not.",
    )


def prefill(entry, board, metrics):
    """The add form's fields from a since-archive entry: what it names, as it wrote it."""
    values = {"board": board.slug}
    for column, field in PROMOTED.items():
        if isinstance(entry.get(column), str) and field not in values:
            values[field] = entry[column]
    metric, value = entry.get("metric"), entry.get("value")
    if metric in metrics and value is not None:
        values[f"{VALUE_PREFIX}{metrics.index(metric)}"] = str(value)
    url = http_url(entry.get("url"))
    arxiv = entry.get("arxiv_id")
    if not url and isinstance(arxiv, str) and arxiv:
        url = f"https://arxiv.org/abs/{arxiv}"
    if url:
        values["paper_url"] = url
    values["promoted_from"] = entry_key(entry)
    month = entry.get("month")
    if isinstance(month, str) and MONTH_PATTERN.match(month):
        # The entry knows the month, not the day: kept as a month, never a guessed day.
        values["paper_month"] = month
    where = ", ".join(
        f"{name} {entry[name]}" for name in ("arxiv_id", "table", "month") if entry.get(name)
    )
    values["note"] = "Promoted from Syntology's since-archive entries" + (
        f" ({where})." if where else "."
    )
    return values
