"""Editors' flows in Debian's chromium at 1280x900: the directions queue, the board's form, the
rows list filtered to a board, the withhold confirmation and the "Edit" link on public pages."""

from pathlib import Path

import pytest
from django.urls import reverse

from leaderboards.models import DirectionDecision, Leaderboard, Row
from tests.helpers import EDITOR_PASSWORD, SEED_SLUG, admin_url

# The editor erin, made as the README says, for every test here.
pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_editor")]

SHOTS = Path("/tmp/shots/admin")
SCREEN_HEIGHT = 900


@pytest.fixture
def shot(screenshot):
    """A screenshot kept with the tests' artifacts and where reviewers look for the admin's."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(tab, name, full_page=True):
        path = screenshot(tab, name, full_page)
        (SHOTS / path.name).write_bytes(path.read_bytes())
        return path

    return take


def sign_in(live_server, page):
    page.goto(live_server.url + reverse("admin:index"))
    page.fill("#id_username", "erin")
    page.fill("#id_password", EDITOR_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")


@pytest.fixture
def boards_sharing_fpr95(seeded, request, seed_page):
    request.getfixturevalue("load_boards")(
        ("ood-b", 5, ["FPR95", "Score"]),
        ("ood-c", 10, ["FPR95", "Params"]),
        seed=seed_page,
    )


def test_an_editor_sets_a_name_for_every_board_from_the_queue_and_the_board_draws_its_line(
    boards_sharing_fpr95,
    live_server,
    page,
    shot,
):
    sign_in(live_server, page)
    page.click("#editors-queues a")
    first = page.locator("#directions-queue tbody tr").first
    assert first.get_attribute("data-name") == "FPR95"
    assert "lower is better (the name says “fpr”)" in first.inner_text()
    shot(page, "admin-directions-queue")
    first.locator("a[data-decision=lower]").click()
    # The count comes before anything changes.
    assert "3 boards (37 rows)" in page.inner_text(".decide-count")
    assert not DirectionDecision.objects.exists()
    shot(page, "admin-directions-confirm")
    page.click("input[type=submit].default")
    page.wait_for_selector(".messagelist .success")
    assert "“FPR95”: lower is better, on 3 boards (37 rows)." in page.inner_text(".messagelist")
    assert "FPR95" not in page.inner_text("#directions-queue")
    shot(page, "admin-directions-queue-after")
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    assert page.locator("figure.chart path.frontier").count() == 1
    assert page.locator("figure.chart .record").count() >= 1
    shot(page, "leaderboard-line-after-queue")


def test_the_board_form_is_short_and_its_rows_link_filters_the_rows_list(
    seeded,
    live_server,
    page,
    shot,
):
    sign_in(live_server, page)
    page.goto(live_server.url + admin_url(Leaderboard, "change", seeded.pk))
    shot(page, "admin-leaderboard-form")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 2 * SCREEN_HEIGHT, height
    # Directions are set on the first screen, and Save is there too.
    assert page.locator("#id_metrics-0-editor_direction").bounding_box()["y"] < SCREEN_HEIGHT
    assert page.locator("input[name=_save]").first.bounding_box()["y"] < SCREEN_HEIGHT
    assert "categories" in page.inner_text("#area_links-group h2").lower()
    assert (
        "Computer Vision" in page.inner_text("#area_links-group")
        or page.locator("#area_links-group tbody tr").count() >= 1
    )
    assert ": " not in page.inner_text("#area_links-group tbody tr p").strip()[:6]
    page.click("a.board-rows-link")
    page.wait_for_selector("#result_list")
    assert page.locator("#result_list tbody tr").count() == seeded.rows.count()
    assert page.input_value("#text-filter-leaderboard") == SEED_SLUG
    shot(page, "admin-rows-filtered")
    # Every column fits the window: nothing to scroll sideways, in the page or the table.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    results = page.locator("#changelist .results")
    assert results.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.goto(live_server.url + admin_url(Row, "changelist"))
    shot(page, "admin-rows-all", full_page=False)
    assert page.locator("#changelist .results").evaluate("e => e.scrollWidth <= e.clientWidth")


def test_the_withhold_confirmation_is_styled_as_the_admin(
    seeded,
    live_server,
    page,
    shot,
):
    sign_in(live_server, page)
    page.goto(live_server.url + admin_url(Row, "changelist") + f"?leaderboard={SEED_SLUG}")
    page.locator("#result_list tbody input.action-select").first.check()
    page.select_option("select[name=action]", "withhold")
    page.click("button[name=index]")
    page.wait_for_selector(".withhold-rows")
    shot(page, "admin-withhold-confirm")
    # The admin's header, breadcrumbs and form styles, not a bare page.
    assert page.locator("#site-name").inner_text() == "sotasite editors"
    assert page.locator("ol.breadcrumbs").is_visible()
    assert page.locator("fieldset.module.aligned").is_visible()
    button = page.locator("input[name=apply]")
    assert button.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"


def test_staff_see_an_edit_link_on_public_pages_and_visitors_do_not(
    seeded,
    live_server,
    page,
    browser,
    shot,
):
    board_url = live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG])
    visitor = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    visitor.goto(board_url)
    assert visitor.locator("a.edit-link").count() == 0
    visitor.context.close()
    sign_in(live_server, page)
    page.goto(board_url)
    link = page.locator("a.edit-link")
    assert link.inner_text() == "Edit"
    shot(page, "leaderboard-edit-link-for-staff", full_page=False)
    link.click()
    page.wait_for_url(f"**{admin_url(Leaderboard, 'change', seeded.pk)}")
    task = seeded.task
    page.goto(live_server.url + task.get_absolute_url())
    assert page.locator("a.edit-link").get_attribute("href") == admin_url(
        type(task), "change", task.pk
    )
