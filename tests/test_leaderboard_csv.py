import csv
import io

import pytest
from django.urls import reverse

from leaderboards.web.export import PageData
from tests.conftest import SEED_SLUG

CSV_URL = reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG])


def read(client):
    response = client.get(CSV_URL)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8"))))


def test_one_line_per_row_in_archive_order_with_metric_columns_in_page_order(seeded, client):
    rows = read(client)
    assert len(rows) == 22
    assert list(rows[0])[:4] == ["rank_in_archive_order", "model", "FPR95", "AUROC"]
    assert [row["rank_in_archive_order"] for row in rows] == [str(n) for n in range(1, 23)]


def test_values_are_the_raw_strings_and_missing_metrics_are_empty(seeded, client):
    rows = {row["model"]: row for row in read(client)}
    assert rows["MOOD"]["AUROC"] == "89.8"
    assert rows["MOOD"]["FPR95"] == ""
    assert rows["MCM (CLIP-L)"]["FPR95"] == "29.00"
    assert rows["LINe (ResNet50)"]["n_ran"] == "14"
    assert rows["LINe (ResNet50)"]["n_samples"] == "20"
    assert rows["CMA(ViT-B/16, NegLabel)"]["n_ran"] == ""
    assert rows["DML"]["code"] == ""
    assert rows["NNGuide (RegNet)"]["uses_additional_data"] == "true"


def test_withheld_rows_are_not_exported(seeded, client):
    seeded.rows.filter(rank=1).update(withheld=True, withheld_reason="spam")
    assert [row["rank_in_archive_order"] for row in read(client)][0] == "2"


def test_unknown_csv_is_a_404(db, client):
    assert client.get("/sota/no-such-board.csv").status_code == 404


def test_csv_costs_a_fixed_number_of_queries(seeded, client, django_assert_num_queries):
    with django_assert_num_queries(8):
        client.get(CSV_URL)


def test_page_data_without_row_extras_refuses_to_write_a_page_file(seeded):
    with pytest.raises(ValueError, match="extra keys"):
        PageData(seeded, row_extras=False).document()
