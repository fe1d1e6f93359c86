"""The tables inside a change form: a board's metrics, links and decisions, a row's values."""

from django.contrib import admin

from leaderboards.admin.displays import suggested_direction
from leaderboards.admin.forms import MetricFormSet, MetricInlineForm
from leaderboards.admin.options import DirectionChoices
from leaderboards.models import (
    DirectionDecision,
    LeaderboardArea,
    Metric,
    MetricValue,
    RowDecision,
    RowVerification,
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


class VerificationInline(admin.TabularInline):
    model = RowVerification
    fields = ["rank", "model", "n_ran", "n_unverified", "n_pointer_only_licence"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["rank"]

    def has_add_permission(self, request, obj=None):
        return False
