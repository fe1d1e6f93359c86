"""In Debian's chromium, at 1280 and 390 px: a visitor suggests a correction to a row and a
newer result; an editor finds them in the queue, accepts one as an added result and rejects
the other; the board and the public record follow, crediting the suggestion."""

import pytest
from django.urls import reverse

from leaderboards.models import Suggestion
from tests.helpers import EDITOR_PASSWORD, SEED_SLUG, SPAM_MODEL

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
NEW_MODEL = "SuggestedOOD (ViT-B/16)"


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_visitor_suggests_a_correction_to_a_row_from_the_keyboard(
    seeded, live_server, browser, screenshot, width
):
    context = browser.new_context(viewport=WIDTHS[width])
    page = context.new_page()
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    link = page.locator("table.results tbody tr", has_text=SPAM_MODEL).locator("a.suggest-row")
    # A pencil to the eye, its whole name to a screen reader.
    assert link.get_attribute("title") == "Suggest a correction"
    assert link.text_content() == f"✎Suggest a correction to {SPAM_MODEL}"
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/correction?row=*")
    assert SPAM_MODEL in page.locator("p.lede strong").inner_text()
    # Every field is reached by Tab, labelled, and the honeypot is not among them.
    page.locator("#id_what").focus()
    page.keyboard.type("The FPR95 is the paper's AUROC.")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "id_why"
    page.keyboard.type("Table 3 of the paper, page 7.")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "id_citation_url"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.type") == "submit"
    assert no_sideways_scroll(page)
    screenshot(page, f"suggest-correction-{width}")
    page.keyboard.press("Enter")
    page.wait_for_url("**/sent")
    assert "the editors have your suggestion" in page.locator("h1").inner_text()
    screenshot(page, f"suggest-sent-{width}")
    [suggestion] = Suggestion.objects.all()
    assert suggestion.row_model == SPAM_MODEL and suggestion.why == "Table 3 of the paper, page 7."
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_newer_result_without_a_citation_is_sent_back_with_the_reason(
    seeded, live_server, browser, screenshot, width
):
    context = browser.new_context(viewport=WIDTHS[width])
    page = context.new_page()
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    page.click("text=Suggest a newer result")
    page.fill("#id_model", NEW_MODEL)
    page.fill("#id_value_0", "11.5")
    page.fill("#id_paper_title", "SuggestedOOD: a newer paper")
    page.click(".suggest-form button[type=submit]")
    error = page.locator("#id_citation_url_error")
    assert error.inner_text() == "This field is required."
    described = page.get_attribute("#id_citation_url", "aria-describedby")
    assert "id_citation_url_error" in described
    assert page.get_attribute("#id_citation_url", "aria-invalid") == "true"
    # What was typed is kept.
    assert page.input_value("#id_model") == NEW_MODEL
    assert no_sideways_scroll(page)
    screenshot(page, f"suggest-result-error-{width}")
    page.fill("#id_citation_url", "https://arxiv.org/abs/2512.00002")
    page.click(".suggest-form button[type=submit]")
    page.wait_for_url("**/sent")
    context.close()


@pytest.mark.usefixtures("browser_editor")
def test_an_editor_accepts_one_suggestion_rejects_another_and_the_record_credits_it(
    seeded, live_server, browser, screenshot
):
    context = browser.new_context(viewport=WIDTHS["desktop"])
    visitor = context.new_page()
    visitor.goto(live_server.url + reverse("leaderboards:suggest_result", args=[SEED_SLUG]))
    visitor.fill("#id_model", NEW_MODEL)
    visitor.fill("#id_value_0", "11.5")
    visitor.fill("#id_value_1", "97.0")
    visitor.fill("#id_paper_title", "SuggestedOOD: a newer paper")
    visitor.fill("#id_citation_url", "https://arxiv.org/abs/2512.00002")
    visitor.fill("#id_what", "Table 1.")
    visitor.click(".suggest-form button[type=submit]")
    visitor.wait_for_url("**/sent")
    visitor.goto(live_server.url + reverse("leaderboards:suggest_correction", args=[SEED_SLUG]))
    visitor.fill("#id_what", "BUY CHEAP WATCHES")
    visitor.fill("#id_why", "cheap")
    visitor.click(".suggest-form button[type=submit]")
    visitor.wait_for_url("**/sent")
    context.close()

    editor = browser.new_context(viewport=WIDTHS["desktop"]).new_page()
    editor.goto(live_server.url + reverse("admin:index"))
    editor.fill("#id_username", "erin")
    editor.fill("#id_password", EDITOR_PASSWORD)
    editor.click("input[type=submit]")
    editor.goto(live_server.url + reverse("admin:leaderboards_suggestion_changelist"))
    rows = editor.locator("#result_list tbody tr")
    assert rows.count() == 2
    screenshot(editor, "suggest-queue")
    editor.click(f"text=Newer result: {NEW_MODEL}")
    screenshot(editor, "suggest-decide")
    editor.click("a.accept-add")
    assert editor.input_value("#id_model") == NEW_MODEL
    assert editor.input_value("#id_value_1") == "97.0"
    assert "Saving accepts a visitor's suggestion" in editor.locator(".accepting").inner_text()
    editor.click("input[name=_save]")
    editor.wait_for_selector(".messagelist .success")

    editor.goto(live_server.url + reverse("admin:leaderboards_suggestion_changelist"))
    editor.click("text=BUY CHEAP WATCHES")
    editor.fill(".decide-reject textarea", "Spam.")
    editor.click(".decide-reject input[type=submit]")
    editor.wait_for_selector(".messagelist .success")
    states = dict(Suggestion.objects.values_list("kind", "state"))
    assert states == {"result": "accepted", "correction": "rejected"}

    public = browser.new_context(viewport=WIDTHS["phone"]).new_page()
    public.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    assert public.locator("table.results tbody tr", has_text=NEW_MODEL).count() == 1
    public.goto(live_server.url + reverse("leaderboards:changes") + "?kind=suggestions")
    entries = public.locator("table.record tbody tr")
    assert entries.count() == 1
    assert "suggested by a visitor" in entries.first.inner_text()
    assert "BUY CHEAP WATCHES" not in public.content() and "Spam." not in public.content()
    screenshot(public, "suggest-record-phone")
