"""In Debian's chromium: an editor adds a result, the board, /changes/ and its feed follow;
a withheld row shows in the record by its reason; badges load as images."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import Paper
from tests.helpers import EDITOR_PASSWORD, SEED_SLUG, SPAM_MODEL, spam_row

pytestmark = pytest.mark.browser

NEW_MODEL = "NewOOD (ViT-L/14)"


def sign_in(live_server, page):
    User.objects.filter(username="erin").update(first_name="Erin", last_name="Okafor")
    page.goto(live_server.url + reverse("admin:index"))
    page.fill("#id_username", "erin")
    page.fill("#id_password", EDITOR_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")


@pytest.mark.usefixtures("browser_editor")
def test_an_editor_adds_a_result_and_the_board_the_record_and_the_feed_show_it(
    seeded,
    live_server,
    page,
    screenshot,
):
    sign_in(live_server, page)
    page.goto(live_server.url + reverse("admin:leaderboards_editoraddition_add"))
    page.fill("#id_board", SEED_SLUG)
    page.click("input[type=submit][value=Continue]")
    page.fill("#id_model", NEW_MODEL)
    page.fill("#id_value_0", "9.87")
    page.fill("#id_value_1", "98.1 ± 0.1")
    page.fill("#id_paper_title", "NewOOD: a newer paper")
    page.fill("#id_paper_url", "https://arxiv.org/abs/2511.00001")
    page.fill("#id_note", "Table 2 of the paper, checked against the PDF.")
    screenshot(page, "record-admin-add-result")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")

    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    row = page.locator("table.results tbody tr", has_text=NEW_MODEL)
    assert row.locator("td.rank").evaluate("td => td.lastChild.textContent.trim()") == "—"
    marker = row.locator(".badge.added")
    assert marker.inner_text() == "added by editors"
    # The note is text a touch or keyboard reader reaches, not a tooltip.
    assert row.locator(".added-note").inner_text().startswith("Table 2 of the paper")
    assert page.locator(".record-links a").inner_text() == "1 editorial change"
    row.scroll_into_view_if_needed()
    screenshot(page, "record-board-with-added-result", full_page=False)

    page.click(".record-links a")
    page.wait_for_url(f"**/changes/?board={SEED_SLUG}")
    entry = page.locator("table.record tbody tr").first
    assert NEW_MODEL in entry.inner_text() and "Erin Okafor" in entry.inner_text()
    assert entry.locator("time").get_attribute("datetime")
    screenshot(page, "record-changes-after-add")

    feed = page.request.get(live_server.url + reverse("leaderboards:changes_feed"))
    assert feed.headers["content-type"].startswith("application/atom+xml")
    assert f"Result added: {NEW_MODEL}" in feed.text()


@pytest.mark.usefixtures("browser_editor")
def test_a_withheld_row_shows_in_the_record_by_its_reason(
    seeded,
    live_server,
    page,
    screenshot,
):
    decisions.withhold([spam_row()], "Results copied from another paper.", User.objects.get())
    page.goto(live_server.url + reverse("leaderboards:changes"))
    entry = page.locator("table.record tbody tr").first
    text = entry.inner_text()
    assert "Results copied from another paper." in text
    assert "a result of the archive, not named here" in text
    assert SPAM_MODEL not in page.content()
    screenshot(page, "record-withheld-row")


def test_badges_load_as_images(seeded, live_server, page, screenshot):
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    page.click("details.badge-snippet summary")
    image = page.locator("details.badge-snippet img")
    image.wait_for()
    page.wait_for_function(
        "document.querySelector('details.badge-snippet img').complete", timeout=5000
    )
    assert image.evaluate("img => img.naturalWidth") > 50
    assert "badge.svg" in page.locator("details.badge-snippet pre").inner_text()
    page.locator("details.badge-snippet").scroll_into_view_if_needed()
    screenshot(page, "record-board-badge", full_page=False)
    paper = Paper.objects.filter(rows__leaderboard=seeded).order_by("slug").first()
    page.goto(live_server.url + paper.get_absolute_url())
    page.click("details.badge-snippet summary")
    page.wait_for_function(
        "document.querySelector('details.badge-snippet img').complete", timeout=5000
    )
    assert page.locator("details.badge-snippet img").evaluate("img => img.naturalWidth") > 50
    screenshot(page, "record-paper-badge", full_page=False)
