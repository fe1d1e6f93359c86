"""In Debian's chromium: a board re-loaded with changed data shows what changed on its
history page, reached from the board, at desktop and phone widths."""

import pytest
from django.urls import reverse

from tests.helpers import NEW_MODEL_2026, SEED_FILE, SEED_SLUG, a_reloaded_seed

pytestmark = pytest.mark.browser


@pytest.fixture
def reloaded(transactional_db, load, seed_page, write_page):
    ok, _, err = load(SEED_FILE)
    assert ok, err
    page, gone = a_reloaded_seed(seed_page)
    ok, _, err = load(write_page(page))
    assert ok, err
    return page, gone


def test_the_history_page_shows_what_a_reload_changed(reloaded, live_server, page, screenshot):
    seed, gone = reloaded
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    page.click(".history-link a")
    page.wait_for_url(f"**/sota/{SEED_SLUG}/history")
    loads = page.locator("article.history-load")
    assert loads.count() == 2
    newest = loads.first
    assert "1 row added, 1 removed, 1 value changed" in newest.locator("h3").inner_text()
    value = newest.locator("table.history-values tbody tr")
    assert value.locator("td").all_inner_texts() == [
        "1", seed["rows"][0]["model"], "AUROC", "96.36 → 96.40",
    ]  # fmt: skip
    added = newest.locator("table.history-rows", has_text="Rows added")
    assert NEW_MODEL_2026 in added.inner_text()
    removed = newest.locator("table.history-rows", has_text="Rows removed")
    assert gone["model"] in removed.inner_text()
    assert "board added with 22 rows" in loads.last.inner_text()
    assert page.locator("article.history-snapshot").count() == 2
    screenshot(page, "history-desktop")

    # The editorial record is a link away, and the JSON beside the page.
    assert page.locator("a", has_text="editorial record").get_attribute("href") == (
        f"{reverse('leaderboards:changes')}?board={SEED_SLUG}"
    )
    data = page.request.get(
        live_server.url + reverse("leaderboards:leaderboard_history_json", args=[SEED_SLUG])
    ).json()
    assert data["loads"]["items"][0]["changed"][0]["new"] == "96.40"

    page.set_viewport_size({"width": 390, "height": 844})
    # Wide tables scroll inside their frame, not the page.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    screenshot(page, "history-phone")
