"""Editors' input has a page file's limits (issue #32): what they type can be stored and served.

A withhold reason holding U+0001 once made /changes/feed.atom a 500 for good
(the record is append-only); an added result took a 2 MB note and a date of
year 1 that the loader refuses. Each form now names the field and the limit.
"""

import pytest
from django.urls import reverse

from leaderboards.admin.forms import ReasonForm
from leaderboards.format.page import MAX_STRING
from leaderboards.models import DirectionDecision, EditorAddition, EditorialChange, Row, Task
from tests.helpers import add_in_admin, admin_url

CONTROL = "U+0001, which stored text may not hold"
TOO_LONG = f"At most {MAX_STRING:,} characters, as in a page file"
OUT_OF_RANGE = "is outside 1900-01-01 to 9000-12-31 (UTC)"


@pytest.mark.parametrize(
    "changes, error",
    [
        ({"model": "Spam\x01Net"}, CONTROL),
        ({"note": "Table 2\x01"}, CONTROL),
        ({"paper_title": "A\x1ftitle"}, "U+001F"),
        ({"value_0": "9.8\x0b7"}, "U+000B"),
        ({"note": "n" * (2 * 1024 * 1024)}, f"{TOO_LONG}; this has 2097152"),
        ({"model": "m" * (MAX_STRING + 1)}, TOO_LONG),
        ({"paper_date": "0001-01-01"}, f"The date 0001-01-01 {OUT_OF_RANGE}"),
        ({"paper_date": "9999-12-31"}, f"The date 9999-12-31 {OUT_OF_RANGE}"),
    ],
)
def test_an_added_result_is_held_to_the_page_files_limits(seeded, editor_client, changes, error):
    response = add_in_admin(editor_client, seeded, **changes)
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not EditorAddition.objects.exists()
    assert not EditorialChange.objects.exists()


def test_an_added_result_at_the_limits_is_taken(seeded, editor_client, client):
    response = add_in_admin(
        editor_client,
        seeded,
        note="n" * MAX_STRING,
        model="Tab\tand\nnewline",
        paper_date="1900-01-01",
    )
    assert response.status_code == 302
    addition = EditorAddition.objects.get()
    assert len(addition.note) == MAX_STRING and str(addition.paper_date) == "1900-01-01"
    assert client.get("/changes/feed.atom").status_code == 200


def rows_and_keys(board):
    rows = list(Row.objects.filter(leaderboard=board).order_by("rank")[:2])
    return [row.pk for row in rows], {
        f"key-{row.pk}": f"{row.leaderboard_id} {row.key} {row.model}" for row in rows
    }


@pytest.mark.parametrize(
    "reason, error", [("spam\x01", CONTROL), ("r" * (MAX_STRING + 1), TOO_LONG)]
)
def test_a_withhold_reason_is_held_to_the_limits(seeded, editor_client, client, reason, error):
    rows, keys = rows_and_keys(seeded)
    response = editor_client.post(
        admin_url(Row, "changelist"),
        {"action": "withhold", "_selected_action": rows, "reason": reason, "apply": "1", **keys},
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Row.objects.filter(withheld=True).exists()
    assert client.get("/changes/feed.atom").status_code == 200


def test_a_row_whose_stored_model_breaks_the_rule_can_still_be_withheld(seeded, editor_client):
    # The hidden key echoes the stored model: refusing it would leave the row beyond reach.
    Row.objects.filter(leaderboard=seeded, rank=1).update(model="Old\x01Net")
    rows, keys = rows_and_keys(seeded)
    response = editor_client.post(
        admin_url(Row, "changelist"),
        {"action": "withhold", "_selected_action": rows, "reason": "Spam", "apply": "1", **keys},
    )
    assert response.status_code == 302
    assert Row.objects.filter(withheld=True).count() == 2


def test_a_row_change_forms_reason_is_held_to_the_rule(seeded, editor_client):
    row = Row.objects.filter(leaderboard=seeded).order_by("rank").first()
    response = editor_client.post(
        admin_url(Row, "change", row.pk),
        {
            "withheld": "on",
            "withheld_reason": "spam\x08",
            "decision_key": f"{row.leaderboard_id} {row.key} {row.model}",
            "_save": "Save",
        },
    )
    assert response.status_code == 200
    assert "U+0008" in response.content.decode()
    assert not Row.objects.filter(withheld=True).exists()


def test_a_tasks_editor_text_is_held_to_the_rule(seeded, editor_client):
    task = Task.objects.get()
    response = editor_client.post(
        admin_url(Task, "change", task.pk),
        {
            "editor_description": "Better\x01 words.",
            "editor_note": "",
            "parent": "",
            "_save": "Save",
        },
    )
    assert response.status_code == 200
    assert CONTROL in response.content.decode()
    assert Task.objects.get().editor_description is None


def test_a_directions_reason_is_held_to_the_rule(seeded, editor_client):
    response = editor_client.post(
        reverse("admin:leaderboards_metric_directions_decide"),
        {"name": "FPR95", "decision": "lower", "reason": "why\x01"},
    )
    assert response.status_code == 400
    assert CONTROL in response.content.decode()
    assert not DirectionDecision.objects.exists()


@pytest.mark.parametrize(
    "reason, error",
    [("Spam\x01", CONTROL), ("r" * (MAX_STRING + 1), TOO_LONG), ("Spam.", None)],
)
def test_a_reason_for_a_decision_on_papers_code_or_methods_has_the_same_limits(reason, error):
    form = ReasonForm(data={"reason": reason})
    assert form.is_valid() is (error is None)
    if error:
        assert error in " ".join(form.errors["reason"])
