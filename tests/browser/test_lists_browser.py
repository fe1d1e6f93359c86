"""/sota/'s filters, the paper page and a model found by search, in chromium (issue #12).

Each test runs at desktop and phone size, light and dark; screenshots go to
tests/artifacts/. None of it needs script, so the tabs run without it.
"""

import pytest
from django.urls import reverse

from tests.helpers import PAPER, board, scaled_page

pytestmark = pytest.mark.browser

LOOKS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}},
    "desktop-dark": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"},
    "phone-dark": {"viewport": {"width": 390, "height": 844}, "color_scheme": "dark"},
}
DARK_BACKGROUND = "rgb(18, 22, 28)"
NLP = "Natural Language Processing"


@pytest.fixture(params=list(LOOKS))
def tab(request, browser):
    context = browser.new_context(java_script_enabled=False, **LOOKS[request.param])
    page = context.new_page()
    page.look = request.param
    yield page
    context.close()


def is_phone(tab):
    return tab.look.startswith("phone")


def check_palette(tab):
    background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    assert (background == DARK_BACKGROUND) == tab.look.endswith("dark")


def fits_the_width(tab):
    return tab.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


@pytest.fixture
def areas_boards(load, seed_page, write_page):
    """Six Computer Vision boards and two of Natural Language Processing."""
    pages = [seed_page] + [board(seed_page, index) for index in range(1, 8)]
    for page in pages[-2:]:
        page["category"], page["categories"] = NLP, [NLP]
    ok, _, err = load(*(write_page(page) for page in pages))
    assert ok, err


def test_sota_shows_results_in_the_first_screen_and_its_area_menu_filters(
    areas_boards, live_server, tab, screenshot
):
    tab.goto(live_server.url + reverse("leaderboards:leaderboard_list"))
    check_palette(tab)
    form = tab.locator("form.filters")
    # The first three results are whole within the first screen, whatever the width
    # (an open form on a phone left room for one and a half).
    box = tab.locator("table.boards tbody tr").nth(2).bounding_box()
    assert box["y"] + box["height"] <= tab.viewport_size["height"]
    assert fits_the_width(tab)
    # Every column of a result in view, none behind a sideways scroll (a phone's
    # table cut off "Top result"; it reads as cards there).
    first = tab.locator("table.boards tbody tr").first
    for label in ("Rows", "Top result", "Newest paper"):
        cell = first.locator(f'td[data-label="{label}"]').bounding_box()
        assert cell["x"] >= 0 and cell["x"] + cell["width"] <= tab.viewport_size["width"]
    screenshot(tab, f"sota-first-screen-{tab.look}", full_page=False)
    summary = tab.locator("details.filter-fold > summary")
    if is_phone(tab):
        # Folded into one line; a tap opens it.
        assert summary.inner_text() == "Filters" and not form.is_visible()
        summary.click()
    else:
        assert not summary.is_visible()
    assert form.is_visible()

    tab.get_by_label("Area").select_option(label=NLP)
    form.get_by_role("button", name="Apply").click()
    tab.wait_for_url("**area=natural-language-processing**")
    assert tab.locator("table.boards tbody tr").count() == 2
    assert tab.locator(".list-count").inner_text() == "1–2 of 2 leaderboards"
    assert summary.inner_text() == "Filters (1 active)"
    assert tab.get_by_label("Area").input_value() == "natural-language-processing"
    screenshot(tab, f"sota-area-filtered-{tab.look}")


def test_the_paper_page_never_scrolls_sideways(
    load, seed_page, write_page, live_server, tab, screenshot
):
    row = seed_page["rows"][0]  # the row that names PAPER
    row["code"] = "https://github.com/" + "a-very-long-organisation-name-" * 8 + "/repository"
    row["paper_title"] = "Out" + "ofdistribution" * 12 + " Detection"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    tab.goto(live_server.url + reverse("leaderboards:paper", args=[PAPER]))
    check_palette(tab)
    assert tab.locator("h1").inner_text() == row["paper_title"]
    assert tab.get_by_role("link", name=row["code"]).is_visible()
    assert fits_the_width(tab)
    screenshot(tab, f"paper-long-words-{tab.look}")


def test_a_model_found_by_search_opens_its_page_with_its_board_and_rank(
    load, seed_page, write_page, live_server, tab, screenshot
):
    page = scaled_page(seed_page, 260)
    ok, _, err = load(write_page(page))
    assert ok, err
    name = "NPOS #253"  # on the third page of the board unfiltered
    tab.goto(live_server.url + reverse("leaderboards:search") + "?q=npos+253")
    check_palette(tab)
    models = tab.locator(".search-group", has=tab.get_by_role("heading", name="Models"))
    models.get_by_role("link", name=name, exact=True).click()
    tab.wait_for_url("**/model/npos-253-*")
    assert tab.locator("h1").inner_text() == name
    rows = tab.locator("table.model-results tbody tr")
    assert rows.count() == 1
    assert "254" in rows.first.locator('td[data-label="Rank"]').inner_text()
    # Its result in sight on the first screen, none of it behind a sideways scroll.
    box = rows.first.bounding_box()
    assert box["y"] + box["height"] <= tab.viewport_size["height"]
    assert fits_the_width(tab)
    screenshot(tab, f"search-model-page-{tab.look}", full_page=False)
