"""The forms a visitor fills to suggest a correction or a newer result: plain text, short.

And what they share with the editors' form for an added result (admin/additions.py):
a text box per board metric, read back as the values typed.
"""

from django import forms
from django.core.exceptions import ValidationError

from leaderboards.format.rules import http_url, text_problem
from leaderboards.suggestions import MARKUP

VALUE_PREFIX = "value_"


def typed_values(cleaned, metric_names):
    """{metric name: value as typed} of the filled value boxes, in the board's order."""
    values = {}
    for index, name in enumerate(metric_names):
        value = (cleaned.get(f"{VALUE_PREFIX}{index}") or "").strip()
        if value:
            values[name] = value
    return values


def plain_text(value):
    """What a visitor writes is plain text any page can carry: no markup, no control characters."""
    if problem := text_problem(value):
        raise ValidationError(f"This text {problem}; remove it and send again.")
    if MARKUP.search(value):
        raise ValidationError("Plain text only, please: no HTML or other markup.")


def text(label, max_length, *, required=True, lines=0, help_text=""):
    widget = forms.Textarea(attrs={"rows": lines}) if lines else forms.TextInput
    return forms.CharField(
        label=label,
        max_length=max_length,
        required=required,
        widget=widget,
        help_text=help_text,
        validators=[plain_text],
    )


class CitationField(forms.CharField):
    """An http(s) URL: the only kind a page links."""

    def __init__(self, **kwargs):
        super().__init__(max_length=500, validators=[plain_text], **kwargs)
        self.widget = forms.URLInput(attrs={"inputmode": "url", "placeholder": "https://"})

    def clean(self, value):
        value = super().clean(value)
        if value and not http_url(value):
            raise ValidationError("Give an address that starts with https:// or http://.")
        return http_url(value) or ""


class SuggestionForm(forms.Form):
    # A field people never see and bots fill: a filled one is thanked and dropped.
    website = forms.CharField(required=False, max_length=200, label="Leave this empty")

    def wrong_fields(self):
        """The fields to look at again, in the form's order: the summary above it links each."""
        return [field for field in self if field.errors]

    @property
    def is_bot(self):
        return bool(self.cleaned_data.get("website"))


class CorrectionForm(SuggestionForm):
    what = text("What is wrong", 1000, lines=3, help_text="At most 1,000 characters.")
    why = text(
        "How you know",
        2000,
        lines=4,
        help_text="The paper, table or page that shows it. At most 2,000 characters.",
    )
    citation_url = CitationField(label="A link that shows it (optional)", required=False)

    def fingerprint_fields(self):
        data = self.cleaned_data
        return ["correction", data["what"], data["why"], data["citation_url"]]


class ResultForm(SuggestionForm):
    model = text("Model", 300, help_text="As the paper names it.")
    paper_title = text("Paper title", 300)
    citation_url = CitationField(
        label="Link to the paper",
        help_text="Required: an arXiv, proceedings or publisher page (https://…).",
    )
    what = text(
        "Where in the paper (optional)",
        1000,
        required=False,
        lines=2,
        help_text="A table or page, and anything an editor should know. At most 1,000 characters.",
    )

    def __init__(self, *args, metric_names=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.metric_names = list(metric_names)
        for index, name in enumerate(self.metric_names):
            self.fields[f"{VALUE_PREFIX}{index}"] = text(
                name, 50, required=False, help_text="As the paper writes it; empty if not reported."
            )

    def value_fields(self):
        return [self[f"{VALUE_PREFIX}{index}"] for index in range(len(self.metric_names))]

    def clean(self):
        cleaned = super().clean()
        values = typed_values(cleaned, self.metric_names)
        if self.metric_names and not values:
            raise ValidationError(
                "Give the result's value for at least one of the board's metrics."
            )
        cleaned["values"] = values
        return cleaned

    def fingerprint_fields(self):
        data = self.cleaned_data
        values = [f"{name}={value}" for name, value in data["values"].items()]
        return ["result", data["model"], data["citation_url"], *values]
