"""Search and suggestions over methods and authors, and the search page over papers' abstracts.

Withheld papers and methods are left out, at once when an editor's save names
the field, else from the next rebuild. Runs on whichever database is in use.
"""

import re

import pytest
from django.db import connection
from django.urls import reverse

from leaderboards import search
from leaderboards.models import Method, Paper, SearchEntry
from leaderboards.search import index
from leaderboards.search import query as search_query
from tests.helpers import make_authors, make_paper

SEARCH = reverse("leaderboards:search")
SUGGEST = reverse("leaderboards:search_suggest")
ABSTRACTS = "Papers by their abstract"


def names(found, kind):
    return [entry.name for entry in found.get(kind, (0, []))[1]]


def suggested(client, q):
    response = client.get(SUGGEST, {"q": q})
    assert response.status_code == 200
    return [(s["kind"], s["name"], s["url"]) for s in response.json()["suggestions"]]


def groups(page):
    """The search page's groups in order: [(heading, [(link, name)])]."""
    found = []
    for section in re.findall(r'<section class="search-group.*?</section>', page, re.S):
        heading = re.search(r"<h2>(.*?) <span", section).group(1)
        found.append((heading, re.findall(r'<li><a href="([^"]*)">([^<]*)</a>', section)))
    return found


def group(page, heading):
    return dict(groups(page)).get(heading, [])


def method(slug, name, full_name="", **fields):
    return Method.objects.create(slug=slug, name=name, full_name=full_name, **fields)


@pytest.fixture
def catalogue(db):
    counting = make_paper(
        "counting-fish",
        "Counting Fish in Tanks",
        abstract="We count zebrafish larvae with a small convolutional network.",
    )
    make_paper(
        "zebrafish-tracking",
        "Zebrafish Tracking at Scale",
        abstract="Tracking zebrafish over days of video.",
    )
    make_paper(
        "retracted",
        "A Retracted Paper on Otters",
        abstract="Zebrafish results we cannot reproduce.",
        withheld=True,
        withheld_reason="Retracted.",
    )
    make_authors(counting, "Geoffrey Hinton", "Renée Okafor")
    method("resnet", "ResNet", "Residual Network")
    method("dropout", "Dropout", "Dropout")
    method(
        "buy-cheap-pills",
        "Cheap Pills Online",
        withheld=True,
        withheld_reason="An advertisement, not a method.",
    )
    search.refresh_index()
    return counting


def test_an_author_is_found_and_suggested_linking_to_their_page(catalogue, client):
    url = reverse("leaderboards:author", args=["geoffrey-hinton"])
    assert names(search.search("hinton"), "author") == ["Geoffrey Hinton"]
    assert suggested(client, "hint") == [("Author", "Geoffrey Hinton", url)]
    assert group(client.get(SEARCH, {"q": "geoffrey"}).content.decode(), "Authors") == [
        (url, "Geoffrey Hinton")
    ]
    assert names(search.search("RENÉE"), "author") == ["Renée Okafor"]
    assert client.get(url).status_code == 200


def test_a_method_is_found_by_its_name_and_by_its_full_name(catalogue, client):
    url = reverse("leaderboards:method", args=["resnet"])
    by_name = search.search("resnet")["method"][1]
    assert [(e.name, e.context, e.get_absolute_url()) for e in by_name] == [
        ("ResNet", "Residual Network", url)
    ]
    assert names(search.search("residual net"), "method") == ["Residual Network"]
    assert suggested(client, "resid") == [("Method", "Residual Network", url)]
    # A full name that only repeats the name is not a second entry.
    assert SearchEntry.objects.filter(kind="method", slug="dropout").count() == 1
    assert client.get(url).status_code == 200


def test_papers_and_methods_come_before_authors_and_models(catalogue, client):
    method("hinton-loss", "Hinton Loss")
    search.refresh_index()
    kinds = [kind for kind, _, _ in suggested(client, "hinton")]
    assert kinds == ["Method", "Author"]
    assert list(search.search("hinton")) == ["method", "author"]


def test_withheld_papers_and_methods_are_neither_found_nor_suggested(catalogue, client):
    for query in ["cheap pills", "retracted otters"]:
        assert search.search(query) == {}
        assert suggested(client, query) == []
        assert "Nothing matches" in client.get(SEARCH, {"q": query}).content.decode()
    # Nor found by their abstract.
    page = client.get(SEARCH, {"q": "reproduce"}).content.decode()
    assert "Nothing matches" in page


def test_words_of_an_abstract_find_the_paper_after_the_titles_that_match(catalogue, client):
    page = client.get(SEARCH, {"q": "zebrafish"}).content.decode()
    tracking = reverse("leaderboards:paper", args=["zebrafish-tracking"])
    counting = reverse("leaderboards:paper", args=["counting-fish"])
    # The title match once, in Papers; the paper found by its abstract after it;
    # the withheld one in neither.
    assert [(heading, [name for _, name in found]) for heading, found in groups(page)] == [
        ("Papers", ["Zebrafish Tracking at Scale"]),
        (ABSTRACTS, ["Counting Fish in Tanks"]),
    ]
    assert group(page, ABSTRACTS) == [(counting, "Counting Fish in Tanks")]
    assert group(page, "Papers") == [(tracking, "Zebrafish Tracking at Scale")]
    # Every word of the query, as the titles need.
    assert groups(client.get(SEARCH, {"q": "zebrafish larvae"}).content.decode()) == [
        (ABSTRACTS, [(counting, "Counting Fish in Tanks")])
    ]
    assert "Nothing matches" in client.get(SEARCH, {"q": "zebrafish otters"}).content.decode()


def test_abstracts_are_not_suggested_and_their_words_match_whole(catalogue, client):
    assert suggested(client, "larvae") == []
    assert search_query.search_abstracts("larvae")[2][0].slug == "counting-fish"
    # A title's words match as prefixes; an abstract's only whole.
    assert search_query.search_abstracts("larv") == (0, False, [])
    assert search_query.search_abstracts("LARVAE convolutional")[0] == 1


def test_a_common_abstract_word_reads_a_bounded_number_of_papers(catalogue, client, monkeypatch):
    for n in range(5):
        make_paper(f"fish-{n}", f"Fish Study {n}", abstract="More zebrafish, in tanks.")
    search.refresh_index()
    total, more, shown = search_query.search_abstracts("zebrafish", per_kind=10)
    # Counted with the paper whose title matches too (search() lists it), not shown.
    assert (total, more, len(shown)) == (7, False, 6)
    # By paper id: the first loaded first.
    assert shown[0].slug == "counting-fish"
    monkeypatch.setattr(search_query, "ABSTRACTS_READ", 3)
    total, more, shown = search_query.search_abstracts("zebrafish", per_kind=2)
    assert more and total <= 3 and len(shown) == 2
    page = client.get(SEARCH, {"q": "zebrafish"}).content.decode()
    assert re.search(rf"{ABSTRACTS} <span[^>]*>at least \d match", page)


def test_abstracts_behind_many_matching_titles_are_found_in_one_query(
    catalogue, client, monkeypatch, django_assert_num_queries
):
    """Where most papers found by their abstract match by their title too ("learning"),
    those shown lie behind several fetches: the engine's match is run once for them all."""
    for n in range(7):
        make_paper(f"heron-{n}", f"Heron Study {n}", abstract="A heron wades.")
    for n in range(3):
        make_paper(f"wading-{n}", f"Wading Birds {n}", abstract="A heron wades.")
    search.refresh_index()
    monkeypatch.setattr(search_query, "ABSTRACTS_PER_READ", 2)
    with django_assert_num_queries(1):
        total, more, shown = search_query.search_abstracts("heron", per_kind=2)
    assert (total, more) == (10, False)
    assert [entry.slug for entry in shown] == ["wading-0", "wading-1"]


def test_an_editors_withhold_takes_a_paper_and_its_abstract_out_at_once(catalogue, client):
    paper = Paper.objects.get(slug="zebrafish-tracking")
    paper.withheld, paper.withheld_reason = True, "Spam."
    paper.save(update_fields=["withheld", "withheld_reason"])
    assert search.search("tracking") == {}
    assert suggested(client, "track") == []
    assert search_query.search_abstracts("days")[0] == 0
    paper.withheld, paper.withheld_reason = False, ""
    paper.save(update_fields=["withheld", "withheld_reason"])
    assert names(search.search("tracking"), "paper") == ["Zebrafish Tracking at Scale"]
    assert [name for _, name, _ in suggested(client, "track")] == ["Zebrafish Tracking at Scale"]
    assert search_query.search_abstracts("days")[0] == 1


def test_an_editors_withhold_takes_a_method_out_at_once_and_a_restore_brings_it_back(
    catalogue, client
):
    resnet = Method.objects.get(slug="resnet")
    resnet.withheld, resnet.withheld_reason = True, "Spam."
    resnet.save(update_fields=["withheld", "withheld_reason"])
    assert "method" not in search.search("resnet")
    assert suggested(client, "residual") == suggested(client, "resn") == []
    resnet.withheld, resnet.withheld_reason = False, ""
    resnet.save(update_fields=["withheld", "withheld_reason"])
    assert names(search.search("res"), "method") == ["ResNet", "Residual Network"]
    assert [name for _, name, _ in suggested(client, "res")] == ["ResNet", "Residual Network"]
    assert search.search("residual")["method"][0] == 1


def test_a_bulk_withhold_leaves_the_search_with_the_next_rebuild(catalogue):
    Method.objects.filter(slug="resnet").update(withheld=True, withheld_reason="Spam.")
    Paper.objects.filter(slug="counting-fish").update(withheld=True, withheld_reason="Spam.")
    # The abstract's match reads the paper's flag: gone at once.
    assert search_query.search_abstracts("larvae") == (0, False, [])
    search.refresh_index()
    assert search.search("resnet") == search.search("counting fish") == {}
    # Or at once, where the code that withholds says so.
    Method.objects.filter(slug="dropout").update(withheld=True, withheld_reason="Spam.")
    search.refresh_pages("method", ["dropout"])
    assert search.search("dropout") == {}


def test_a_save_that_changes_nothing_searched_leaves_the_index_alone(
    catalogue, django_assert_num_queries
):
    paper = Paper.objects.get(slug="counting-fish")
    with django_assert_num_queries(1):
        paper.save(update_fields=["url_pdf"])


# (query, the search page's queries on PostgreSQL and SQLite, the suggestions').
# SQLite reads one word as far as each kind's first and counts after; the
# suggestions read a listed prefix in one query, else search after that look-up.
COSTS = [("sample", 2, 3, 2), ("sam", 2, 3, 1), ("otter", 2, 3, 2), ("s a m", 2, 2, 1)]


@pytest.mark.parametrize("size", [1, 30])
def test_search_and_suggestions_cost_the_same_at_any_size(
    catalogue, client, size, django_assert_num_queries
):
    for n in range(size):
        paper = make_paper(
            f"sample-{n}", f"Sample Study {n}", abstract=f"Otter samples, batch {n}."
        )
        make_authors(paper, f"Sam Author {n}")
        method(f"sample-{n}", f"Sample Method {n}", f"Sampled Method Number {n}")
    search.refresh_index()
    postgresql = connection.vendor == "postgresql"
    for query, on_postgresql, on_sqlite, suggesting in COSTS:
        with django_assert_num_queries(on_postgresql if postgresql else on_sqlite):
            assert client.get(SEARCH, {"q": query}).status_code == 200
        with django_assert_num_queries(suggesting):
            client.get(SUGGEST, {"q": query})
    page = client.get(SEARCH, {"q": "otter"}).content.decode()
    assert len(group(page, ABSTRACTS)) == min(size, 10)
    assert {kind for kind, _, _ in suggested(client, "sam")} == {"Paper", "Method", "Author"}


@pytest.mark.parametrize(
    "query",
    ['"', "NEAR(a b)", "foo:*", "a & b | !c", "x" * 5000, "zebrafish*", "(((", "ünïcødé"],
)
def test_any_text_is_a_clean_page_and_clean_suggestions(catalogue, client, query):
    assert client.get(SEARCH, {"q": query}).status_code == 200
    assert isinstance(suggested(client, query), list)


def test_abstracts_are_matched_through_their_own_index(catalogue):
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Too few rows for the planner to prefer the index on its own.
            cursor.execute("SET LOCAL enable_seqscan = off")
        explain = "EXPLAIN " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN "
        cursor.execute(
            explain
            + (
                f"SELECT id FROM {Paper._meta.db_table} WHERE abstract <> '' AND "
                "to_tsvector('simple'::regconfig, abstract) @@ to_tsquery('simple', %s)"
                if connection.vendor == "postgresql"
                else f"SELECT rowid FROM {index.ABSTRACT_FTS_TABLE} "
                f"WHERE {index.ABSTRACT_FTS_TABLE} MATCH %s"
            ),
            ["zebrafish"],
        )
        plan = " ".join(str(row) for row in cursor.fetchall())
    expected = "paper_abstract_words_idx" if connection.vendor == "postgresql" else "VIRTUAL"
    assert expected in plan
