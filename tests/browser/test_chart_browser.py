"""The progress chart as a visitor meets it in Chromium (issue #12): keyboard, phone, tips,
labels, ticks, dark mode, on PwC's own ImageNet board (951 rows, higher is better)."""

import copy
import json
import re

import pytest
from django.urls import reverse

from leaderboards.format import derive
from leaderboards.web.chart import MAX_POINTS
from tests.helpers import PWC_DATA

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHOTS = "/tmp/shots/chart"
SLUG = "image-classification-on-imagenet"


def imagenet_page(seed_page):
    """The rows of PwC's ImageNet page (as its /sota page embedded them) as a page file."""
    scraped = json.loads(
        (PWC_DATA / "pwc-sota-page_image-classification-on-imagenet.json").read_text()
    )
    page = copy.deepcopy(seed_page)
    page["url"] = f"/sota/{SLUG}"
    page["task"] = {"name": "Image Classification", "url": "/task/image-classification"}
    page["task"]["note"] = None
    page["dataset"] = {"name": "ImageNet", "url": "/dataset/imagenet"}
    page["metrics"] = ["Top 1 Accuracy"]
    page["metric_direction"]["by_metric"] = {"Top 1 Accuracy": "higher"}
    page["rows"] = [
        {
            "rank_in_archive_order": index,
            "model": row["Model"],
            "metrics": {"Top 1 Accuracy": row["metrics"]["Top 1 Accuracy"]},
            "uses_additional_data": row["uses_additional_data"],
            "paper_date": row["evaluation_date"],
            "paper": None,
            "paper_url": None,
            "paper_title": row["paper"]["title"] if row["paper"] else None,
            "code": None,
            "n_code_links": 0,
            "syntology": None,
        }
        for index, row in enumerate(scraped, start=1)
    ]
    page["counts"] = derive.page_counts(page["rows"])
    page["syntology"].update(derive.syntology_figures(page["rows"]))
    for name in ("samples_over_distinct_papers", "samples_row_weighted"):
        page["syntology"][name]["note"] = "n"
    return page


@pytest.fixture
def imagenet(load, seed_page, write_page):
    ok, _, err = load(write_page(imagenet_page(seed_page)))
    assert ok, err
    return reverse("leaderboards:leaderboard", args=[SLUG])


@pytest.fixture(params=["desktop", "phone", "dark"])
def view(request, browser):
    """A tab at each size the issue was reported at, and one in dark mode."""
    size = PHONE if request.param == "phone" else DESKTOP
    scheme = "dark" if request.param == "dark" else "light"
    context = browser.new_context(viewport=size, color_scheme=scheme)
    tab = context.new_page()
    tab.name = request.param
    yield tab
    context.close()


def boxes(locator):
    """Where each element's own shape lies on the screen: a text's glyphs, not its halo."""
    return locator.evaluate_all(
        "all => all.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; })"
    )


def intersect(a, b):
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def overlapping(found):
    return [(a, b) for i, a in enumerate(found) for b in found[i + 1 :] if intersect(a, b)]


def test_only_records_are_tab_stops_and_the_skip_link_jumps_to_the_results(
    imagenet, live_server, view
):
    view.goto(live_server.url + imagenet)
    chart = view.locator("figure.chart")
    records = chart.locator("g.point.record")
    assert 0 < records.count() < chart.locator("g.point").count() <= MAX_POINTS
    assert chart.locator("[tabindex]").count() == records.count()
    assert "every record-setting result is shown" in chart.locator("figcaption").inner_text()

    # Tabbing from the metric heading: the skip link first, visible once focused.
    view.locator("#chart-heading").evaluate("h => { h.tabIndex = -1; h.focus(); }")
    view.keyboard.press("Tab")
    skip = view.get_by_role("link", name="Skip the chart")
    assert view.evaluate("document.activeElement.textContent") == "Skip the chart"
    assert skip.is_visible() and skip.bounding_box()["x"] >= 0
    view.screenshot(path=f"{SHOTS}/skip-link-{view.name}.png")

    # Each record takes one Tab, oldest first, and shows a visible focus ring.
    view.keyboard.press("Tab")
    first = records.first
    assert first.evaluate("p => p === document.activeElement")
    ring = first.locator("circle").evaluate("c => getComputedStyle(c).strokeWidth")
    assert ring == "3px"
    for _ in range(records.count() - 1):
        view.keyboard.press("Tab")
    assert records.last.evaluate("p => p === document.activeElement")
    view.keyboard.press("Tab")
    assert not view.evaluate("document.activeElement.closest('svg')")

    # The skip link: Enter, then Tab lands inside the results, past every point.
    view.locator("#chart-heading").focus()
    view.keyboard.press("Tab")
    view.keyboard.press("Enter")
    view.keyboard.press("Tab")
    assert view.evaluate("!!document.activeElement.closest('#results')")


def test_a_board_of_unknown_direction_has_no_chart_tab_stops(unsettled, live_server, page):
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[unsettled.slug]))
    assert page.locator("figure.chart g.point").count() == 21
    assert page.locator("figure.chart .point[tabindex]").count() == 0
    # Only the scroller itself, so that a keyboard can scroll it on a phone.
    assert page.locator("figure.chart [tabindex]").count() == 1
    assert page.locator("figure.chart [tabindex]").first.evaluate("e => e.className") == "plot"
    assert page.get_by_role("link", name="Skip the chart").count() == 0


def test_the_tip_shows_model_value_and_date_on_focus_and_on_hover(imagenet, live_server, view):
    view.goto(live_server.url + imagenet)
    chart = view.locator("figure.chart")
    holder = chart.locator("g.point.record").last  # the newest record: the record holder
    tip = holder.locator("text.tip")
    assert not tip.is_visible()
    holder.focus()
    assert tip.is_visible()
    # The archive's string, its date in words: "OmniVec: 92.4% (7 Nov 2023)".
    assert tip.text_content() == "OmniVec: 92.4% (7 Nov 2023)"
    assert holder.locator("title").text_content() == "OmniVec: 92.4% (7 Nov 2023)"
    box, plot = tip.bounding_box(), chart.locator(".plot").bounding_box()
    assert plot["x"] <= box["x"] and box["x"] + box["width"] <= plot["x"] + plot["width"]
    view.screenshot(path=f"{SHOTS}/tip-focus-{view.name}.png")

    other = chart.locator("g.point:not(.record)").first
    view.keyboard.press("Escape")
    other.locator("circle").hover()
    text = other.locator("text.tip")
    assert text.is_visible()
    assert text.text_content() == other.locator("title").text_content()
    assert re.search(r"\(\d{1,2} [A-Z][a-z]{2} \d{4}\)$", text.text_content())


def test_on_a_phone_the_chart_opens_on_the_newest_results(imagenet, live_server, browser):
    context = browser.new_context(viewport=PHONE)
    tab = context.new_page()
    tab.goto(live_server.url + imagenet)
    plot = tab.locator("figure.chart .plot")
    plot.scroll_into_view_if_needed()
    area = plot.bounding_box()
    newest = max(
        tab.locator("figure.chart g.point").all(),
        key=lambda point: float(point.locator("circle").get_attribute("cx")),
    )
    holder = tab.locator("figure.chart g.point.record").last
    for point in (newest, holder):
        box = point.locator("circle").bounding_box()
        assert area["x"] <= box["x"] and box["x"] + box["width"] <= area["x"] + area["width"]
    # Nothing but the plot scrolls sideways, and the page did not scroll to get there.
    assert tab.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert tab.evaluate("window.scrollX") == 0
    tab.locator("#chart").screenshot(path=f"{SHOTS}/phone-opens.png")
    context.close()


def test_labels_and_ticks_never_collide(imagenet, live_server, view):
    view.goto(live_server.url + imagenet)
    chart = view.locator("figure.chart")
    labels = boxes(chart.locator("g.labels text"))
    assert len(labels) >= 3
    assert overlapping(labels) == []
    # Nor does a label sit on a point.
    circles = boxes(chart.locator("g.point circle"))
    assert [(a, b) for a in labels for b in circles if intersect(a, b)] == []
    ticks = boxes(chart.locator("text.x-tick"))
    assert len(ticks) >= 2
    assert overlapping(ticks) == []
    view.locator("#chart").screenshot(path=f"{SHOTS}/chart-{view.name}.png")


def test_the_chart_reads_in_dark_mode(imagenet, live_server, browser):
    context = browser.new_context(viewport=DESKTOP, color_scheme="dark")
    tab = context.new_page()
    tab.goto(live_server.url + imagenet)

    def colour(selector, prop):
        return tab.locator(selector).first.evaluate(f"e => getComputedStyle(e).{prop}")

    background = colour("figure.chart", "backgroundColor")
    assert background == "rgb(18, 22, 28)"
    # Labels and ticks take the dark palette's light ink, not the light palette's.
    assert colour("figure.chart g.labels text", "fill") == "rgb(228, 232, 238)"
    assert colour("figure.chart g.axis text", "fill") == "rgb(154, 165, 180)"
    assert colour("figure.chart path.frontier", "stroke") == "rgb(127, 212, 154)"
    tab.locator("#chart").screenshot(path=f"{SHOTS}/chart-dark.png")
    context.close()
