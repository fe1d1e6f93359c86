"""Imported boards, task trees and the area index as a visitor sees them, at both widths."""

import io

import pytest
from django.core.management import call_command

from tests.helpers import PWC_DATA, ROOT, SEED_FILE

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture
def imported(transactional_db):
    # The areas come from the fixture `make run` loads; the samples name none.
    call_command("loaddata", str(ROOT / "fixtures" / "areas.json"), stdout=io.StringIO())
    call_command("load_seeds", str(SEED_FILE), stdout=io.StringIO())
    for name in ("sota-extractor_ogb.json", "sota-extractor_nlp-progress.json"):
        call_command("import_pwc", str(PWC_DATA / name), stdout=io.StringIO())


@pytest.fixture(params=list(WIDTHS))
def tab(request, browser):
    width, height = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.width_name = request.param
    yield page
    context.close()


def fits(tab):
    return tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_an_ogb_board_says_code_not_checked(imported, live_server, tab, screenshot):
    tab.goto(live_server.url + "/sota/node-property-prediction-on-ogbn-products")
    figures = tab.locator(".key-figures").inner_text()
    assert "code not checked" in figures
    assert "archive rows up to 17 Jun 2021" in figures
    assert "Code not checked" in tab.locator("#verification").inner_text()
    assert "Read at" not in tab.locator("body").inner_text()
    snapshot = tab.locator("#provenance dd").nth(1).inner_text()
    assert snapshot == "unknown: the archive copy's date was not recorded"
    assert "arXiv:2104.09376" in tab.locator("#results").inner_text()
    assert fits(tab)
    screenshot(tab, f"honest-ogb-board-{tab.width_name}")


def test_dialogue_lists_its_subtasks(imported, live_server, tab, screenshot):
    tab.goto(live_server.url + "/task/dialogue")
    assert (
        "10 leaderboards, 0 of them its own, 10 in its subtasks"
        in tab.locator(".task-figures").inner_text()
    )
    assert tab.locator("table.subtasks tbody tr").count() == 5
    wrap = tab.locator(".table-wrap").filter(has=tab.locator("table.subtasks"))
    assert wrap.evaluate("el => el.scrollWidth <= el.clientWidth"), "the subtasks table scrolls"
    assert fits(tab)
    screenshot(tab, f"honest-task-dialogue-{tab.width_name}")


def test_the_area_index_from_a_breadcrumb(imported, live_server, tab, screenshot):
    tab.goto(live_server.url + "/sota/node-property-prediction-on-ogbn-products")
    tab.locator(".breadcrumbs").get_by_role("link", name="Areas").click()
    tab.wait_for_url(live_server.url + "/area/")
    assert tab.locator("table.areas tbody tr").count() >= 2
    assert fits(tab)
    screenshot(tab, f"honest-area-index-{tab.width_name}")
    tab.locator("table.areas a").first.click()
    tab.wait_for_url(live_server.url + "/area/*")
    tab.locator(".breadcrumbs").get_by_role("link", name="Areas").click()
    tab.wait_for_url(live_server.url + "/area/")


def test_the_favicon_loads(imported, live_server, tab):
    response = tab.goto(live_server.url + "/favicon.ico")
    assert response.ok
    assert "svg" in response.headers["content-type"]
