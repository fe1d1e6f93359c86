"""Each verification snapshot's comparison with the one read before it, stored when the
snapshot is (upkeep/snapshot_changes.py), and what the history page reads of it."""

import copy
import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboards.format import derive
from leaderboards.models import Leaderboard, RowVerification, SyntologySnapshot
from leaderboards.upkeep.snapshot_changes import counter_changes, store_comparisons
from tests.helpers import SEED_FILE, SEED_SLUG

pytestmark = pytest.mark.django_db

BACKFILL = importlib.import_module("leaderboards.migrations.0042_snapshot_changes")
HISTORY = reverse("leaderboards:leaderboard_history", args=[SEED_SLUG])
HISTORY_JSON = reverse("leaderboards:leaderboard_history_json", args=[SEED_SLUG])


def a_version(page, day, edit):
    """The page read on `day` of September 2026, `edit`ed, its figures kept true."""
    page = copy.deepcopy(page)
    page["syntology"]["read_at"] = f"2026-09-{day:02d}T09:33:49+00:00"
    edit(page["rows"])
    for rank, row in enumerate(page["rows"], start=1):
        row["rank_in_archive_order"] = rank
    page["counts"] = derive.page_counts(page["rows"])
    page["syntology"].update(derive.syntology_figures(page["rows"]))
    return page


def verified(rows):
    return [row for row in rows if row["syntology"] is not None]


def counters_moved(rows):
    """Two rows' counters moved, the last verified row gone, a second row of a model added."""
    first, second = verified(rows)[:2]
    first["syntology"] = {**first["syntology"], "n_ran": first["syntology"]["n_ran"] + 1}
    second["syntology"] = {**second["syntology"], "n_unverified": 7}
    rows.remove(verified(rows)[-1])
    rows.append(copy.deepcopy(verified(rows)[2]))


def duplicate_moved(rows):
    """The added row of a duplicated model moved, the first verified row gone, a new model."""
    rows[-1]["syntology"] = {**rows[-1]["syntology"], "n_pointer_only_licence": 3}
    rows.remove(verified(rows)[0])
    rows.append(dict(copy.deepcopy(verified(rows)[0]), model="A model new on the 27th"))


def values_only(rows):
    """Another value, no counter moved."""
    rows[0]["metrics"] = dict.fromkeys(rows[0]["metrics"], "1.00")


@pytest.fixture
def versions(load, seed_page, write_page):
    """The seed, then three versions of it loaded one after another; its snapshots, oldest first."""
    ok, _, err = load(SEED_FILE)
    assert ok, err
    page = seed_page
    for day, edit in ((26, counters_moved), (27, duplicate_moved), (28, values_only)):
        page = a_version(page, day, edit)
        ok, _, err = load(write_page(page))
        assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    return list(board.snapshots.order_by("read_at"))


def computed(snapshots):
    """Each snapshot's comparison as the page computed it before any was stored."""
    pks = [snapshot.pk for snapshot in snapshots]
    pairs = list(zip(pks[1:], pks, strict=False))
    rows, changed = counter_changes(pks, pairs)
    return [
        (older, rows[pk], *changed.get(pk, (0, [])))
        for pk, older in zip(pks, [None, *pks], strict=False)
    ]


def stored(snapshots):
    return [
        (s.compared_with_id, s.verified_rows, s.changed_rows, s.changes)
        for s in SyntologySnapshot.objects.filter(pk__in=[s.pk for s in snapshots]).order_by(
            "read_at"
        )
    ]


def test_each_load_stores_its_snapshots_comparison_as_computed(versions):
    assert stored(versions) == computed(versions)
    first, moved, duplicate, values = stored(versions)
    assert first[2:] == (0, []) and values[2:] == (0, [])
    # Two counters moved, a row of a model already there added, the last verified gone.
    assert moved[2] == 4 and [change["new"] is None for change in moved[3]] == [False] * 3 + [True]
    # The added row matched as the second of its model, its counter moved; the new
    # model; the first verified row gone.
    moved_again, new, gone = duplicate[3]
    assert duplicate[2] == 3 and moved_again["old"] is not None
    assert moved_again["new"]["n_pointer_only_licence"] == 3
    assert (new["old"], new["model"]) == (None, "A model new on the 27th")
    assert gone["new"] is None


def test_the_page_reads_no_verification_when_each_comparison_is_stored(
    client, versions, django_assert_num_queries
):
    table = RowVerification._meta.db_table
    for url in (HISTORY, HISTORY_JSON):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        assert len(queries) == 6
        assert not [query for query in queries if table in query["sql"]]
    steps = client.get(HISTORY_JSON).json()["snapshots"]["items"]
    assert [step["rows_changed"] for step in steps] == [
        changed for *_, changed, _ in reversed(computed(versions))
    ]


def test_a_deleted_snapshot_leaves_the_next_compared_with_the_one_before(client, versions):
    first, moved, duplicate, values = versions
    moved.delete()
    # Stored again against the one now before it: the page compares nothing itself.
    again = SyntologySnapshot.objects.get(pk=duplicate.pk)
    assert (again.compared_with_id, again.changed_rows is not None) == (first.pk, True)
    table = RowVerification._meta.db_table
    with CaptureQueriesContext(connection) as queries:
        steps = client.get(HISTORY_JSON).json()["snapshots"]["items"]
    assert not [query for query in queries if table in query["sql"]]
    rows, changed = counter_changes([duplicate.pk], [(duplicate.pk, first.pk)])
    total, changes = changed[duplicate.pk]
    assert steps[1]["previous_read_at"] == first.read_at_text
    assert (steps[1]["rows_changed"], steps[1]["counters_changed"]) == (total, changes)
    assert steps[1]["verified_rows"] == rows[duplicate.pk]
    first.delete()
    steps = client.get(HISTORY_JSON).json()["snapshots"]["items"]
    assert steps[-1]["read_at"] == duplicate.read_at_text
    assert (steps[-1]["previous_read_at"], steps[-1]["rows_changed"]) == (None, 0)
    assert steps[-1]["counters_changed"] == []


def test_a_comparison_stored_again_after_a_delete_is_the_page_again(client, versions):
    first, moved, duplicate, values = versions
    before = client.get(HISTORY_JSON).json()
    moved.delete()
    shown = client.get(HISTORY_JSON).json()
    store_comparisons([duplicate.pk])
    assert client.get(HISTORY_JSON).json() == shown != before


def test_the_migrations_backfill_gives_what_a_load_stores(versions):
    expected = stored(versions)
    SyntologySnapshot.objects.update(
        compared_with=None, verified_rows=None, changed_rows=None, changes=[]
    )
    BACKFILL.compare_snapshots(apps, connection.schema_editor())
    assert stored(versions) == expected


def test_the_migrations_frozen_rule_gives_todays_comparisons(versions):
    pks = [snapshot.pk for snapshot in versions]
    pairs = [(pks[3], pks[0]), (pks[2], pks[1]), (pks[1], pks[3])]
    for listed in (1, 200):
        frozen = BACKFILL.counter_changes(connection, pks, pairs, listed)
        assert frozen == counter_changes(pks, pairs, listed)
