"""What a load records of a board's data changes (ingest/history.py)."""

import pytest
from django.db import DatabaseError

from leaderboards.ingest import history
from leaderboards.models import BoardChange, DataLoad, Leaderboard
from tests.helpers import NEW_MODEL_2026, SEED_FILE, SEED_SLUG, a_reloaded_seed

pytestmark = pytest.mark.django_db


def test_diff_rows_finds_each_kind_of_change():
    before = {"a": (1, "A", {"x": "1.0", "y": "2"}), "b": (2, "B", {"x": "3"})}
    after = {"a": (2, "A", {"x": "1.00", "z": "5"}), "c": (1, "C", {"x": "4"})}
    counts, changes = history.diff_rows(before, after)
    assert counts == (1, 1, 3)
    assert changes["added"] == [{"rank": 1, "model": "C", "values": {"x": "4"}}]
    assert changes["removed"] == [{"rank": 2, "model": "B", "values": {"x": "3"}}]
    assert changes["changed"] == [
        {"rank": 2, "model": "A", "metric": "x", "old": "1.0", "new": "1.00"},
        {"rank": 2, "model": "A", "metric": "y", "old": "2", "new": None},
        {"rank": 2, "model": "A", "metric": "z", "old": None, "new": "5"},
    ]


def test_diff_rows_of_equal_rows_is_nothing():
    rows = {"a": (1, "A", {"x": "1.0"})}
    assert history.diff_rows(rows, {"a": (3, "A", {"x": "1.0"})})[0] == (0, 0, 0)


def test_diff_rows_keeps_counts_whole_and_entries_bounded():
    after = {str(n): (n, f"M{n}", {"x": "1"}) for n in range(history.LIMIT + 7)}
    counts, changes = history.diff_rows({}, after)
    assert counts[0] == history.LIMIT + 7
    assert len(changes["added"]) == history.LIMIT


def test_a_new_board_is_recorded_as_added(load):
    ok, _, err = load(SEED_FILE)
    assert ok, err
    change = BoardChange.objects.get()
    assert change.created and change.rows_added == 22 and change.changes == {}
    assert change.leaderboard.slug == SEED_SLUG
    loaded = DataLoad.objects.get()
    assert (loaded.boards_added, loaded.boards_changed, loaded.rows_added) == (1, 0, 22)
    assert loaded.boards == [[SEED_SLUG, True]]


def test_a_reload_records_values_changed_rows_added_and_removed(load, seed_page, write_page):
    load(SEED_FILE)
    page, gone = a_reloaded_seed(seed_page)
    ok, _, err = load(write_page(page))
    assert ok, err
    change = BoardChange.objects.of_board(Leaderboard.objects.get(slug=SEED_SLUG)).first()
    assert not change.created
    assert (change.rows_added, change.rows_removed, change.values_changed) == (1, 1, 1)
    assert change.changes["changed"] == [
        {"rank": 1, "model": page["rows"][0]["model"], "metric": "AUROC",
         "old": "96.36", "new": "96.40"},
    ]  # fmt: skip
    assert change.changes["added"][0]["model"] == NEW_MODEL_2026
    assert change.changes["added"][0]["values"] == {"AUROC": "97.01", "FPR95": "12.5"}
    assert change.changes["removed"][0]["model"] == gone["model"]
    assert change.changes["removed"][0]["values"] == gone["metrics"]
    assert change.sha256_before != change.sha256_after
    assert DataLoad.objects.count() == 2


def test_an_identical_reload_records_nothing(load):
    load(SEED_FILE)
    ok, out, err = load(SEED_FILE)
    assert ok, err
    assert (BoardChange.objects.count(), DataLoad.objects.count()) == (1, 1)


def test_a_newer_page_with_the_same_data_records_nothing(load, seed_page, write_page):
    load(SEED_FILE)
    seed_page["syntology"]["read_at"] = "2026-09-26T09:33:49+00:00"
    seed_page["description"] = "Only the words around the rows changed."
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    assert Leaderboard.objects.get().description == "Only the words around the rows changed."
    assert (BoardChange.objects.count(), DataLoad.objects.count()) == (1, 1)


def test_a_failed_load_records_nothing(load, seed_page, write_page, monkeypatch):
    load(SEED_FILE)
    page, _ = a_reloaded_seed(seed_page)

    def refuse(items):
        raise DatabaseError("refused")

    monkeypatch.setattr("leaderboards.ingest.tables.insert_verifications", refuse)
    ok, out, err = load(write_page(page))
    assert "refused" in out + err
    assert (BoardChange.objects.count(), DataLoad.objects.count()) == (1, 1)
    assert Leaderboard.objects.get().source_sha256 == BoardChange.objects.get().sha256_after
