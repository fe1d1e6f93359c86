"""The boards' admins: a leaderboard, its metrics and its rows."""

from collections import defaultdict
from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db.models import CharField, Prefetch, Q
from django.db.models.functions import Cast
from django.template.defaultfilters import pluralize
from django.urls import path, reverse
from django.utils.html import format_html

from leaderboards import decisions
from leaderboards.admin.actions import (
    accept_suggestions,
    direction_setter,
    reject_suggestions,
    restore,
    withhold,
)
from leaderboards.admin.displays import shown_direction, suggested_direction
from leaderboards.admin.filters import (
    EditedTextFilter,
    LeaderboardSlugFilter,
    MetricDirectionFilter,
    MetricNameFilter,
)
from leaderboards.admin.forms import MetricForm, RowForm, as_id
from leaderboards.admin.inlines import (
    AreaLinkInline,
    DirectionDecisionInline,
    MetricInline,
    MetricValueInline,
    RowDecisionInline,
)
from leaderboards.admin.options import ChosenByKey, CuratedAdmin, DirectionChoices
from leaderboards.admin.queue import DirectionsQueue
from leaderboards.models import Direction, Leaderboard, Metric, MetricValue, Row
from leaderboards.upkeep.figures import refresh_leaderboard


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
                    "top_paper_date",
                    "papers_waiting",
                    "checked_at",
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


@admin.register(Metric)
class MetricAdmin(ChosenByKey, DirectionChoices, CuratedAdmin):
    noun, noun_one = "metrics", "metric"
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
        accept_suggestions,
        reject_suggestions,
        direction_setter(Direction.HIGHER, "Set direction: higher is better"),
        direction_setter(Direction.LOWER, "Set direction: lower is better"),
        direction_setter(Direction.UNKNOWN, "Set direction: unknown (no best-so-far line)"),
        direction_setter(None, "Clear the editor's direction (use the file's)"),
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
        return decisions.metric_ref(as_id(board), name)

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


@admin.register(Row)
class RowAdmin(ChosenByKey, CuratedAdmin):
    noun, noun_one = "rows", "row"
    form = RowForm
    # The values, to judge a row by (spam shows in them) without opening it.
    list_display = ["rank", "model", "values_shown", "board", "paper_date", "state"]
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
                "counted in the page's “withheld as spam” figure. Untick to restore it.",
            },
        ),
        (
            "Paper and code",
            {"fields": ["paper", "paper_title", "paper_url", "paper_date", "code"]},
        ),
        ("From the file", {"classes": ["collapse"], "fields": ["n_code_links", "extra"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]
    actions = [withhold, restore]

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()

    @admin.display(description="leaderboard", ordering="leaderboard__slug")
    def board(self, row):
        # The slug: what the filter takes, and shorter than "task on dataset".
        return row.leaderboard.slug

    def get_queryset(self, request):
        values = MetricValue.objects.select_related("metric").order_by("position")
        return super().get_queryset(request).prefetch_related(Prefetch("values", queryset=values))

    @admin.display(description="values")
    def values_shown(self, row):
        return " · ".join(f"{v.metric.name} {v.raw}" for v in row.values.all() if v.raw is not None)

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
        return decisions.row_ref(as_id(board), key, model)

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
