"""The forms: editors' input held to a page file's limits; hidden keys posted back.

What an editor types is stored and served as a page file's text is, so it is
held to the same rules (issue #32): at most MAX_STRING characters, the one
character rule every writer needs, dates within the range a page may state.
Hidden keys are posted back, so a form opened before a re-load finds its object; every
decision on the catalogue asks for a reason.
"""

import json

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.forms.models import BaseInlineFormSet

from leaderboards.curation import CodeDecision
from leaderboards.format.page import MAX_STRING, PageError, check_day
from leaderboards.format.rules import text_problem


def storable_text(value):
    """The character rule of stored text (rules.text_problem), as a form validator."""
    if problem := text_problem(value):
        raise ValidationError(f"This text {problem}; remove it and save again.")


def day_in_range(value):
    """The date range a page file may state (page.check_day), as a form validator."""
    try:
        check_day(value, "date")
    except PageError as error:
        raise ValidationError(f"The {error.message}: a page file could not carry it.") from None


TOO_LONG = MaxLengthValidator(
    MAX_STRING,
    message=f"At most {MAX_STRING:,} characters, as in a page file; this has %(show_value)d.",
)


def held_to_limits(field):
    """An editor's form field held to a page file's limits; hidden fields are left alone.

    A hidden key echoes stored text, which may predate the rules: refusing it
    would leave that object beyond any editor's reach.
    """
    if field is None or field.widget.is_hidden:
        return field
    if isinstance(field, forms.CharField):
        if field.max_length is None or field.max_length > MAX_STRING:
            field.max_length = MAX_STRING
            field.validators.append(TOO_LONG)
        field.validators.append(storable_text)
    elif isinstance(field, forms.DateField):
        field.validators.append(day_in_range)
    return field


class EditorLimits:
    """A form mixin: every field an editor fills held to a page file's limits."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            held_to_limits(field)


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


class WithholdForm(EditorLimits, forms.Form):
    """The reason asked before rows are withheld (added results have their own, in additions)."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown in the public record of editorial changes, which does not name the rows.",
    )


class ReasonForm(EditorLimits, forms.Form):
    """The reason asked before a decision on papers, their code or methods."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60, "autofocus": True}),
        help_text="Shown in the public record of editorial changes, with what it is about.",
    )


def decision_reason():
    return forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Why: asked for any change, and shown in the public record of editorial changes.",
    )


class DescriptionForm(EditorLimits, forms.ModelForm):
    """A method's or dataset's description, corrected with a reason.

    The editor's text the form showed is posted back, so a save over another
    editor's newer text is refused rather than lost.
    """

    reason = decision_reason()
    description_was = PostedBack()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["description_was"].initial = json.dumps(self.instance.editor_description)

    def was(self):
        """The editor's text the form showed (None: the archive's); unreadable is None too."""
        try:
            was = json.loads(self.data.get(self.add_prefix("description_was"), "null"))
        except ValueError:
            return None
        return was if isinstance(was, str) else None

    def clean(self):
        cleaned = super().clean()
        if "editor_description" in self.changed_data:
            if not cleaned.get("reason", "").strip():
                self.add_error("reason", "Say why the description changes.")
            stored = type(self.instance).objects.filter(pk=self.instance.pk)
            if stored.values_list("editor_description", flat=True).first() != self.was():
                raise forms.ValidationError(
                    "Another editor changed this description since the form was opened: "
                    "reload the page to see their text."
                )
        return cleaned


class CodeLinkForm(EditorLimits, forms.ModelForm):
    """An editor's word on a paper's link to a repository, with a reason."""

    decision = forms.ChoiceField(
        choices=CodeDecision.choices,
        widget=forms.RadioSelect,
        help_text="What the paper's page shows. “As the archive has it” drops an editor's word.",
    )
    reason = decision_reason()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["decision"].initial = standing_decision(self.instance)

    def clean(self):
        cleaned = super().clean()
        changed = cleaned.get("decision") != standing_decision(self.instance)
        if changed and not cleaned.get("reason", "").strip():
            self.add_error("reason", "Say why.")
        return cleaned


def standing_decision(link):
    """The CodeDecision that describes a link's editor columns now."""
    if link.editor_unlinked:
        return CodeDecision.UNLINKED
    if link.editor_official is None:
        return CodeDecision.ARCHIVE
    return CodeDecision.OFFICIAL if link.editor_official else CodeDecision.NOT_OFFICIAL
