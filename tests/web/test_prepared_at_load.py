"""A large board's page is prepared when it is loaded (prepare_boards), not by a web worker.

A board whose rows no worker keeps cost its first visitor after a load, in
every worker and again after every restart, a read of all its rows and a
second of sorting: most of a worker's memory at 100,000 rows. Made at load
time and stored for its versions, its page and every view that narrows nothing
read one page of rows at most, and are the pages built from the rows.
"""

import io
import re

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.core.signals import request_finished
from django.db import DatabaseError, close_old_connections, connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboards.models import Leaderboard, PreparedPart, Row
from leaderboards.web.page_cache import PAGE_CACHE
from leaderboards.web.prepared import orders_kept
from tests.helpers import SEED_FILE, SEED_SLUG
from tests.web.test_prepared_page import (
    LEADERBOARD,
    MODEL,
    ORDERED_VIEWS,
    built_from_rows,
    rows_read,
)


@pytest.fixture
def large(monkeypatch):
    from leaderboards.web.prepared import rows_kept

    monkeypatch.setattr(rows_kept, "max_size", 10)  # the seed's 22 rows stand for 100,000


@pytest.fixture
def loaded(load, page_cache, large, django_capture_on_commit_callbacks):
    # With the versions raised as each of the load's transactions commits: storing the
    # parts must raise none, or they would be stale as soon as stored.
    with django_capture_on_commit_callbacks(execute=True):
        ok, out, err = load(SEED_FILE)
    assert ok, err
    assert f"prepared {SEED_SLUG}: 22 results" in out
    return Leaderboard.objects.get(slug=SEED_SLUG)


def a_new_worker():
    """What a worker started after the load has kept: nothing."""
    caches[PAGE_CACHE].clear()
    orders_kept.clear()


def prepare_boards(capture):
    out = io.StringIO()
    with capture(execute=True):
        call_command("prepare_boards", stdout=out)
    return out.getvalue()


def with_bust(view, bust):
    return LEADERBOARD + view + ("&" if "?" in view else "?") + f"b={bust}"


def test_a_new_workers_views_read_no_more_than_their_page(loaded, client, settings):
    a_new_worker()
    for view in ["", *ORDERED_VIEWS]:
        with CaptureQueriesContext(connection) as read:
            response = client.get(with_bust(view, 1))
        # None for the board's page, one page by id for a view; never every row.
        assert [" IN (" in sql for sql in rows_read(read.captured_queries)] in ([], [True]), view
        assert response.status_code == 200
        assert response.content == built_from_rows(client, settings, with_bust(view, 1)).content


def test_an_editors_change_is_built_from_the_rows_until_prepared_again(
    loaded, client, django_capture_on_commit_callbacks
):
    csv = reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG])
    a_new_worker()
    tag = client.get(csv)["ETag"]
    row = Row.objects.get(leaderboard=loaded, model=MODEL)
    row.withheld, row.withheld_reason = True, "spam"
    with django_capture_on_commit_callbacks(execute=True):
        row.save()
    a_new_worker()
    with CaptureQueriesContext(connection) as read:
        html = client.get(with_bust("?sort=date", 1)).content.decode()
    assert MODEL not in html
    assert [" IN (" not in sql for sql in rows_read(read.captured_queries)] == [True]
    assert "1 boards' pages prepared, 0 already prepared" in prepare_boards(
        django_capture_on_commit_callbacks
    )
    a_new_worker()
    with CaptureQueriesContext(connection) as read:
        html = client.get(with_bust("?sort=date", 2)).content.decode()
    assert MODEL not in html and "LINe (ResNet50)" in html
    assert [" IN (" in sql for sql in rows_read(read.captured_queries)] == [True]
    # A browser that kept the file before the change is sent the new one.
    changed = client.get(csv, headers={"if-none-match": tag})
    assert changed.status_code == 200 and changed["ETag"] != tag
    assert MODEL.encode() not in b"".join(changed.streaming_content)
    assert "0 boards' pages prepared, 1 already prepared" in prepare_boards(
        django_capture_on_commit_callbacks
    )
    # One set of parts a board: the former versions' went.
    keys = PreparedPart.objects.filter(leaderboard=loaded).values_list("key", flat=True)
    assert len({re.sub(r":(order|file|page):.*", "", key) for key in keys}) == 1


def test_another_releases_parts_are_not_read(loaded, client, settings):
    settings.PAGE_CACHE_PREFIX = "sotasite:another-release"
    a_new_worker()
    with CaptureQueriesContext(connection) as read:
        assert client.get(with_bust("?sort=model", 1)).status_code == 200
    assert [" IN (" not in sql for sql in rows_read(read.captured_queries)] == [True]


def test_a_small_board_has_its_parts_stored_not_its_orders_or_files(load, page_cache):
    """A worker keeps a small board's rows once read, and its views sort those: only the
    parts a first visit needs, and its page, are stored."""
    ok, out, _ = load(SEED_FILE)
    assert ok and "1 boards' pages prepared" in out
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    keys = PreparedPart.objects.filter(leaderboard=board).values_list("key", flat=True)
    [page] = [key for key in keys if ":page:" in key]
    assert sorted(keys) == [board.prepared_key, page]


def test_a_crawlers_first_visit_after_a_load_reads_no_rows(load, page_cache, client, settings):
    """A board no one opened since the load, in a worker that has kept nothing: its page
    is its stored parts, one read, where it was every row, its values and its snapshot's."""
    ok, _, err = load(SEED_FILE)
    assert ok, err
    a_new_worker()
    with CaptureQueriesContext(connection) as read:
        response = client.get(LEADERBOARD)
    assert response.status_code == 200
    assert rows_read(read.captured_queries) == []
    assert len(read.captured_queries) == 2  # the versions, the stored parts
    assert response.content == built_from_rows(client, settings, LEADERBOARD).content


def test_an_unprepared_board_costs_no_look_for_parts(load, page_cache, client):
    """A board changed since it was prepared says so with its versions: its first visit
    builds it from the rows, without a query for parts that are not there."""
    ok, _, err = load(SEED_FILE)
    assert ok, err
    Leaderboard.objects.filter(slug=SEED_SLUG).update(prepared_key="")
    a_new_worker()
    with CaptureQueriesContext(connection) as read:
        assert client.get(LEADERBOARD).status_code == 200
    assert not [q for q in read.captured_queries if "preparedpart" in q["sql"].lower()]
    assert rows_read(read.captured_queries)


def test_a_load_stands_when_its_boards_cannot_be_prepared(load, large, monkeypatch):
    from leaderboards.web.views import preparing

    def full(slugs, on_made=None):
        raise DatabaseError("database or disk is full")

    monkeypatch.setattr(preparing, "prepare_boards", full)
    ok, out, err = load(SEED_FILE)
    assert ok, err
    assert "1 files: 1 created" in out
    assert "were not prepared (database or disk is full); `manage.py prepare_boards`" in err


@pytest.mark.parametrize("kind", ["json", "csv"])
# The page's own paging, chart and columns change neither file.
@pytest.mark.parametrize("query", ["?b=1", "?page=2&chart=x&metrics=1"])
def test_a_new_workers_files_are_the_stored_ones(loaded, client, settings, kind, query):
    """Made from its 100,000 rows, a board's .json took a worker to 340 MB (its .csv to
    266), and a worker past 300 MB is replaced: each cache-busting address cost a worker."""
    a_new_worker()
    url = reverse(f"leaderboards:leaderboard_{kind}", args=[SEED_SLUG]) + query
    with CaptureQueriesContext(connection) as read:
        response = client.get(url)
    assert rows_read(read.captured_queries) == []
    assert response.status_code == 200
    # Streamed as it is inflated: whole, two at once took a worker past 300 MB.
    assert response.streaming
    body = b"".join(response.streaming_content)
    expected = built_from_rows(client, settings, url)
    assert body == expected.content
    assert response["Content-Type"] == expected["Content-Type"]
    assert response.get("Content-Disposition") == expected.get("Content-Disposition")
    assert "public" in response["Cache-Control"]
    with CaptureQueriesContext(connection) as read:
        again = client.get(url, headers={"if-none-match": response["ETag"]})
    assert again.status_code == 304
    # A browser's kept copy costs no read of the file's megabytes.
    assert not [q["sql"] for q in read.captured_queries if '"content"' in q["sql"]]
    if kind == "json":
        assert body == SEED_FILE.read_bytes()
        return
    # A sorted or filtered .csv is made from the rows, as before.
    narrowed = url + "&sort=date&model=vit"
    with CaptureQueriesContext(connection) as read:
        response = client.get(narrowed)
    assert [" IN (" not in sql for sql in rows_read(read.captured_queries)] == [True]
    assert response.content == built_from_rows(client, settings, narrowed).content


def close(response):
    """What the server does with every response, as the test client does when it closes one:
    without closing the test's database connection, which the end of a request would."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


def test_a_stored_file_gives_its_slot_back_when_sent_or_not(loaded, client, settings):
    """Sent, its page slot is held (sixteen downloads starved the cached pages); given back
    once it is sent, dropped, or never read, or the worker would answer 503 for good."""
    from leaderboards.web import limiter

    settings.SOTASITE_PAGE_RENDERS_PER_PROCESS = 2
    url = reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])
    slots = limiter.page_limiter().per_process
    sent = client.get(url + "?b=1")
    # The download holds one of the two slots until it is sent.
    assert slots.acquire(blocking=False)
    assert not slots.acquire(blocking=False)
    slots.release()
    b"".join(sent.streaming_content)
    # Closed by the server whatever it sends, as WSGI has it (the test client does not).
    head = client.head(url + "?b=2")
    assert head.status_code == 200
    close(head)
    close(client.get(url + "?b=3"))  # dropped unread
    for _ in range(5):  # more than there are slots: each was given back
        response = client.get(url + "?b=4")
        assert response.status_code == 200
        close(response)
    assert slots.acquire(blocking=False) and slots.acquire(blocking=False)
    slots.release()
    slots.release()
