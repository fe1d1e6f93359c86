"""A board's page from its prepared parts (leaderboards/web/prepared.py).

The parts are kept per board version in the page cache; a page made from them
must be the page made from the board's rows, byte for byte, and must follow
every change to the board or to what boards share.
"""

import pytest
from django.test import Client
from django.urls import reverse

from leaderboards.models import Leaderboard, Row, Task
from leaderboards.upkeep.cache import Versions
from leaderboards.web.prepared import RowsKept
from tests.helpers import NEW_MODEL, SEED_SLUG, add_in_admin, cached_entries, scaled_page, sign_in

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
def board(request, load, seed_page, write_page, editor):
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
        assert add_in_admin(editor_apart(editor), board).status_code == 302
    return board


@pytest.mark.parametrize(
    "board", ["as loaded", "folded and paged", "with an editor's addition"], indirect=True
)
def test_the_page_from_its_parts_is_the_page_from_its_rows(
    board, page_cache, client, settings, django_assert_num_queries
):
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
    kept_rows = RowsKept(max_rows=100)

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
