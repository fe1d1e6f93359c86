"""The list pages' filter forms (issue #12): the area menu, and the fold that says what is set."""

import json
import re

import pytest
from django.urls import reverse

from tests.helpers import ROOT, board, html, links

SOTA = reverse("leaderboards:leaderboard_list")
AREAS = json.loads((ROOT / "fixtures" / "areas.json").read_text())


@pytest.fixture
def boards(load, seed_page, write_page):
    """Three Computer Vision boards, as tests/web/test_catalogue.py has them."""
    pages = [seed_page, board(seed_page, 1, rows=5), board(seed_page, 2, task="Image Clustering")]
    ok, _, err = load(*(write_page(page) for page in pages))
    assert ok, err


def area_options(page):
    menu = re.search(r'<select name="area"[^>]*>(.*?)</select>', page, re.S).group(1)
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', menu)


@pytest.mark.parametrize("url", [SOTA, reverse("leaderboards:task_list")])
def test_the_area_filter_is_a_menu_of_every_area_by_name(boards, client, url):
    options = area_options(html(client, url))
    assert options[0] == ("", "Any area")
    names = sorted(area["fields"]["name"] for area in AREAS)
    assert [name for _, name in options[1:]] == names
    assert ("computer-vision", "Computer Vision") in options


def test_choosing_an_area_keeps_it_chosen_and_narrows_the_list(boards, client):
    page = html(client, SOTA + "?area=computer-vision")
    assert '<option value="computer-vision" selected>Computer Vision</option>' in page
    assert links(page, "sota") == 3
    assert links(html(client, SOTA + "?area=medical"), "sota") == 0


@pytest.mark.parametrize("value", ["robotics", "Computer Vision", "x" * 300])
def test_an_area_not_in_the_menu_is_a_400_that_names_the_filter(boards, client, value):
    page = html(client, SOTA + "?area=" + value, status=400)
    (message,) = re.findall(r'<ul class="errorlist" role="alert">\s*<li>([^<]*)</li>', page)
    assert message.startswith("Area: Select a valid choice.")
    # The form stays open beside the message, so the visitor can fix it.
    assert '<details class="filter-fold" open>' in page


def test_the_folded_form_says_how_many_filters_are_set(boards, client):
    page = html(client, SOTA + "?area=computer-vision&verified=true&sort=rows")
    assert "<summary>Filters (2 active)</summary>" in page
    assert '<details class="filter-fold">' in page
    assert "<summary>Filters</summary>" in html(client, SOTA + "?verified=unknown&sort=rows")
