"""An editor, in Debian's chromium, sets a metric's direction and sees the page follow."""

import pytest
from django.urls import reverse

from leaderboards.models import Leaderboard, Metric
from tests.helpers import EDITOR_PASSWORD, SEED_SLUG, admin_url

pytestmark = pytest.mark.browser


def set_fpr95_lower_as_an_editor(live_server, page, screenshot):
    page.goto(live_server.url + reverse("admin:index"))
    page.fill("#id_username", "erin")
    page.fill("#id_password", EDITOR_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    fpr = Metric.objects.get(name="FPR95")
    page.goto(live_server.url + admin_url(Metric, "change", fpr.pk))
    # The suggestion stands beside the field the editor sets.
    assert "lower is better (the name says “fpr”)" in page.inner_text("#metric_form")
    page.select_option("#id_editor_direction", "lower")
    screenshot(page, "admin-metric-fpr95")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))


def test_an_editor_sets_fpr95_lower_and_the_page_says_so(
    seeded, browser_editor, live_server, page, screenshot
):
    set_fpr95_lower_as_an_editor(live_server, page, screenshot)
    directions = page.locator('.metric-directions li[data-metric="FPR95"]')
    assert directions.inner_text() == "FPR95: lower is better set by an editor"
    screenshot(page, "leaderboard-after-editor-direction")
    # The board's admin page now shows the change in its history.
    page.goto(live_server.url + admin_url(Leaderboard, "change", seeded.pk))
    assert "Direction" in page.inner_text(".editorial-history") or "Changed Editor direction" in (
        page.inner_text(".editorial-history")
    )
    screenshot(page, "admin-leaderboard")


def test_an_editor_sets_fpr95_lower_and_the_chart_draws_the_best_so_far_line(
    seeded, browser_editor, live_server, page, screenshot
):
    set_fpr95_lower_as_an_editor(live_server, page, screenshot)
    assert page.locator("figure.chart path.frontier").count() == 1
    assert page.locator("figure.chart .record").count() >= 1
    screenshot(page, "leaderboard-best-so-far-line")
