"""A model's page and the compare view in chromium (issue #30): reached by keyboard alone
from a board's row, and read at a phone's 390 px without a sideways scroll."""

import pytest
from django.urls import reverse

from leaderboards.format.rules import model_slug
from tests.helpers import (
    CMA,
    CMA_PAPER,
    LINE,
    LINE_PAPER,
    SECOND_BOARD,
    SEED_FILE,
    a_second_board_with_directions,
)

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


@pytest.fixture
def two_boards(load, seed_page, write_page):
    ok, _, err = load(SEED_FILE, write_page(a_second_board_with_directions(seed_page)))
    assert ok, err


def compare_url(live_server):
    slugs = (model_slug(CMA, CMA_PAPER), model_slug(LINE, LINE_PAPER))
    return f"{live_server.url}{reverse('leaderboards:model_compare')}?m={slugs[0]}&m={slugs[1]}"


def tab_to(tab, selector, presses=80):
    """Press Tab until the element `selector` has the focus; False if it never does."""
    for _ in range(presses):
        tab.keyboard.press("Tab")
        if tab.evaluate("s => document.activeElement.matches(s)", selector):
            return True
    return False


def test_a_keyboard_reaches_the_compare_view_from_a_boards_row(
    two_boards, live_server, browser, screenshot
):
    context = browser.new_context(**DESKTOP)
    tab = context.new_page()
    tab.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SECOND_BOARD]))
    model_href = reverse("leaderboards:model", args=[model_slug(CMA, CMA_PAPER)])
    assert tab_to(tab, f'td.model a[href="{model_href}"]')
    tab.keyboard.press("Enter")
    tab.wait_for_url(f"**{model_href}")
    assert tab.locator("h1").inner_text() == CMA
    assert tab_to(tab, "#compare-with")
    tab.keyboard.type(model_slug(LINE, LINE_PAPER))
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/model/compare?**")
    assert tab.locator(".compare-board").count() == 2
    # Each board's link and each model's page are reached by Tab too.
    board = tab.locator(".compare-board h3 a").first
    assert tab_to(tab, ".compare-board h3 a")
    assert tab.evaluate("document.activeElement.textContent") == board.inner_text()
    # The focused link is drawn with a visible outline.
    outline = tab.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    screenshot(tab, "model-compare-desktop")
    context.close()


def test_the_compare_view_reads_at_390_px(two_boards, live_server, browser, screenshot):
    context = browser.new_context(java_script_enabled=False, **PHONE)
    tab = context.new_page()
    tab.goto(compare_url(live_server))
    assert tab.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    stated = tab.locator(".compare-board", has=tab.get_by_role("link", name="Board Set 1"))
    auroc = stated.locator("tbody tr", has=tab.locator("th", has_text="AUROC"))
    # Each value is on screen, labelled by its model, none behind a sideways scroll.
    for name, text in ((CMA, "96.36 behind by 0.65"), (LINE, "97.01 ahead")):
        cell = auroc.locator(f'td[data-label="{name}"]')
        assert " ".join(cell.inner_text().split()) == text
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        label = tab.evaluate(
            "cell => getComputedStyle(cell, '::before').content", cell.element_handle()
        )
        assert name in label
    verdict = auroc.locator('td[data-label="Who is ahead"]')
    assert verdict.inner_text() == LINE and verdict.is_visible()
    screenshot(tab, "model-compare-phone")
    context.close()
