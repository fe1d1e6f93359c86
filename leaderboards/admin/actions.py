"""The actions on ticked rows and metrics, through decisions so they outlast a re-load.

Each takes the admin of rows or metrics (ChosenByKey), which finds the
objects a re-load replaced since the list was shown.
"""

from collections import defaultdict

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse

from leaderboards import decisions
from leaderboards.admin.directions import suggest_direction
from leaderboards.admin.forms import WithholdForm
from leaderboards.models import Direction


def direction_setter(direction, description):
    @admin.action(description=description, permissions=["change"])
    def action(modeladmin, request, queryset):
        refs = modeladmin.chosen(request, queryset)
        outcome = decisions.set_direction(refs, direction, request.user)
        modeladmin.report(request, outcome, "changed")

    action.__name__ = f"set_{direction or 'none'}"
    return action


@admin.action(description="Reject the suggestion: the direction is unknown", permissions=["change"])
def reject_suggestions(modeladmin, request, queryset):
    # An editor's "unknown" takes the metric out of the directions queue;
    # the reason says it was looked at, not forgotten.
    outcome = decisions.set_direction(
        modeladmin.chosen(request, queryset),
        Direction.UNKNOWN,
        request.user,
        message="Rejected the suggested direction; left unknown",
        undecided_only=True,
    )
    modeladmin.report(request, outcome, "left unknown by an editor")


@admin.action(description="Accept the suggested direction", permissions=["change"])
def accept_suggestions(modeladmin, request, queryset):
    suggested, skipped = defaultdict(list), 0
    for ref in modeladmin.chosen(request, queryset):
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
    modeladmin.message_user(
        request,
        f"{accepted} suggestions accepted; {skipped} metrics skipped "
        "(no suggestion, or a direction already set).",
        messages.SUCCESS,
    )
    if missing:
        modeladmin.message_user(request, modeladmin.gone_message(missing), messages.WARNING)


@admin.action(description="Withhold selected rows as spam…", permissions=["change"])
def withhold(modeladmin, request, queryset):
    refs = modeladmin.chosen(request, queryset)
    form = WithholdForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        outcome = decisions.withhold(refs, form.cleaned_data["reason"], request.user)
        modeladmin.report(request, outcome, "withheld")
        return None
    rows, missing = decisions.current_rows(refs)
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": "Withhold rows as spam",
        "opts": modeladmin.model._meta,
        "rows": [(row, modeladmin.key_value(row)) for row in rows],
        "missing": modeladmin.gone_message(missing) if missing else "",
        "form": form,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/leaderboards/row/withhold.html", context)


@admin.action(description="Restore selected rows", permissions=["change"])
def restore(modeladmin, request, queryset):
    outcome = decisions.restore(modeladmin.chosen(request, queryset), request.user)
    modeladmin.report(request, outcome, "restored")
