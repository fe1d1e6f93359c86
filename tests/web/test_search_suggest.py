"""Suggestions as you type: the search's own answer, cut short, as JSON for the script."""

import pytest
from django.core.cache import caches
from django.db.models import Case, Value, When
from django.db.models.functions import Length
from django.urls import reverse

from leaderboards import search
from leaderboards.models import Leaderboard, Method, SearchEntry, SearchKind, SearchPrefix
from leaderboards.search import index
from leaderboards.search import query as search_query
from leaderboards.search.terms import exact_text, terms
from leaderboards.web.page_cache import PAGE_CACHE
from leaderboards.web.views.search import MAX_SUGGESTIONS, SUGGESTIONS_PER_KIND
from tests.helpers import SEED_SLUG, board, make_authors, make_paper

SUGGEST = reverse("leaderboards:search_suggest")
SCRIPT = "/static/js/search-suggest.js"


def suggest(client, q):
    response = client.get(SUGGEST, {"q": q})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()["suggestions"]


def test_a_partly_typed_task_name_suggests_the_task_first(seeded, client):
    suggestions = suggest(client, "out-of-dist")
    assert suggestions[0] == {
        "name": "Out-of-Distribution Detection",
        "kind": "Task",
        "context": "",
        "url": reverse("leaderboards:task", args=["out-of-distribution-detection"]),
    }
    assert suggestions[1]["kind"] == "Leaderboard"
    assert suggestions[1]["url"] == reverse("leaderboards:leaderboard", args=[SEED_SLUG])
    # Then papers: three of each kind at most, eight in all.
    assert [s["kind"] for s in suggestions[2:]] == ["Paper"] * 3
    assert len(suggestions) <= MAX_SUGGESTIONS


def test_a_model_suggestion_names_its_leaderboard_and_leads_to_its_page(seeded, client):
    (model,) = suggest(client, "NPOS")
    assert model["kind"] == "Model"
    assert model["context"] == "Out-of-Distribution Detection on ImageNet-1k vs SUN"
    npos = seeded.rows.get(model="NPOS").model_slug
    assert model["url"] == reverse("leaderboards:model", args=[npos])


def test_suggestions_cost_a_query_or_two_and_nothing_without_a_word(
    seeded, client, django_assert_num_queries
):
    # Words whose prefixes are listed (short, or beginning many names) are one query.
    for query in ["ou", "out of d"]:
        with django_assert_num_queries(1):
            assert suggest(client, query)
    # Any other is searched after that look-up, in one more query.
    with django_assert_num_queries(2):
        assert suggest(client, "imagen")
    with django_assert_num_queries(0):
        assert suggest(client, "  -- ") == []
        assert suggest(client, "") == []


def test_a_load_that_adds_a_task_makes_it_suggested(
    seeded, load, seed_page, write_page, client, django_assert_num_queries
):
    assert suggest(client, "ze") == []
    ok, _, err = load(write_page(board(seed_page, 1, task="Zebra Counting")))
    assert ok, err
    with django_assert_num_queries(1):
        suggestions = suggest(client, "ze")
    assert suggestions == [
        {
            "name": "Zebra Counting",
            "kind": "Task",
            "context": "",
            "url": reverse("leaderboards:task", args=["zebra-counting"]),
        },
        {
            "name": "Zebra Counting on Board Set 1",
            "kind": "Leaderboard",
            "context": "22 results",  # its rows: a look-alike board is told apart
            "url": reverse("leaderboards:leaderboard", args=["zebra-counting-on-board-set-1"]),
        },
    ]


def test_a_withheld_row_leaves_the_suggestions_at_once_and_comes_back_restored(
    seeded, editor, client
):
    from leaderboards import decisions

    row = seeded.rows.get(model="NPOS")
    ref = [decisions.row_ref(seeded.pk, row.key, row.model)]
    assert [s["name"] for s in suggest(client, "np")] == ["NPOS"]
    decisions.withhold(ref, "Spam", editor)
    assert suggest(client, "np") == []
    decisions.restore(ref, editor)
    assert [s["name"] for s in suggest(client, "np")] == ["NPOS"]


@pytest.mark.parametrize("query", ['"', "a AND OR NOT", "foo:*", "x" * 5000, "<b>"])
def test_any_text_is_answered_never_an_error(seeded, client, query):
    assert isinstance(suggest(client, query), list)


def test_a_nul_is_a_400_not_a_database_error(seeded, client):
    # PostgreSQL takes no NUL in a query's text; it answered 500 there.
    assert client.get(SUGGEST, {"q": "a\x00b"}).status_code == 400


def test_only_get_and_head(db, client):
    assert client.post(SUGGEST, {"q": "x"}).status_code == 405


def test_the_page_cache_keeps_suggestions_as_it_keeps_pages(seeded, settings, client):
    settings.SOTASITE_PAGE_CACHE = True
    caches[PAGE_CACHE].clear()
    first = client.get(SUGGEST, {"q": "ood"})
    again = client.get(SUGGEST, {"q": "ood"})
    assert (first["X-Page-Cache"], again["X-Page-Cache"]) == ("miss", "hit")
    assert "public" in again["Cache-Control"] and "max-age=60" in again["Cache-Control"]
    assert again.content == first.content
    caches[PAGE_CACHE].clear()


@pytest.mark.parametrize(
    "path",
    [reverse("leaderboards:home"), reverse("leaderboards:task_list"), "/no-such-page", "/search"],
)
def test_every_page_loads_the_script_and_keeps_a_plain_form(seeded, client, path):
    page = client.get(path).content.decode()
    assert f'<script src="{SCRIPT}" data-suggest-url="{SUGGEST}" defer></script>' in page
    # Without the script the box is still a form that submits to the search page.
    assert f'action="{reverse("leaderboards:search")}" method="get"' in page


def test_the_script_is_served_from_this_site(client, db):
    response = client.get(SCRIPT)
    body = b"".join(response.streaming_content)
    response.close()
    assert response.status_code == 200
    assert "javascript" in response["Content-Type"]
    assert b'role", "combobox"' in body


def sorted_search(query, per_kind):
    """What search() must show, found by sorting every match: {kind: (total, [entries])}.

    Within a kind a name equal to the query (ignoring case) first, then shorter
    names, then by name and id. The site finds the same without the sort.
    """
    words = terms(query)
    if not words:
        return {}
    matches = (
        search_query._matching(words)
        .annotate(
            exact=Case(When(name__iexact=exact_text(query), then=Value(0)), default=Value(1)),
            name_length=Length("name"),
        )
        .order_by("exact", "name_length", "name", "pk")
    )
    found = {}
    for entry in matches:
        total, shown = found.setdefault(entry.kind, [0, []])
        found[entry.kind][0] = total + 1
        if len(shown) < per_kind:
            shown.append(entry)
    kinds = [kind for kind in SearchKind.values if kind in found]
    return {kind: (found[kind][0], found[kind][1]) for kind in kinds}


def answer(found):
    """A search's answer as [(kind, total, [(id, name)])]."""
    return [
        (kind, total, [(e.pk, e.name) for e in shown]) for kind, (total, shown) in found.items()
    ]


def first_of_each_kind(found, per_kind):
    """search()'s or suggest()'s answer as [(kind, [names])]."""
    return [
        (kind, [e.name for e in (value[1] if isinstance(value, tuple) else value)][:per_kind])
        for kind, value in found.items()
    ]


@pytest.fixture
def react_boards(load, seed_page, write_page):
    # "Detection ReAct" is as long as "ReAct Detection" and sorts before it: only
    # the exact-match rule puts the second first when that is what was typed.
    tasks = ["ReAct Detection", "ReAct", "Detection ReAct"]
    pages = [seed_page, *(board(seed_page, n, task=task) for n, task in enumerate(tasks, 1))]
    ok, _, err = load(*(write_page(page) for page in pages))
    assert ok, err
    # Methods and authors, by names that share words with the boards'.
    paper = make_paper(
        "react-paper", "ReAct: Out-of-Distribution Detection With Rectified Activations"
    )
    make_authors(paper, "Yiyou Sun", "Chuan Guo", "Renée Detmers", "Ood Resnik")
    for slug, name, full_name in [
        ("react", "ReAct", "Rectified Activations"),
        ("resnet", "ResNet", "Residual Network"),
        ("dropout", "Dropout", "dropout"),
        ("deep-ensembles", "Deep Ensembles", ""),
        ("odin", "ODIN", "Out-of-DIstribution detector for Neural networks"),
    ]:
        Method.objects.create(slug=slug, name=name, full_name=full_name)
    search.refresh_index()


QUERIES = ["react", "ReAct Detection", "out-of-distribution", "resnet", "r", "d", "imagenet 1k",
           "npos", "de", "ood", "o", "vit b", "re d", "d r", "out of d", "o o", "ne ou",
           "re", "residual", "rectified", "dropout", "sun", "renée", "renee det",
           "y s"]  # fmt: skip


@pytest.mark.parametrize("per_kind", [1, 3, 10])
def test_the_search_shows_what_sorting_every_match_shows(react_boards, per_kind):
    for query in [*QUERIES, "", "zyzzyva", "NPOS"]:
        assert answer(search.search(query, per_kind)) == answer(sorted_search(query, per_kind))


@pytest.mark.parametrize("per_kind", [1, 3])
def test_suggestions_are_the_first_of_what_search_shows(react_boards, per_kind):
    for query in QUERIES:
        shown = first_of_each_kind(sorted_search(query, per_kind=per_kind), per_kind)
        assert first_of_each_kind(search.suggest(query, per_kind), per_kind) == shown, query


def test_entries_are_numbered_in_the_search_order_of_their_kind(react_boards):
    """What lets a kind's first matching ids be its first suggestions."""
    for kind in SearchKind.values:
        ids = list(
            SearchEntry.objects.filter(kind=kind)
            .order_by(Length("name"), "name", "pk")
            .values_list("pk", flat=True)
        )
        start, end = index.span(kind)
        assert ids == sorted(ids) and start <= ids[0] and ids[-1] <= end, kind


@pytest.mark.parametrize("per_kind", [1, 3])
def test_models_re_indexed_out_of_order_are_still_suggested_in_order(
    react_boards, load, seed_page, write_page, editor, monkeypatch, per_kind
):
    """An editor's withhold and restore number a board's models after every other
    entry; the lists are bypassed so the numbered order alone answers."""
    from leaderboards import decisions

    # A second model named NPOS, another paper's, on a board of its own.
    page = board(seed_page, 4, task="Outlier Synthesis")
    page["rows"][20]["model"] = "NPOS"
    ok, _, err = load(write_page(page))
    assert ok, err
    board_ = Leaderboard.objects.get(slug=SEED_SLUG)
    row = board_.rows.get(model="NPOS")
    ref = [decisions.row_ref(board_.pk, row.key, row.model)]
    decisions.withhold(ref, "Spam", editor)
    decisions.restore(ref, editor)
    restored = SearchEntry.objects.get(kind="model", model_slug=row.model_slug)
    assert restored.pk >= index.UNORDERED
    monkeypatch.setattr(search_query, "_listed", lambda *args: None)
    for query in [*QUERIES, "n", "np", "NPOS"]:
        shown = first_of_each_kind(sorted_search(query, per_kind=per_kind), per_kind)
        assert first_of_each_kind(search.suggest(query, per_kind), per_kind) == shown, query
    # Both NPOS, the restored one last (ties go by id), as search() has them.
    everyone = search.suggest("np", 8)["model"]
    assert [e.pk for e in everyone] == [e.pk for e in sorted_search("np", per_kind=8)["model"][1]]
    assert everyone[-1] == restored and len(everyone) == 2
    # And the search page, totals too: the restored name is counted once, with its kind.
    for query in ["n", "np", "NPOS", "ood"]:
        assert answer(search.search(query, per_kind)) == answer(sorted_search(query, per_kind))
    assert search.search("np", 8)["model"][0] == 2


@pytest.mark.parametrize("per_kind", [1, 2])
def test_short_prefix_lists_rank_as_sorting_every_match(react_boards, monkeypatch, per_kind):
    """Lists of two entries a kind, every prefix listed: most answers need the cut-off rule."""
    monkeypatch.setattr(index, "LISTED_PER_KIND", 2)
    monkeypatch.setattr(index, "BROAD_PREFIX", 1)
    search.refresh_index()
    for query in QUERIES:
        shown = first_of_each_kind(sorted_search(query, per_kind=per_kind), per_kind)
        assert first_of_each_kind(search.suggest(query, per_kind), per_kind) == shown, query
    # The lists answered those they could, and could not answer all.
    answered = [q for q in QUERIES if search_query._listed(terms(q), q, per_kind) is not None]
    assert {"react", "r", "d", "npos", "vit b", "d r", "o o"} <= set(answered)
    assert set(answered) < set(QUERIES)


def test_lists_written_a_few_rows_at_a_time_are_the_lists_written_at_once(
    react_boards, monkeypatch
):
    """The end of a load writes the lists as it finds them, so its memory does not
    grow with the site: cut into pieces, they say the same."""

    def lists():
        return sorted(SearchPrefix.objects.values_list("prefix", "entry", "words"))

    whole = lists()
    monkeypatch.setattr(index, "PREFIX_ROWS_HELD", 7)
    search.refresh_index()
    assert lists() == whole and len(whole) > 7 * 10
    for query in QUERIES:
        shown = first_of_each_kind(sorted_search(query, per_kind=3), 3)
        assert first_of_each_kind(search.suggest(query, 3), 3) == shown, query


def test_an_accented_name_is_listed_as_the_search_engine_folds_it(db, load, seed_page, write_page):
    page = board(seed_page, 1, task="Denoising")
    page["task"]["name"] = "Débruitage"
    ok, _, err = load(write_page(page))
    assert ok, err
    for query in ["de", "dé", "déb", "deb", "DÉB"]:
        shown = first_of_each_kind(sorted_search(query, per_kind=3), 3)
        assert first_of_each_kind(search.suggest(query, 3), 3) == shown, query


def test_words_of_a_letter_each_are_answered_from_their_initials_list(
    load, seed_page, write_page, monkeypatch, client, django_assert_num_queries
):
    """Names with a d word, an r word or a z word come first; the one with all three
    comes late, past where each letter's own list ends: only the list of a pair or
    three of initials reaches it."""
    tasks = [*(f"{letter}{n}x" for letter in "DRZ" for n in range(4)), "Deep Reasoning Zero"]
    pages = [board(seed_page, n, task=task) for n, task in enumerate(tasks, 1)]
    ok, _, err = load(*(write_page(page) for page in pages))
    assert ok, err
    # Lists as long as the box shows of a kind: no list but the pair's holds all.
    monkeypatch.setattr(index, "LISTED_PER_KIND", SUGGESTIONS_PER_KIND)
    search.refresh_index()
    for query in ["d r", "r d", "R  D", "d r d", "z d", "z r d", "d r z r"]:
        with django_assert_num_queries(1):
            names = [s["name"] for s in suggest(client, query)]
        assert names[0] == "Deep Reasoning Zero", query
        shown = first_of_each_kind(sorted_search(query, per_kind=3), 3)
        assert first_of_each_kind(search.suggest(query, 3), 3) == shown, query


def test_a_model_restored_after_a_rebuild_is_suggested_for_its_initials(seeded, editor):
    """Withheld when the lists were last built, so in none of them: the list of
    its initials "m r", which holds papers only, must not answer alone."""
    from leaderboards import decisions

    row = seeded.rows.get(model="MOS (BiT-S-R101x1)")
    ref = [decisions.row_ref(seeded.pk, row.key, row.model)]
    decisions.withhold(ref, "Spam", editor)
    search.refresh_index()
    assert "model" not in search.suggest("m r", 3)
    decisions.restore(ref, editor)
    for query in ["m r", "r m", "b m", "m"]:
        shown = first_of_each_kind(sorted_search(query, per_kind=3), 3)
        assert first_of_each_kind(search.suggest(query, 3), 3) == shown, query
    assert [e.name for e in search.suggest("m r", 3)["model"]] == ["MOS (BiT-S-R101x1)"]
