"""A stored value the site cannot show costs its own board's block, never the site (issue #11).

The loader refuses such values now, but a database keeps what older builds or
hands wrote. Each case here writes one straight into the database, as they
would have, and asks every kind of page.
"""

import importlib
import json
import logging
from contextlib import contextmanager
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from leaderboards.models import EARLIEST, Leaderboard, Row, SyntologySnapshot, UnreadableJSON
from tests.helpers import SEED_SLUG, admin_url

BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
BOARD_JSON = reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])
BOARD_CSV = reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG])
TASK = "/task/out-of-distribution-detection"
DATASET = "/dataset/imagenet-1k-vs-sun"
API = f"/api/v1/evaluations/{SEED_SLUG}"

# Everything that shows this board among others, or reads it by the API.
SITE = [
    "/",
    "/sota/",
    "/task/",
    "/dataset/",
    "/paper/",
    TASK,
    DATASET,
    "/paper/line-out-of-distribution-detection-by",
    "/api/v1/papers/line-out-of-distribution-detection-by/results/",
    "/feeds/newest.atom",
    "/search?q=detection",
    "/sitemap.xml",
    "/sitemap-leaderboards.xml",
    "/api/v1/evaluations/",
    f"{API}/",
    f"{API}/results/",
    f"{API}/metrics/",
    "/api/v1/tasks/out-of-distribution-detection/evaluations/",
    "/healthz",
]


def nested(depth):
    return "[" * depth + "]" * depth


SOURCE = '"archive":"PwC","snapshot":"2025-07-28","rank":"r","rows_end_at":null,"metric_values":"m"'

# name: (table, column, stored text, the block the page names, what the page says)
CASES = {
    "board extra nested 1,480 deep": ("leaderboard", "extra", f'{{"x":{nested(1480)}}}', None),
    "board extra nested 3,000 deep": ("leaderboard", "extra", f'{{"x":{nested(3000)}}}', None),
    "board extra with a 5,000-digit integer": (
        "leaderboard",
        "extra",
        f'{{"n":{"9" * 5000}}}',
        None,
    ),
    "source with NaN": (
        "leaderboard",
        "source",
        f'{{{SOURCE},"rows_withheld_as_spam":NaN}}',
        "The provenance block could not be shown.",
    ),
    "source of the wrong shape": (
        "leaderboard",
        "source",
        '["not", "an", "object"]',
        "The provenance block could not be shown.",
    ),
    "source without its spam count": (
        "leaderboard",
        "source",
        f"{{{SOURCE}}}",
        "The provenance block could not be shown.",
    ),
    "since_archive with Infinity": (
        "syntologysnapshot",
        "since_archive",
        '{"claim":"c","columns":["v"],"entries":[{"v":Infinity}]}',
        "The newer results could not be shown.",
    ),
    "since_archive with 1e999": (
        "syntologysnapshot",
        "since_archive",
        '{"claim":"c","columns":["v"],"entries":[{"v":1e999}]}',
        "The newer results could not be shown.",
    ),
    "since_archive nested 1,480 deep": (
        "syntologysnapshot",
        "since_archive",
        f'{{"claim":"c","columns":["v"],"entries":[{{"v":{nested(1480)}}}]}}',
        "The newer results could not be shown.",
    ),
    "since_archive entries that are not objects": (
        "syntologysnapshot",
        "since_archive",
        '{"claim":"c","columns":["v"],"entries":[1,2]}',
        "The newer results could not be shown.",
    ),
    "since_archive with a lone surrogate": (
        "syntologysnapshot",
        "since_archive",
        '{"claim":"\\ud800","columns":[],"entries":[]}',
        "The newer results could not be shown.",
    ),
    "snapshot extra nested 1,480 deep": (
        "syntologysnapshot",
        "extra",
        f'{{"x":{nested(1480)}}}',
        None,
    ),
    "row extra nested 1,480 deep": ("row", "extra", f'{{"x":{nested(1480)}}}', None),
}


# Valid JSON the page cannot lay out as a table; the page file gives it back as stored.
EXPORTABLE = {"since_archive entries that are not objects"}


def store(table, column, text):
    """Write `text` into every row's `column`, past the loader, as an older build could."""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE leaderboards_{table} SET {column} = %s", [text])


def strict_json(content):
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(content, parse_constant=refuse)


@pytest.mark.parametrize("case", CASES)
def test_the_rest_of_the_site_stays_up(case, seeded, client):
    table, column, text, _ = CASES[case]
    store(table, column, text)
    for url in SITE:
        assert client.get(url).status_code == 200, url
    assert client.get(BOARD_CSV).status_code == 200


@pytest.mark.parametrize("case", CASES)
def test_the_board_page_shows_what_it_can_and_says_what_it_could_not(case, seeded, client, caplog):
    table, column, text, message = CASES[case]
    store(table, column, text)
    with caplog.at_level(logging.ERROR):
        response = client.get(BOARD)
    assert response.status_code == 200
    html = response.content.decode()
    # The table and the panels that could be read are all there.
    assert "CMA(ViT-B/16, NegLabel)" in html and html.count("num rank") == 22
    assert 'id="verification"' in html and 'id="provenance"' in html
    if message:
        assert "Part of this leaderboard could not be shown" in html
        assert message in html
        assert any(SEED_SLUG in record.getMessage() for record in caplog.records)
    else:
        # Only the page file holds this block; the page itself lacks nothing.
        assert "could not be shown" not in html


@pytest.mark.parametrize("case", sorted(set(CASES) - EXPORTABLE))
def test_the_page_file_is_a_clear_json_error_and_is_logged(case, seeded, client, caplog):
    table, column, text, _ = CASES[case]
    store(table, column, text)
    with caplog.at_level(logging.ERROR):
        response = client.get(BOARD_JSON)
    assert response.status_code == 503
    body = strict_json(response.content)
    assert "cannot be exported" in body["error"]
    assert body["leaderboard"] == SEED_SLUG
    assert body["unshown"] and all(item["reason"] for item in body["unshown"])
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(SEED_SLUG in message and "cannot be exported" in message for message in logged)


@pytest.mark.parametrize("case", sorted(EXPORTABLE))
def test_a_stored_block_of_an_odd_shape_still_exports_as_stored(case, seeded, client):
    table, column, text, _ = CASES[case]
    store(table, column, text)
    response = client.get(BOARD_JSON)
    assert response.status_code == 200
    assert strict_json(response.content)["since_archive"] == json.loads(text)


def test_a_stored_nan_never_reaches_the_page_file_as_nan(seeded, client):
    # Before: json.dumps wrote the NaN it read, and the file was not JSON.
    store("syntologysnapshot", "since_archive", '{"claim":"c","entries":[],"x":NaN}')
    content = client.get(BOARD_JSON).content
    assert b"NaN" not in content
    strict_json(content)


def test_an_unchanged_page_still_exports_byte_for_byte(seeded, client):
    from tests.helpers import SEED_FILE

    response = client.get(BOARD_JSON)
    assert response.status_code == 200
    assert response.content.decode("utf-8") == SEED_FILE.read_text(encoding="utf-8")


# Editors open, fix and delete such a board in the admin.

ADMIN_CASES = [
    "board extra nested 3,000 deep",
    "source with NaN",
    "since_archive nested 1,480 deep",
    "row extra nested 1,480 deep",
]


@pytest.mark.parametrize("case", ADMIN_CASES)
def test_editors_open_the_board_and_a_superuser_deletes_it(
    case, seeded, editor_client, admin_client
):
    table, column, text, _ = CASES[case]
    store(table, column, text)
    snapshot = seeded.snapshots.get()
    row = seeded.rows.first()
    for url in (
        admin_url(Leaderboard, "changelist"),
        admin_url(Leaderboard, "change", seeded.pk),
        admin_url(SyntologySnapshot, "change", snapshot.pk),
        admin_url(Row, "change", row.pk),
    ):
        assert editor_client.get(url).status_code == 200, url
    html = admin_client.get(admin_url(Leaderboard, "change", seeded.pk)).content.decode()
    if table == "leaderboard":
        assert "stored value cannot be shown" in html
    delete = admin_url(Leaderboard, "delete", seeded.pk)
    assert admin_client.get(delete).status_code == 200
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not Leaderboard.objects.filter(slug=SEED_SLUG).exists()


def test_saving_a_board_writes_an_unreadable_block_back_as_it_was(seeded):
    text = f'{{"x":{nested(3000)}}}'
    store("leaderboard", "extra", text)
    board = Leaderboard.objects.get()
    assert isinstance(board.extra, UnreadableJSON)
    board.editor_description = "An editor's correction."
    board.save()
    with connection.cursor() as cursor:
        cursor.execute("SELECT extra FROM leaderboards_leaderboard")
        assert cursor.fetchone()[0] == text


# Timestamps Python cannot hold: the database refuses them.

# The same instant as each database takes it: PostgreSQL converts the offset
# itself (to year 0); SQLite keeps the UTC text Django would have written.
TOO_EARLY = {"postgresql": "0001-01-01T00:00:00+01:00", "sqlite": "0000-12-31 23:00:00"}
TOO_LATE = "9999-12-31T23:59:59-01:00"  # year 10000 in UTC, on PostgreSQL


def out_of_range_values():
    values = [TOO_EARLY[connection.vendor]]
    if connection.vendor == "postgresql":
        values.append(TOO_LATE)
    return values


@pytest.mark.parametrize("table", ["leaderboard", "syntologysnapshot"])
def test_the_database_refuses_a_read_at_python_cannot_read(table, seeded):
    for value in out_of_range_values():
        with pytest.raises(IntegrityError, match="read_at_readable"), transaction.atomic():
            store(table, "read_at", value)
    assert seeded.snapshots.get().read_at_text == "2026-09-25T09:33:49+00:00"


@contextmanager
def checks_off(table, constraint):
    """Write as a database from before the constraint could: without it."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA ignore_check_constraints = ON")
            try:
                yield
            finally:
                cursor.execute("PRAGMA ignore_check_constraints = OFF")
        else:
            # Undone with the test's transaction; the load's deferred foreign-key
            # checks must run first, or PostgreSQL will not alter the table.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE leaderboards_{table} DROP CONSTRAINT {constraint}")
            yield


def test_the_migration_brings_an_unreadable_read_at_back_into_range(seeded, client):
    with checks_off("leaderboard", "leaderboard_read_at_readable"):
        store("leaderboard", "read_at", TOO_EARLY[connection.vendor])
    with checks_off("syntologysnapshot", "snapshot_read_at_readable"):
        store("syntologysnapshot", "read_at", TOO_EARLY[connection.vendor])
    migration = importlib.import_module("leaderboards.migrations.0007_read_at_within_python_range")
    migration.clamp_unreadable_read_at(django_apps, SimpleNamespace(connection=connection))
    assert Leaderboard.objects.get().read_at == EARLIEST
    snapshot = SyntologySnapshot.objects.get()
    assert snapshot.read_at == EARLIEST
    # What the file said stays, and is what the page and its export show.
    assert snapshot.read_at_text == "2026-09-25T09:33:49+00:00"
    for url in ("/", "/sota/", BOARD, "/api/v1/evaluations/"):
        assert client.get(url).status_code == 200, url


def test_healthz_is_503_when_a_stored_value_breaks_the_lists(seeded, client):
    # As main was: the load stored the timestamp, every list answered 500, /healthz 200.
    # Lists now read only the columns they show, so the board's own page is what breaks.
    with checks_off("leaderboard", "leaderboard_read_at_readable"):
        store("leaderboard", "read_at", TOO_EARLY[connection.vendor])
    client.raise_request_exception = False
    assert client.get("/sota/").status_code == 200
    assert client.get(BOARD).status_code == 500
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "ok" and body["check"] == "leaderboard list"
    assert body["reason"].startswith("database 'default': leaderboard list could not be read")


def test_export_seeds_names_the_board_it_cannot_write(seeded, tmp_path):
    import io

    from django.core.management import call_command
    from django.core.management.base import CommandError

    store("leaderboard", "extra", '{"x":NaN}')
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 page file"):
        call_command("export_seeds", tmp_path, stdout=io.StringIO(), stderr=err)
    assert f"{SEED_SLUG}: not written: extra: a number that is not finite (nan)" in err.getvalue()
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("case", ADMIN_CASES)
def test_an_editor_withholds_a_row_of_such_a_board(case, seeded, editor_client, client):
    from tests.helpers import withhold_in_admin

    table, column, text, _ = CASES[case]
    store(table, column, text)
    row = seeded.rows.get(rank=1)
    assert withhold_in_admin(editor_client, row).status_code == 302
    row.refresh_from_db()
    assert row.withheld
    assert client.get("/sota/").status_code == 200
