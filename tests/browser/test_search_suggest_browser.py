"""Search suggestions in chromium: typed, chosen by keyboard, announced, and optional."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TASK_URL = reverse("leaderboards:task", args=["out-of-distribution-detection"])


@pytest.fixture
def errors(page):
    """Console errors (a CSP refusal is one) and uncaught exceptions of the tab."""
    found = []
    # The site has no favicon; chromium's own request for one is not the page's error.
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: found.append(str(error)))
    return found


def typed(page, live_server, text, path=None):
    page.goto(live_server.url + (path or reverse("leaderboards:task_list")))
    box = page.locator("#site-search-q")
    box.press_sequentially(text, delay=20)
    return box


def test_typing_shows_suggestions_that_the_keyboard_chooses(
    seeded, live_server, page, screenshot, errors
):
    box = typed(page, live_server, "out-of-dist")
    listbox = page.get_by_role("listbox")
    expect(listbox).to_be_visible()
    expect(box).to_have_attribute("role", "combobox")
    expect(box).to_have_attribute("aria-expanded", "true")
    expect(box).to_have_attribute("aria-controls", listbox.get_attribute("id"))
    options = listbox.get_by_role("option")
    expect(options.first).to_contain_text("Out-of-Distribution Detection")
    expect(options.first).to_contain_text("Task")
    expect(page.get_by_role("status").first).to_have_text(re.compile(r"^\d+ suggestions"))
    screenshot(page, "suggest-open", full_page=False)

    box.press("ArrowDown")
    box.press("ArrowDown")
    second = options.nth(1)
    expect(second).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", second.get_attribute("id"))
    screenshot(page, "suggest-second-chosen", full_page=False)
    box.press("ArrowUp")
    expect(options.first).to_have_attribute("aria-selected", "true")
    expect(second).to_have_attribute("aria-selected", "false")

    box.press("Escape")
    expect(listbox).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).not_to_have_attribute("aria-activedescendant", re.compile(".*"))
    expect(box).to_have_value("out-of-dist")

    box.press("ArrowDown")  # opens again on the first
    expect(options.first).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    page.wait_for_url(live_server.url + TASK_URL)
    assert errors == []


def test_enter_with_nothing_chosen_submits_the_search(seeded, live_server, page, errors):
    box = typed(page, live_server, "imagenet")
    expect(page.get_by_role("listbox")).to_be_visible()
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q=imagenet$"))
    expect(page.get_by_role("heading", name="Datasets")).to_be_visible()
    assert errors == []


def test_a_click_chooses_and_no_match_says_so(seeded, live_server, page, errors):
    box = typed(page, live_server, "quantum chromodynamics", path=reverse("leaderboards:home"))
    expect(page.get_by_role("status").first).to_have_text("No suggestions")
    expect(page.get_by_role("listbox").first).to_be_hidden()
    box.fill("")
    box.press_sequentially("npos", delay=20)
    option = page.get_by_role("option", name=re.compile("NPOS"))
    option.click()
    page.wait_for_url(f"{live_server.url}/model/npos-*")  # the model's page
    assert errors == []


def test_the_search_page_box_suggests_too(seeded, live_server, page, screenshot, errors):
    page.goto(live_server.url + reverse("leaderboards:search"))
    box = page.locator("#search-q")
    box.press_sequentially("resnet", delay=20)
    expect(page.locator(".hero-search").get_by_role("option").first).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    screenshot(page, "suggest-search-page", full_page=False)
    assert errors == []


def test_without_script_the_box_is_a_plain_search_form(seeded, live_server, browser):
    context = browser.new_context(java_script_enabled=False)
    tab = context.new_page()
    try:
        tab.goto(live_server.url + reverse("leaderboards:task_list"))
        box = tab.locator("#site-search-q")
        assert box.get_attribute("role") is None
        box.fill("imagenet")
        box.press("Enter")
        tab.wait_for_url(re.compile(r"/search\?q=imagenet$"))
        assert tab.get_by_role("heading", name="Datasets").is_visible()
    finally:
        context.close()
