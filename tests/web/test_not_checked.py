"""Boards no verification has read: they say so, and claim no check or date they lack."""

import io
from html import unescape

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboards.format.rules import compact_json
from leaderboards.models import Leaderboard, SyntologySnapshot
from tests.helpers import PWC_DATA, SEED_SLUG

OGB = PWC_DATA / "sota-extractor_ogb.json"
PRODUCTS = "node-property-prediction-on-ogbn-products"


@pytest.fixture
def ogb(db):
    call_command("import_pwc", str(OGB), "--snapshot=2025-07-28", stdout=io.StringIO())
    return Leaderboard.objects.get(slug=PRODUCTS)


def unverified(page, snapshot="2026-01-05"):
    page["syntology"] = None
    page["since_archive"] = None
    page["source"]["snapshot"] = snapshot
    for row in page["rows"]:
        row["syntology"] = None
    return page


def test_an_imported_board_says_its_code_was_not_checked(ogb, client):
    html = client.get(ogb.get_absolute_url()).content.decode()
    assert "code not checked" in html
    assert "Code not checked" in html
    assert "with code that ran" not in html
    assert "Read at" not in html
    assert 'name="ran"' not in html
    assert not SyntologySnapshot.objects.exists()


def test_an_imported_board_exports_syntology_null(ogb, client):
    exported = client.get(reverse("leaderboards:leaderboard_json", args=[PRODUCTS])).json()
    assert exported["syntology"] is None
    assert all(row["syntology"] is None for row in exported["rows"])


def test_rows_end_at_the_newest_rows_date_not_the_snapshot(ogb, client):
    newest = max(ogb.rows.exclude(paper_date=None).values_list("paper_date", flat=True))
    assert ogb.source["rows_end_at"] == newest.isoformat() < "2022"
    html = client.get(ogb.get_absolute_url()).content.decode()
    assert f'archive rows up to <strong><time datetime="{newest.isoformat()}">' in html


def test_an_unknown_snapshot_is_said_to_be_unknown(db, client):
    call_command("import_pwc", str(OGB), stdout=io.StringIO())
    board = Leaderboard.objects.get(slug=PRODUCTS)
    html = unescape(client.get(board.get_absolute_url()).content.decode())
    assert "Archive copy dated</dt><dd>unknown: the archive copy's date was not recorded" in html


def test_an_unchecked_page_file_exports_byte_for_byte(load, seed_page, write_page, client):
    data = compact_json(unverified(seed_page)).encode()
    path = write_page({})
    path.write_bytes(data)
    ok, _, err = load(path)
    assert ok, err
    assert not SyntologySnapshot.objects.exists()
    response = client.get(reverse("leaderboards:leaderboard_json", args=[SEED_SLUG]))
    assert response.content == data


def test_an_unchecked_page_is_versioned_by_its_snapshot(load, seed_page, write_page):
    newer = unverified(seed_page, "2026-02-01")
    assert load(write_page(newer))[0]
    older = unverified(dict(newer, description="older"), "2026-01-01")
    ok, out, _ = load(write_page(older))
    assert "1 older than stored" in out
    assert Leaderboard.objects.get().source["snapshot"] == "2026-02-01"


def test_a_row_cannot_be_checked_on_an_unchecked_page(load, seed_page, write_page):
    page = unverified(seed_page)
    page["rows"][0]["syntology"] = {
        "n_ran": 1,
        "n_unverified": 0,
        "n_samples": 1,
        "n_pointer_only_licence": 0,
    }
    ok, _, err = load(write_page(page))
    assert not ok
    assert "rows[0].syntology" in err


def test_untitled_papers_are_named_by_their_arxiv_id(ogb, client):
    row = ogb.rows.get(rank=1)
    assert not row.paper_title
    html = client.get(ogb.get_absolute_url()).content.decode()
    assert ">arXiv:2104.09376</a>" in html
    assert ">210409376<" not in html
    paper = client.get(row.paper.get_absolute_url()).content.decode()
    assert "<h1>arXiv:2104.09376</h1>" in paper


def test_a_later_unchecked_version_does_not_show_the_old_check(
    seeded, load, seed_page, write_page, client
):
    later = unverified(seed_page, "2026-12-01")
    ok, _, err = load(write_page(later))
    assert ok, err
    exported = client.get(reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])).json()
    assert exported["syntology"] is None
    assert "code not checked" in client.get(seeded.get_absolute_url()).content.decode()


def test_an_archive_of_unknown_date_never_replaces_a_dated_one(ogb):
    out = io.StringIO()
    call_command("import_pwc", str(OGB), stdout=out, stderr=io.StringIO())
    assert "15 older than stored" in out.getvalue()
    assert Leaderboard.objects.get(slug=PRODUCTS).source["snapshot"] == "2025-07-28"


def test_the_feed_names_an_untitled_paper_by_its_arxiv_id(ogb, client):
    feed = client.get(reverse("leaderboards:feed_newest")).content.decode()
    assert "arXiv:" in feed
