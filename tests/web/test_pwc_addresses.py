"""PwC's addresses keep working: every path the archive names, and its README badge."""

import re

import pytest
from django.urls import reverse

from leaderboards.models import Dataset, Leaderboard, Metric, Paper
from leaderboards.upkeep.figures import refresh_leaderboards
from tests.helpers import (
    DATASET,
    PAPER,
    SEED_SLUG,
    TASK,
    html,
    make_authors,
    make_category,
    make_method,
    make_proceeding,
)


@pytest.fixture
def archive(seeded):
    make_method("resnet", "ResNet", categories=[make_category("Convolutions", area="Vision")])
    make_proceeding("NeurIPS 2021 12", year=2021)
    make_authors(Paper.objects.get(slug=PAPER), "Ada Lovelace")
    return seeded


@pytest.mark.parametrize(
    "path",
    [
        f"/paper/{PAPER}",
        "/method/resnet",
        f"/dataset/{DATASET}",
        f"/task/{TASK}",
        f"/sota/{SEED_SLUG}",
        "/conference/neurips",
    ],
)
def test_every_path_the_archive_names_answers_with_the_same_slug(archive, client, path):
    assert client.get(path).status_code == 200


def test_pwc_slugs_of_papers_and_datasets_redirect_to_the_page(archive, client):
    Paper.objects.filter(slug=PAPER).update(pwc_slug="enhanced-ood-detection-1")
    Dataset.objects.filter(slug=DATASET).update(pwc_slug="imagenet-1k-sun")
    for old, new in (
        ("/paper/enhanced-ood-detection-1", f"/paper/{PAPER}"),
        ("/dataset/imagenet-1k-sun", f"/dataset/{DATASET}"),
    ):
        response = client.get(old)
        assert (response.status_code, response["Location"]) == (301, new)


def test_the_readme_badge_shows_the_papers_place_on_the_board(archive, client):
    url = reverse("leaderboards:pwc_badge", args=[PAPER, SEED_SLUG])
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    # No metric's direction known (an editor said so): no rank is claimed.
    Metric.objects.filter(leaderboard__slug=SEED_SLUG).update(editor_direction="unknown")
    assert ">1 result on 1 leaderboard<" in client.get(url).content.decode()
    Metric.objects.filter(leaderboard__slug=SEED_SLUG).update(editor_direction="higher")
    svg = client.get(url).content.decode()
    assert svg.startswith("<svg") and ">Out-of-Distribution Detection<" in svg
    assert re.search(r">#\d+ on ImageNet-1k vs SUN<", svg)


def test_the_readme_badge_by_a_pwc_slug_and_for_a_board_without_the_paper(archive, client):
    Paper.objects.filter(slug=PAPER).update(pwc_slug="enhanced-ood-detection-1")
    Metric.objects.filter(leaderboard__slug=SEED_SLUG).update(editor_direction="unknown")
    refresh_leaderboards(list(Leaderboard.objects.values_list("pk", flat=True)))
    assert client.get(f"/badge/enhanced-ood-detection-1/{SEED_SLUG}").status_code == 200
    other = Paper.objects.create(slug="not-on-the-board", title="Not on it")
    svg = client.get(f"/badge/{other.slug}/{SEED_SLUG}").content.decode()
    # The board's own badge: its size, since no direction is known.
    assert ">leaderboard<" in svg and ">22 results<" in svg


@pytest.mark.parametrize("path", [f"/badge/no-such-paper/{SEED_SLUG}", f"/badge/{PAPER}/no-board"])
def test_the_readme_badge_of_an_unknown_paper_or_board_is_404(archive, client, path):
    assert client.get(path).status_code == 404


def test_the_sitemap_lists_the_new_pages_but_not_withheld_ones(archive, client):
    make_method("casino", "Casino", withheld=True, withheld_reason="spam")
    Paper.objects.create(slug="gone", title="Gone", withheld=True, withheld_reason="spam")
    index = html(client, "/sitemap.xml")
    for section in ("methods", "method-areas", "method-categories", "authors", "conferences"):
        assert f"sitemap-{section}.xml" in index
    methods = html(client, "/sitemap-methods.xml")
    assert "/method/resnet</loc>" in methods and "casino" not in methods
    assert "/conference/neurips</loc>" in html(client, "/sitemap-conferences.xml")
    assert "/paper/gone</loc>" not in html(client, "/sitemap-papers.xml")
    assert "/methods/</loc>" in html(client, "/sitemap-lists.xml")
