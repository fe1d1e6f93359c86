"""The editors' tool.

What came from the page files is read-only here; editors change only the
`editor_*` fields, a metric's direction and a row's withheld flag. The loader
never writes those texts; decisions on rows and metrics, which a re-load
replaces, are kept by key (leaderboards/decisions.py), so a re-load keeps every
decision, and an action on a row or metric a re-load replaced goes to the one
that has its key now. Every change is logged (Django's LogEntry) and the log
is shown on the object's own page.
"""

from collections import defaultdict
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.db.models import CharField, Q
from django.db.models.functions import Cast
from django.forms.models import BaseInlineFormSet
from django.http import HttpResponseRedirect, QueryDict
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from leaderboards import decisions
from leaderboards.admin import additions  # noqa: F401 (registers the added results' admin)
from leaderboards.admin.deletes import FiguresKeptOnDelete
from leaderboards.admin.directions import suggest_direction
from leaderboards.admin.queue import BUSY, DirectionsQueue
from leaderboards.models import (
    Area,
    Dataset,
    Direction,
    DirectionDecision,
    Leaderboard,
    LeaderboardArea,
    Metric,
    MetricValue,
    Paper,
    Row,
    RowDecision,
    RowVerification,
    SyntologySnapshot,
    Task,
)
from leaderboards.upkeep.figures import refresh_leaderboard

# Editors work on this site, not on "Django administration".
admin.site.site_header = "sotasite editors"
admin.site.site_title = "sotasite editors"
admin.site.index_title = "Curate the leaderboards"

HISTORY_SHOWN = 30
KNOWN = decisions.KNOWN
DIRECTION_CHOICES = [("", "not set: the file's direction"), *Direction.choices]


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


class CuratedAdmin(FiguresKeptOnDelete, admin.ModelAdmin):
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

    def save_model(self, request, obj, form, change):
        # Only what the editor changed: the rest of the form's object was read
        # before a load may have written newer file fields, not to be undone.
        fields = [name for name in form.changed_data if name in self.editorial_fields]
        if change and fields:
            obj.save(update_fields=fields)
        elif not change:
            super().save_model(request, obj, form, change)

    def changeform_view(self, request, *args, **kwargs):
        return self._unless_busy_or_gone(request, super().changeform_view, *args, **kwargs)

    def changelist_view(self, request, *args, **kwargs):
        return self._unless_busy_or_gone(request, super().changelist_view, *args, **kwargs)

    def _unless_busy_or_gone(self, request, view, *args, **kwargs):
        """A clear message, never a 500, when a write met a load (everything rolled back)."""
        try:
            return view(request, *args, **kwargs)
        except decisions.Gone as gone:
            self.message_user(request, str(gone), messages.WARNING)
            opts = self.model._meta
            return HttpResponseRedirect(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
            )
        except OperationalError as error:
            if not decisions.busy(error):
                raise
            self.message_user(request, BUSY, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

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


class ChosenByKey:
    """For rows and metrics, which a re-load replaces: what an editor chose is found by key.

    Each checkbox of the list, and each change form, carries the object's key
    beside its id; an id a re-load deleted is followed to the object that has
    its key now, or reported as gone.
    """

    noun = ""

    def key_value(self, obj):
        raise NotImplementedError

    def ref(self, value):
        raise NotImplementedError

    def label(self, ref):
        raise NotImplementedError

    def action_checkbox(self, obj):
        return format_html(
            '{}<input type="hidden" name="key-{}" value="{}">',
            super().action_checkbox(obj),
            obj.pk,
            self.key_value(obj),
        )

    def chosen(self, request, queryset):
        """The objects the editor ticked, as refs: stored ones, and keys of replaced ones."""
        found = {str(obj.pk): obj for obj in queryset}
        refs = list(found.values())
        for pk in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
            if pk not in found:
                refs.append(self.ref(request.POST.get(f"key-{pk}", "")))
        return refs

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None and request.method == "POST" and "decision_key" in request.POST:
            # A form opened before a re-load replaced the object.
            ref = self.ref(request.POST["decision_key"])
            obj = self.get_queryset(request).filter(**self.lookup(ref)).first()
            if obj is None:
                raise decisions.Gone(self.gone_message([ref]))
            self.message_user(request, self.followed_message(1), messages.INFO)
        return obj

    def gone_message(self, refs):
        names = ", ".join(self.label(ref) for ref in refs)
        return (
            f"Nothing changed for {names}: the board's newer file no longer has "
            f"{'it' if len(refs) == 1 else 'them'}."
        )

    def followed_message(self, count):
        return (
            f"{count} {self.noun} had been replaced by a newer file since the page was "
            "shown; the change went to the one with the same key now."
        )

    def report(self, request, outcome, done):
        text = f"{len(outcome.changed)} {self.noun} {done}."
        if outcome.unchanged:
            text += f" {len(outcome.unchanged)} already were."
        self.message_user(request, text, messages.SUCCESS)
        if outcome.followed:
            self.message_user(request, self.followed_message(len(outcome.followed)), messages.INFO)
        if outcome.missing:
            self.message_user(request, self.gone_message(outcome.missing), messages.WARNING)


class PostedBack(forms.CharField):
    """A hidden copy of what identifies the object, read from the raw POST; never a change."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def has_changed(self, initial, data):
        return False


class KeyField(forms.ModelForm):
    """The change form's hidden copy of the object's key (ChosenByKey.get_object)."""

    decision_key = PostedBack()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["decision_key"].initial = self.key_value(self.instance)


class RowForm(KeyField):
    @staticmethod
    def key_value(row):
        return f"{row.leaderboard_id} {row.key} {row.model}"


class MetricForm(KeyField):
    @staticmethod
    def key_value(metric):
        return f"{metric.leaderboard_id} {metric.name}"


class TextFilter(admin.SimpleListFilter):
    """A filter by one typed value (a slug, a name): never a menu of every board."""

    template = "admin/leaderboards/text_filter.html"
    placeholder = ""

    def lookups(self, request, model_admin):
        # Shown as the chosen value, so the sidebar says what the list is filtered by.
        return [(self.value(), self.value())] if self.value() else [("", "")]

    def has_output(self):
        return True

    def choices(self, changelist):
        self.hidden = [
            (key, value)
            for key, values in QueryDict(
                changelist.get_query_string(remove=[self.parameter_name, "p"])[1:]
            ).lists()
            for value in values
        ]
        if self.value():
            yield {
                "selected": False,
                "query_string": changelist.get_query_string(remove=[self.parameter_name]),
                "display": "All",
            }


class MetricNameFilter(TextFilter):
    title = "metric name (exact)"
    parameter_name = "name"
    placeholder = "a metric name"

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        return queryset.filter(name=self.value())


class LeaderboardSlugFilter(TextFilter):
    title = "leaderboard (slug)"
    parameter_name = "leaderboard"
    placeholder = "a leaderboard's slug"

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        return queryset.filter(leaderboard__slug=self.value())


def _as_id(text):
    return int(text) if text.isdigit() else None


class MetricDirectionFilter(admin.SimpleListFilter):
    title = "direction"
    parameter_name = "direction"

    def lookups(self, request, model_admin):
        return [
            ("editor", "set by an editor"),
            ("file", "from the file"),
            ("unknown", "unknown"),
            ("undecided", "none yet (the directions queue)"),
        ]

    def queryset(self, request, queryset):
        no_editor = Q(editor_direction__isnull=True)
        from_file = no_editor & Q(source_direction__in=KNOWN)
        if self.value() == "editor":
            return queryset.exclude(no_editor)
        if self.value() == "file":
            return queryset.filter(from_file)
        if self.value() == "undecided":
            # Unknown and nobody said so: what the directions queue lists.
            return queryset.filter(pk__in=decisions.undecided_metrics().values("pk"))
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


class MetricInlineForm(forms.ModelForm):
    # Posted back, so a form opened before a re-load finds the metric by name.
    metric_name = PostedBack()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["metric_name"].initial = self.instance.name


class MetricFormSet(BaseInlineFormSet):
    """Metric ids a re-load replaced are read as the board's metric of the same name now."""

    def __init__(self, data=None, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.gone = []
        if not self.is_bound or self.instance.pk is None:
            return
        current = {metric.name: metric.pk for metric in self.get_queryset()}
        ids = set(current.values())
        data = self.data.copy()
        for index in range(self.initial_form_count()):
            field = self.add_prefix(index) + "-id"
            name = data.get(self.add_prefix(index) + "-metric_name")
            if _as_id(data.get(field, "")) in ids:
                continue
            if name in current:
                data[field] = str(current[name])
            elif name:
                self.gone.append(name)
        self.data = data

    def clean(self):
        super().clean()
        if self.gone:
            raise forms.ValidationError(
                f"Nothing was saved: the board's newer file no longer has "
                f"{', '.join(map(repr, self.gone))}."
            )


class MetricInline(DirectionChoices, admin.TabularInline):
    model = Metric
    form = MetricInlineForm
    formset = MetricFormSet
    fields = ["name", "source_direction", "editor_direction", suggested_direction, "metric_name"]
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
    classes = ["collapse"]
    verbose_name_plural = "categories (from the file)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("area")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        # Shown only; a re-load replaces the links, so nothing of theirs is posted back.
        return False


class DecisionInline(admin.TabularInline):
    """An editor's standing decisions on the board, kept across re-loads; made elsewhere."""

    extra = 0
    can_delete = False
    # Listed, not edited here: out of the way of the form's own fields.
    classes = ["collapse"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("decided_by")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RowDecisionInline(DecisionInline):
    model = RowDecision
    fields = ["model", "paper", "occurrence", "withheld", "reason", "decided_by", "decided_at"]
    readonly_fields = fields
    verbose_name_plural = (
        "editors' decisions on rows (by model and paper: they outlast re-loads, and apply "
        "again when a later file brings a row back)"
    )


class DirectionDecisionInline(DecisionInline):
    model = DirectionDecision
    fields = ["metric", "direction", "reason", "decided_by", "decided_at"]
    readonly_fields = fields
    verbose_name_plural = "editors' decisions on metric directions (by name)"


@admin.register(Leaderboard)
class LeaderboardAdmin(CuratedAdmin):
    list_display = ["slug", "task", "dataset", "category", "row_count", "read_at", "corrected"]
    list_filter = [EditedTextFilter, "category", ("read_at", admin.DateFieldListFilter)]
    search_fields = ["slug", "task__name", "dataset__name"]
    list_select_related = ["task", "dataset", "category"]
    autocomplete_fields = ["task", "dataset", "category"]
    editorial_fields = ["editor_description"]
    computed_readonly = ["rows_link"]
    inlines = [MetricInline, AreaLinkInline, RowDecisionInline, DirectionDecisionInline]
    # The change form opens on what editors change (templates/admin/leaderboards/
    # leaderboard/change_form.html puts the metrics' directions right after
    # these two sets); the rows are a link to their own list, not a table of
    # a thousand lines before the Save button.
    save_on_top = True
    fieldsets = [
        (
            "Description",
            {
                "fields": [("description", "description_from"), "editor_description"],
                "description": "The page shows the editor's text where there is one, else "
                "the file's. Empty the correction to go back to the file's text.",
            },
        ),
        ("Directions and rows", {"fields": ["rows_link", "direction_note"]}),
        (
            "From the file",
            {
                "classes": ["collapse"],
                "fields": [
                    "slug",
                    "task",
                    "dataset",
                    "category",
                    "category_note",
                    "source",
                    "extra",
                    "source_sha256",
                    "read_at",
                ],
            },
        ),
        (
            "Figures of the shown rows",
            {
                "classes": ["collapse"],
                "fields": [
                    "row_count",
                    "newest_paper_date",
                    "verified_row_count",
                    "since_archive_entry_count",
                    "updated_at",
                ],
            },
        ),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "editor_description":
            field.widget.attrs["rows"] = 3
        return field

    @admin.display(description="rows")
    def rows_link(self, obj):
        # A link, not the rows: a board of a thousand rows made this form
        # 34,000 px tall. The rows list, filtered to the board, withholds and
        # restores them.
        url = reverse("admin:leaderboards_row_changelist")
        query = urlencode({"leaderboard": obj.slug})
        return format_html(
            '<a class="board-rows-link" href="{}?{}">{} row{}: open the rows list filtered '
            'to this board</a> · <a href="{}">the public page</a>',
            url,
            query,
            obj.row_count,
            pluralize(obj.row_count),
            obj.get_absolute_url(),
        )

    def history_entries(self, obj):
        # The board's log and that of its metrics and rows, in one list.
        def of(model, queryset):
            return Q(
                content_type=ContentType.objects.get_for_model(model),
                object_id__in=queryset.annotate(pk_text=Cast("pk", CharField())).values("pk_text"),
            )

        return LogEntry.objects.filter(
            Q(content_type=ContentType.objects.get_for_model(Leaderboard), object_id=str(obj.pk))
            | of(Metric, obj.metrics.all())
            | of(Row, obj.rows.all())
        )

    def save_model(self, request, obj, form, change):
        # Held until the form's transaction ends: its metrics' directions too.
        decisions.lock_boards([obj.pk])
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Metric:
            return super().save_formset(request, form, formset, change)
        # Not saved as forms: directions are decisions, kept by the metric's name.
        formset.save(commit=False)
        wanted = defaultdict(list)
        for metric, fields in formset.changed_objects:
            if "editor_direction" in fields:
                wanted[metric.editor_direction].append(metric)
        for direction, metrics in wanted.items():
            outcome = decisions.set_direction(metrics, direction, request.user, log=False)
            if outcome.missing:
                names = ", ".join(repr(metric.name) for metric in outcome.missing)
                raise decisions.Gone(
                    f"Nothing was saved: the board's newer file no longer has {names}."
                )

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        refresh_leaderboard(form.instance)


def _set_direction(direction, description):
    @admin.action(description=description, permissions=["change"])
    def action(modeladmin, request, queryset):
        refs = modeladmin.chosen(request, queryset)
        outcome = decisions.set_direction(refs, direction, request.user)
        modeladmin.report(request, outcome, "changed")

    action.__name__ = f"set_{direction or 'none'}"
    return action


@admin.register(Metric)
class MetricAdmin(ChosenByKey, DirectionChoices, CuratedAdmin):
    noun = "metrics"
    form = MetricForm
    list_display = [
        "name",
        "leaderboard",
        "source_direction",
        "editor_direction",
        suggested_direction,
        shown_direction,
    ]
    list_filter = [MetricNameFilter, MetricDirectionFilter, "editor_direction"]
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
        "decision_key",
    ]
    actions = [
        "accept_suggestions",
        "reject_suggestions",
        _set_direction(Direction.HIGHER, "Set direction: higher is better"),
        _set_direction(Direction.LOWER, "Set direction: lower is better"),
        _set_direction(Direction.UNKNOWN, "Set direction: unknown (no best-so-far line)"),
        _set_direction(None, "Clear the editor's direction (use the file's)"),
    ]

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()

    def get_urls(self):
        queue = DirectionsQueue(self)

        def view(method):
            def checked(request):
                if not self.has_change_permission(request):
                    raise PermissionDenied
                return method(request)

            return self.admin_site.admin_view(checked)

        return [
            path("directions/", view(queue.queue_view), name="leaderboards_metric_directions"),
            path(
                "directions/decide/",
                view(queue.decide_view),
                name="leaderboards_metric_directions_decide",
            ),
            *super().get_urls(),
        ]

    def key_value(self, metric):
        return MetricForm.key_value(metric)

    def ref(self, value):
        board, _, name = value.partition(" ")
        return decisions.metric_ref(_as_id(board), name)

    def label(self, ref):
        return repr(ref.name)

    def lookup(self, ref):
        return {"leaderboard": ref.leaderboard_id, "name": ref.name}

    def save_model(self, request, obj, form, change):
        if "editor_direction" not in form.changed_data:
            return
        outcome = decisions.set_direction([obj], obj.editor_direction, request.user, log=False)
        if outcome.missing:
            raise decisions.Gone(self.gone_message(outcome.missing))
        # The history and the redirect name the metric stored now.
        obj.pk = (outcome.changed + outcome.unchanged)[0].pk

    @admin.action(
        description="Reject the suggestion: the direction is unknown", permissions=["change"]
    )
    def reject_suggestions(self, request, queryset):
        # An editor's "unknown" takes the metric out of the directions queue;
        # the reason says it was looked at, not forgotten.
        outcome = decisions.set_direction(
            self.chosen(request, queryset),
            Direction.UNKNOWN,
            request.user,
            message="Rejected the suggested direction; left unknown",
            undecided_only=True,
        )
        self.report(request, outcome, "left unknown by an editor")

    @admin.action(description="Accept the suggested direction", permissions=["change"])
    def accept_suggestions(self, request, queryset):
        suggested, skipped = defaultdict(list), 0
        for ref in self.chosen(request, queryset):
            suggestion = suggest_direction(ref.name)
            if suggestion is None:
                skipped += 1
            else:
                suggested[suggestion].append(ref)
        accepted, missing = 0, []
        for suggestion, refs in suggested.items():
            # Only where nobody has said: a file's or an editor's word stands.
            outcome = decisions.set_direction(
                refs,
                suggestion.direction,
                request.user,
                message=f"Accepted the suggested direction: {suggestion}",
                undecided_only=True,
            )
            accepted += len(outcome.changed)
            skipped += len(outcome.unchanged)
            missing += outcome.missing
        self.message_user(
            request,
            f"{accepted} suggestions accepted; {skipped} metrics skipped "
            "(no suggestion, or a direction already set).",
            messages.SUCCESS,
        )
        if missing:
            self.message_user(request, self.gone_message(missing), messages.WARNING)


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

    def has_change_permission(self, request, obj=None):
        # Shown only; a re-load replaces the values, so nothing of theirs is posted back.
        return False


class WithholdForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown in the public record of editorial changes, which does not name the rows.",
    )


@admin.register(Row)
class RowAdmin(ChosenByKey, CuratedAdmin):
    noun = "rows"
    form = RowForm
    list_display = ["rank", "model", "board", "paper_date", "state"]
    list_display_links = ["rank", "model"]
    list_filter = [LeaderboardSlugFilter, "withheld", "uses_additional_data"]
    list_per_page = 100
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
                "fields": ["withheld", "withheld_reason", "decision_key"],
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

    @admin.display(description="leaderboard", ordering="leaderboard__slug")
    def board(self, row):
        # The slug: what the filter takes, and shorter than "task on dataset".
        return row.leaderboard.slug

    @admin.display(description="state", ordering="withheld")
    def state(self, row):
        return f"withheld: {row.withheld_reason}" if row.withheld else "shown"

    def get_list_display(self, request):
        # Filtered to one board, every line would repeat its slug.
        if request.GET.get(LeaderboardSlugFilter.parameter_name):
            return [name for name in self.list_display if name != "board"]
        return self.list_display

    def key_value(self, row):
        return RowForm.key_value(row)

    def ref(self, value):
        board, _, rest = value.partition(" ")
        key, _, model = rest.partition(" ")
        return decisions.row_ref(_as_id(board), key, model)

    def label(self, ref):
        return repr(ref.model) if ref.model else "a row"

    def lookup(self, ref):
        return {"leaderboard": ref.leaderboard_id, "key": ref.key}

    def save_model(self, request, obj, form, change):
        if not {"withheld", "withheld_reason"} & set(form.changed_data):
            return
        if obj.withheld:
            outcome = decisions.withhold(
                [obj], obj.withheld_reason, request.user, log=False, new_reason=True
            )
        else:
            outcome = decisions.restore([obj], request.user, log=False)
        if outcome.missing:
            raise decisions.Gone(self.gone_message(outcome.missing))
        # The history and the redirect name the row stored now.
        obj.pk = (outcome.changed + outcome.unchanged)[0].pk

    @admin.action(description="Withhold selected rows as spam…", permissions=["change"])
    def withhold(self, request, queryset):
        refs = self.chosen(request, queryset)
        form = WithholdForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            outcome = decisions.withhold(refs, form.cleaned_data["reason"], request.user)
            self.report(request, outcome, "withheld")
            return None
        rows, missing = decisions.current_rows(refs)
        context = {
            **self.admin_site.each_context(request),
            "title": "Withhold rows as spam",
            "opts": self.model._meta,
            "rows": [(row, self.key_value(row)) for row in rows],
            "missing": self.gone_message(missing) if missing else "",
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leaderboards/row/withhold.html", context)

    @admin.action(description="Restore selected rows", permissions=["change"])
    def restore(self, request, queryset):
        outcome = decisions.restore(self.chosen(request, queryset), request.user)
        self.report(request, outcome, "restored")


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
