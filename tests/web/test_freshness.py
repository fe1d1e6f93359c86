"""How fresh a board is (issue #30): the best result's date, where the archive's rows
end, when its code was checked and how many newer papers wait, on the page, in the
API, and as /sota/'s filters and sorts."""

import datetime
import importlib
import io
import re
from html import unescape

import pytest
from django.core.management import call_command

from leaderboards.format.figures import papers_waiting
from leaderboards.models import Leaderboard, Row
from leaderboards.web import catalogue_filters
from leaderboards.web.catalogue_filters import years_before
from tests.helpers import PWC_DATA, SEED_SLUG, board, html, unranked, withhold_in_admin

OGB = PWC_DATA / "sota-extractor_ogb.json"
PRODUCTS = "node-property-prediction-on-ogbn-products"
LIST = "/sota/"
# The seed's best FPR95 (lower is better, as the archive's ranking settles) is
# CMA's 16.84 of 2025-03-24; the next, LINe's 19.48, of 2023-03-24.
SEED_BEST = datetime.date(2025, 3, 24)


def freshness_words(page):
    """The board page's "How fresh" panel as a reader reads it: text, one space apart."""
    found = re.search(r'<section class="panel" id="freshness".*?</section>', page, re.S)
    assert found, "the page has no freshness panel"
    return " ".join(unescape(re.sub(r"<[^>]+>", "", found.group(0))).split())


def at(monkeypatch, moment):
    """The day-relative filters' clock set to `moment` (UTC)."""
    monkeypatch.setattr(catalogue_filters, "now", lambda: moment)


def slugs(client, url, status=200):
    page = html(client, url, status)
    return re.findall(r'<td class="board-name"><a href="/sota/([^"]+)"', page)


@pytest.fixture
def ogb(db):
    call_command("import_pwc", str(OGB), "--snapshot=2025-07-28", stdout=io.StringIO())
    return Leaderboard.objects.get(slug=PRODUCTS)


@pytest.fixture
def unknown(load, seed_page, write_page):
    """A second board like the seed whose rows settle no direction: nothing is best."""
    page = unranked(board(seed_page, 1))
    ok, _, err = load(write_page(page))
    assert ok, err
    return Leaderboard.objects.get(slug=page["url"].removeprefix("/sota/"))


# The board's page ---------------------------------------------------------------


def test_a_verified_board_says_in_words_how_fresh_it_is(seeded, client):
    words = freshness_words(html(client, seeded.get_absolute_url()))
    assert "Best result published 24 Mar 2025 (best by FPR95)" in words
    assert "Archive rows end 28 Jul 2025" in words
    assert "Code last checked 25 Sep 2026, 09:33 UTC, by Syntology" in words
    # The seed's coverage counts the site's newer papers, not this board's.
    assert (
        "Newer papers waiting 2,737 newer papers on the site are not yet extracted, counted "
        "across the whole site (not this board alone) when Syntology read it on "
        "25 Sep 2026, 09:33 UTC"
    ) in words


def test_an_archive_board_says_its_code_was_not_checked_and_counts_no_waiting(ogb, client):
    words = freshness_words(html(client, ogb.get_absolute_url()))
    assert "Code last checked code not checked: no verification has read this board" in words
    assert "Newer papers waiting no count: code not checked" in words
    assert "not yet extracted" not in words


def test_a_board_of_unknown_direction_calls_nothing_best_and_gives_no_date(unknown, client):
    words = freshness_words(html(client, unknown.get_absolute_url()))
    assert (
        "Best result no result is called best: the direction of FPR95 is unknown, "
        "so no date is given"
    ) in words
    assert "published" not in words
    assert unknown.top_paper_date is None


def test_a_known_direction_with_no_number_says_why_nothing_is_best(
    load, seed_page, write_page, client
):
    seed_page["metric_direction"]["by_metric"]["FPR95"] = "lower"
    for row in seed_page["rows"]:
        row["metrics"]["FPR95"] = "—"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    words = freshness_words(html(client, f"/sota/{SEED_SLUG}"))
    assert "Best result no result has a number for FPR95, so none is called best" in words


def test_withholding_the_best_row_moves_the_date_on_the_next_request(seeded, editor_client, client):
    url = seeded.get_absolute_url()
    assert "published 24 Mar 2025" in freshness_words(html(client, url))
    response = withhold_in_admin(editor_client, Row.objects.get(model="CMA(ViT-B/16, NegLabel)"))
    assert response.status_code == 302
    words = freshness_words(html(client, url))
    assert "Best result published 24 Mar 2023 (best by FPR95)" in words
    assert Leaderboard.objects.get(pk=seeded.pk).top_paper_date == datetime.date(2023, 3, 24)


# The API -----------------------------------------------------------------------


def test_the_api_gives_the_freshness_of_an_archive_board(ogb, client):
    body = client.get(f"/api/v1/evaluations/{PRODUCTS}/").json()
    fresh = body["freshness"]
    assert fresh["code_checked_at"] is None
    assert fresh["papers_not_yet_extracted"] is None
    assert fresh["papers_not_yet_extracted_as_of"] is None
    assert fresh["rows_end_at"] == ogb.source["rows_end_at"]


def test_the_api_leaves_the_date_empty_where_nothing_is_best(unknown, client):
    listed = client.get("/api/v1/evaluations/").json()["results"]
    fresh = {table["id"]: table["freshness"] for table in listed}[unknown.slug]
    assert fresh["direction_known"] is False
    assert fresh["best_result_date"] is None
    assert fresh["best_result_metric"] is None
    # Still read by Syntology: what it counted is given with when.
    assert fresh["papers_not_yet_extracted"] == 2737


# /sota/'s filters and sorts -------------------------------------------------------

NOON = datetime.datetime(2026, 12, 7, 12, 0, tzinfo=datetime.UTC)


def test_best_older_than_counts_years_back_from_today_and_leaves_unknown_boards_out(
    seeded, unknown, ogb, client, monkeypatch
):
    at(monkeypatch, NOON)
    # 2025-03-24 is more than a year before 2026-12-07, not two.
    assert SEED_SLUG in slugs(client, LIST + "?best_older_than=1")
    assert SEED_SLUG not in slugs(client, LIST + "?best_older_than=2")
    # No best result: unknown, not old, however far back the filter reaches.
    assert unknown.slug not in slugs(client, LIST + "?best_older_than=0")
    at(monkeypatch, datetime.datetime(2027, 3, 25, tzinfo=datetime.UTC))
    assert SEED_SLUG in slugs(client, LIST + "?best_older_than=2")


def test_checked_within_keeps_boards_read_in_the_last_days(seeded, ogb, client, monkeypatch):
    # The seed was read on 2026-09-25 09:33 UTC, 73 days before 2026-12-07: whole
    # days count, so it is within the last 73 days all day long, not the last 72.
    at(monkeypatch, NOON)
    assert slugs(client, LIST + "?checked_within=73") == [SEED_SLUG]
    assert slugs(client, LIST + "?checked_within=72") == []
    at(monkeypatch, datetime.datetime(2026, 12, 7, 23, 59, tzinfo=datetime.UTC))
    assert slugs(client, LIST + "?checked_within=73") == [SEED_SLUG]
    # The archive's board was never checked: every other board, not this one.
    assert PRODUCTS not in slugs(client, LIST + "?checked_within=36500")


def test_the_freshness_sorts_put_unknown_and_unchecked_boards_last(seeded, unknown, ogb, client):
    oldest = slugs(client, LIST + "?sort=oldest_best")
    # ogbn-products' best (Test Accuracy) is of 2021-04-19; the seed's of 2025-03-24.
    assert oldest.index(PRODUCTS) < oldest.index(SEED_SLUG) < oldest.index(unknown.slug)
    assert oldest[-1] == unknown.slug
    checked = slugs(client, LIST + "?sort=checked")
    # Both seed boards read at the same moment: by slug; the archive's after them.
    assert checked[:2] == sorted([SEED_SLUG, unknown.slug])
    assert PRODUCTS in checked[2:]


def test_the_list_shows_each_boards_best_date_and_check(seeded, unknown, ogb, client):
    page = html(client, LIST)
    assert '<time datetime="2025-03-24">24 Mar 2025</time>' in page
    assert "no best" in page
    assert "not checked" in page


@pytest.mark.parametrize(
    "query",
    [
        "best_older_than=abc",
        "best_older_than=-1",
        "best_older_than=1.5",
        "best_older_than=101",
        "best_older_than=99999999999999999999",
        "checked_within=0",
        "checked_within=36501",
        "checked_within=%00",
        "sort=oldest",
    ],
)
def test_a_bad_freshness_value_is_a_400_not_a_500(seeded, client, query):
    assert client.get(f"{LIST}?{query}").status_code == 400


def test_an_empty_freshness_value_is_no_filter(seeded, unknown, client):
    assert len(slugs(client, LIST + "?best_older_than=&checked_within=")) == 2


def test_a_cached_day_relative_list_does_not_answer_for_another_day(
    seeded, client, monkeypatch, page_cache
):
    url = LIST + "?checked_within=73"
    at(monkeypatch, NOON)
    assert slugs(client, url) == [SEED_SLUG]
    assert client.get(url)["X-Page-Cache"] == "hit"
    at(monkeypatch, NOON + datetime.timedelta(days=1))
    response = client.get(url)
    assert response["X-Page-Cache"] == "miss"
    assert SEED_SLUG not in response.content.decode()


# The plain functions ----------------------------------------------------------------


def test_years_before_keeps_the_day_and_moves_a_leap_day():
    assert years_before(datetime.date(2026, 12, 7), 2) == datetime.date(2024, 12, 7)
    assert years_before(datetime.date(2024, 2, 29), 1) == datetime.date(2023, 2, 28)
    assert years_before(datetime.date(2024, 2, 29), 4) == datetime.date(2020, 2, 29)


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ({"coverage": {"papers_not_yet_extracted": 2737}}, 2737),
        ({"coverage": {"papers_not_yet_extracted": 0}}, 0),
        ({"coverage": {"papers_not_yet_extracted": True}}, None),
        ({"coverage": {"papers_not_yet_extracted": -3}}, None),
        ({"coverage": {"papers_not_yet_extracted": "12"}}, None),
        ({"coverage": None}, None),
        ({}, None),
        (None, None),
    ],
)
def test_papers_waiting_reads_only_a_count_the_snapshot_gives(block, expected):
    assert papers_waiting(block) == expected


# The migration that adds the figures ---------------------------------------------------

FIGURES = ("top_paper_date", "papers_waiting", "checked_at")


def test_the_migration_fills_boards_loaded_before_it_as_a_refresh_would(
    seeded, unknown, ogb, editor_client
):
    from django.apps import apps

    fill = importlib.import_module("leaderboards.migrations.0038_board_freshness").fill
    # The best row withheld: the fill must find the next best, as the refresh did.
    best = Row.objects.get(leaderboard=seeded, model="CMA(ViT-B/16, NegLabel)")
    assert withhold_in_admin(editor_client, best).status_code == 302
    kept = {board.slug: board for board in Leaderboard.objects.only("slug", *FIGURES)}
    assert kept[SEED_SLUG].top_paper_date == datetime.date(2023, 3, 24)
    Leaderboard.objects.update(**dict.fromkeys(FIGURES))
    fill(apps, None)
    for found in Leaderboard.objects.only("slug", *FIGURES):
        assert [getattr(found, name) for name in FIGURES] == [
            getattr(kept[found.slug], name) for name in FIGURES
        ], found.slug
