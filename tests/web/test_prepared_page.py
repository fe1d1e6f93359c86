"""A board's page from its prepared parts (leaderboards/web/prepared.py).

The parts are kept per board version in the page cache; a page made from them
must be the page made from the board's rows, byte for byte, and must follow
every change to the board or to what boards share.
"""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboards.models import Leaderboard, Row, Task
from leaderboards.upkeep.cache import Versions
from leaderboards.web.prepared import RowsKept
from leaderboards.web.table import FIXED_COLUMNS
from tests.helpers import (
    NEW_MODEL,
    SEED_SLUG,
    add_in_admin,
    cached_entries,
    models_in_order,
    scaled_page,
    sign_in,
)

LEADERBOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
MODEL = "CMA(ViT-B/16, NegLabel)"

# Query strings that ask for no view of the board (answered from the parts
# alone) and some that do (a table built from the rows around the parts).
NO_VIEW = ["", "?utm_source=feed", "?b=1&b=2&x=%3Cscript%3E"]
VIEWS = [
    "?sort=date&order=asc&utm_source=feed",
    "?page=2&b=1",
    "?chart=AUROC&b=1",
    "?chart=FPR95",
    "?metrics=all&b=1",
    "?model=vit&b=1",
    "?has_code=true&sort=AUROC",
]


def editor_apart(editor):
    """An editor's own browser: a visitor's `client` stays signed out, so its pages are cached."""
    return sign_in(Client(), editor)


def built_from_rows(client, settings, url):
    """The page as the view builds it from the rows, nothing kept."""
    settings.SOTASITE_PAGE_CACHE = False
    try:
        return client.get(url)
    finally:
        settings.SOTASITE_PAGE_CACHE = True


@pytest.fixture
def board(request, load, seed_page, write_page, editor, django_capture_on_commit_callbacks):
    """The seed as loaded, or changed to show what the parts must carry."""
    if request.param == "folded and paged":
        # 250 rows (three pages) and two metrics few rows have (folded columns).
        seed_page = scaled_page(seed_page, 250)
        seed_page["metrics"] += ["Params", "GFLOPs"]
        seed_page["metric_direction"]["by_metric"].update(Params=None, GFLOPs=None)
        for index, row in enumerate(seed_page["rows"][:20]):
            row["metrics"]["Params"] = f"{index + 1}M"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    if request.param == "with an editor's addition":
        # Committed, as the admin's is: its versions raised, the parts stored at load are stale.
        with django_capture_on_commit_callbacks(execute=True):
            assert add_in_admin(editor_apart(editor), board).status_code == 302
    return board


@pytest.mark.parametrize(
    "board", ["as loaded", "folded and paged", "with an editor's addition"], indirect=True
)
def test_the_page_from_its_parts_is_the_page_from_its_rows(
    board, page_cache, client, settings, django_assert_num_queries
):
    # The parts a worker makes, not the page stored at load (test_prepared_whole_page.py).
    Leaderboard.objects.filter(pk=board.pk).update(prepared_key="")
    client.get(LEADERBOARD + "?first=visit")  # builds and keeps the parts
    for query in NO_VIEW:
        with django_assert_num_queries(1):  # the versions the page is cached under
            quick = client.get(LEADERBOARD + query)
        assert quick.status_code == 200
        assert quick.content == built_from_rows(client, settings, LEADERBOARD + query).content
    for query in VIEWS:
        response = client.get(LEADERBOARD + query)
        assert response.status_code == 200
        assert response.content == built_from_rows(client, settings, LEADERBOARD + query).content


def test_a_query_string_that_asks_for_no_view_still_reaches_the_links(seeded, page_cache, client):
    client.get(LEADERBOARD)
    html = client.get(LEADERBOARD + "?utm_source=feed").content.decode()
    assert 'href="?utm_source=feed&amp;sort=date&amp;order=asc#results"' in html
    assert 'href="?utm_source=feed&amp;chart=AUROC#chart"' in html


def test_an_editors_change_to_the_board_reaches_a_page_from_its_parts(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    assert MODEL in client.get(LEADERBOARD + "?b=1").content.decode()
    row = Row.objects.get(leaderboard=seeded, model=MODEL)
    row.withheld, row.withheld_reason = True, "spam"
    with django_capture_on_commit_callbacks(execute=True):
        row.save()
    html = client.get(LEADERBOARD + "?b=2").content.decode()
    assert MODEL not in html
    assert "21 results" in html.replace("</strong> result", " result").replace("<strong>", "")


def test_an_addition_reaches_a_page_from_its_parts(
    seeded, page_cache, client, editor, django_capture_on_commit_callbacks
):
    assert NEW_MODEL not in client.get(LEADERBOARD + "?b=1").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert add_in_admin(editor_apart(editor), seeded).status_code == 302
    assert NEW_MODEL in client.get(LEADERBOARD + "?b=2").content.decode()


def test_a_change_to_what_boards_share_reaches_a_page_from_its_parts(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    client.get(LEADERBOARD + "?b=1")
    task = Task.objects.get(pk=seeded.task_id)
    task.name = "Out-of-Distribution Detection, renamed"
    with django_capture_on_commit_callbacks(execute=True):
        task.save()
    html = client.get(LEADERBOARD + "?b=2").content.decode()
    assert "<title>Out-of-Distribution Detection, renamed on" in html


def test_the_badge_snippet_names_the_host_each_visitor_asked(seeded, page_cache, client):
    client.get(LEADERBOARD, HTTP_HOST="127.0.0.1")
    html = client.get(LEADERBOARD + "?b=1", HTTP_HOST="localhost").content.decode()
    assert f"(http://localhost{LEADERBOARD}/badge.svg)" in html
    assert "127.0.0.1" not in html


def test_a_one_off_query_string_is_made_again_not_kept_whole_and_still_revalidates(
    seeded, page_cache, client
):
    assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "miss"
    first = client.get(LEADERBOARD + "?utm_source=feed")
    again = client.get(LEADERBOARD + "?utm_source=feed")
    assert first.headers["X-Page-Cache"] == again.headers["X-Page-Cache"] == "remade"
    assert len(cached_entries()) == 1  # the board's own address only
    assert "public" in again.headers["Cache-Control"]
    repeat = client.get(
        LEADERBOARD + "?utm_source=feed", headers={"if-none-match": first.headers["ETag"]}
    )
    assert repeat.status_code == 304


def test_an_editors_change_reaches_a_view_built_from_kept_rows(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    client.get(LEADERBOARD)
    assert MODEL in client.get(LEADERBOARD + "?sort=date&b=1").content.decode()
    row = Row.objects.get(leaderboard=seeded, model=MODEL)
    row.withheld, row.withheld_reason = True, "spam"
    with django_capture_on_commit_callbacks(execute=True):
        row.save()
    # The first view after the change builds the parts again; the next ones use kept rows.
    for bust in range(2, 5):
        assert MODEL not in client.get(LEADERBOARD + f"?sort=date&b={bust}").content.decode()


def test_a_second_view_of_a_board_reads_none_of_its_rows(
    seeded, page_cache, client, settings, django_assert_num_queries
):
    client.get(LEADERBOARD)
    client.get(LEADERBOARD + "?sort=date")
    url = LEADERBOARD + "?sort=model&order=desc"
    # The versions the page is cached under; not the board, its rows or its values.
    with django_assert_num_queries(1):
        response = client.get(url)
    assert response.status_code == 200
    assert response.content == built_from_rows(client, settings, url).content


def test_kept_rows_are_bounded_by_rows_and_the_oldest_go_first(settings):
    settings.SOTASITE_PAGE_CACHE = True
    kept_rows = RowsKept(max_size=100)

    def found(board):
        return Versions(data=1, catalogue=1, changed_at=None, board=7, board_id=board)

    kept_rows.put(found(1), "first", 60)
    kept_rows.put(found(2), "second", 30)
    assert kept_rows.get(found(1)) == "first"  # now the newest used
    kept_rows.put(found(3), "third", 40)  # 130 rows: the least recently used goes
    assert kept_rows.get(found(2)) is None
    assert kept_rows.get(found(1)) == "first" and kept_rows.get(found(3)) == "third"
    kept_rows.put(found(4), "too big", 101)
    assert kept_rows.get(found(4)) is None
    assert kept_rows.get(found(1)) == "first"  # and it pushed nothing out


# Every column and metric in both orders, pages past the first and past the last,
# folded columns opened, and what the page ignores.
ORDERED_VIEWS = [
    *(
        f"?sort={key}&order={order}&page={page}"
        for key in [*FIXED_COLUMNS, "FPR95", "AUROC", "Params"]
        for order in ("asc", "desc")
        for page in (1, 3)
    ),
    "?page=2",
    "?sort=date",
    "?chart=FPR95&page=3",
    "?metrics=all&sort=Params&page=9",
    "?sort=nonsense&page=x",
]


@pytest.fixture
def too_large_to_keep(monkeypatch):
    """Boards over 10 rows are not kept in a process, as 100,000-row ones are not."""
    from leaderboards.web.prepared import rows_kept

    monkeypatch.setattr(rows_kept, "max_size", 10)


def rows_read(queries):
    """The row queries among `queries` (those joining the papers), as SQL."""
    return [query["sql"] for query in queries if "r.paper_id" in query["sql"]]


@pytest.mark.parametrize("board", ["folded and paged", "with an editor's addition"], indirect=True)
def test_a_large_boards_view_reads_one_page_along_its_kept_order(
    board, page_cache, too_large_to_keep, client, settings
):
    client.get(LEADERBOARD)  # the prepared parts
    for view in ORDERED_VIEWS:
        first = client.get(LEADERBOARD + view + "&b=1")  # reads every row, keeps the order
        with CaptureQueriesContext(connection) as again:
            response = client.get(LEADERBOARD + view + "&b=2")
        # Read now: the connection's log is a bounded deque, and later queries shift it.
        # One page of rows, by id: the versions, the board, its metrics and areas, the
        # page's rows, their values, the snapshot, its verifications, the additions.
        assert len(again) <= 9, view
        assert [" IN (" in sql for sql in rows_read(again.captured_queries)] == [True], view
        assert response.status_code == first.status_code == 200
        assert (
            response.content
            == built_from_rows(client, settings, LEADERBOARD + view + "&b=2").content
        )


# Views that narrow the rows or chart another metric: each filter, with sorts, pages and
# charts; filters no row passes; dates; a tag; and filters the page refuses (a 400).
NARROWED_VIEWS = [
    "?model=vit&sort=date&order=desc",
    "?model=resnet&page=2",
    "?model=NewOOD&chart=AUROC",
    "?model=nothing-matches-this",
    "?has_code=true&sort=AUROC",
    "?has_code=false&chart=FPR95&page=2",
    "?extra_data=true",
    "?extra_data=false&sort=model",
    "?ran=true",
    "?ran=false&sort=rank&order=desc",
    "?date_from=2023-01-01&date_to=2024-12-31&sort=date",
    "?date_from=2025-11-01",
    "?tag=JFT-3B",
    "?chart=AUROC",
    "?chart=AUROC&sort=AUROC&order=asc&page=3",
    "?chart=Params&metrics=all",
    "?date_from=yesterday",
    "?extra_data=maybe&sort=date",
]


@pytest.mark.parametrize(
    "board", ["as loaded", "folded and paged", "with an editor's addition"], indirect=True
)
def test_a_view_that_narrows_a_large_board_reads_one_page_too(
    board, page_cache, too_large_to_keep, client, settings
):
    """The filters are queries, and a chart needs a metric's values and its rows' dates:
    no view of a large board reads every row once its orders are kept."""
    client.get(LEADERBOARD)
    client.get(LEADERBOARD + "?sort=date&b=0")  # the orders kept
    for view in NARROWED_VIEWS:
        url = LEADERBOARD + view + "&b=1"
        with CaptureQueriesContext(connection) as read:
            response = client.get(url)
        # Read now: the connection's log is a bounded deque, and later queries shift it.
        by_id = [" IN (" in sql or "1 = 0" in sql for sql in rows_read(read.captured_queries)]
        # A page's rows by id, and the added results' (none for a filter the page
        # refuses); never every row.
        assert all(by_id) and bool(by_id) == (response.status_code == 200), view
        # At most two reads of a page: the added results (and snapshot), then the page.
        assert len(read) <= 20, view
        expected = built_from_rows(client, settings, url)
        assert response.status_code == expected.status_code, view
        assert response.content == expected.content, view


def test_what_a_narrowed_large_board_shows(seeded, page_cache, too_large_to_keep, client):
    client.get(LEADERBOARD)
    client.get(LEADERBOARD + "?sort=date&b=0")
    html = client.get(LEADERBOARD + "?sort=date&model=resnet&b=1").content.decode()
    shown = models_in_order(html)
    assert "LINe (ResNet50)" in shown and "CMA(ViT-B/16, NegLabel)" not in shown
    assert all("resnet" in model.casefold() for model in shown)
    assert client.get(LEADERBOARD + "?date_from=yesterday&b=2").status_code == 400


def test_an_editors_change_reaches_a_large_boards_kept_order(
    seeded, page_cache, too_large_to_keep, client, django_capture_on_commit_callbacks
):
    client.get(LEADERBOARD)
    client.get(LEADERBOARD + "?sort=date&b=1")
    assert MODEL in client.get(LEADERBOARD + "?sort=date&b=2").content.decode()
    row = Row.objects.get(leaderboard=seeded, model=MODEL)
    row.withheld, row.withheld_reason = True, "spam"
    with django_capture_on_commit_callbacks(execute=True):
        row.save()
    for bust in range(3, 6):
        html = client.get(LEADERBOARD + f"?sort=date&b={bust}").content.decode()
        assert MODEL not in html
        assert models_in_order(html)[0] != MODEL


def test_another_worker_reads_a_large_boards_order_from_the_shared_cache(
    seeded, page_cache, too_large_to_keep, client, settings
):
    from leaderboards.web.prepared import _shared, orders_kept

    if not _shared():
        pytest.skip("a process's own page cache is shared with no other worker")
    client.get(LEADERBOARD)
    client.get(LEADERBOARD + "?sort=AUROC&b=1")
    orders_kept.clear()  # as in another worker, which shares only the page cache
    url = LEADERBOARD + "?sort=AUROC&b=2"
    with CaptureQueriesContext(connection) as again:
        response = client.get(url)
    assert [" IN (" in sql for sql in rows_read(again.captured_queries)] == [True]
    # Made again cheaply, not kept whole: one-off addresses would push out the parts.
    assert response.headers["X-Page-Cache"] == "remade"
    assert response.content == built_from_rows(client, settings, url).content
