"""The results table of a big, wide board as a visitor sees it in Chromium (issue #12).

At 1280x900 and 390x844, light and dark: mostly empty metrics folded behind a link,
the header row and the Rank and Model columns in view while the table scrolls,
long titles clamped, page numbers, and on a phone cards with no sideways scroll.
"""

import json

import pytest
from django.urls import reverse

from leaderboards.format import derive
from tests.helpers import PWC_DATA, SEED_SLUG, scaled_page

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHOTS = "table"
WIDE_SLUG = SEED_SLUG  # the wide board is the seed page grown, so it keeps the seed's slug

LONG_TITLE = ("A Very Long Paper Title About Out-of-Distribution Detection " * 5)[:300]
LONG_MODEL = "ExtremelyLongModelName-With-Many-Variants (ViT-H/14, 1024px, fine-tuned) " * 2

# name -> share of rows with a value: two full, two mostly there, four nearly empty
EXTRA_METRICS = {
    "Params": 0.7,
    "GFLOPs": 0.55,
    "Hardware Burden": 0.01,
    "Operations per network pass": 0.01,
    "Accuarcy": 0.004,
    "energy consumption": 0.004,
}


def wide_page(seed_page, rows=260):
    page = scaled_page(seed_page, rows)
    page["metrics"] += list(EXTRA_METRICS)
    page["metric_direction"]["by_metric"].update(dict.fromkeys(EXTRA_METRICS))
    for index, row in enumerate(page["rows"]):
        for name, share in EXTRA_METRICS.items():
            if index < max(1, int(rows * share)):
                row["metrics"][name] = f"{index + 1}.5M"
    page["rows"][0]["paper_title"] = LONG_TITLE
    page["rows"][1]["model"] = LONG_MODEL
    return page


def imagenet_page(seed_page):
    """ImageNet's real 951 rows as PwC's page held them, in this site's page format."""
    scraped = json.loads(
        (PWC_DATA / "pwc-sota-page_image-classification-on-imagenet.json").read_text("utf-8")
    )
    names = list(scraped[0]["metrics"])
    rows = [
        {
            "rank_in_archive_order": index + 1,
            "model": row["Model"],
            "metrics": {name: raw for name, raw in row["metrics"].items() if raw is not None},
            "uses_additional_data": row["uses_additional_data"],
            "paper_date": row["evaluation_date"],
            "paper": row["paper"]["url"],
            "paper_url": None,
            "paper_title": row["paper"]["title"],
            "code": None,
            "n_code_links": 0,
            "syntology": None,
        }
        for index, row in enumerate(scraped)
    ]
    return {
        **seed_page,
        "url": "/sota/image-classification-on-imagenet",
        "task": {"name": "Image Classification", "url": "/task/image-classification", "note": None},
        "dataset": {"name": "ImageNet", "url": "/dataset/imagenet"},
        "metrics": names,
        "metric_direction": {"note": None, "by_metric": dict.fromkeys(names)},
        "source": {
            **seed_page["source"],
            "rows_end_at": max(row["paper_date"] for row in rows if row["paper_date"]),
        },
        "counts": derive.page_counts(rows),
        "rows": rows,
        "since_archive": None,
        "syntology": None,
    }


@pytest.fixture
def wide(load, seed_page, write_page):
    ok, _, err = load(write_page(wide_page(seed_page)))
    assert ok, err
    return reverse("leaderboards:leaderboard", args=[WIDE_SLUG])


def open_tab(browser, viewport, scheme="light"):
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    return context, context.new_page()


@pytest.fixture
def shoot(screenshot):
    def take(tab, name, full_page=False):
        return screenshot(tab, f"{SHOTS}-{name}", full_page=full_page)

    return take


def metric_headers(tab):
    return [
        text.strip().rstrip("▲▼↑↓ ").strip()
        for text in tab.locator("table.results thead th.metric").all_inner_texts()
    ]


def box_fits(tab):
    return tab.locator(".results-wrap").evaluate("el => el.scrollWidth <= el.clientWidth")


def page_fits(tab):
    return tab.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


# Folding --------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_wide_board_fits_its_box_at_1280_with_empty_metrics_folded(
    wide, live_server, browser, shoot, scheme
):
    context, tab = open_tab(browser, DESKTOP, scheme)
    tab.goto(live_server.url + wide + "#results")
    assert metric_headers(tab) == ["FPR95", "AUROC", "Params", "GFLOPs"]
    widths = tab.locator("table.results thead th").evaluate_all(
        "els => els.map(el => [el.textContent.trim(), Math.round(el.offsetWidth)])"
    )
    assert box_fits(tab), f"the folded table scrolls sideways at 1280 px: {widths}"
    folding = tab.locator(".folding").inner_text()
    assert "Show 4 more metrics: Hardware Burden (2 of 260 rows)" in folding
    assert "Metrics with a value in fewer than half of the rows are folded." in folding
    # Every cell of the Paper, Date and Code columns is inside the box, not off to its right.
    right = tab.locator(".results-wrap").bounding_box()
    code = tab.locator("table.results th.code").bounding_box()
    assert code["x"] + code["width"] <= right["x"] + right["width"] + 1
    shoot(tab, f"wide-1280-{scheme}")
    context.close()


def test_the_real_imagenet_board_fits_at_1280(
    load, seed_page, write_page, live_server, page, shoot
):
    ok, _, err = load(write_page(imagenet_page(seed_page)))
    assert ok, err
    page.goto(live_server.url + "/sota/image-classification-on-imagenet#results")
    assert metric_headers(page) == ["Top 1 Accuracy", "Number of params", "GFLOPs"]
    assert box_fits(page)
    assert page.locator("table.results tbody tr").count() == 100
    shoot(page, "imagenet-1280")


def test_the_unfold_link_sets_the_url_and_shows_the_columns_until_folded_again(
    wide, live_server, page
):
    page.goto(live_server.url + wide + "?sort=model")
    page.get_by_role("link", name="Show 4 more metrics").click()
    page.wait_for_url("**metrics=all**")
    assert "sort=model" in page.url  # the rest of the state is kept
    assert len(metric_headers(page)) == 8
    assert page.locator('td[data-label="energy consumption"]').first.is_visible()
    page.reload()  # the state is the URL's
    assert len(metric_headers(page)) == 8
    page.get_by_role("link", name="Fold them again").click()
    page.wait_for_url(lambda url: "metrics=" not in url)
    assert len(metric_headers(page)) == 4
    # One folded metric alone, by its name.
    page.locator(".folding").get_by_role("link", name="Accuarcy").click()
    page.wait_for_url("**metrics=Accuarcy**")
    assert metric_headers(page) == ["FPR95", "AUROC", "Params", "GFLOPs", "Accuarcy"]


# Sticky header and columns, clamped text -------------------------------------


def covering(tab, locator):
    """Whether the element drawn at the centre of `locator` is it (or inside it)."""
    return locator.evaluate(
        """el => {
            const r = el.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return el.contains(top);
        }"""
    )


def opaque(locator):
    return locator.evaluate(
        """el => {
            const c = getComputedStyle(el).backgroundColor;
            return c.startsWith("rgb(") || (c.startsWith("rgba(") && c.endsWith(", 1)"));
        }"""
    )


def inside_viewport(box, viewport):
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
        and box["y"] + box["height"] <= viewport["height"]
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_header_rank_and_model_stay_in_view_while_the_table_scrolls_both_ways(
    wide, live_server, browser, shoot, scheme
):
    context, tab = open_tab(browser, DESKTOP, scheme)
    tab.goto(live_server.url + wide + "?metrics=all#results")
    wrap = tab.locator(".results-wrap")
    assert not box_fits(tab), "with every metric shown the table should scroll sideways"
    wrap.scroll_into_view_if_needed()
    tab.mouse.move(640, 600)
    tab.mouse.wheel(0, 2500)  # a visitor scrolling down through the rows
    tab.mouse.wheel(900, 0)  # and across to the last columns
    # Wheel events land asynchronously, later still on a busy machine: wait for both.
    tab.wait_for_function(
        "el => el.scrollTop > 1000 && el.scrollLeft > 300", arg=wrap.element_handle()
    )
    header = tab.locator("table.results thead th.model")
    assert inside_viewport(header.bounding_box(), DESKTOP)
    assert covering(tab, header) and covering(tab, tab.locator("table.results thead th.rank"))
    # The row in the middle of the box: its Rank and Model cells are drawn on top.
    row = tab.locator("table.results tbody tr").nth(60)
    row.evaluate("el => el.scrollIntoView({block: 'center', inline: 'nearest'})")
    wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    for cell in (row.locator("td.rank"), row.locator("td.model")):
        assert inside_viewport(cell.bounding_box(), DESKTOP)
        assert covering(tab, cell), "a scrolled cell is drawn over a sticky one"
        assert opaque(cell)
    assert opaque(header)
    wrap_box = wrap.bounding_box()
    assert header.bounding_box()["y"] <= wrap_box["y"] + 2  # stuck at the top of the box
    shoot(tab, f"sticky-1280-{scheme}")
    context.close()


def test_long_titles_and_model_names_take_two_lines_at_most(wide, live_server, page):
    page.goto(live_server.url + wide)
    first = page.locator("table.results tbody tr").first
    title = first.locator("td.paper .clamp")
    assert title.get_attribute("title") == LONG_TITLE  # the whole title is the tooltip
    line = float(title.evaluate("el => parseFloat(getComputedStyle(el).lineHeight)"))
    assert title.bounding_box()["height"] <= 2 * line + 1
    assert first.bounding_box()["height"] <= 2 * line + 20  # two lines and the padding
    model = page.locator("table.results tbody tr").nth(1).locator("td.model .clamp")
    assert model.bounding_box()["height"] <= 2 * line + 1
    assert model.get_attribute("title") == LONG_MODEL


# Pagination ------------------------------------------------------------------


def test_page_numbers_navigate_and_keep_the_filters_and_sort(wide, live_server, page):
    page.goto(live_server.url + wide + "?has_code=true&sort=date")
    nav = page.get_by_role("navigation", name="Result pages")
    assert nav.locator("[aria-current=page]").inner_text() == "1"
    nav.get_by_role("link", name="Page 2").click()
    page.wait_for_url("**page=2**")
    assert "has_code=true" in page.url and "sort=date" in page.url
    assert nav.locator("[aria-current=page]").inner_text() == "2"
    assert page.locator("table.results td.rank").count() == 100
    nav.get_by_role("link", name="Last »").click()
    page.wait_for_url("**page=3**")
    assert "has_code=true" in page.url
    assert nav.locator(".page-of").inner_text() == "Page 3 of 3"
    nav.get_by_role("link", name="« First").click()
    page.wait_for_url("**page=1**")
    assert "sort=date" in page.url


# Phones ----------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("board", ["wide", "seed"])
def test_a_phone_reads_results_as_cards_without_sideways_scrolling(
    load, seed_page, write_page, live_server, browser, shoot, scheme, board
):
    if board == "wide":
        seed_page = wide_page(seed_page)
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    context, tab = open_tab(browser, PHONE, scheme)
    tab.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]) + "#results")
    assert page_fits(tab)
    card = tab.locator("table.results tbody tr").first
    text = card.inner_text()
    # Each metric with its name (the cell's label, drawn before it), then the paper,
    # its date and its code.
    assert "16.84" in text and "96.36" in text
    labels = card.locator("td.metric").evaluate_all(
        "els => els.filter(el => el.offsetHeight > 0)"
        ".map(el => getComputedStyle(el, '::before').content)"
    )
    assert labels[:2] == ['"FPR95"', '"AUROC"']
    assert "24 Mar 2025" in text and "Code" in text
    assert card.bounding_box()["width"] <= PHONE["width"]
    # The header row became the sort links, each reachable.
    assert tab.locator("table.results thead").get_by_role("link", name="AUROC").is_visible()
    shoot(tab, f"phone-{board}-{scheme}")
    tab.locator("nav.pagination, .panels").first.scroll_into_view_if_needed()
    assert page_fits(tab)
    shoot(tab, f"phone-{board}-{scheme}-below")
    context.close()


# Words -----------------------------------------------------------------------


FIELD_NAMES = (
    "n_pointer_only_licence",
    "samples_row_weighted",
    "samples_over_distinct_papers",
    "rows_end_at",
    "rows_with_graph_line",
    "wilson95_lower",
)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_panels_speak_in_visitors_words(seeded, live_server, browser, shoot, viewport):
    context, tab = open_tab(browser, viewport)
    tab.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    words = (
        " ".join(
            tab.locator(selector).inner_text()
            for selector in (".board-header", "#results", "#provenance", "#verification")
        )
        + tab.locator("#since-archive").inner_text()
    )
    for field in FIELD_NAMES:
        assert field not in words
    assert "Row-weighted: row-weighted" not in words and "null" not in words
    assert "Once per row" in words and "Each paper once" in words
    assert "The pointer-only count counts samples" in words
    read = tab.locator("#verification time")
    assert read.inner_text() == "25 Sep 2026, 09:33 UTC"
    assert read.get_attribute("datetime") == "2026-09-25T09:33:49+00:00"
    # The exact field name is the label's tooltip.
    label = tab.locator("#verification th", has_text="Once per row")
    assert label.get_attribute("title") == "samples_row_weighted"
    tab.locator("#verification").scroll_into_view_if_needed()
    shoot(tab, f"panels-{viewport['width']}")
    context.close()


def test_sorting_from_the_keyboard_keeps_focus_on_the_sorted_header(seeded, live_server, page):
    """Enter on a column's header opens the table sorted by it, that header focused and
    announced as sorted: the next Tab goes on from there, not from the page's top."""
    page.goto(live_server.url + reverse("leaderboards:leaderboard", args=[SEED_SLUG]))
    header = page.locator("table.results th a", has_text="AUROC")
    header.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    focused = page.evaluate(
        "[document.activeElement.textContent.trim(),"
        " document.activeElement.closest('th').getAttribute('aria-sort')]"
    )
    assert focused[0].startswith("AUROC")
    assert focused[1] in ("ascending", "descending")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # again: the other way, still focused
    assert page.evaluate("document.activeElement.textContent.trim()").startswith("AUROC")
