"""sitemap.xml: an index of files naming every public page, none past its limit of addresses."""

import re

import pytest

from leaderboards.models import Paper
from tests.helpers import make_authors, make_category, make_method, make_paper, make_proceeding


def locs(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, url
    assert response["Content-Type"].startswith("application/xml")
    return re.findall(r"<loc>([^<]+)</loc>", response.content.decode())


def files(client):
    """The index's files, as paths the test client asks."""
    return [loc.removeprefix("http://testserver") for loc in locs(client, "/sitemap.xml")]


def every_address(client):
    return [loc for path in files(client) for loc in locs(client, path)]


@pytest.fixture
def archive(db):
    """Five papers (one withheld) with their authors and conference, and a method."""
    proceeding = make_proceeding("NeurIPS 2021 12", year=2021, month=12)
    papers = [make_paper(f"paper-{n}", proceeding=proceeding) for n in range(5)]
    Paper.objects.filter(slug="paper-3").update(withheld=True, withheld_reason="spam")
    for n, paper in enumerate(papers):
        make_authors(paper, f"Author {n}")
    category = make_category("Convolutions", area="Computer Vision")
    make_method("resnet", categories=[category], papers=papers[:2])
    return papers


def test_the_index_lists_a_file_per_run_of_ids(archive, client, settings):
    settings.SOTASITE_SITEMAP_URLS = 2
    found = files(client)
    papers = [path for path in found if path.startswith("/sitemap-papers.xml")]
    # Ids up to the largest in runs of two, the first file without a number.
    runs = -(-max(paper.pk for paper in archive) // 2)
    assert runs >= 3
    assert papers == [
        "/sitemap-papers.xml",
        *(f"/sitemap-papers.xml?p={n}" for n in range(2, runs + 1)),
    ]
    assert found[0] == "/sitemap-lists.xml" and "/sitemap-methods.xml" in found


def test_a_file_names_its_pages_addresses(archive, client):
    addresses = locs(client, "/sitemap-papers.xml")
    assert addresses == [f"http://testserver/paper/paper-{n}" for n in (0, 1, 2, 4)]
    assert "http://testserver/paper/" in locs(client, "/sitemap-lists.xml")


def test_no_file_holds_more_than_the_limit_and_together_they_name_every_page(
    archive, client, settings
):
    settings.SOTASITE_SITEMAP_URLS = 2
    # The lists' file names a fixed handful, far under the protocol's 50,000.
    for path in files(client)[1:]:
        assert len(locs(client, path)) <= 2, path
    addresses = every_address(client)
    assert len(addresses) == len(set(addresses))
    expected = {
        *(f"/paper/paper-{n}" for n in (0, 1, 2, 4)),
        *(f"/author/author-{n}" for n in range(5)),
        "/conference/neurips",
        "/method/resnet",
        "/methods/category/convolutions",
        "/methods/area/computer-vision",
    }
    assert expected <= {address.removeprefix("http://testserver") for address in addresses}
    assert "http://testserver/paper/paper-3" not in addresses


def test_boards_carry_the_day_they_changed(boards_loaded, client):
    body = client.get("/sitemap-leaderboards.xml").content.decode()
    assert re.search(r"</loc><lastmod>\d{4}-\d{2}-\d{2}</lastmod></url>", body)


@pytest.fixture
def boards_loaded(load, seed_page, write_page):
    ok, _, err = load(write_page(seed_page))
    assert ok, err


@pytest.mark.parametrize("path", ["/sitemap-papers.xml?p=x", "/sitemap-nothing.xml"])
def test_an_unknown_file_is_not_found(archive, client, path):
    assert client.get(path).status_code == 404


def test_a_file_past_the_last_is_not_found(archive, client, settings):
    settings.SOTASITE_SITEMAP_URLS = 2
    last = files(client)[-1]
    assert last.startswith("/sitemap-methods.xml")
    past = -(-max(paper.pk for paper in archive) // 2) + 1
    assert client.get(f"/sitemap-papers.xml?p={past}").status_code == 404


def test_the_index_and_a_file_cost_a_pinned_number_of_queries(
    archive, client, settings, django_assert_num_queries
):
    # One query per kind of page for the index (its largest id), one for a file.
    with django_assert_num_queries(10):
        client.get("/sitemap.xml")
    with django_assert_num_queries(1):
        client.get("/sitemap-papers.xml")
    for n in range(5, 60):
        make_authors(make_paper(f"paper-{n}"), f"Author {n}")
    with django_assert_num_queries(10):
        client.get("/sitemap.xml")
    with django_assert_num_queries(1):
        assert len(locs(client, "/sitemap-papers.xml")) == 59
