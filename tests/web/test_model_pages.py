"""A model across boards (issue #30): its page, the compare view, and their bad input."""

import copy
import importlib
import re

import pytest
from django.apps import apps
from django.urls import reverse

from leaderboards.format.rules import model_slug
from leaderboards.models import Leaderboard, Row
from tests.helpers import (
    CMA,
    CMA_PAPER,
    LINE,
    LINE_PAPER,
    SECOND_BOARD,
    SEED_FILE,
    SEED_SLUG,
    a_newer_seed,
    a_second_board_with_directions,
    board,
    html,
)


def slug_of(model, paper):
    return model_slug(model, paper)


def model_url(model, paper):
    return reverse("leaderboards:model", args=[slug_of(model, paper)])


def compare_url(*slugs):
    query = "&".join(f"m={slug}" for slug in slugs)
    return f"{reverse('leaderboards:model_compare')}?{query}"


@pytest.fixture
def two_boards(load, seed_page, write_page):
    ok, _, err = load(SEED_FILE, write_page(a_second_board_with_directions(seed_page)))
    assert ok, err
    return Leaderboard.objects.get(slug=SEED_SLUG), Leaderboard.objects.get(slug=SECOND_BOARD)


def test_loader_writes_each_row_its_model_slug(two_boards):
    cma = Row.objects.filter(model=CMA)
    assert {row.model_slug for row in cma} == {slug_of(CMA, CMA_PAPER)}
    assert cma.count() == 2


def visible(page):
    """The text a visitor reads, tags gone, spacing collapsed."""
    import html as htmllib

    return " ".join(htmllib.unescape(re.sub(r"<[^>]*>", " ", page)).split())


def board_section(page, name):
    start = page.index(f">{name}</a></h3>")
    return visible(page[start : page.index("</section>", start)])


CMA_SLUG = slug_of(CMA, CMA_PAPER)
LINE_SLUG = slug_of(LINE, LINE_PAPER)


# Identity -------------------------------------------------------------------


def test_the_loader_gives_a_models_rows_on_every_board_one_slug(two_boards):
    cma = Row.objects.filter(model=CMA)
    assert cma.count() == 2
    assert {row.model_slug for row in cma} == {CMA_SLUG}
    assert Row.objects.exclude(model=CMA).filter(model_slug=CMA_SLUG).count() == 0


def test_a_reload_of_a_re_ranked_file_keeps_every_models_slug(seeded, load, seed_page, write_page):
    before = dict(Row.objects.values_list("key", "model_slug"))
    ok, _, err = load(write_page(a_newer_seed(seed_page)))
    assert ok, err
    after = dict(Row.objects.values_list("key", "model_slug"))
    assert after == before
    moved = Row.objects.get(model=LINE)
    assert moved.rank == 1 and moved.model_slug == LINE_SLUG


def test_the_migration_fills_the_slugs_the_loader_writes(two_boards):
    written = dict(Row.objects.values_list("pk", "model_slug"))
    Row.objects.update(model_slug="")
    migration = importlib.import_module("leaderboards.migrations.0039_models")
    migration.fill_model_slugs(apps, None)
    assert dict(Row.objects.values_list("pk", "model_slug")) == written


# The model's page ---------------------------------------------------------------


def test_the_model_page_lists_each_board_with_rank_place_and_direction(two_boards, client):
    page = visible(html(client, model_url(CMA, CMA_PAPER)))
    assert f"{CMA} Paper Enhanced OoD Detection" in page
    assert "1–2 of 2 results" in page
    # The second board states both directions: a place by each metric.
    assert (
        "Out-of-Distribution Detection on Board Set 1 1 AUROC 96.36 (place 2 by it, higher is"
        " better) FPR95 16.84 (place 1 by it, lower is better)"
    ) in page
    # The seed states none: FPR95's is inferred from the archive's order, AUROC's unknown.
    assert (
        "Out-of-Distribution Detection on ImageNet-1k vs SUN 1 AUROC 96.36 (direction unknown)"
        " FPR95 16.84 (place 1 by it, lower is better, inferred from the archive's ranking)"
    ) in page


def test_the_model_page_says_what_counts_as_the_same_model(two_boards, client):
    page = visible(html(client, model_url(CMA, CMA_PAPER)))
    assert "whatever its case or spacing" in page
    assert "Results editors added to boards are not counted" in page


def test_a_withheld_row_is_shown_nowhere(two_boards, client):
    Row.objects.filter(model=CMA, leaderboard__slug=SECOND_BOARD).update(
        withheld=True, withheld_reason="Spam."
    )
    page = visible(html(client, model_url(CMA, CMA_PAPER)))
    assert "1–1 of 1 results" in page and "Board Set 1" not in page
    Row.objects.filter(model=CMA).update(withheld=True, withheld_reason="Spam.")
    html(client, model_url(CMA, CMA_PAPER), status=404)


@pytest.mark.parametrize(
    "slug", ["nothing-0123456789ab", "compare-x", "CMA-0123456789AB", "a" * 200 + "-0123456789ab"]
)
def test_an_unknown_or_malformed_model_is_404(two_boards, client, slug):
    html(client, reverse("leaderboards:model", args=[slug]), status=404)


def test_board_rows_and_paper_results_link_their_models_page(two_boards, client):
    href = f'href="{model_url(CMA, CMA_PAPER)}"'
    assert href in html(client, reverse("leaderboards:leaderboard", args=[SECOND_BOARD]))
    assert href in html(client, reverse("leaderboards:paper", args=[CMA_PAPER.split("/")[-1]]))


def test_the_model_page_reads_a_fixed_number_of_queries_however_many_results(
    load, seed_page, write_page, client, django_assert_num_queries
):
    ok, _, err = load(write_page(a_second_board_with_directions(seed_page)), SEED_FILE)
    assert ok, err
    with django_assert_num_queries(5) as few:
        html(client, model_url(CMA, CMA_PAPER))
    more = [write_page(board(copy.deepcopy(seed_page), index)) for index in range(2, 6)]
    ok, _, err = load(*more)
    assert ok, err
    assert Row.objects.filter(model_slug=CMA_SLUG).count() == 6
    with django_assert_num_queries(len(few.captured_queries)):
        assert "1–6 of 6 results" in visible(html(client, model_url(CMA, CMA_PAPER)))


def test_a_large_boards_places_come_from_its_kept_numbers_not_its_rows(
    two_boards, client, monkeypatch, django_assert_num_queries
):
    from leaderboards.api import ranking

    url = model_url(CMA, CMA_PAPER)
    with django_assert_num_queries(5):
        small = visible(html(client, url))
    # Both boards count as large now: the first view reads and keeps each ranked
    # metric's numbers, sorted; the next reads none of them.
    monkeypatch.setattr(ranking, "KEPT_FROM_ROWS", 3)
    ranking.numbers_kept.clear()
    html(client, url)
    with django_assert_num_queries(5):
        assert visible(html(client, url)) == small
    assert "AUROC 96.36 (place 2 by it, higher is better)" in small


# Compare ------------------------------------------------------------------------


def test_compare_shows_who_is_ahead_and_by_how_much_where_the_direction_is_known(
    two_boards, client
):
    page = html(client, compare_url(CMA_SLUG, LINE_SLUG))
    stated = board_section(page, "Out-of-Distribution Detection on Board Set 1")
    assert f"Rank in the archive's order 1 2 {CMA} in the archive's order" in stated
    assert f"FPR95 (lower is better) 16.84 ahead 18.5 behind by 1.66 {CMA}" in stated
    assert f"AUROC (higher is better) 96.36 behind by 0.65 97.01 ahead {LINE}" in stated


def test_compare_claims_no_one_ahead_where_the_direction_is_unknown(two_boards, client):
    page = html(client, compare_url(CMA_SLUG, LINE_SLUG))
    seed = board_section(page, "Out-of-Distribution Detection on ImageNet-1k vs SUN")
    assert "AUROC (direction unknown) 96.36 95.26 no one: the direction is unknown" in seed
    assert "FPR95 (lower is better, inferred from the archive's ranking) 16.84 ahead" in seed


def test_compare_lists_only_boards_two_of_them_share(two_boards, client):
    third = slug_of("NNGuide (RegNet)", "/paper/nearest-neighbor-guidance-for-out-of-1")
    # NNGuide is on the seed only (the second board keeps five rows, its third among them).
    Row.objects.filter(model_slug=third, leaderboard__slug=SECOND_BOARD).delete()
    page = visible(html(client, compare_url(CMA_SLUG, LINE_SLUG, third)))
    assert "1–2 of 2 boards" in page
    assert "not on this board" in page


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ([CMA_SLUG], "Give 2 to 4 models"),
        ([], "Give 2 to 4 models"),
        ([CMA_SLUG] + [f"x-{n:012d}" for n in range(4)], "Give 2 to 4 models"),
        ([CMA_SLUG, CMA_SLUG], "given twice"),
        ([CMA_SLUG, "<script>"], "Not a model&#x27;s address: &lt;script&gt;"),
    ],
)
def test_compare_refuses_a_bad_list_with_400(two_boards, client, query, says):
    assert says in html(client, compare_url(*query), status=400)


def test_compare_of_an_unknown_model_is_404(two_boards, client):
    html(client, compare_url(CMA_SLUG, "nothing-0123456789ab"), status=404)


def test_compare_reads_a_fixed_number_of_queries_however_many_boards(
    load, seed_page, write_page, client, django_assert_num_queries
):
    ok, _, err = load(write_page(a_second_board_with_directions(seed_page)), SEED_FILE)
    assert ok, err
    with django_assert_num_queries(2) as few:
        html(client, compare_url(CMA_SLUG, LINE_SLUG))
    more = [write_page(board(copy.deepcopy(seed_page), index)) for index in range(2, 6)]
    ok, _, err = load(*more)
    assert ok, err
    with django_assert_num_queries(len(few.captured_queries)):
        assert "1–6 of 6 boards" in visible(html(client, compare_url(CMA_SLUG, LINE_SLUG)))


def test_the_bench_measures_the_busiest_models_page_and_compare(two_boards, client):
    from bench.lists import model_pages

    urls = model_pages()
    assert urls[0].startswith("/model/") and urls[1].startswith("/model/compare?m=")
    for url in urls:
        html(client, url)
