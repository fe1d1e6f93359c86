import pytest
from django.urls import reverse

from tests.helpers import SEED_SLUG

pytestmark = pytest.mark.browser


def test_the_seed_page_renders_in_chromium(seeded, live_server, page, screenshot):
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    assert page.title().startswith("Out-of-Distribution Detection on ImageNet-1k vs SUN")
    assert page.locator("table.results tbody tr").count() == 22
    screenshot(page, "smoke-leaderboard")
