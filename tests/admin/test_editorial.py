"""Editors' decisions: what visitors then see, and that no re-load loses them."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from leaderboards.models import Dataset, Leaderboard, Metric, Row, Task
from tests.helpers import (
    SEED_FILE,
    SEED_SLUG,
    SPAM_MODEL,
    a_newer_seed,
    admin_url,
    exported,
    set_direction_in_admin,
    spam_row,
    withhold_in_admin,
)

PAGE = reverse("leaderboards:leaderboard", args=[SEED_SLUG])


# Spam.


def test_a_withheld_row_leaves_the_page_and_the_export_and_is_counted(seeded, editor_client):
    assert SPAM_MODEL in editor_client.get(PAGE).content.decode()
    assert withhold_in_admin(editor_client, spam_row()).status_code == 302

    assert SPAM_MODEL not in editor_client.get(PAGE).content.decode()
    document = exported(editor_client)
    assert SPAM_MODEL not in [row["model"] for row in document["rows"]]
    assert document["source"]["rows_withheld_as_spam"] == 1
    assert document["counts"]["rows"] == 21
    seeded.refresh_from_db()
    assert seeded.row_count == 21
    assert Task.objects.get().row_count == 21
    # The row and its reason stay stored.
    assert spam_row().withheld_reason == "Paper retracted; results not reproducible."


def test_a_withheld_row_can_be_restored(seeded, editor_client):
    withhold_in_admin(editor_client, spam_row())
    response = editor_client.post(
        admin_url(Row, "changelist"),
        {"action": "restore", "_selected_action": [spam_row().pk]},
    )
    assert response.status_code == 302
    assert SPAM_MODEL in editor_client.get(PAGE).content.decode()
    assert exported(editor_client)["source"]["rows_withheld_as_spam"] == 0
    assert (spam_row().withheld, spam_row().withheld_reason) == (False, "")
    seeded.refresh_from_db()
    assert seeded.row_count == 22


def test_a_withheld_model_leaves_search_and_comes_back_when_restored(seeded, editor_client):
    def found():
        response = editor_client.get("/search", {"q": "LINe ResNet50"})
        return SPAM_MODEL in response.content.decode()

    assert found()
    withhold_in_admin(editor_client, spam_row())
    assert not found()
    editor_client.post(
        admin_url(Row, "changelist"),
        {"action": "restore", "_selected_action": [spam_row().pk]},
    )
    assert found()


def test_withholding_needs_a_reason(seeded, editor_client):
    response = withhold_in_admin(editor_client, spam_row(), reason="")
    assert response.status_code == 200
    assert "Say why the row is withheld." in response.content.decode()
    assert not spam_row().withheld


def test_the_withhold_action_asks_for_a_reason_then_withholds(seeded, editor_client):
    rows = list(Row.objects.filter(rank__in=[2, 3]).values_list("pk", flat=True))
    asked = editor_client.post(
        admin_url(Row, "changelist"), {"action": "withhold", "_selected_action": rows}
    )
    assert asked.status_code == 200
    assert "Withhold these rows" in asked.content.decode()
    empty = editor_client.post(
        admin_url(Row, "changelist"),
        {"action": "withhold", "_selected_action": rows, "reason": "", "apply": "1"},
    )
    assert empty.status_code == 200 and "This field is required" in empty.content.decode()
    assert not Row.objects.filter(withheld=True).exists()
    done = editor_client.post(
        admin_url(Row, "changelist"),
        {"action": "withhold", "_selected_action": rows, "reason": "Duplicate", "apply": "1"},
    )
    assert done.status_code == 302
    assert set(Row.objects.filter(withheld=True).values_list("rank", flat=True)) == {2, 3}
    assert exported(editor_client)["source"]["rows_withheld_as_spam"] == 2
    logged = LogEntry.objects.filter(user__username="erin", object_id__in=map(str, rows))
    assert logged.count() == 2
    assert "Withheld as spam: Duplicate" in logged.first().get_change_message()


# Directions.


def test_an_editor_direction_reaches_the_page_and_the_export(seeded, editor_client):
    fpr = Metric.objects.get(name="FPR95")
    html = editor_client.get(PAGE).content.decode()
    # Before any editor: what the archive's ranking settles, marked as inferred.
    assert (
        '<strong>FPR95</strong>: lower is better <span class="badge set-by">'
        "inferred from the archive's ranking</span>" in html
    )
    assert set_direction_in_admin(editor_client, fpr, "lower").status_code == 302
    html = editor_client.get(PAGE).content.decode()
    assert (
        '<strong>FPR95</strong>: lower is better <span class="badge accent set-by">'
        "set by an editor</span>" in html
    )
    assert exported(editor_client)["metric_direction"]["by_metric"] == {
        "FPR95": "lower",
        "AUROC": None,
    }
    # "unknown" from an editor drops a direction again.
    set_direction_in_admin(editor_client, fpr, "unknown")
    assert Metric.objects.get(name="FPR95").direction is None
    assert exported(editor_client)["metric_direction"]["by_metric"]["FPR95"] is None


def test_the_suggestion_sits_beside_the_field_and_never_reaches_visitors(unsettled, editor_client):
    fpr = Metric.objects.get(name="FPR95")
    html = editor_client.get(admin_url(Metric, "change", fpr.pk)).content.decode()
    assert "lower is better (the name says “fpr”)" in html
    page = editor_client.get(PAGE).content.decode()
    assert "lower is better" not in page and "higher is better" not in page
    assert exported(editor_client)["metric_direction"]["by_metric"] == {
        "FPR95": None,
        "AUROC": None,
    }


def test_accepting_suggestions_sets_only_metrics_nobody_has_decided(seeded, editor_client):
    auroc = Metric.objects.get(name="AUROC")
    set_direction_in_admin(editor_client, auroc, "unknown")  # an editor's decision stands
    response = editor_client.post(
        admin_url(Metric, "changelist"),
        {"action": "accept_suggestions", "_selected_action": [m.pk for m in Metric.objects.all()]},
        follow=True,
    )
    assert "1 suggestion accepted; 1 metric skipped" in response.content.decode()
    directions = dict(Metric.objects.values_list("name", "editor_direction"))
    assert directions == {"FPR95": "lower", "AUROC": "unknown"}
    entry = LogEntry.objects.get(object_id=str(Metric.objects.get(name="FPR95").pk))
    assert entry.user.username == "erin"
    assert "Accepted the suggested direction" in entry.get_change_message()


def test_a_direction_set_in_the_leaderboard_inline_is_saved_and_logged(seeded, editor_client):
    metrics = list(seeded.metrics.order_by("position"))
    data = {
        "editor_description": "",
        "metrics-TOTAL_FORMS": "2",
        "metrics-INITIAL_FORMS": "2",
        "metrics-MIN_NUM_FORMS": "0",
        "metrics-MAX_NUM_FORMS": "0",
        "area_links-TOTAL_FORMS": "1",
        "area_links-INITIAL_FORMS": "1",
        "area_links-MIN_NUM_FORMS": "0",
        "area_links-MAX_NUM_FORMS": "1000",
        "area_links-0-id": str(seeded.area_links.get().pk),
        "area_links-0-leaderboard": str(seeded.pk),
        # The board's standing decisions, shown read-only.
        **{
            f"{prefix}-{name}": "0"
            for prefix in ("row_decisions", "direction_decisions")
            for name in ("TOTAL_FORMS", "INITIAL_FORMS", "MIN_NUM_FORMS", "MAX_NUM_FORMS")
        },
        "_save": "Save",
    }
    for index, (metric, direction) in enumerate(zip(metrics, ["lower", "higher"], strict=True)):
        data[f"metrics-{index}-id"] = str(metric.pk)
        data[f"metrics-{index}-leaderboard"] = str(seeded.pk)
        data[f"metrics-{index}-editor_direction"] = direction
    response = editor_client.post(admin_url(Leaderboard, "change", seeded.pk), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert dict(Metric.objects.values_list("name", "editor_direction")) == {
        "FPR95": "lower",
        "AUROC": "higher",
    }
    html = editor_client.get(admin_url(Leaderboard, "change", seeded.pk)).content.decode()
    assert "Changed Editor direction" in html and "erin" in html


# Texts.


def test_edited_texts_are_shown_and_the_source_text_stays_stored(seeded, editor_client):
    task, dataset = Task.objects.get(), Dataset.objects.get()
    task.editor_description = "Find inputs unlike the training data."
    task.editor_note = "Also called novelty detection."
    task.save()
    dataset.editor_description = "ImageNet-1k as in-distribution, SUN as out."
    dataset.save()

    # The board takes its description from the task, so shows the task's correction.
    page = editor_client.get(PAGE).content.decode()
    assert "Find inputs unlike the training data." in page
    assert "Detect out-of-distribution or anomalous examples." not in page
    task_page = editor_client.get(task.get_absolute_url()).content.decode()
    assert "Find inputs unlike the training data." in task_page
    assert "Also called novelty detection." in task_page
    assert "SUN as out." in editor_client.get(dataset.get_absolute_url()).content.decode()

    seeded.editor_description = "The board's own words."
    seeded.save()
    assert "The board&#x27;s own words." in editor_client.get(PAGE).content.decode()
    task.refresh_from_db()
    seeded.refresh_from_db()
    assert task.description.startswith("Detect out-of-distribution")
    assert seeded.description.startswith("Detect out-of-distribution")


def test_emptying_a_correction_goes_back_to_the_source_text(seeded, editor_client):
    task = Task.objects.get()
    form = {"editor_description": "Corrected.", "editor_note": "", "parent": "", "_save": "Save"}
    editor_client.post(admin_url(Task, "change", task.pk), form)
    task.refresh_from_db()
    assert (task.editor_description, task.editor_note) == ("Corrected.", None)
    editor_client.post(admin_url(Task, "change", task.pk), {**form, "editor_description": ""})
    task.refresh_from_db()
    assert task.editor_description is None
    assert "Detect out-of-distribution" in editor_client.get(PAGE).content.decode()


# Nothing lost on re-load: each kind of decision, through the same file and a newer one.


def _withhold(client):
    withhold_in_admin(client, spam_row(), reason="Spam")


def _withheld_kept():
    row = spam_row()
    assert (row.withheld, row.withheld_reason) == (True, "Spam")
    assert Leaderboard.objects.get().row_count == 21


def _direction(client):
    set_direction_in_admin(client, Metric.objects.get(name="FPR95"), "lower")


def _direction_kept():
    assert Metric.objects.get(name="FPR95").editor_direction == "lower"


def _texts(client):
    Task.objects.update(editor_description="Task text.", editor_note="Task note.")
    Dataset.objects.update(editor_description="Dataset text.")
    Leaderboard.objects.update(editor_description="Board text.")


def _texts_kept():
    task = Task.objects.get()
    assert (task.editor_description, task.editor_note) == ("Task text.", "Task note.")
    assert Dataset.objects.get().editor_description == "Dataset text."
    assert Leaderboard.objects.get().editor_description == "Board text."


DECISIONS = {
    "withheld row": (_withhold, _withheld_kept),
    "metric direction": (_direction, _direction_kept),
    "corrected texts": (_texts, _texts_kept),
}


@pytest.mark.parametrize("kind", list(DECISIONS))
def test_reloading_the_same_file_keeps_the_decision(kind, seeded, editor_client, load):
    decide, kept = DECISIONS[kind]
    decide(editor_client)
    ok, out, _ = load(SEED_FILE)
    assert ok and "1 unchanged" in out
    kept()


@pytest.mark.parametrize("kind", list(DECISIONS))
def test_a_newer_file_keeps_the_decision(kind, seeded, editor_client, load, seed_page, write_page):
    decide, kept = DECISIONS[kind]
    decide(editor_client)
    ok, out, err = load(write_page(a_newer_seed(seed_page)))
    assert ok and "1 updated" in out, err
    kept()
    # The source side did take the newer file.
    task = Task.objects.get()
    assert (task.description, task.note) == ("A newer source description.", "A newer source note.")
    assert Row.objects.get(rank=1).model == SPAM_MODEL


def test_after_a_newer_file_the_export_still_shows_the_curated_page(
    seeded, editor_client, load, seed_page, write_page
):
    for decide, _ in DECISIONS.values():
        decide(editor_client)
    load(write_page(a_newer_seed(seed_page)))
    document = exported(editor_client)
    assert document["source"]["rows_withheld_as_spam"] == 1
    assert SPAM_MODEL not in [row["model"] for row in document["rows"]]
    assert document["metric_direction"]["by_metric"]["FPR95"] == "lower"


@pytest.fixture
def curated(seeded, editor_client):
    for decide, _ in DECISIONS.values():
        decide(editor_client)
    return seeded


def test_a_newer_file_without_a_withheld_row_or_a_decided_metric_says_so(
    curated, load, seed_page, write_page
):
    seed_page["syntology"]["read_at"] = "2026-10-25T09:33:49+00:00"
    seed_page["rows"] = [row for row in seed_page["rows"] if row["model"] != SPAM_MODEL]
    for rank, row in enumerate(seed_page["rows"], start=1):
        row["rank_in_archive_order"] = rank
        row["metrics"].pop("FPR95", None)
    seed_page["metrics"] = ["AUROC"]
    seed_page["metric_direction"]["by_metric"] = {"AUROC": None}
    path = write_page(seed_page, "newer.json")
    ok, _, err = load(path)
    assert ok
    assert (
        f"{path}: row 'LINe (ResNet50)' (/paper/line-out-of-distribution-detection-by), "
        "withheld by an editor (Spam), is not in the newer file" in err
    )
    assert (
        f"{path}: metric 'FPR95', given direction 'lower' by an editor, "
        "is not in the newer file" in err
    )
    assert Row.objects.filter(withheld=True).count() == 0


@pytest.mark.parametrize(
    ("action", "stored", "shown"),
    [
        ("set_higher", "higher", "higher"),
        ("set_lower", "lower", "lower"),
        ("set_unknown", "unknown", None),
        ("set_none", None, None),
    ],
)
def test_each_direction_action_sets_both_metrics_and_is_logged(
    action, stored, shown, seeded, editor_client
):
    Metric.objects.update(editor_direction="lower")  # so that clearing changes something
    response = editor_client.post(
        admin_url(Metric, "changelist"),
        {"action": action, "_selected_action": [m.pk for m in Metric.objects.all()]},
        follow=True,
    )
    assert response.status_code == 200
    expected = 0 if stored == "lower" else 2
    assert f"{expected} metrics changed." in response.content.decode()
    assert {m.editor_direction for m in Metric.objects.all()} == {stored}
    # What editors and the file state; FPR95 falls back on the archive's ranking when cleared.
    assert {m.stated_direction for m in Metric.objects.all()} == {shown}
    assert LogEntry.objects.filter(user__username="erin").count() == expected
    assert set(exported(editor_client)["metric_direction"]["by_metric"].values()) == {shown}


def test_a_withheld_row_leaves_the_csv(seeded, editor_client):
    csv_url = f"/sota/{SEED_SLUG}.csv"  # SPEC 3: the CSV sits beside the page
    assert SPAM_MODEL in editor_client.get(csv_url).content.decode()
    withhold_in_admin(editor_client, spam_row())
    response = editor_client.get(csv_url)
    assert response.status_code == 200
    assert SPAM_MODEL not in response.content.decode()


def test_hostile_text_in_a_row_is_escaped_in_the_admin(load, seed_page, write_page, admin_client):
    seed_page["rows"][0]["model"] = "<script>alert(1)</script>"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    board = Leaderboard.objects.get()
    # Rows are listed in the rows list, which the board's form links to.
    rows_list = admin_url(Row, "changelist") + f"?leaderboard={board.slug}"
    html = admin_client.get(rows_list).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_chart_draws_then_drops_the_best_so_far_line_as_the_editor_says(seeded, editor_client):
    fpr = Metric.objects.get(name="FPR95")
    set_direction_in_admin(editor_client, fpr, "lower")
    assert 'class="frontier"' in editor_client.get(PAGE).content.decode()
    set_direction_in_admin(editor_client, fpr, "unknown")
    assert 'class="frontier"' not in editor_client.get(PAGE).content.decode()
