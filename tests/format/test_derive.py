"""SPEC 1.1's figures, computed from the real seed's rows."""

from leaderboards.format import derive


def test_counts_match_the_real_page(seed_page):
    assert derive.page_counts(seed_page["rows"]) == {
        "rows": 22,
        "rows_with_code": 21,
        "rows_with_paper_page": 22,
        "rows_dated": 22,
        "rows_using_additional_data": 2,
    }


def test_syntology_figures_count_each_paper_once(seed_page):
    figures = derive.syntology_figures(seed_page["rows"])
    assert figures["rows_with_graph_line"] == 15
    assert figures["rows_with_any_sample_ran"] == 15
    # DICE, MCM and KNN stand behind two rows each.
    assert figures["distinct_papers_with_graph_line"] == 12
    assert figures["distinct_papers_with_any_sample_ran"] == 12
    assert figures["samples_over_distinct_papers"] == {
        "n_ran": 82, "n_unverified": 29, "n_samples": 111, "n_pointer_only_licence": 43,
    }  # fmt: skip
    assert figures["samples_row_weighted"] == {
        "n_ran": 130, "n_unverified": 43, "n_samples": 173, "n_pointer_only_licence": 82,
    }  # fmt: skip


def test_wilson_lower_bound():
    assert derive.wilson_lower(108, 110) == 0.9361
    assert derive.wilson_lower(0, 10) == 0.0
    assert derive.wilson_lower(10, 10) == 0.7225
    assert derive.wilson_lower(0, 0) is None


def test_the_real_page_states_every_figure_truly(seed_page):
    assert derive.differences(seed_page) == []


def test_a_wrong_stated_figure_is_named(seed_page):
    seed_page["counts"]["rows_with_code"] = 20
    seed_page["rows"][1]["syntology"]["n_samples"] = 21
    assert derive.differences(seed_page) == [
        ("counts.rows_with_code", 20, 21),
        ("rows[1].syntology.n_samples", 21, 20),
    ]


def test_differences_take_null_sums(seed_page):
    seed_page["syntology"]["samples_over_distinct_papers"] = None
    found = {path for path, _, _ in derive.differences(seed_page)}
    assert "syntology.samples_over_distinct_papers.n_ran" in found
