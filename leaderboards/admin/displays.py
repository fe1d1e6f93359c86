"""Computed columns: shown in lists and forms, stored nowhere."""

from django.contrib import admin

from leaderboards.admin.directions import suggest_direction


@admin.display(description="suggested from the name")
def suggested_direction(metric):
    suggestion = suggest_direction(metric.name)
    return str(suggestion) if suggestion else "—"


@admin.display(description="shown direction")
def shown_direction(metric):
    if metric.direction is None:
        return "unknown"
    return f"{metric.direction} (set by {metric.direction_set_by})"
