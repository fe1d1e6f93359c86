import pytest
from django.urls import reverse

from tests.helpers import ARTIFACTS, SEED_SLUG

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_sort_by_auroc_and_chart_auroc_in_chromium(seeded, live_server, page, screenshot):
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))

    page.locator("table.results thead").get_by_role("link", name="AUROC").click()
    page.wait_for_url("**sort=AUROC**")
    header = page.locator("table.results th", has_text="AUROC")
    assert header.get_attribute("aria-sort") == "descending"
    models = page.locator("table.results td.model")
    assert models.first.inner_text() == "CMA(ViT-B/16, NegLabel)"
    assert models.last.inner_text() == "RP+GradNorm"  # no AUROC: last
    # The archive rank kept, after the row's "Suggest a correction" pencil.
    third = page.locator("table.results td.rank").nth(2)
    assert third.evaluate("td => td.lastChild.textContent.trim()") == "4"

    page.locator("nav.segmented").get_by_role("link", name="AUROC").click()
    page.wait_for_url("**chart=AUROC**")
    assert "sort=AUROC" in page.url  # the table keeps its order
    chart = page.locator("figure.chart")
    assert chart.locator("title#chart-title").text_content().startswith("AUROC of")
    assert chart.locator("g.point").count() == 18
    assert chart.locator("path.frontier").count() == 0
    assert "direction of AUROC is unknown" in chart.locator("figcaption").inner_text()

    # Hovering a point names its model, value and date (focus: tests/browser/test_chart_browser.py).
    mood = chart.locator("g.point", has=page.locator("title", has_text="MOOD"))
    tip = mood.locator("text.tip")
    assert not tip.is_visible()
    mood.locator("circle").hover()
    assert tip.is_visible() and tip.text_content() == "MOOD: 89.8 (6 Feb 2023)"
    page.mouse.move(0, 0)
    screenshot(page, "leaderboard-desktop")

    page.set_viewport_size(PHONE)
    # Nothing but the results table may scroll sideways on a phone.
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    screenshot(page, "leaderboard-phone")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "leaderboard-phone-top", full_page=False)
    page.locator("#results").scroll_into_view_if_needed()
    screenshot(page, "leaderboard-phone-results", full_page=False)


def test_a_known_direction_draws_the_best_so_far_line(seeded, live_server, page):
    seeded.metrics.filter(name="AUROC").update(editor_direction="higher")
    url = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
    page.goto(f"{live_server.url}{url}?chart=AUROC")
    chart = page.locator("figure.chart")
    assert chart.locator("path.frontier").is_visible()
    assert chart.locator("g.point.record").count() == 6
    assert chart.locator("g.labels text", has_text="CMA(ViT-B/16, NegLabel)").is_visible()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chart").screenshot(path=str(ARTIFACTS / "leaderboard-chart-frontier.png"))
    page.emulate_media(color_scheme="dark")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(18, 22, 28)"  # the dark palette follows the system setting
    page.screenshot(path=str(ARTIFACTS / "leaderboard-dark.png"), full_page=True)


@pytest.mark.parametrize(
    ("name", "viewport"),
    [("desktop", {"width": 1280, "height": 800}), ("phone", PHONE)],
)
def test_who_leads_is_on_the_first_screen(seeded, live_server, browser, screenshot, name, viewport):
    tab = browser.new_page(viewport=viewport)
    try:
        tab.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
        lead = tab.locator("section.lead")
        box = lead.bounding_box()
        # Whole, without scrolling: the answer a visitor came for.
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        text = lead.inner_text()
        assert "CMA(ViT-B/16, NegLabel)" in text and "16.84" in text
        assert "inferred from the archive's ranking" in text
        assert tab.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        screenshot(tab, f"lead-{name}", full_page=False)
    finally:
        tab.close()
