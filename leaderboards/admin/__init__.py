"""The editors' tool.

What came from the page files is read-only here; editors change only the
`editor_*` fields, a metric's direction and a row's withheld flag. The loader
never writes those, so a re-load keeps every decision. Every change is logged
(Django's LogEntry) and the log is shown on the object's own page.
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import CharField, Q
from django.db.models.functions import Cast
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from leaderboards.admin.directions import suggest_direction
from leaderboards.models import (
    Area,
    Dataset,
    Direction,
    Leaderboard,
    LeaderboardArea,
    Metric,
    MetricValue,
    Paper,
    Row,
    RowVerification,
    SyntologySnapshot,
    Task,
)
from leaderboards.upkeep import search
from leaderboards.upkeep.figures import refresh_counts, refresh_leaderboard, refresh_leaderboards

HISTORY_SHOWN = 30
KNOWN = (Direction.HIGHER, Direction.LOWER)
DIRECTION_CHOICES = [("", "not set: the file's direction"), *Direction.choices]


def boards_changed(boards):
    """Recompute what the pages, lists and search show after editors changed rows or metrics."""
    boards = list(boards)
    refresh_leaderboards([board.pk for board in boards])
    search.refresh_models(boards)
    # Task, dataset and paper figures count shown rows too.
    refresh_counts()


def history_html(entries):
    items = format_html_join(
        "",
        "<li><time>{}</time> · <strong>{}</strong> · {}: {}</li>",
        (
            (
                entry.action_time.strftime("%Y-%m-%d %H:%M UTC"),
                entry.user.get_username(),
                entry.object_repr,
                entry.get_change_message() or entry.get_action_flag_display(),
            )
            for entry in entries
        ),
    )
    if not items:
        return "No editorial changes yet."
    return format_html('<ul class="editorial-history">{}</ul>', items)


class CuratedAdmin(admin.ModelAdmin):
    """Every model field read-only except `editorial_fields`; no adding by hand."""

    editorial_fields = ()
    computed_readonly = ()

    def get_readonly_fields(self, request, obj=None):
        from_files = [
            field.name
            for field in self.model._meta.get_fields()
            if field.concrete and not field.many_to_many and not field.auto_created
            if field.name not in self.editorial_fields
        ]
        return [*from_files, *self.computed_readonly, "editorial_history"]

    def has_add_permission(self, request):
        # Pages, rows and papers come from files; an editor corrects them.
        return False

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name.startswith("editor_") and db_field.null:
            # An emptied box means "no correction: show the file's text".
            kwargs["empty_value"] = None
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def history_entries(self, obj):
        content_type = ContentType.objects.get_for_model(obj, for_concrete_model=False)
        return LogEntry.objects.filter(content_type=content_type, object_id=str(obj.pk))

    @admin.display(description="Editorial history")
    def editorial_history(self, obj):
        if obj is None or obj.pk is None:
            return "—"
        entries = self.history_entries(obj).select_related("user").order_by("-action_time")
        return history_html(entries[:HISTORY_SHOWN])


class EditedTextFilter(admin.SimpleListFilter):
    title = "editor's text"
    parameter_name = "edited"

    def lookups(self, request, model_admin):
        return [("yes", "corrected by an editor"), ("no", "as the files have it")]

    def queryset(self, request, queryset):
        fields = [name for name in ("editor_description", "editor_note") if _has(queryset, name)]
        edited = Q()
        for name in fields:
            edited |= Q(**{f"{name}__isnull": False})
        if self.value() == "yes":
            return queryset.filter(edited)
        if self.value() == "no":
            return queryset.exclude(edited)
        return queryset


def _has(queryset, name):
    return any(field.name == name for field in queryset.model._meta.get_fields())


@admin.register(Area)
class AreaAdmin(CuratedAdmin):
    list_display = ["name", "slug", "task_count", "leaderboard_count"]
    list_filter = []
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "task_count", "leaderboard_count", "editorial_history"]


@admin.register(Task)
class TaskAdmin(CuratedAdmin):
    list_display = ["name", "slug", "leaderboard_count", "row_count", "corrected"]
    list_filter = [EditedTextFilter, "areas"]
    search_fields = ["name", "slug"]
    list_select_related = ["parent"]
    autocomplete_fields = ["parent"]
    editorial_fields = ["editor_description", "editor_note", "parent"]
    fieldsets = [
        (None, {"fields": ["name", "slug", "parent"]}),
        (
            "Description",
            {
                "fields": ["description", "editor_description", "note", "editor_note"],
                "description": "The page shows an editor's text where there is one, "
                "else the file's. Empty a correction to go back to the file's text.",
            },
        ),
        ("From the archive", {"fields": ["synonyms", "source_link"]}),
        ("Figures", {"fields": ["leaderboard_count", "row_count"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None or obj.editor_note is not None


@admin.register(Dataset)
class DatasetAdmin(CuratedAdmin):
    list_display = ["name", "slug", "leaderboard_count", "row_count", "corrected"]
    list_filter = [EditedTextFilter]
    search_fields = ["name", "slug", "full_name"]
    list_select_related = ["parent"]
    autocomplete_fields = ["parent"]
    editorial_fields = ["editor_description", "parent"]
    fieldsets = [
        (None, {"fields": ["name", "full_name", "slug", "url", "parent"]}),
        ("Description", {"fields": ["description", "editor_description"]}),
        ("Figures", {"fields": ["leaderboard_count", "row_count"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None


@admin.register(Paper)
class PaperAdmin(CuratedAdmin):
    list_display = ["title", "slug", "date", "arxiv_id", "has_code", "verified"]
    list_filter = ["has_code", "verified"]
    search_fields = ["title", "slug", "arxiv_id"]
    date_hierarchy = "date"


class MetricDirectionFilter(admin.SimpleListFilter):
    title = "direction"
    parameter_name = "direction"

    def lookups(self, request, model_admin):
        return [
            ("editor", "set by an editor"),
            ("file", "from the file"),
            ("unknown", "unknown"),
        ]

    def queryset(self, request, queryset):
        no_editor = Q(editor_direction__isnull=True)
        from_file = no_editor & Q(source_direction__in=KNOWN)
        if self.value() == "editor":
            return queryset.exclude(no_editor)
        if self.value() == "file":
            return queryset.filter(from_file)
        if self.value() == "unknown":
            # Django's negated lookup keeps the NULLs: no direction in the file.
            return queryset.filter(
                Q(editor_direction=Direction.UNKNOWN) | (no_editor & ~Q(source_direction__in=KNOWN))
            )
        return queryset


@admin.display(description="suggested from the name")
def suggested_direction(metric):
    suggestion = suggest_direction(metric.name)
    return str(suggestion) if suggestion else "—"


@admin.display(description="shown direction")
def shown_direction(metric):
    if metric.direction is None:
        return "unknown"
    return f"{metric.direction} (set by {metric.direction_set_by})"


class DirectionChoices:
    """Says what an empty editor direction means, in the metric form and inline."""

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "editor_direction":
            kwargs["choices"] = DIRECTION_CHOICES
        return super().formfield_for_choice_field(db_field, request, **kwargs)


class MetricInline(DirectionChoices, admin.TabularInline):
    model = Metric
    fields = ["name", "source_direction", "editor_direction", suggested_direction]
    readonly_fields = ["name", "source_direction", suggested_direction]
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class AreaLinkInline(admin.TabularInline):
    model = LeaderboardArea
    fields = ["area", "position"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "categories (from the file)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("area")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Leaderboard)
class LeaderboardAdmin(CuratedAdmin):
    list_display = ["slug", "task", "dataset", "category", "row_count", "read_at", "corrected"]
    list_filter = [EditedTextFilter, "category", ("read_at", admin.DateFieldListFilter)]
    search_fields = ["slug", "task__name", "dataset__name"]
    list_select_related = ["task", "dataset", "category"]
    autocomplete_fields = ["task", "dataset", "category"]
    editorial_fields = ["editor_description"]
    computed_readonly = ["rows_table"]
    inlines = [MetricInline, AreaLinkInline]
    fieldsets = [
        (None, {"fields": ["slug", "task", "dataset", "category", "category_note"]}),
        ("Description", {"fields": ["description", "description_from", "editor_description"]}),
        ("Rows", {"fields": ["rows_table"]}),
        (
            "From the file",
            {
                "classes": ["collapse"],
                "fields": ["source", "direction_note", "extra", "source_sha256", "read_at"],
            },
        ),
        (
            "Figures of the shown rows",
            {
                "fields": [
                    "row_count",
                    "newest_paper_date",
                    "verified_row_count",
                    "since_archive_entry_count",
                    "updated_at",
                ]
            },
        ),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None

    @admin.display(description="rows, in archive order")
    def rows_table(self, obj):
        # A plain table rather than an inline formset: a board of a thousand
        # rows would post more fields than Django accepts. Each row links to
        # its own page, where an editor withholds or restores it.
        rows = obj.rows.order_by("rank").values(
            "pk", "rank", "model", "paper_date", "withheld", "withheld_reason"
        )
        body = format_html_join(
            "",
            '<tr{}><td>{}</td><td><a href="{}">{}</a></td><td>{}</td><td>{}</td></tr>',
            (
                (
                    format_html(' class="withheld"') if row["withheld"] else "",
                    row["rank"],
                    reverse("admin:leaderboards_row_change", args=[row["pk"]]),
                    row["model"],
                    row["paper_date"] or "",
                    f"withheld: {row['withheld_reason']}" if row["withheld"] else "shown",
                )
                for row in rows
            ),
        )
        return format_html(
            '<table class="board-rows"><thead><tr><th>rank</th><th>model</th>'
            "<th>paper date</th><th>state</th></tr></thead><tbody>{}</tbody></table>",
            body,
        )

    def history_entries(self, obj):
        # The board's log and that of its metrics and rows, in one list.
        def of(model, queryset):
            return Q(
                content_type=ContentType.objects.get_for_model(model),
                object_id__in=queryset.annotate(key=Cast("pk", CharField())).values("key"),
            )

        return LogEntry.objects.filter(
            Q(content_type=ContentType.objects.get_for_model(Leaderboard), object_id=str(obj.pk))
            | of(Metric, obj.metrics.all())
            | of(Row, obj.rows.all())
        )

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        refresh_leaderboard(form.instance)


def _set_direction(direction, description):
    @admin.action(description=description, permissions=["change"])
    def action(modeladmin, request, queryset):
        changed = []
        for metric in queryset.select_related("leaderboard"):
            if metric.editor_direction != direction:
                metric.editor_direction = direction
                metric.save(update_fields=["editor_direction"])
                modeladmin.log_change(request, metric, f"Direction set: {direction or 'cleared'}")
                changed.append(metric)
        boards_changed({metric.leaderboard for metric in changed})
        modeladmin.message_user(request, f"{len(changed)} metrics changed.", messages.SUCCESS)

    action.__name__ = f"set_{direction or 'none'}"
    return action


@admin.register(Metric)
class MetricAdmin(DirectionChoices, CuratedAdmin):
    list_display = [
        "name",
        "leaderboard",
        "source_direction",
        "editor_direction",
        suggested_direction,
        shown_direction,
    ]
    list_filter = [MetricDirectionFilter, "editor_direction"]
    search_fields = ["name", "leaderboard__slug", "leaderboard__task__name"]
    list_select_related = ["leaderboard__task", "leaderboard__dataset"]
    autocomplete_fields = ["leaderboard"]
    editorial_fields = ["editor_direction"]
    computed_readonly = [suggested_direction, shown_direction]
    fields = [
        "leaderboard",
        "name",
        "position",
        "source_direction",
        ("editor_direction", suggested_direction),
        shown_direction,
        "editorial_history",
    ]
    actions = [
        "accept_suggestions",
        _set_direction(Direction.HIGHER, "Set direction: higher is better"),
        _set_direction(Direction.LOWER, "Set direction: lower is better"),
        _set_direction(Direction.UNKNOWN, "Set direction: unknown (no best-so-far line)"),
        _set_direction(None, "Clear the editor's direction (use the file's)"),
    ]

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        refresh_leaderboard(obj.leaderboard)

    @admin.action(description="Accept the suggested direction", permissions=["change"])
    def accept_suggestions(self, request, queryset):
        accepted, skipped = [], 0
        for metric in queryset.select_related("leaderboard"):
            suggestion = suggest_direction(metric.name)
            # Only where nobody has said: a file's or an editor's word stands.
            if suggestion is None or metric.editor_direction or metric.direction:
                skipped += 1
                continue
            metric.editor_direction = suggestion.direction
            metric.save(update_fields=["editor_direction"])
            self.log_change(request, metric, f"Accepted the suggested direction: {suggestion}")
            accepted.append(metric)
        boards_changed({metric.leaderboard for metric in accepted})
        self.message_user(
            request,
            f"{len(accepted)} suggestions accepted; {skipped} metrics skipped "
            "(no suggestion, or a direction already set).",
            messages.SUCCESS,
        )


class MetricValueInline(admin.TabularInline):
    model = MetricValue
    fields = ["metric", "raw", "number"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "values (as the file wrote them; the number is for sorting)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("metric").order_by("position")

    def has_add_permission(self, request, obj=None):
        return False


class WithholdForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Kept with the rows and in the history; visitors do not see it.",
    )


@admin.register(Row)
class RowAdmin(CuratedAdmin):
    list_display = ["rank", "model", "leaderboard", "paper_date", "withheld", "withheld_reason"]
    list_display_links = ["rank", "model"]
    list_filter = ["withheld", "uses_additional_data"]
    search_fields = ["model", "paper_title", "leaderboard__slug"]
    list_select_related = ["leaderboard__task", "leaderboard__dataset"]
    autocomplete_fields = ["leaderboard", "paper"]
    editorial_fields = ["withheld", "withheld_reason"]
    inlines = [MetricValueInline]
    fieldsets = [
        (None, {"fields": ["leaderboard", "rank", "model", "uses_additional_data"]}),
        (
            "Spam",
            {
                "fields": ["withheld", "withheld_reason"],
                "description": "A withheld row leaves the page and its exports, and is "
                "counted in rows_withheld_as_spam. Untick to restore it.",
            },
        ),
        (
            "Paper and code",
            {"fields": ["paper", "paper_title", "paper_url", "paper_date", "code"]},
        ),
        ("From the file", {"classes": ["collapse"], "fields": ["n_code_links", "extra"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]
    actions = ["withhold", "restore"]

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()

    def save_model(self, request, obj, form, change):
        if not obj.withheld:
            obj.withheld_reason = ""
        super().save_model(request, obj, form, change)
        if "withheld" in form.changed_data:
            boards_changed([obj.leaderboard])

    @admin.action(description="Withhold selected rows as spam…", permissions=["change"])
    def withhold(self, request, queryset):
        form = WithholdForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            rows = list(queryset.filter(withheld=False).select_related("leaderboard"))
            for row in rows:
                row.withheld, row.withheld_reason = True, reason
                row.save(update_fields=["withheld", "withheld_reason"])
                self.log_change(request, row, f"Withheld as spam: {reason}")
            boards_changed({row.leaderboard for row in rows})
            self.message_user(request, f"{len(rows)} rows withheld.", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Withhold rows as spam",
            "opts": self.model._meta,
            "rows": queryset.select_related("leaderboard__task", "leaderboard__dataset"),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leaderboards/row/withhold.html", context)

    @admin.action(description="Restore selected rows", permissions=["change"])
    def restore(self, request, queryset):
        rows = list(queryset.filter(withheld=True).select_related("leaderboard"))
        for row in rows:
            row.withheld, row.withheld_reason = False, ""
            row.save(update_fields=["withheld", "withheld_reason"])
            self.log_change(request, row, "Restored")
        boards_changed({row.leaderboard for row in rows})
        self.message_user(request, f"{len(rows)} rows restored.", messages.SUCCESS)


class VerificationInline(admin.TabularInline):
    model = RowVerification
    fields = ["rank", "model", "n_ran", "n_unverified", "n_pointer_only_licence"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["rank"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(SyntologySnapshot)
class SnapshotAdmin(CuratedAdmin):
    list_display = ["leaderboard", "read_at_text", "created_at"]
    list_filter = [("read_at", admin.DateFieldListFilter)]
    search_fields = ["leaderboard__slug"]
    list_select_related = ["leaderboard__task", "leaderboard__dataset"]
    autocomplete_fields = ["leaderboard"]
    inlines = [VerificationInline]

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()
