"""Editors' decisions outlast the rows and metrics a re-load replaces, and never make a 500."""

import copy
import hashlib
import importlib
import json
import re

import pytest
from django.apps import apps
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.db import OperationalError
from django.db.models import CharField
from django.db.models.functions import Cast

from leaderboards import decisions
from leaderboards.format import rules
from leaderboards.models import DirectionDecision, Leaderboard, Metric, Row, RowDecision
from tests.helpers import SPAM_MODEL, a_newer_seed, admin_url, exported, spam_row, withhold_in_admin

LINE_PAPER = "/paper/line-out-of-distribution-detection-by"


def told(response):
    return [(message.level_tag, message.message) for message in get_messages(response.wsgi_request)]


def listed(client, model):
    """What the editor's list page offers: {id: posted key} of each checkbox."""
    html = client.get(admin_url(model, "changelist")).content.decode()
    return dict(re.findall(r'<input type="hidden" name="key-(\d+)" value="([^"]*)">', html))


def act(client, model, action, ids, keys, **extra):
    data = {"action": action, "_selected_action": ids, **extra}
    data.update({f"key-{pk}": keys[pk] for pk in ids})
    return client.post(admin_url(model, "changelist"), data)


def without_spam_row(page):
    page["rows"] = [row for row in page["rows"] if row["model"] != SPAM_MODEL]
    for rank, row in enumerate(page["rows"], start=1):
        row["rank_in_archive_order"] = rank
    return page


def at(page, read_at):
    page["syntology"]["read_at"] = read_at
    return page


@pytest.fixture
def reload(load, write_page):
    def run(page):
        ok, out, err = load(write_page(page))
        assert ok and "1 updated" in out, err
        return err

    return run


def test_a_withheld_row_stays_withheld_when_a_newer_file_reranks_it(
    seeded, editor_client, reload, seed_page
):
    withhold_in_admin(editor_client, spam_row(), reason="Spam")
    before = spam_row().pk
    reload(a_newer_seed(seed_page))
    row = spam_row()
    assert row.pk != before and row.rank == 1
    assert (row.withheld, row.withheld_reason) == (True, "Spam")
    decision = RowDecision.objects.get()
    assert (decision.model, decision.paper, decision.withheld) == (SPAM_MODEL, LINE_PAPER, True)
    assert decision.decided_by.username == "erin"
    assert exported(editor_client)["source"]["rows_withheld_as_spam"] == 1


def test_an_action_on_a_row_a_reload_replaced_goes_to_the_row_with_its_key(
    seeded, editor_client, reload, seed_page
):
    keys = listed(editor_client, Row)
    stale = str(spam_row().pk)
    reload(a_newer_seed(seed_page))
    assert not Row.objects.filter(pk=stale).exists()

    response = act(editor_client, Row, "withhold", [stale], keys, reason="Duplicate", apply="1")
    assert response.status_code == 302
    assert ("success", "1 row withheld.") in told(response)
    assert any("replaced by a newer file" in text for _, text in told(response))
    row = spam_row()
    assert (row.withheld, row.withheld_reason) == (True, "Duplicate")
    # The history is the current row's.
    assert LogEntry.objects.get().object_id == str(row.pk)

    keys = listed(editor_client, Row)
    stale = str(row.pk)
    reload(at(a_newer_seed(seed_page), "2026-11-25T09:33:49+00:00"))
    response = act(editor_client, Row, "restore", [stale], keys)
    assert ("success", "1 row restored.") in told(response)
    assert not spam_row().withheld


def test_an_action_on_a_row_the_newer_file_dropped_says_so_and_changes_nothing(
    seeded, editor_client, reload, seed_page
):
    keys = listed(editor_client, Row)
    stale = str(spam_row().pk)
    reload(at(without_spam_row(seed_page), "2026-10-25T09:33:49+00:00"))
    response = act(editor_client, Row, "withhold", [stale], keys, reason="Spam", apply="1")
    assert response.status_code == 302
    assert (
        "warning",
        "Nothing changed for 'LINe (ResNet50)': the board's newer file no longer has it.",
    ) in told(response)
    assert not RowDecision.objects.exists()
    assert not Row.objects.filter(withheld=True).exists()
    assert not LogEntry.objects.exists()


def test_a_row_form_opened_before_a_reload_saves_onto_the_row_with_its_key(
    seeded, editor_client, reload, seed_page
):
    form = editor_client.get(admin_url(Row, "change", spam_row().pk)).content.decode()
    key = re.search(r'name="decision_key" value="([^"]*)"', form).group(1)
    stale = spam_row()
    reload(a_newer_seed(seed_page))
    response = editor_client.post(
        admin_url(Row, "change", stale.pk),
        {
            "withheld": "on",
            "withheld_reason": "Spam",
            "decision_key": key,
            "values-TOTAL_FORMS": "2",
            "values-INITIAL_FORMS": "2",
            "_save": "Save",
        },
    )
    assert response.status_code == 302
    row = spam_row()
    assert (row.withheld, row.withheld_reason) == (True, "Spam")
    assert LogEntry.objects.get().object_id == str(row.pk)


def test_a_row_form_for_a_row_the_newer_file_dropped_changes_nothing(
    seeded, editor_client, reload, seed_page
):
    form = editor_client.get(admin_url(Row, "change", spam_row().pk)).content.decode()
    key = re.search(r'name="decision_key" value="([^"]*)"', form).group(1)
    stale = spam_row()
    reload(at(without_spam_row(seed_page), "2026-10-25T09:33:49+00:00"))
    response = editor_client.post(
        admin_url(Row, "change", stale.pk),
        {"withheld": "on", "withheld_reason": "Spam", "decision_key": key, "_save": "Save"},
    )
    assert response.status_code == 302
    assert any("no longer has it" in text for _, text in told(response))
    assert not RowDecision.objects.exists()


def test_a_decision_outlasts_a_file_without_its_row_and_returns_with_the_row(
    seeded, editor_client, reload, seed_page
):
    withhold_in_admin(editor_client, spam_row(), reason="Spam")
    set_direction = {
        "action": "set_lower",
        "_selected_action": [Metric.objects.get(name="FPR95").pk],
    }
    editor_client.post(admin_url(Metric, "changelist"), set_direction)

    dropped = at(
        without_spam_row(a_newer_seed(copy.deepcopy(seed_page))), "2026-10-25T09:33:49+00:00"
    )
    for row in dropped["rows"]:
        row["metrics"].pop("FPR95", None)
    dropped["metrics"] = ["AUROC"]
    dropped["metric_direction"]["by_metric"] = {"AUROC": None}
    warned = reload(dropped)
    assert "withheld by an editor (Spam), is not in the newer file; the decision is kept" in warned
    assert "'FPR95', given direction 'lower' by an editor, is not in the newer file" in warned
    assert not Row.objects.filter(withheld=True).exists()
    assert exported(editor_client)["source"]["rows_withheld_as_spam"] == 0

    warned = reload(at(a_newer_seed(seed_page), "2026-11-25T09:33:49+00:00"))
    assert "not in the newer file" not in warned
    assert (spam_row().withheld, spam_row().withheld_reason) == (True, "Spam")
    assert Metric.objects.get(name="FPR95").editor_direction == "lower"
    assert exported(editor_client)["metric_direction"]["by_metric"]["FPR95"] == "lower"
    assert Leaderboard.objects.get().row_count == 21


def test_a_metric_action_on_a_replaced_metric_goes_to_the_metric_of_that_name(
    seeded, editor_client, reload, seed_page
):
    keys = listed(editor_client, Metric)
    stale = str(Metric.objects.get(name="FPR95").pk)
    reload(a_newer_seed(seed_page))
    response = act(editor_client, Metric, "set_lower", [stale], keys)
    assert ("success", "1 metric changed.") in told(response)
    assert Metric.objects.get(name="FPR95").editor_direction == "lower"
    assert DirectionDecision.objects.get().direction == "lower"


def test_the_board_form_opened_before_a_reload_sets_directions_by_name(
    seeded, editor_client, reload, seed_page
):
    metrics = list(seeded.metrics.order_by("position"))
    area_link = seeded.area_links.get().pk
    reload(a_newer_seed(seed_page))
    data = {
        "editor_description": "",
        "metrics-TOTAL_FORMS": "2",
        "metrics-INITIAL_FORMS": "2",
        "area_links-TOTAL_FORMS": "1",
        "area_links-INITIAL_FORMS": "1",
        "area_links-0-id": str(area_link),
        "row_decisions-TOTAL_FORMS": "0",
        "row_decisions-INITIAL_FORMS": "0",
        "direction_decisions-TOTAL_FORMS": "0",
        "direction_decisions-INITIAL_FORMS": "0",
        "_save": "Save",
    }
    for index, metric in enumerate(metrics):
        data[f"metrics-{index}-id"] = str(metric.pk)
        data[f"metrics-{index}-metric_name"] = metric.name
        data[f"metrics-{index}-editor_direction"] = "lower" if index == 0 else ""
    response = editor_client.post(admin_url(Leaderboard, "change", seeded.pk), data)
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert Metric.objects.get(name="FPR95").editor_direction == "lower"
    assert DirectionDecision.objects.get().metric == "FPR95"


def test_a_busy_database_is_a_message_not_a_500(seeded, editor_client, monkeypatch):
    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(decisions, "restore", locked)
    response = editor_client.post(
        admin_url(Row, "changelist"), {"action": "restore", "_selected_action": [spam_row().pk]}
    )
    assert response.status_code == 302
    assert ("error", "The database was busy (a load is writing) and nothing was changed. "
            "Please try again.") in told(response)  # fmt: skip


def test_the_migration_turns_withheld_rows_and_directions_into_decisions(seeded):
    seeded.rows.filter(model=SPAM_MODEL).update(withheld=True, withheld_reason="Spam")
    seeded.metrics.filter(name="FPR95").update(editor_direction="lower")
    loaders_key = spam_row().key
    Row.objects.update(key=Cast("pk", CharField()))  # as before the migration: none
    migration = importlib.import_module("leaderboards.migrations.0008_editors_decisions")
    migration.keys_and_decisions(apps, None)

    decision = RowDecision.objects.get()
    assert (decision.model, decision.paper, decision.occurrence) == (SPAM_MODEL, LINE_PAPER, 1)
    assert (decision.withheld, decision.reason) == (True, "Spam")
    # The keys the migration gave are the ones the loader gives.
    assert decision.key == spam_row().key == loaders_key
    assert list(DirectionDecision.objects.values_list("metric", "direction")) == [
        ("FPR95", "lower")
    ]


@pytest.mark.parametrize(
    "key",
    [
        (SPAM_MODEL, LINE_PAPER, 1),
        ('Model "quoted" \\ back', "https://arxiv.org/abs/1512.03385", 2),
        ("Modèle ünïcode 模型 🚀", "", 12),
        ("tab\there\nnewline\x00\x1f\x7f\u2028", "title: «x»", 1),
        ("", "", 100000),
    ],
)
def test_a_row_key_digests_as_stored_keys_were_written(key):
    """Decisions already stored carry digests of json.dumps(key, ensure_ascii=False):
    a re-load must find them under the same digest, or every decision is orphaned."""
    written = hashlib.sha256(json.dumps(key, ensure_ascii=False).encode()).hexdigest()
    assert rules.key_digest(key) == written
