"""The archive's new pages in Debian's chromium at desktop and phone widths, with screenshots."""

import pytest

from tests.helpers import DATASET, PAPER, make_showcase

pytestmark = pytest.mark.browser

PAGES = {
    "paper": f"/paper/{PAPER}",
    "method": "/method/vision-transformer",
    "methods": "/methods/",
    "author": "/author/jeonghyeon-kim",
    "conference": "/conference/cvpr",
    "dataset": f"/dataset/{DATASET}",
}


@pytest.fixture
def showcase(seeded):
    return make_showcase()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_new_pages_read_well_at_both_widths(showcase, live_server, browser, screenshot, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    tab = context.new_page()
    errors = []
    tab.on("console", lambda message: message.type == "error" and errors.append(message.text))
    try:
        for name, path in PAGES.items():
            tab.goto(live_server.url + path)
            assert tab.locator("h1").is_visible()
            # Nothing wider than the screen but the tables' own scrolling boxes.
            assert tab.evaluate("document.documentElement.scrollWidth") <= width, name
            screenshot(tab, f"archive-{name}-{width}")
        tab.goto(live_server.url + PAGES["paper"])
        # The abstract's TeX is drawn as maths: a formula has a size of its own.
        formula = tab.locator(".abstract math").first.bounding_box()
        assert formula["width"] > 10 and formula["height"] > 5
        assert tab.locator(".abstract").inner_text().count("<script>") == 1
        # Every value of the paper's results is on screen, whole: none cut at the edge.
        values = tab.locator("table.paper-results dd")
        assert values.count() > 0
        for index in range(values.count()):
            box = values.nth(index).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, values.nth(
                index
            ).inner_text()
        tab.goto(live_server.url + PAGES["method"])
        assert tab.locator(".years svg rect").count() == 5  # 2020 to 2024
        assert tab.locator(".description table").is_visible()
    finally:
        context.close()
    # The CSP refused nothing: every asset is the site's own.
    assert errors == []
