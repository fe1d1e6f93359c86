"""The CSV export cannot run as a spreadsheet formula (OWASP, CSV injection; issue #11)."""

import csv
import io

import pytest
from django.urls import reverse

from leaderboards.web.export import csv_cell
from tests.helpers import SEED_SLUG

FORMULAS = [
    '=HYPERLINK("http://x","y")',
    "+1+cmd",
    "@SUM(A1)",
    "\tfoo",
    "\rbar",
    "-1+cmd|' /C calc'!A0",
    "-",
]


@pytest.fixture
def exported(load, seed_page, write_page, client):
    """The seed with formulas in model names, a title and a metric name, as the CSV gives it."""
    for row, model in zip(seed_page["rows"], FORMULAS, strict=False):
        row["model"] = model
    seed_page["rows"][0]["paper_title"] = "=1+1"
    seed_page["rows"][0]["metrics"]["AUROC"] = "-0.52"
    seed_page["rows"][1]["metrics"]["AUROC"] = "-0.52 ± 0.1"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    response = client.get(reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG]))
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8"), newline="")))


def test_a_cell_that_starts_like_a_formula_gets_a_quote_in_front(exported):
    models = [row["model"] for row in exported[: len(FORMULAS)]]
    assert models == ["'" + formula for formula in FORMULAS]
    assert exported[0]["paper_title"] == "'=1+1"


def test_a_plain_negative_number_keeps_its_sign(exported):
    assert exported[0]["AUROC"] == "-0.52"
    # Not a plain number: a spreadsheet would read it as a formula.
    assert exported[1]["AUROC"] == "'-0.52 ± 0.1"


def test_ordinary_cells_are_untouched(exported):
    row = exported[-1]
    assert row["model"] == "MOOD" and row["AUROC"] == "89.8"
    assert row["rank_in_archive_order"] == "22" and row["uses_additional_data"] == "false"


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "+1"),
        ("-0.52", "-0.52"),
        ("-1e-3", "-1e-3"),
        ("-.5", "-.5"),
        ("-0.52\n", "'-0.52\n"),
        ("-1,000", "'-1,000"),
        ("@x", "'@x"),
        ("\r", "'\r"),
        ("a=b", "a=b"),
        ("", ""),
        (None, ""),
        (7, "7"),
    ],
)
def test_the_rule_cell_by_cell(value, cell):
    assert csv_cell(value) == cell


def test_a_metric_named_like_a_formula_is_neutralised_in_the_header(
    load, seed_page, write_page, client
):
    old, new = "AUROC", "=cmd|'/C calc'!A0"
    seed_page["metrics"] = [new if name == old else name for name in seed_page["metrics"]]
    by_metric = seed_page["metric_direction"]["by_metric"]
    seed_page["metric_direction"]["by_metric"] = {
        new if name == old else name: value for name, value in by_metric.items()
    }
    for row in seed_page["rows"]:
        row["metrics"] = {new if k == old else k: v for k, v in row["metrics"].items()}
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    text = client.get(reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG])).content
    header = next(csv.reader(io.StringIO(text.decode("utf-8"))))
    assert "'" + new in header and new not in header
