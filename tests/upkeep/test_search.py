"""The one search: same answers from PostgreSQL full text and SQLite FTS5.

The suite runs once on each database (make test-sqlite, make test-postgres),
so every test here checks the backend of the database in use.
"""

import re
from html import unescape

import pytest
from django.db import connection
from django.db.models.expressions import RawSQL
from django.urls import reverse

from leaderboards import search
from leaderboards.models import SearchEntry
from leaderboards.search import index
from leaderboards.search import query as search_query
from leaderboards.search.terms import terms
from tests.helpers import SEED_SLUG, board, models_in_order, scaled_page

SEARCH = reverse("leaderboards:search")


def names(found, kind):
    return [entry.name for entry in found.get(kind, (0, []))[1]]


def test_the_database_in_use_has_its_full_text_index(seeded):
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'search_entry_name_vector_idx'"
            )
            assert "gin" in cursor.fetchone()[0].lower()
        else:
            cursor.execute(f"SELECT count(*) FROM {index.FTS_TABLE}")
            assert cursor.fetchone()[0] == SearchEntry.objects.count() > 0


def test_the_search_goes_through_that_index(seeded):
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Too few rows for the planner to prefer the index on its own: a
            # scan of the whole table, or of its key's index, is ruled out.
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute("SET LOCAL enable_hashjoin = off")
        plan = search_query._matching(["out", "distribution"]).explain()
    expected = "search_entry_name_vector_idx" if connection.vendor == "postgresql" else "VIRTUAL"
    assert expected in plan


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_short_words_read_whole_find_what_prefixes_find(seeded):
    """PostgreSQL looks up a word of one or two letters whole, among each word's
    first letters (migration 0014): the same entries as reading it as a prefix."""
    plain = (
        f"SELECT id FROM {SearchEntry._meta.db_table} "
        "WHERE to_tsvector('simple', name) @@ to_tsquery('simple', %s)"
    )
    for query in ["o", "ou", "o d", "b 16", "vi b", "n", "ne", "im c", "e", "1k", "x"]:
        words = terms(query)
        assert any(len(word) <= index.INITIALS for word in words), query
        prefixes = " & ".join(f"{word}:*" for word in words)
        expected = SearchEntry.objects.filter(pk__in=RawSQL(plain, [prefixes]))
        assert set(search_query._matching(words)) == set(expected), query


def test_one_search_finds_task_dataset_board_papers_and_models(seeded):
    found = search.search("out-of-distribution")
    assert list(found) == ["task", "leaderboard", "paper"]
    assert names(found, "task") == ["Out-of-Distribution Detection"]
    assert names(found, "leaderboard") == ["Out-of-Distribution Detection on ImageNet-1k vs SUN"]
    total, papers = found["paper"]
    # Every title with words starting "out", "of" and "distribution"; 10 shown.
    assert total == 16 and len(papers) == search_query.DEFAULT_PER_KIND == 10
    assert search.search("neglabel")["model"][1][0].name == "CMA(ViT-B/16, NegLabel)"


def test_words_match_as_prefixes_in_any_case(seeded):
    assert names(search.search("IMAGEN"), "dataset") == ["ImageNet-1k vs SUN"]
    assert names(search.search("detect distrib"), "task") == ["Out-of-Distribution Detection"]


def test_an_exact_name_comes_first_within_its_kind(load, seed_page, write_page):
    pages = [board(seed_page, 1, task="ReAct Detection"), board(seed_page, 2, task="ReAct")]
    ok, _, err = load(*(write_page(page) for page in pages))
    assert ok, err
    assert names(search.search("react"), "task") == ["ReAct", "ReAct Detection"]
    assert names(search.search("React Detection"), "task") == ["ReAct Detection"]
    models = names(search.search("react"), "model")
    assert models[0] == "ReAct (ResNet-50)"


def test_each_kind_shows_at_most_per_kind_with_the_total(seeded):
    total, models = search.search("resnet", per_kind=3)["model"]
    assert len(models) == 3 and total == 11  # "ResNet50", "ResNet-50", "ResNetv2-101"


def test_model_results_link_to_the_models_page(seeded):
    entry = search.search("NPOS")["model"][1][0]
    npos = seeded.rows.get(model="NPOS").model_slug
    assert entry.get_absolute_url() == reverse("leaderboards:model", args=[npos])
    assert entry.context == "Out-of-Distribution Detection on ImageNet-1k vs SUN"


def test_an_entry_indexed_before_models_had_pages_leads_to_its_board_filtered(seeded):
    # Then a model's entries were one per board, by the board's slug.
    SearchEntry.objects.filter(kind="model").update(model_slug="", slug=SEED_SLUG)
    entry = search.search("NPOS")["model"][1][0]
    board = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
    assert entry.get_absolute_url() == f"{board}?model=NPOS#results"


def test_a_load_re_indexes_model_entries_of_an_older_shape(seeded):
    """The entries a migration left without a model page, and those of a model on
    each of its boards, differ from a rebuild's."""
    from leaderboards.search.changes import differs
    from leaderboards.upkeep.scope import Scope

    scope = Scope(boards={seeded.pk}, models=set(seeded.rows.values_list("model_slug", flat=True)))
    assert not differs(scope)
    SearchEntry.objects.filter(kind="model").update(model_slug="")
    assert differs(scope)
    search.refresh_index()
    SearchEntry.objects.filter(kind="model").update(slug=SEED_SLUG)
    assert differs(scope)


def test_a_model_hit_opens_its_page_with_its_board_and_rank_though_it_is_pages_away(
    load, seed_page, write_page, client
):
    page = scaled_page(seed_page, 260)
    page["url"] = "/sota/out-of-distribution-detection-on-big-board"
    page["dataset"] = {"name": "Big Board", "url": "/dataset/big-board"}
    ok, _, err = load(write_page(page))
    assert ok, err
    name = "NPOS #253"  # rank 254: the third page of the unfiltered table
    html = client.get(SEARCH, {"q": name}).content.decode()
    (href,) = re.findall(r'<a href="([^"]*)">' + re.escape(name) + "</a>", html)
    assert href.startswith("/model/npos-253-")
    response = client.get(unescape(href))
    assert response.status_code == 200
    shown = " ".join(re.sub(r"<[^>]*>", " ", response.content.decode()).split())
    assert "Out-of-Distribution Detection on Big Board 254" in shown
    first = client.get(unescape(href).split("?")[0])
    assert name not in models_in_order(first.content.decode())


def test_the_index_follows_a_reload(load, seed_page, write_page, seeded):
    seed_page["rows"][11]["model"] = "Zyzzyva Net"
    seed_page["syntology"]["read_at"] = "2026-10-01T00:00:00+00:00"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    assert names(search.search("zyzzyva"), "model") == ["Zyzzyva Net"]
    assert search.search("NPOS") == {}


@pytest.mark.parametrize(
    "query",
    ['"', "'; DROP TABLE x; --", "a AND OR NOT", "*", "(", "foo:*", "&|!<->", "NEAR(a b)",
     "x" * 5000, "ünïcødé", "   ", "-", "_"],
)  # fmt: skip
# (A NUL is refused before any view: tests/web/test_guards.py.)
def test_any_query_text_is_words_or_nothing_never_an_error(seeded, client, query):
    response = client.get(SEARCH, {"q": query})
    assert response.status_code == 200


def test_a_nul_in_the_query_is_a_400_not_a_database_error(seeded, client):
    # PostgreSQL takes no NUL in a query's text; the guard answers first.
    assert client.get(SEARCH, {"q": "a\x00b"}).status_code == 400


def test_search_page_groups_results_by_kind_in_two_or_three_queries(
    seeded, client, django_assert_num_queries
):
    # The first entries of each kind, and the totals: in one statement that
    # matches once, on PostgreSQL always and on SQLite for several long words;
    # then the papers found by their abstract, in one more.
    with django_assert_num_queries(2):
        response = client.get(SEARCH, {"q": "out-of-distribution"})
    # SQLite reads one word's prefix as far as each kind's first, then counts.
    with django_assert_num_queries(2 if connection.vendor == "postgresql" else 3):
        assert (
            "Out-of-Distribution Detection"
            in client.get(SEARCH, {"q": "detection"}).content.decode()
        )
    page = response.content.decode()
    assert page.index("<h2>Tasks") < page.index("<h2>Leaderboards") < page.index("<h2>Papers")
    assert f'href="/sota/{SEED_SLUG}"' in page
    assert 'href="/task/out-of-distribution-detection"' in page


def test_search_page_says_when_nothing_matches(seeded, client):
    page = client.get(SEARCH, {"q": "quantum chromodynamics"}).content.decode()
    assert "Nothing matches “quantum chromodynamics”" in page
    assert "Type a task" in client.get(SEARCH).content.decode()


def test_search_escapes_what_it_echoes(seeded, client):
    page = client.get(SEARCH, {"q": "<script>x</script>"}).content.decode()
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
