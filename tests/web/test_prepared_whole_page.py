"""A board's page with no query string, stored whole at load time (issue #29, cold pages).

A crawler's first visit to a board since the load is one read of that page and
the scheme and host it asked filled in, where rendering the page around its
prepared parts cost a worker half its time. It must be the page the view
renders for the same request, byte for byte, and no other request may get it.
"""

import io
import zlib

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from leaderboards.models import Leaderboard, PreparedPart, Row, Task
from leaderboards.web.page_cache import PAGE_CACHE
from leaderboards.web.prepared import (
    ASKED_HOST,
    ASKED_ORIGIN,
    ASKED_SCHEME,
    orders_kept,
    rows_kept,
)
from tests.helpers import SEED_FILE, SEED_SLUG, add_in_admin, scaled_page, sign_in

LEADERBOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
# Two of the tests' ALLOWED_HOSTS, one with a port, each asked over http and https.
ASKED = [(host, secure) for host in ("localhost", "127.0.0.1:8000") for secure in (False, True)]
ODD = "Détection <b>&amp;</b> \"quoted\" 'single' ‹›"


def a_new_worker():
    """What a worker started after the load has kept: nothing."""
    caches[PAGE_CACHE].clear()
    rows_kept.clear()
    orders_kept.clear()


def prepare_boards(capture):
    with capture(execute=True):
        call_command("prepare_boards", stdout=io.StringIO())


def page_parts(board):
    return PreparedPart.objects.filter(leaderboard=board, key__contains=":page:")


def odd_names(page):
    """The seed with markup, quotes and letters beyond ASCII in every name the page shows."""
    page["task"]["name"] = f"Task {ODD}"
    page["dataset"]["name"] = f"Dataset {ODD}"
    page["description"] = f"Description {ODD} <script>alert(1)</script>"
    for index, row in enumerate(page["rows"][:5]):
        row["model"] = f"Model {index} {ODD}"
        row["paper_title"] = f"Paper {index} {ODD}"
    return page


@pytest.fixture
def board(request, load, seed_page, write_page, editor, monkeypatch, settings, capture):
    page = seed_page
    if request.param == "large, folded and paged":
        # 250 rows (three pages), two metrics few rows have, and past what a worker keeps.
        monkeypatch.setattr(rows_kept, "max_size", 10)
        page = scaled_page(page, 250)
        page["metrics"] += ["Params", "GFLOPs"]
        page["metric_direction"]["by_metric"].update(Params=None, GFLOPs=None)
        for index, row in enumerate(page["rows"][:20]):
            row["metrics"]["Params"] = f"{index + 1}M"
    if request.param == "odd names":
        page = odd_names(page)
    ok, _, err = load(write_page(page))
    assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    if request.param == "with an editor's addition":
        with capture(execute=True):
            assert add_in_admin(sign_in(Client(), editor), board).status_code == 302
        prepare_boards(capture)  # as the docs ask after editors' changes
    assert page_parts(board).exists()
    return board


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    return django_capture_on_commit_callbacks


def ask(client, host, secure, **extra):
    a_new_worker()
    return client.get(LEADERBOARD, HTTP_HOST=host, secure=secure, **extra)


@pytest.mark.parametrize(
    "board",
    ["as loaded", "large, folded and paged", "with an editor's addition", "odd names"],
    indirect=True,
)
def test_the_stored_page_is_the_page_the_view_renders(
    board, page_cache, client, settings, django_assert_num_queries
):
    stored = {}
    for host, secure in ASKED:
        with django_assert_num_queries(2) as read:  # the versions, the stored page
            stored[host, secure] = ask(client, host, secure)
        assert ":page:" in read.captured_queries[-1]["sql"]
    page_parts(board).delete()  # the page as the view renders it, from the stored parts
    for host, secure in ASKED:
        response = stored[host, secure]
        rendered = ask(client, host, secure)
        assert response.status_code == rendered.status_code == 200
        assert response.content == rendered.content
        # The page cache kept each alike: its ETag, Last-Modified, Cache-Control.
        assert dict(response.headers) == dict(rendered.headers)
        scheme = "https" if secure else "http"
        assert f'<link rel="canonical" href="{scheme}://{host}{LEADERBOARD}">' in (
            response.content.decode()
        )
        assert f"]({scheme}://{host}{LEADERBOARD})" in response.content.decode()
        # And the page built from the board's rows, nothing kept.
        settings.SOTASITE_PAGE_CACHE = False
        try:
            built = client.get(LEADERBOARD, HTTP_HOST=host, secure=secure)
        finally:
            settings.SOTASITE_PAGE_CACHE = True
        assert response.content == built.content


def test_the_stored_page_is_kept_by_the_page_cache_as_before(
    seeded, page_cache, client, django_assert_num_queries
):
    first = ask(client, "localhost", False)
    assert first.headers["X-Page-Cache"] == "miss"
    with django_assert_num_queries(1):  # the versions
        again = client.get(LEADERBOARD, HTTP_HOST="localhost")
    assert again.headers["X-Page-Cache"] == "hit"
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert "public" in again["Cache-Control"]
    kept = client.get(LEADERBOARD, HTTP_HOST="localhost", headers={"if-none-match": first["ETag"]})
    assert kept.status_code == 304


# Marked, the stored page tells itself apart from any page the view renders.
MARK = b"<p>the stored page</p>"


@pytest.fixture
def marked(seeded):
    page_parts(seeded).update(content=zlib.compress(MARK))
    return seeded


def test_a_visitor_asking_the_plain_address_gets_the_stored_page(marked, page_cache, client):
    assert ask(client, "localhost", False).content == MARK


@pytest.mark.parametrize("query", ["?b=1", "?utm_source=feed", "?&", "?sort=rank", "?page=1"])
def test_a_query_string_never_gets_the_stored_page(marked, page_cache, client, query):
    a_new_worker()
    response = client.get(LEADERBOARD + query)
    assert response.status_code == 200 and MARK not in response.content


def test_an_editor_never_gets_the_stored_page(marked, page_cache, editor):
    a_new_worker()
    response = sign_in(Client(), editor).get(LEADERBOARD)
    assert response.status_code == 200 and MARK not in response.content
    assert b'class="edit-link"' in response.content


def test_a_session_cookie_never_gets_the_stored_page(marked, page_cache, settings):
    """The page reads the session of a cookie that names one: its Vary and caching follow."""
    visitor = Client()
    visitor.cookies[settings.SESSION_COOKIE_NAME] = "made-up"
    a_new_worker()
    response = visitor.get(LEADERBOARD)
    assert response.status_code == 200 and MARK not in response.content


def withhold_a_row(board, capture):
    row = Row.objects.filter(leaderboard=board).first()
    row.withheld, row.withheld_reason = True, "spam"
    with capture(execute=True):
        row.save()


def rename_the_task(board, capture):
    task = Task.objects.get(pk=board.task_id)
    task.name = "Renamed"
    with capture(execute=True):
        task.save()


def another_release(board, capture, settings):
    settings.PAGE_CACHE_PREFIX = "sotasite:another-release"


def another_frame(board, capture, settings):
    settings.STATIC_URL = "/assets/"


@pytest.mark.parametrize(
    "change",
    [withhold_a_row, rename_the_task, another_release, another_frame],
    ids=lambda change: change.__name__,
)
def test_a_page_stored_before_a_change_is_never_served(
    marked, page_cache, client, settings, capture, change
):
    if change in (another_release, another_frame):
        change(marked, capture, settings)
    else:
        change(marked, capture)
    response = ask(client, "localhost", False)
    assert response.status_code == 200 and MARK not in response.content


@pytest.mark.parametrize("held", [ASKED_HOST, ASKED_SCHEME, ASKED_ORIGIN])
def test_a_board_holding_a_placeholder_has_no_stored_page(
    held, load, seed_page, write_page, page_cache, client
):
    seed_page["rows"][0]["model"] = f"Model on {held}"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    assert PreparedPart.objects.filter(leaderboard=board).exists()
    assert not page_parts(board).exists()
    html = ask(client, "localhost", True).content.decode()
    assert f"Model on {held}" in html
    assert f'<link rel="canonical" href="https://localhost{LEADERBOARD}">' in html


def test_a_page_naming_the_host_elsewhere_is_not_stored(load, monkeypatch):
    """Were a template to show the host other than after the scheme, filling in the
    origin would leave it: such a page is not stored."""
    from leaderboards.web.views import preparing

    whole_page = preparing.whole_page
    monkeypatch.setattr(
        preparing, "whole_page", lambda prepared: whole_page(prepared) + ASKED_HOST.encode()
    )
    ok, _, err = load(SEED_FILE)
    assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    assert board.prepared_key and not page_parts(board).exists()
