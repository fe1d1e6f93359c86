import html as htmllib
import re

import pytest
from django.urls import reverse

from leaderboards.models import Metric
from leaderboards.web.table import mostly_empty
from tests.helpers import RANK_CELL, SEED_SLUG, models_in_order, scaled_page

URL = reverse("leaderboards:leaderboard", args=[SEED_SLUG])


def get(client, query=""):
    response = client.get(URL + query)
    return response, response.content.decode()


def model_row(html, model):
    start = html.index(f'<span class="clamp" title="{model}">')
    return html[start : html.index("</tr>", start)]


def ranks_in_order(html):
    return [int(rank) for rank in re.findall(RANK_CELL.format(r"(\d+)"), html)]


def section(html, element_id):
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


def visible(html):
    """The text a visitor reads: no tags, so no attribute (a tooltip) either."""
    blocks = re.sub(r"</(?:td|th|dt|dd|p|li|h\d|div|tr|caption)>", " ", html)
    return " ".join(htmllib.unescape(re.sub(r"<[^>]*>", "", blocks)).split())


# Header and table ---------------------------------------------------------


def test_header_links_task_dataset_and_area_and_says_where_the_description_came_from(
    seeded, client
):
    _, html = get(client)
    assert '<a href="/task/out-of-distribution-detection">Out-of-Distribution Detection</a>' in html
    assert '<a href="/dataset/imagenet-1k-vs-sun">ImageNet-1k vs SUN</a>' in html
    assert ">Computer Vision</a>" in html
    assert "Detect out-of-distribution or anomalous examples." in html
    assert "from the task" in html


def test_task_and_area_notes_show_where_present(load, seed_page, write_page, client):
    seed_page["task"]["note"] = "Split chosen by the archive."
    seed_page["category_note"] = "Also listed under Methodology."
    load(write_page(seed_page))
    _, html = get(client)
    assert "Split chosen by the archive." in html
    assert "Also listed under Methodology." in html


def test_rows_show_values_as_stored_and_blank_where_a_metric_is_missing(seeded, client):
    _, html = get(client)
    mood = model_row(html, "MOOD")
    # MOOD has no FPR95 (the first metric column) and AUROC "89.8", not "89.80".
    assert (
        '<td class="num metric" data-label="FPR95"></td>'
        '<td class="num metric" data-label="AUROC">89.8</td>'
    ) in mood


def test_verification_reads_as_samples_that_ran_and_is_absent_without_a_block(seeded, client):
    _, html = get(client)
    assert "14 of 20 code samples ran" in html
    assert "38 pointer-only (licence)" in html
    assert "ran" not in model_row(html, "CMA(ViT-B/16, NegLabel)")


def test_code_link_count_shows_when_a_row_has_several(seeded, client):
    _, html = get(client)
    assert "5 links" in html  # MOS lists five code links


# Sorting ------------------------------------------------------------------


def test_sorting_by_a_metric_uses_the_number_and_keeps_the_archive_rank(seeded, client):
    _, html = get(client, "?sort=AUROC")
    models = models_in_order(html)
    assert models[:3] == ["CMA(ViT-B/16, NegLabel)", "LINe (ResNet50)", "SCALE (ResNet50)"]
    # Rows with no AUROC come last, in archive order.
    assert models[-4:] == ["GradNorm (ResNetv2-101)", "SHE", "DML", "RP+GradNorm"]
    assert ranks_in_order(html)[:3] == [1, 2, 4]


def test_rows_without_a_number_sort_last_the_other_way_too(seeded, client):
    _, html = get(client, "?sort=AUROC&order=asc")
    models = models_in_order(html)
    assert models[0] == "DOE"  # 76.26, the lowest
    assert models[-4:] == ["GradNorm (ResNetv2-101)", "SHE", "DML", "RP+GradNorm"]


def test_a_value_with_no_number_sorts_last(load, seed_page, write_page, client):
    seed_page["rows"][0]["metrics"]["AUROC"] = "—"
    load(write_page(seed_page))
    _, html = get(client, "?sort=AUROC")
    models = models_in_order(html)
    assert models[0] == "LINe (ResNet50)"
    assert models.index("CMA(ViT-B/16, NegLabel)") > models.index("DOE")
    assert 'data-label="AUROC">—</td>' in html  # still shown as written


def test_sorting_by_date_and_model(seeded, client):
    _, html = get(client, "?sort=date")
    assert models_in_order(html)[0] == "CMA(ViT-B/16, NegLabel)"  # 2025, the newest
    _, html = get(client, "?sort=model&order=desc")
    assert models_in_order(html)[0] == "SHE"


def test_sorting_by_verification_code_and_extra_data(seeded, client):
    _, html = get(client, "?sort=verified")
    models = models_in_order(html)
    assert models[:2] == ["KNN (ResNet-50 SupCon)", "KNN (ResNet-50)"]  # 30 samples ran
    assert models[-1] == "MOOD"  # no verification block: last, in archive order
    _, html = get(client, "?sort=code")
    assert models_in_order(html)[0] == "MOS (BiT-S-R101x1)"  # five code links
    assert models_in_order(html)[-1] == "DML"  # no code
    _, html = get(client, "?sort=extra")
    assert ranks_in_order(html)[:2] == [3, 11]


def test_column_headers_link_to_their_sort_and_mark_the_sorted_one(seeded, client):
    _, html = get(client, "?sort=AUROC")
    assert (
        'aria-sort="descending"><a id="sort-metric-1" '
        'href="?sort=AUROC&amp;order=asc#sort-metric-1"' in html
    )
    assert 'id="sort-metric-0" href="?sort=FPR95#sort-metric-0"' in html


@pytest.mark.parametrize(
    "query",
    ["?sort=nonsense", "?sort=AUROC&order=sideways", "?sort=", "?page=x", "?page=9", "?chart=x"],
)
def test_unknown_sort_or_page_is_ignored(seeded, client, query):
    response, html = get(client, query)
    assert response.status_code == 200
    if "AUROC" not in query:
        assert ranks_in_order(html) == list(range(1, 23))


# Filters ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?extra_data=true", [3, 11]),
        ("?has_code=false", [18]),
        ("?model=knn", [15, 19]),
        ("?date_from=2023-09-01", [3, 4, 1]),
        ("?date_from=2021-11-01&date_to=2021-11-30", [5, 9, 14]),
        ("?ran=false", [1, 8, 17, 18, 20, 21, 22]),
    ],
)
def test_filters_narrow_the_rows(seeded, client, query, expected):
    _, html = get(client, query + "&sort=date&order=asc" if "date" in query else query)
    assert sorted(ranks_in_order(html)) == sorted(expected)
    assert f"{len(expected)} of 22 rows match" in html


def test_rows_without_a_sample_that_ran_survive_a_deleted_row(seeded, client):
    seeded.rows.get(rank=2).delete()  # its verification stays, pointing nowhere
    _, html = get(client, "?ran=false")
    assert sorted(ranks_in_order(html)) == [1, 8, 17, 18, 20, 21, 22]


def test_rows_with_a_sample_that_ran(seeded, client):
    _, html = get(client, "?ran=true")
    assert len(ranks_in_order(html)) == 15


def test_filters_and_sort_combine(seeded, client):
    _, html = get(client, "?ran=true&extra_data=false&sort=AUROC")
    assert models_in_order(html)[:2] == ["LINe (ResNet50)", "SCALE (ResNet50)"]


@pytest.mark.parametrize(
    "query",
    ["?date_from=yesterday", "?date_to=2023-02-30", "?date_from=99999-01-01"],
)
def test_a_bad_filter_value_is_a_clear_400(seeded, client, query):
    response, html = get(client, query)
    assert response.status_code == 400
    assert "That filter could not be read" in html
    assert "Enter a valid date" in html


@pytest.mark.parametrize(
    "query",
    [
        "?sort=%00&order=%00&chart=%00",
        "?extra_data=%00&has_code=%FF&ran=",
        "?date_from=0001-01-01&date_to=9999-12-31",
        "?page=-1",
        "?page=1e99",
        "?model=" + "x" * 5000,
        "?sort=AUROC&sort=FPR95&chart=AUROC&chart=",
    ],
)
def test_hostile_query_strings_never_fail(seeded, client, query):
    response, _ = get(client, query)
    assert response.status_code in (200, 400)


def test_an_unreadable_yes_no_value_means_any(seeded, client):
    response, html = get(client, "?has_code=maybe")
    assert response.status_code == 200
    assert len(ranks_in_order(html)) == 22


def test_no_match_says_so(seeded, client):
    _, html = get(client, "?model=zzzz")
    assert "No rows match these filters." in html


# The chart ----------------------------------------------------------------


def test_chart_plots_the_first_metric_by_default_with_points_only_when_direction_unknown(
    unsettled, client
):
    _, html = get(client)
    chart = section(html, "chart")
    assert '<figure class="chart">' in chart
    assert chart.count("<circle ") == 21  # MOOD has no FPR95
    # No records, so no point to tab to; only the plot's scroller takes focus.
    assert not re.search(r'<g class="point[^>]*tabindex', chart)
    assert chart.count('tabindex="0"') == 1
    assert 'class="frontier"' not in chart
    assert "record" not in re.sub(r"<figcaption>.*", "", chart, flags=re.S)
    assert "Points only: the direction of FPR95 is unknown" in chart
    assert "inferred from the metric name only" in chart  # the file's own note


def test_chart_switches_metric_from_the_query_string(seeded, client):
    _, html = get(client, "?chart=AUROC")
    chart = section(html, "chart")
    assert chart.count("<circle ") == 18
    assert '<title id="chart-title">AUROC of' in chart
    assert '<a href="?chart=AUROC#chart" aria-current="true">AUROC</a>' in chart


def test_known_direction_adds_the_frontier_and_marks_records(seeded, client):
    Metric.objects.filter(leaderboard=seeded, name="AUROC").update(editor_direction="higher")
    _, html = get(client, "?chart=AUROC")
    chart = section(html, "chart")
    assert chart.count('<path class="frontier"') == 1
    records = re.findall(r'<g class="point record[^"]*" tabindex="0"><title>([^:]+):', chart)
    # Oldest first: the records are the chart's tab stops, in the order they are drawn.
    assert [htmllib.unescape(name) for name in records] == [
        "MOS (BiT-S-R101x1)",
        "DICE + ReAct (ResNet-50)",
        "RankFeat (ResNetv2-101)",
        "MCM (CLIP-L)",
        "LINe (ResNet50)",
        "CMA(ViT-B/16, NegLabel)",
    ]
    assert chart.count('tabindex="0"') == 6
    assert "Record-setting results for AUROC" in chart
    assert "set by an editor" in chart


def test_the_archive_ranking_draws_the_record_line_marked_as_inferred(seeded, client):
    # The seed's file gives FPR95 no direction; its rows rise down the archive's order.
    _, html = get(client)
    chart = section(html, "chart")
    assert chart.count('<path class="frontier"') == 1
    assert "FPR95 · ↓ lower is better" in chart
    assert "best so far (lower is better, inferred from the archive's ranking)" in chart
    assert "Points only" not in chart


def test_chart_points_name_the_model_and_value(seeded, client):
    _, html = get(client, "?chart=AUROC")
    assert "<title>MOOD: 89.8 (6 Feb 2023)</title>" in html
    assert '<text class="tip" x=' in html and ">MOOD: 89.8 (6 Feb 2023)</text>" in html


def test_chart_with_nothing_to_plot_says_why(load, seed_page, write_page, client):
    for row in seed_page["rows"]:
        row["paper_date"] = None
    seed_page["counts"]["rows_dated"] = 0
    load(write_page(seed_page))
    _, html = get(client)
    assert "No result has both a paper date and a number for FPR95" in html


def test_chart_follows_the_filters(seeded, client):
    _, html = get(client, "?chart=AUROC&extra_data=true")
    assert section(html, "chart").count("<circle ") == 2


# Panels -------------------------------------------------------------------


def test_provenance_panel(seeded, client):
    Metric.objects.filter(leaderboard=seeded, name="FPR95").update(editor_direction="lower")
    seeded.rows.filter(rank=22).update(withheld=True, withheld_reason="spam")
    _, html = get(client)
    panel = section(html, "provenance")
    assert "pwc-archive (Hugging Face), CC BY-SA 4.0" in panel
    assert "the archive&#x27;s row order at snapshot; not re-ranked" in panel
    assert "1 row</dd>" in panel  # withheld as spam, by an editor
    assert re.search(r"FPR95</strong>: lower is better <span[^>]*>set by an editor", panel)
    assert re.search(r"AUROC</strong>: direction unknown", panel)
    assert '<dt title="counts.rows">Rows</dt><dd>21</dd>' in panel
    text = visible(panel)
    assert "Archive copy dated 28 Jul 2025 Rows up to 28 Jul 2025" in text
    assert '<time datetime="2025-07-28">28 Jul 2025</time>' in panel
    # The file's note on directions, in a visitor's words; the exact text is the tooltip.
    assert "(the archive records no direction); unknown = not inferred, chart draws" in text
    assert "null" not in text and "null = not inferred" in panel


def test_verification_panel_gives_both_sample_totals_with_their_explanations(seeded, client):
    _, html = get(client)
    panel = section(html, "verification")
    assert '<time datetime="2026-09-25T09:33:49+00:00">25 Sep 2026, 09:33 UTC</time>' in panel
    cells = re.findall(r'<td class="num">(\d+)</td>', panel)
    assert cells == ["15", "12", "15", "12", "82", "29", "111", "43", "130", "43", "173", "82"]
    text = visible(panel)
    assert "Each paper once: each paper (arXiv id) counted once" in text
    # Once, not "Row-weighted: row-weighted:", and the field it names in words.
    assert (
        "Once per row: A paper behind several rows is counted once per row; inflated "
        "relative to the per-paper totals by design" in text
    )
    assert "The pointer-only count counts samples the site points at" in text
    assert "Snapshots" not in panel


@pytest.mark.parametrize(
    "field",
    [
        "n_pointer_only_licence",
        "samples_row_weighted",
        "samples_over_distinct_papers",
        "rows_end_at",
        "rows_with_graph_line",
        "wilson95_lower",
        "2026-09-25T09:33:49",
        "null",
    ],
)
def test_field_names_are_only_in_tooltips(seeded, client, field):
    _, html = get(client)
    start = html.index('<article class="leaderboard">')
    # The chart's caption quotes the file's note on directions: the chart's own business.
    page = html[start : html.index('id="chart"')] + html[html.index('id="results"') :]
    assert field not in visible(page)


def test_every_date_is_a_time_element_with_the_machine_value(seeded, client):
    _, html = get(client)
    start = html.index('<header class="board-header">')
    header = html[start : html.index("</header>", start)]
    assert "archive rows up to 28 Jul 2025" in visible(header)
    assert '<time datetime="2025-07-28">28 Jul 2025</time>' in header
    assert '<td class="date"><time datetime="2025-03-24">24 Mar 2025</time></td>' in html
    since = section(html, "since-archive")
    assert 'measured on <time datetime="2026-09-24">24 Sep 2026</time>' in since


def test_verification_history_shows_when_there_are_two_snapshots(
    load, seed_page, write_page, client
):
    load(write_page(seed_page))
    seed_page["syntology"]["read_at"] = "2026-10-01T00:00:00+00:00"
    seed_page["rows"][0]["syntology"] = {
        "n_ran": 1, "n_unverified": 0, "n_samples": 1, "n_pointer_only_licence": 0
    }  # fmt: skip
    load(write_page(seed_page))
    _, html = get(client)
    panel = section(html, "verification")
    assert "Snapshots" in panel
    assert "1 Oct 2026, 00:00 UTC" in visible(panel) and "25 Sep 2026, 09:33 UTC" in visible(panel)
    assert "131 of 174" in panel and "130 of 173" in panel


def test_since_archive_panel_computes_the_wilson_bound_and_says_when_empty(
    load, seed_page, write_page, client
):
    seed_page["since_archive"]["measurement"]["wilson95_lower"] = 0.5
    load(write_page(seed_page))
    _, html = get(client)
    panel = section(html, "since-archive")
    assert "108 of 110" in panel and "0.9361" in panel and "0.5<" not in panel
    assert "Syntology has checked 6,885 of the 9,623 papers" in panel
    assert "No newer paper's result has been placed on this leaderboard yet." in panel


def test_since_archive_entries_are_a_table_by_columns(load, seed_page, write_page, client):
    seed_page["since_archive"]["columns"] = ["model", "value", "paper"]
    seed_page["since_archive"]["entries"] = [
        {"paper": "https://arxiv.org/abs/2601.00001", "model": "NewNet", "value": "97.10"},
        {"model": "<b>Odd</b>", "value": None, "paper": "javascript:alert(1)"},
    ]
    load(write_page(seed_page))
    _, html = get(client)
    panel = section(html, "since-archive")
    assert "Model Value Paper On the board NewNet 97.10" in visible(panel)
    assert "<td>NewNet</td><td>97.10</td>" in panel
    assert '<th scope="col" title="model">Model</th>' in panel  # the column's own name
    assert 'href="https://arxiv.org/abs/2601.00001"' in panel
    assert "&lt;b&gt;Odd&lt;/b&gt;" in panel and 'href="javascript' not in panel


def test_a_long_since_archive_block_shows_ten_entries_and_folds_the_rest(
    load, seed_page, write_page, client
):
    """A board with hundreds of newer results grew to thousands of pixels."""
    seed_page["since_archive"]["columns"] = ["model", "value"]
    seed_page["since_archive"]["entries"] = [
        {"model": f"Newer{index:02d}", "value": f"{index}.0"} for index in range(25)
    ]
    load(write_page(seed_page))
    _, html = get(client)
    panel = section(html, "since-archive")
    shown, _, folded = panel.partition('<details class="since-more">')
    assert shown.count("<td>Newer") == 10 and "<td>Newer09</td>" in shown
    assert "<summary>15 more newer results</summary>" in folded
    assert folded.count("<td>Newer") == 15 and "<td>Newer24</td>" in folded


# Page furniture -----------------------------------------------------------


def test_exports_are_linked_and_the_meta_description_names_the_board(seeded, client):
    _, html = get(client)
    assert f'href="/sota/{SEED_SLUG}.json"' in html
    assert f'href="/sota/{SEED_SLUG}.csv"' in html
    assert (
        '<meta name="description" content="Out-of-Distribution Detection on ImageNet-1k vs SUN: '
        "22 results from the Papers with Code archive, by FPR95, AUROC" in html
    )


def test_large_boards_paginate_and_keep_the_sort(load, seed_page, write_page, client):
    load(write_page(scaled_page(seed_page, 250)))
    _, html = get(client, "?sort=date&page=3")
    assert len(ranks_in_order(html)) == 50
    assert "Page 3 of 3" in html
    assert 'href="?sort=date&amp;page=2#results"' in html


def pages_linked(html):
    nav = html[html.index('<nav class="pagination"') :]
    nav = nav[: nav.index("</nav>")]
    return visible(re.sub(r'<span class="page-of">.*?</span>', "", nav))


def test_pagination_numbers_pages_around_this_one_with_first_and_last(
    load, seed_page, write_page, client
):
    load(write_page(scaled_page(seed_page, 1250)))  # 13 pages
    _, html = get(client, "?page=7&model=%23&sort=date")
    assert pages_linked(html) == "« First ‹ Previous 1 … 5 6 7 8 9 … 13 Next › Last »"
    assert 'href="?page=1&amp;model=%23&amp;sort=date#results" rel="first"' in html
    assert 'href="?page=13&amp;model=%23&amp;sort=date#results" rel="last"' in html
    assert 'href="?page=7&amp;model=%23&amp;sort=date#results" aria-current="page"' in html
    _, html = get(client, "?page=1")
    # The first page has nothing before it: the steps are there, but not links.
    assert pages_linked(html) == "« First ‹ Previous 1 2 3 … 13 Next › Last »"
    assert 'rel="prev"' not in html and 'rel="first"' not in html


# Folding mostly empty metric columns ---------------------------------------


@pytest.fixture
def wide_board(load, seed_page, write_page):
    """The seed with two metrics few rows have: Params on 10 of 22 rows, GFLOPs on 3."""
    seed_page["metrics"] += ["Params", "GFLOPs"]
    seed_page["metric_direction"]["by_metric"].update(Params=None, GFLOPs=None)
    for index, row in enumerate(seed_page["rows"]):
        if index < 10:
            row["metrics"]["Params"] = f"{index + 1}M"
        if index < 3:
            row["metrics"]["GFLOPs"] = f"{(index + 1) * 10}G"
    ok, _, err = load(write_page(seed_page))
    assert ok, err


def metric_headers(html):
    heads = re.findall(r'<th scope="col" class="num metric"[^>]*><a [^>]*>([^<]+)', html)
    return [name.strip() for name in heads]


def test_mostly_empty_metrics_fold_behind_a_link_that_says_the_rule(wide_board, client):
    _, html = get(client)
    assert metric_headers(html) == ["FPR95", "AUROC"]
    assert 'data-label="Params"' not in html
    text = visible(section(html, "results"))
    assert "Show 2 more metrics: Params (10 of 22 rows) · GFLOPs (3 of 22 rows)" in text
    assert "Metrics with a value in fewer than half of the rows are folded." in text
    assert 'class="unfold" href="?metrics=all#results"' in html
    assert 'href="?metrics=GFLOPs#results"' in html


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("?metrics=all", ["FPR95", "AUROC", "Params", "GFLOPs"]),
        ("?metrics=GFLOPs", ["FPR95", "AUROC", "GFLOPs"]),
        ("?metrics=Params&metrics=GFLOPs", ["FPR95", "AUROC", "Params", "GFLOPs"]),
        ("?sort=GFLOPs", ["FPR95", "AUROC", "GFLOPs"]),  # sorted on, so shown
        ("?metrics=AUROC", ["FPR95", "AUROC"]),
        ("?metrics=nonsense&metrics=&metrics=-shown5", ["FPR95", "AUROC"]),
        ("?metrics=ALL", ["FPR95", "AUROC"]),
    ],
)
def test_the_metrics_parameter_opens_folded_columns_and_ignores_the_rest(
    wide_board, client, query, shown
):
    response, html = get(client, query)
    assert response.status_code == 200
    assert metric_headers(html) == shown


def test_an_opened_metric_shows_its_values_and_a_link_folds_it_again(wide_board, client):
    _, html = get(client, "?metrics=GFLOPs&sort=model")
    assert '<td class="num metric" data-label="GFLOPs">30G</td>' in html
    assert "shown now: GFLOPs." in visible(html)
    assert 'class="refold" href="?sort=model#results"' in html
    # Opening the other keeps this one open and the sort.
    assert 'href="?metrics=GFLOPs&amp;sort=model&amp;metrics=Params#results"' in html or (
        'href="?sort=model&amp;metrics=GFLOPs&amp;metrics=Params#results"' in html
    )
    # Filtering keeps the columns: the form carries the parameter.
    assert '<input type="hidden" name="metrics" value="GFLOPs">' in html


def test_folding_changes_neither_the_page_file_nor_the_rows_shown(wide_board, client):
    exported = client.get(URL + ".json").json()
    assert exported["metrics"] == ["FPR95", "AUROC", "Params", "GFLOPs"]
    assert exported["rows"][0]["metrics"]["GFLOPs"] == "10G"
    _, html = get(client)
    assert len(ranks_in_order(html)) == 22


def test_a_board_whose_metrics_are_all_full_folds_nothing(seeded, client):
    _, html = get(client)
    assert 'class="folding"' not in html
    assert metric_headers(html) == ["FPR95", "AUROC"]


def test_the_folding_rule():
    assert mostly_empty((5, 2, 3, 0), 6) == [1, 3]  # 3 of 6 is half: not fewer
    assert mostly_empty((0, 0), 10) == [1]  # never the first, which the chart starts on
    assert mostly_empty((), 0) == []


def test_query_count_is_fixed_with_filters_and_does_not_grow_with_rows(
    load, seed_page, write_page, client, django_assert_num_queries
):
    load(write_page(seed_page))
    query = "?ran=true&model=a&sort=AUROC&chart=AUROC&metrics=all&page=1"
    with django_assert_num_queries(9):
        client.get(URL + query)
    big = scaled_page(seed_page, 2000)
    big["syntology"]["read_at"] = "2026-10-01T00:00:00+00:00"
    ok, _, err = load(write_page(big))
    assert ok, err
    with django_assert_num_queries(9):
        response = client.get(URL + query)
    assert response.status_code == 200
    with django_assert_num_queries(8):
        client.get(URL)
