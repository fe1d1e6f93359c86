"""Filters for a leaderboard's rows, read from the query string."""

import django_filters
from django import forms

from leaderboards.format.rules import has_code_q
from leaderboards.models import Row, RowVerification

# "" and anything unrecognised read as "any": a stale or hand-edited link still works.
YES_NO = [("", "Any"), ("true", "Yes"), ("false", "No")]


def _yes_no(label, **kwargs):
    return django_filters.BooleanFilter(label=label, widget=forms.Select(choices=YES_NO), **kwargs)


class RowFilter(django_filters.FilterSet):
    model = django_filters.CharFilter(
        field_name="model", lookup_expr="icontains", label="Model name contains"
    )
    extra_data = _yes_no("Extra training data", field_name="uses_additional_data")
    has_code = _yes_no("Has code", method="filter_has_code")
    ran = _yes_no("A code sample ran", method="filter_ran")
    date_from = django_filters.DateFilter(
        field_name="paper_date",
        lookup_expr="gte",
        label="Paper from",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    date_to = django_filters.DateFilter(
        field_name="paper_date",
        lookup_expr="lte",
        label="Paper to",
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    class Meta:
        model = Row
        fields = []

    def __init__(self, data=None, queryset=None, *, snapshot=None, **kwargs):
        # "Ran" is judged by the newest verification snapshot, as the page shows it.
        self.snapshot = snapshot
        super().__init__(data, queryset, **kwargs)

    def filter_has_code(self, queryset, name, value):
        with_code = has_code_q()
        return queryset.filter(with_code if value else ~with_code)

    def filter_ran(self, queryset, name, value):
        # A NULL in the list would make NOT IN match nothing: rows deleted since stay out.
        ran = RowVerification.objects.filter(snapshot=self.snapshot, n_ran__gt=0, row__isnull=False)
        rows = ran.values("row_id")
        return queryset.filter(pk__in=rows) if value else queryset.exclude(pk__in=rows)

    @property
    def active(self):
        """True when some filter holds a value, so the rows must be narrowed."""
        return (
            self.is_bound
            and self.form.is_valid()
            and any(value not in (None, "") for value in self.form.cleaned_data.values())
        )
