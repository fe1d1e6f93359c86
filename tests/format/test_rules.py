"""The rules several parts of the site share (format/rules.py), where two copies once differed."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboards.format import derive, rules
from leaderboards.models import Area, Leaderboard, Paper, Row
from leaderboards.web.filters import RowFilter
from tests.helpers import PWC_DATA, SEED_FILE

# Slugs.


def test_a_taken_slug_gets_the_first_free_numeric_suffix():
    assert rules.free_slug("parsing", set()) == "parsing"
    assert rules.free_slug("parsing", {"parsing"}) == "parsing-2"
    assert rules.free_slug("parsing", {"parsing", "parsing-2"}) == "parsing-3"


def test_a_suffix_never_takes_a_slug_past_its_column():
    # An area's slug column holds 200: a 200-character name that collides
    # must still fit once numbered.
    base = "a" * 200
    assert rules.free_slug(base, {base}) == "a" * 198 + "-2"
    assert len(rules.free_slug(base, {base, "a" * 198 + "-2"}, limit=200)) == 200


def test_a_slug_is_made_from_a_name_within_its_limit():
    assert rules.slug_for("Question Answering", "task") == "question-answering"
    assert rules.slug_for("???", "task") == "task"
    assert rules.slug_for("a " * 200, "task", limit=10) == "a-a-a-a-a"


def test_an_area_name_that_takes_a_stored_slug_gets_the_next(load, seed_page, write_page):
    from leaderboards.models import Area

    Area.objects.create(slug="quantum-widgets", name="Quantum widgets (old)")
    seed_page["category"] = "Quantum Widgets"
    seed_page["categories"] = ["Quantum Widgets"]
    assert load(write_page(seed_page))[0]
    assert Area.objects.get(name="Quantum Widgets").slug == "quantum-widgets-2"


# Dates: YYYY-MM-DD and a real day, nothing else date.fromisoformat takes.


@pytest.mark.parametrize("text", ["20250728", "2025-W31-1", "2025-02-30", "2025-7-28", "", None])
def test_only_yyyy_mm_dd_is_a_date(text):
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        rules.parse_date(text)


def test_a_date_is_parsed():
    assert rules.parse_date("2025-07-28").isoformat() == "2025-07-28"


def test_import_refuses_a_snapshot_that_is_no_yyyy_mm_dd(db):
    with pytest.raises(CommandError, match="expected a date YYYY-MM-DD, got '20250728'"):
        call_command("import_pwc", str(SEED_FILE), "--snapshot=20250728", stdout=io.StringIO())


# Counters.


def test_n_samples_is_one_rule_for_numbers_and_queries():
    from django.db.models import F

    assert rules.n_samples(3, 4) == 7
    assert str(rules.n_samples(F("n_ran"), F("n_unverified"))) == str(
        F("n_ran") + F("n_unverified")
    )
    assert derive.row_samples({"n_ran": 3, "n_unverified": 4}) == 7


# JSON.


def test_compact_json_keeps_non_ascii_and_writes_no_spaces():
    assert rules.compact_json({"a": ["é", 1]}) == '{"a":["é",1]}'


def test_stored_json_blocks_are_compact(seeded):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT source FROM {Leaderboard._meta.db_table}")
        (text,) = cursor.fetchone()
    assert text == rules.compact_json(seeded.source)


# What "has code" means: SPEC 1.1 counts rows with a `code` URL, and only an
# http(s) URL is one (the page links nothing else). The counts, the paper's
# flag and the row filter used to disagree on a `code` that is not one.


def _codes(data):
    """Every `code` value anywhere in a real archive file."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "code":
                yield value
            else:
                yield from _codes(value)
    elif isinstance(data, list):
        for item in data:
            yield from _codes(item)


# One rule for an http(s) link: what is linked is what counts as code, in
# Python and in the database alike.
LINK_EDGES = [
    ("https://github.com/a/b", True),
    ("HTTP://github.com/a/b", True),
    ("http://x", True),
    ("  https://github.com/a/b \n", True),
    ("http://", False),
    ("https://", False),
    ("http:///path-only", False),
    ("https://?q=1", False),
    ("http://#top", False),
    ("http:// spaced", False),
    ("github.com/a/b", False),
    ("//github.com/a/b", False),
    ("ftp://example.org/x", False),
    ("javascript:alert(1)", False),
    ("data:text/html,x", False),
    ("n/a", False),
    ("", False),
    (None, False),
    (42, False),
]


@pytest.mark.parametrize(("code", "expected"), LINK_EDGES)
def test_one_rule_says_what_is_a_link_and_what_is_code(code, expected):
    assert rules.has_code(code) is expected
    assert bool(rules.http_url(code)) is expected
    if expected:
        assert rules.http_url(code) == code.strip()


@pytest.mark.django_db
def test_the_database_counts_code_by_the_same_rule():
    texts = [code for code, _ in LINK_EDGES if isinstance(code, str)]
    areas = [Area.objects.create(slug=f"a{i}", name=text) for i, text in enumerate(texts)]
    counted = set(Area.objects.filter(rules.has_code_q("name")).values_list("pk", flat=True))
    assert {area.name for area in areas if area.pk in counted} == {
        text for text in texts if rules.has_code(text)
    }


def test_no_real_sample_counts_code_differently_than_the_prefix_rule_did():
    """The rule's edges are URLs no real row holds: every real sample's counters stay."""
    for path in sorted(PWC_DATA.glob("**/*.json")):
        data = json.loads(path.read_text())
        for code in _codes(data):
            old = isinstance(code, str) and code[:8].lower().startswith(("http://", "https://"))
            assert rules.has_code(code) is old, (path, code)


def test_a_code_that_is_no_url_is_not_code_anywhere(load, seed_page, write_page):
    first = seed_page["rows"][0]
    first["code"] = "github.com/ma-kjh/CMA-OoDD"  # truthy, but no URL
    # The file states the count a truthy `code` gives: 21.
    path = write_page(seed_page)
    ok, out, _ = load(path)
    assert ok
    assert f"{path}: counts.rows_with_code stated 21, computed 20" in out
    rows = Row.objects.all()
    assert RowFilter({"has_code": "true"}, queryset=rows).qs.count() == 20
    assert RowFilter({"has_code": "false"}, queryset=rows).qs.count() == 2
    paper = Paper.objects.get(slug="enhanced-ood-detection-through-cross-modal")
    assert paper.has_code is False
    assert Paper.objects.filter(has_code=True).count() == 17


def test_a_code_url_in_capitals_is_code_everywhere(load, seed_page, write_page):
    seed_page["rows"][0]["code"] = "HTTPS://github.com/ma-kjh/CMA-OoDD"
    ok, out, _ = load(write_page(seed_page))
    assert ok
    assert "rows_with_code" not in out
    assert RowFilter({"has_code": "true"}, queryset=Row.objects.all()).qs.count() == 21
    assert Paper.objects.get(slug="enhanced-ood-detection-through-cross-modal").has_code


# A paper's identity.


def test_an_arxiv_abs_and_pdf_link_are_one_paper():
    assert rules.paper_key("https://arxiv.org/pdf/2104.09376v2.pdf") == rules.paper_key(
        "https://arxiv.org/abs/2104.09376"
    )
    assert rules.paper_key("https://example.org/b/") == rules.paper_key("https://example.org/b")
    assert rules.paper_key("  ") is None


def row(paper_url, title="T", paper=None):
    return {"paper": paper, "paper_url": paper_url, "paper_title": title}


def test_rows_without_a_paper_page_are_one_paper_by_the_same_rule_as_the_archive():
    abs_row = row("https://arxiv.org/abs/2104.09376")
    pdf_row = row("http://arxiv.org/pdf/2104.09376v2.pdf")
    assert rules.paper_identity(abs_row) == rules.paper_identity(pdf_row)
    assert rules.paper_identity(row(None, "Only a title")) == "Only a title"
    assert rules.paper_identity(row(None, None)) is None
    # A paper page is the identity whatever the URL says.
    assert rules.paper_identity(row("https://x.org", paper="/paper/p")) == "/paper/p"


def test_distinct_papers_count_an_arxiv_paper_once_whatever_its_link(seed_page):
    rows = seed_page["rows"][:2]
    for data, url in zip(
        rows,
        ["https://arxiv.org/abs/2104.09376", "https://arxiv.org/pdf/2104.09376v1"],
        strict=True,
    ):
        data["paper"] = None
        data["paper_url"] = url
        data["syntology"] = {
            "n_ran": 1,
            "n_unverified": 0,
            "n_samples": 1,
            "n_pointer_only_licence": 0,
        }
    assert derive.syntology_figures(rows)["distinct_papers_with_graph_line"] == 1
