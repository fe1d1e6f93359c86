"""A model in the search (issue #30): one entry a model, however many boards it is on,
saying where it has results, and kept so by loads, editors' decisions and deletes."""

import copy
import re
from html import unescape

import pytest
from django.db import connection
from django.urls import reverse

from leaderboards import decisions, search
from leaderboards.ingest import writer
from leaderboards.models import Leaderboard, Row
from tests.helpers import SEED_SLUG, admin_url, board, html

SEARCH = reverse("leaderboards:search")
SUGGEST = reverse("leaderboards:search_suggest")
SEED_BOARD = "Out-of-Distribution Detection on ImageNet-1k vs SUN"
OTHER_BOARD = "Out-of-Distribution Detection on Board Set 1"
OTHER_SLUG = "out-of-distribution-detection-on-board-set-1"  # tests.helpers.board(…, 1)
# The seed's rows by their place in the file.
NPOS, DOE, MOOD = 11, 20, 21


def models_shown(client, query):
    """(name, link, what is said beside it) of each model the search page lists."""
    page = html(client, f"{SEARCH}?q={query}")
    if "<h2>Models" not in page:
        return []
    group = page[page.index("<h2>Models") :].split("</section>")[0]
    return [
        (unescape(name), unescape(href), unescape(said))
        for href, name, said in re.findall(
            r'<li><a href="([^"]*)">([^<]*)</a> <span class="muted small[^"]*">([^<]*)</span>',
            group,
        )
    ]


def model_page(name, board_slug=SEED_SLUG, place=None):
    rows = Row.objects.filter(model=name, leaderboard__slug=board_slug)
    row = rows.get() if place is None else rows.get(rank=place + 1)
    return reverse("leaderboards:model", args=[row.model_slug])


def renamed(page, place, model):
    page = copy.deepcopy(page)
    page["rows"][place]["model"] = model
    return page


def read_later(page):
    page["syntology"]["read_at"] = "2026-10-01T00:00:00+00:00"
    return page


@pytest.fixture
def scoped(monkeypatch):
    """The end of each load's search work, as called: a scope each time, not the whole site."""
    scopes = []
    refresh = writer.refresh_search

    def recorded(scope):
        scopes.append(scope)
        return refresh(scope)

    monkeypatch.setattr(writer, "refresh_search", recorded)
    return scopes


def test_a_model_on_three_boards_is_one_entry_saying_so(
    load, seed_page, write_page, client, django_assert_num_queries
):
    pages = [seed_page, board(seed_page, 1), board(seed_page, 2)]
    ok, _, err = load(*(write_page(page) for page in pages))
    assert ok, err
    assert models_shown(client, "NPOS") == [("NPOS", model_page("NPOS"), "3 leaderboards")]
    suggested = client.get(SUGGEST, {"q": "NPOS"}).json()["suggestions"]
    assert [(s["name"], s["url"], s["context"]) for s in suggested] == [
        ("NPOS", model_page("NPOS"), "3 leaderboards")
    ]
    # What the search page costs for any one word (tests/upkeep/test_search.py).
    with django_assert_num_queries(2 if connection.vendor == "postgresql" else 3):
        client.get(SEARCH, {"q": "NPOS"})


def test_two_papers_models_of_one_name_are_two_entries(load, seed_page, write_page, client):
    # The other board's NPOS is DOE's row renamed: the same name on another paper.
    other = renamed(board(seed_page, 1), DOE, "NPOS")
    ok, _, err = load(write_page(seed_page), write_page(other))
    assert ok, err
    seed_npos, other_npos = model_page("NPOS"), model_page("NPOS", OTHER_SLUG, place=DOE)
    assert seed_npos != other_npos
    # The model on more boards first.
    assert models_shown(client, "NPOS") == [
        ("NPOS", seed_npos, "2 leaderboards"),
        ("NPOS", other_npos, OTHER_BOARD),
    ]


def test_a_load_that_adds_a_board_to_a_model_says_so_and_a_name_left_goes(
    load, seed_page, write_page, client, scoped
):
    other = renamed(board(seed_page, 1), NPOS, "Zeta Net")
    ok, _, err = load(write_page(seed_page), write_page(other))
    assert ok, err
    assert models_shown(client, "NPOS") == [("NPOS", model_page("NPOS"), SEED_BOARD)]
    scoped.clear()
    ok, _, err = load(write_page(read_later(board(seed_page, 1))))
    assert ok, err
    assert scoped and scoped[-1] is not None  # the load's own scope, not the whole site
    assert models_shown(client, "NPOS") == [("NPOS", model_page("NPOS"), "2 leaderboards")]
    assert models_shown(client, "zeta") == []


def test_a_load_that_drops_a_models_rows_takes_its_entry_or_its_board_away(
    load, seed_page, write_page, client, scoped
):
    """A model the reloaded board no longer names: MOOD, renamed Zeta Net there, had
    its only row on it; DOE keeps the seed's."""
    other = renamed(board(seed_page, 1), MOOD, "Zeta Net")
    ok, _, err = load(write_page(seed_page), write_page(other))
    assert ok, err
    zeta = model_page("Zeta Net", OTHER_SLUG)
    assert models_shown(client, "zeta") == [("Zeta Net", zeta, OTHER_BOARD)]
    assert models_shown(client, "DOE") == [("DOE", model_page("DOE"), "2 leaderboards")]
    scoped.clear()
    ok, _, err = load(write_page(read_later(board(seed_page, 1, rows=DOE))))
    assert ok, err
    assert scoped and scoped[-1] is not None
    assert models_shown(client, "zeta") == []
    assert models_shown(client, "DOE") == [("DOE", model_page("DOE"), SEED_BOARD)]


def test_an_editors_withhold_and_restore_move_the_models_boards(
    load, seed_page, write_page, client, editor
):
    ok, _, err = load(write_page(seed_page), write_page(board(seed_page, 1)))
    assert ok, err
    seed = Leaderboard.objects.get(slug=SEED_SLUG)
    row = seed.rows.get(model="NPOS")
    ref = [decisions.row_ref(seed.pk, row.key, row.model)]
    decisions.withhold(ref, "Spam", editor)
    assert models_shown(client, "NPOS") == [("NPOS", model_page("NPOS"), OTHER_BOARD)]
    decisions.restore(ref, editor)
    assert models_shown(client, "NPOS") == [("NPOS", model_page("NPOS"), "2 leaderboards")]


def test_rows_deleted_in_the_admin_take_their_models_entry_or_board_away(
    load, seed_page, write_page, client, admin_client
):
    other = renamed(board(seed_page, 1), MOOD, "Zeta Net")
    ok, _, err = load(write_page(seed_page), write_page(other))
    assert ok, err
    for name in ("Zeta Net", "DOE"):
        row = Row.objects.get(model=name, leaderboard__slug=OTHER_SLUG)
        response = admin_client.post(admin_url(Row, "delete", row.pk), {"post": "yes"})
        assert response.status_code == 302
    assert models_shown(client, "zeta") == []
    assert models_shown(client, "DOE") == [("DOE", model_page("DOE"), SEED_BOARD)]
    search.refresh_index()
    assert models_shown(client, "DOE") == [("DOE", model_page("DOE"), SEED_BOARD)]
