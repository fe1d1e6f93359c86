"""The filter form's widgets write what Django's own widget templates write.

They draw in Python for speed (leaderboards/web/filters.py); if a Django
upgrade changes its templates, this says so before a visitor sees a difference.
"""

import pytest
from django import forms

from leaderboards.web.filters import YES_NO, QuickDateInput, QuickSelect, QuickTextInput

CHOICES = [*YES_NO, ("Group <b>", [("x", "X & <y>"), ("y", "Y")])]
ATTRS = {"id": "id_f", "data-note": 'say "<hi>"', "required": True, "hidden": False}


@pytest.mark.parametrize(
    "value", [None, "", "true", "false", "maybe", "x", "<script>", "2015-01-01"]
)
@pytest.mark.parametrize(
    ("quick", "stock"),
    [
        (QuickTextInput, forms.TextInput),
        (QuickDateInput, forms.DateInput),
        (lambda: QuickSelect(choices=CHOICES), lambda: forms.Select(choices=CHOICES)),
    ],
)
def test_a_quick_widget_writes_what_djangos_widget_writes(quick, stock, value):
    assert quick().render("f", value, ATTRS) == stock().render("f", value, ATTRS)
