"""The loader gives new rows ids it reserves before inserting them (upkeep/bulk.reserve_ids).

An id names a row to an editor's open form (the withhold form posts row ids),
so a re-loaded board's rows must never take the id of a row deleted before,
as the database's own numbering never does; and ids taken beside another
writer must not collide.
"""

import threading

import pytest
from django.db import connection, transaction

from leaderboards.ingest.loader import Loader
from leaderboards.models import Leaderboard, Metric, Row, SyntologySnapshot
from leaderboards.upkeep.bulk import reserve_ids
from tests.helpers import scaled_page

TABLES = (Leaderboard, Metric, Row, SyntologySnapshot)


def _newer(page, read_at, slug="board"):
    page = scaled_page(page, 5)
    page["url"] = f"/sota/{slug}"
    page["syntology"]["read_at"] = read_at
    return page


def _largest_ids():
    return {model: max(model.objects.values_list("pk", flat=True)) for model in TABLES}


def test_re_loaded_rows_never_take_the_id_of_a_deleted_row(db, seed_page):
    loader = Loader()
    loader.load_pages(
        [
            ("a", _newer(seed_page, "2026-09-25T09:33:49+00:00", "a")),
            ("b", _newer(seed_page, "2026-09-25T09:33:49+00:00", "b")),
        ]
    )
    before = _largest_ids()
    # Board b holds the largest ids of every table; deleting it frees them.
    Leaderboard.objects.get(slug="b").delete()
    Loader().load_pages([("a", _newer(seed_page, "2026-10-25T09:33:49+00:00", "a"))])

    board = Leaderboard.objects.get(slug="a")
    assert [row.model for row in board.rows.order_by("rank")] == [
        row["model"] for row in scaled_page(seed_page, 5)["rows"]
    ]
    # The board itself is updated in place; what was re-made is numbered anew.
    for model in (Metric, Row, SyntologySnapshot):
        assert model.objects.filter(pk__gt=before[model]).exists(), model
    assert min(row.pk for row in board.rows.all()) > before[Row]
    assert min(metric.pk for metric in board.metrics.all()) > before[Metric]


def test_ids_follow_rows_inserted_by_the_orm(db, seed_page):
    """An editor's row, added the ORM's way, and a load's rows never share an id."""
    Loader().load_pages([("a", _newer(seed_page, "2026-09-25T09:33:49+00:00", "a"))])
    board = Leaderboard.objects.get(slug="a")
    added = Row.objects.create(leaderboard=board, rank=99, model="editor's", key="k99")
    Loader().load_pages([("b", _newer(seed_page, "2026-09-25T09:33:49+00:00", "b"))])
    loaded = set(Row.objects.filter(leaderboard__slug="b").values_list("pk", flat=True))
    assert len(loaded) == 5 and min(loaded) > added.pk
    # And the ORM's next row follows the load's.
    after = Row.objects.create(leaderboard=board, rank=100, model="editor's", key="k100")
    assert after.pk > max(loaded)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's ids come from the write lock")
def test_sqlite_ids_are_reserved_only_under_the_write_lock(seed_page):
    Loader().load_pages([("a", _newer(seed_page, "2026-09-25T09:33:49+00:00", "a"))])
    largest = max(Row.objects.values_list("pk", flat=True))
    with transaction.atomic():
        assert list(reserve_ids(Row, 3)) == [largest + 1, largest + 2, largest + 3]
    # Outside a transaction another writer could take them before the insert.
    with pytest.raises(RuntimeError, match="inside the transaction"):
        reserve_ids(Row, 3)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's sequence")
def test_concurrent_reservations_on_postgresql_never_overlap():
    taken, errors = [], []

    def reserve():
        try:
            with transaction.atomic():
                taken.append(list(reserve_ids(Row, 500)))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=reserve) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    every = [pk for ids in taken for pk in ids]
    assert len(taken) == 4 and len(set(every)) == 2000
