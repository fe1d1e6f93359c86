"""The forms: hidden keys posted back, so a form opened before a re-load finds its object."""

from django import forms
from django.forms.models import BaseInlineFormSet


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


def as_id(text):
    """A posted id as a number; anything else is None, which matches no object."""
    return int(text) if text.isdigit() else None


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
            if as_id(data.get(field, "")) in ids:
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


class WithholdForm(forms.Form):
    """The reason asked before rows are withheld (added results have their own, in additions)."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown in the public record of editorial changes, which does not name the rows.",
    )
