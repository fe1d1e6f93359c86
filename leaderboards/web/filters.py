"""Filters for a leaderboard's rows, read from the query string."""

import django_filters
from django import forms
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from leaderboards.format.rules import has_code, has_code_q, tag_q
from leaderboards.models import Row, RowVerification

# "" and anything unrecognised read as "any": a stale or hand-edited link still works.
YES_NO = [("", "Any"), ("true", "Yes"), ("false", "No")]


# The filter form is on every results page, and drawing its six widgets through
# Django's widget templates (an include per option, another per attribute list)
# cost a seventh of the seed page. These widgets keep Django's own context
# (which option is selected, how a value is formatted) and write the markup
# those templates write, escaped alike.


def _attrs(attrs):
    """django/forms/widgets/attrs.html: ` name="value"`, a bare ` name` for True, none for False."""
    return "".join(
        f" {conditional_escape(name)}"
        if value is True
        else f' {conditional_escape(name)}="{_s(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


def _s(value):
    """`value|stringformat:'s'`, escaped as the template escapes it."""
    return conditional_escape(f"{value}")


class QuickInput:
    """django/forms/widgets/input.html, for an input widget."""

    def _render(self, template_name, context, renderer=None):
        widget = context["widget"]
        value = "" if widget["value"] is None else f' value="{_s(widget["value"])}"'
        return mark_safe(  # noqa: S308 - every part escaped above
            f'<input type="{conditional_escape(widget["type"])}" '
            f'name="{conditional_escape(widget["name"])}"{value}{_attrs(widget["attrs"])}>'
        )


class QuickTextInput(QuickInput, forms.TextInput):
    pass


class QuickDateInput(QuickInput, forms.DateInput):
    pass


class QuickSelect(forms.Select):
    """django/forms/widgets/select.html with its select_option.html."""

    def _render(self, template_name, context, renderer=None):
        widget = context["widget"]
        parts = [f'<select name="{conditional_escape(widget["name"])}"{_attrs(widget["attrs"])}>']
        for group_name, group_choices, _ in widget["optgroups"]:
            if group_name:
                parts.append(f'\n  <optgroup label="{conditional_escape(group_name)}">')
            for option in group_choices:
                parts.append(
                    f'\n  <option value="{_s(option["value"])}"{_attrs(option["attrs"])}>'
                    f"{conditional_escape(option['label'])}</option>\n"
                )
            if group_name:
                parts.append("\n  </optgroup>")
        parts.append("\n</select>")
        return mark_safe("".join(parts))  # noqa: S308 - every part escaped above


def _yes_no(label, **kwargs):
    return django_filters.BooleanFilter(label=label, widget=QuickSelect(choices=YES_NO), **kwargs)


class RowFilter(django_filters.FilterSet):
    model = django_filters.CharFilter(
        field_name="model",
        lookup_expr="icontains",
        label="Model name contains",
        widget=QuickTextInput,
    )
    extra_data = _yes_no("Extra training data", field_name="uses_additional_data")
    has_code = _yes_no("Has code", method="filter_has_code")
    ran = _yes_no("A code sample ran", method="filter_ran")
    # The board's tags (PwC's, "JFT-3B") are its choices: see __init__.
    tag = django_filters.CharFilter(method="filter_tag", label="Tag", widget=QuickSelect)
    date_from = django_filters.DateFilter(
        field_name="paper_date",
        lookup_expr="gte",
        label="Paper from",
        widget=QuickDateInput(attrs={"type": "date"}),
    )
    date_to = django_filters.DateFilter(
        field_name="paper_date",
        lookup_expr="lte",
        label="Paper to",
        widget=QuickDateInput(attrs={"type": "date"}),
    )

    class Meta:
        model = Row
        fields = []

    def __init__(self, data=None, queryset=None, *, snapshot=None, tags=(), **kwargs):
        # "Ran" is judged by the newest verification snapshot, as the page shows it.
        self.snapshot = snapshot
        super().__init__(data, queryset, **kwargs)
        # (tag, rows) of the board's tags, most used first: the form offers them.
        self.tags = tuple(tags)
        choices = [("", "Any"), *((tag, f"{tag} ({rows:,})") for tag, rows in self.tags)]
        self.filters["tag"].extra["widget"] = QuickSelect(choices=choices)

    def filter_tag(self, queryset, name, value):
        return queryset.filter(tag_q(value))

    def filter_has_code(self, queryset, name, value):
        with_code = has_code_q()
        return queryset.filter(with_code if value else ~with_code)

    def filter_ran(self, queryset, name, value):
        # A NULL in the list would make NOT IN match nothing: rows deleted since stay out.
        ran = RowVerification.objects.filter(snapshot=self.snapshot, n_ran__gt=0, row__isnull=False)
        rows = ran.values("row_id")
        return queryset.filter(pk__in=rows) if value else queryset.exclude(pk__in=rows)

    def keeps_added(self, row):
        """Whether a result editors added (a PageRow; it is no Row) passes the filters
        as a row of the same fields would. No verification reads editors' results,
        and they carry no archive tags."""
        found = self.form.cleaned_data
        model, day = found.get("model"), row.paper_date
        date_from, date_to = found.get("date_from"), found.get("date_to")
        checks = [
            not model or model.casefold() in row.model.casefold(),
            found.get("extra_data") in (None, bool(row.uses_additional_data)),
            found.get("has_code") in (None, has_code(row.code)),
            not found.get("ran"),
            not found.get("tag"),
            not date_from or (day is not None and day >= date_from),
            not date_to or (day is not None and day <= date_to),
        ]
        return all(checks)

    @property
    def active(self):
        """True when some filter holds a value, so the rows must be narrowed."""
        return (
            self.is_bound
            and self.form.is_valid()
            and any(value not in (None, "") for value in self.form.cleaned_data.values())
        )
