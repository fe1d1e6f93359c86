"""A visitor's walk through the archive in Debian's chromium, with screenshots."""

import pytest

from tests.helpers import SEED_SLUG

pytestmark = pytest.mark.browser


def test_home_to_area_to_task_to_leaderboard_to_paper(seeded, live_server, page, screenshot):
    page.goto(live_server.url + "/")
    screenshot(page, "catalogue-1-home")
    page.get_by_role("link", name="Computer Vision").first.click()
    assert page.locator("h1").inner_text() == "Computer Vision"
    screenshot(page, "catalogue-2-area")
    page.get_by_role("link", name="Out-of-Distribution Detection").click()
    assert page.locator("h1").inner_text() == "Out-of-Distribution Detection"
    # The file gives FPR95 no direction; the archive's ranking settles one, said as inferred.
    assert "best, inferred" in page.locator("table.boards").inner_text()
    screenshot(page, "catalogue-3-task")
    page.get_by_role("link", name="ImageNet-1k vs SUN").click()
    assert page.url.endswith(f"/sota/{SEED_SLUG}")
    screenshot(page, "catalogue-4-leaderboard")
    page.locator("table.results tbody tr").first.locator("td.paper a").first.click()
    assert page.url.endswith("/paper/enhanced-ood-detection-through-cross-modal")
    assert "CMA(ViT-B/16, NegLabel)" in page.locator("table").inner_text()
    screenshot(page, "catalogue-5-paper")


def test_search_for_out_of_distribution_from_the_header(seeded, live_server, page, screenshot):
    page.goto(live_server.url + "/sota/")
    screenshot(page, "catalogue-6-leaderboards")
    page.locator(".site-search input[name=q]").fill("out-of-distribution")
    page.locator(".site-search button").click()
    headings = page.locator(".search-group h2").all_inner_texts()
    assert [h.split()[0] for h in headings] == ["Tasks", "Leaderboards", "Papers"]
    screenshot(page, "catalogue-7-search")
    page.get_by_role("link", name="Out-of-Distribution Detection on ImageNet-1k vs SUN").click()
    assert page.url.endswith(f"/sota/{SEED_SLUG}")
