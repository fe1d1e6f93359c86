import pytest
from django.urls import reverse

from tests.helpers import SEED_SLUG

pytestmark = pytest.mark.browser


def test_the_seed_page_renders_in_chromium(seeded, live_server, page, screenshot):
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    assert page.title().startswith("Out-of-Distribution Detection on ImageNet-1k vs SUN")
    assert page.locator("table.results tbody tr").count() == 22
    screenshot(page, "smoke-leaderboard")


def test_a_keyboard_visitor_skips_the_header_to_the_content(seeded, live_server, page, screenshot):
    """The first Tab shows "Skip to content"; following it puts the next Tab inside the page."""
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    page.keyboard.press("Tab")
    skip = page.locator("a.skip-to-content")
    assert skip.evaluate("link => link === document.activeElement")
    box = skip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["y"] >= 0  # on screen while focused
    screenshot(page, "skip-to-content", full_page=False)
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "content"
    page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('content').contains(document.activeElement)")
