import csv
import io

import pytest
from django.urls import reverse

from leaderboards.web.export import page_document
from leaderboards.web.page_data import PageData
from tests.helpers import SEED_SLUG, models_in_order, scaled_page

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
    with django_assert_num_queries(7):
        client.get(CSV_URL)


def test_page_data_without_row_extras_refuses_to_write_a_page_file(seeded):
    with pytest.raises(ValueError, match="extra keys"):
        page_document(PageData(seeded, row_extras=False))


# The CSV and the page read one query string (issue #12): what the table shows,
# filtered and sorted, and every page of it, not only the one on screen.
BIG_SLUG = "out-of-distribution-detection-on-big-board"


@pytest.fixture
def big_board(load, seed_page, write_page):
    """The seed's rows repeated to 250 on another board: three pages of the table."""
    page = scaled_page(seed_page, 250)
    page["url"] = f"/sota/{BIG_SLUG}"
    page["dataset"] = {"name": "Big Board", "url": "/dataset/big-board"}
    ok, _, err = load(write_page(page))
    assert ok, err
    return page


def csv_models(client, slug, query=""):
    response = client.get(reverse("leaderboards:leaderboard_csv", args=[slug]) + query)
    assert response.status_code == 200
    return [row["model"] for row in csv.DictReader(io.StringIO(response.content.decode()))]


def test_the_csv_holds_every_page_of_the_filtered_and_sorted_rows(big_board, client):
    query = "?has_code=true&extra_data=false&sort=AUROC&order=asc"
    # What the page shows, page by page.
    shown = []
    for number in (1, 2, 3):
        response = client.get(
            reverse("leaderboards:leaderboard", args=[BIG_SLUG]) + query + f"&page={number}"
        )
        shown += models_in_order(response.content.decode())
    # The same rows worked out from the file: with code, no extra data, AUROC lowest
    # first, rows without an AUROC last, ties in archive order.
    kept = [r for r in big_board["rows"] if r["code"] and not r["uses_additional_data"]]
    with_auroc = sorted(
        (r for r in kept if "AUROC" in r["metrics"]), key=lambda r: float(r["metrics"]["AUROC"])
    )
    expected = [r["model"] for r in with_auroc + [r for r in kept if "AUROC" not in r["metrics"]]]
    assert len(expected) > 200
    assert shown == expected
    assert csv_models(client, BIG_SLUG, query + "&page=2&chart=FPR95") == expected


def test_a_model_filter_keeps_only_matching_rows_in_archive_order(big_board, client):
    assert csv_models(client, BIG_SLUG, "?model=mood") == [f"MOOD #{n}" for n in range(21, 250, 22)]


def test_without_a_query_string_the_csv_is_every_row_in_archive_order(big_board, client):
    assert csv_models(client, BIG_SLUG) == [row["model"] for row in big_board["rows"]]
    # A page number or a chart changes nothing the CSV holds.
    assert csv_models(client, BIG_SLUG, "?page=3&chart=AUROC") == csv_models(client, BIG_SLUG)


@pytest.mark.parametrize("query", ["?date_from=yesterday", "?date_to=2023-02-30"])
def test_an_unreadable_filter_is_the_pages_400_in_plain_text(seeded, client, query):
    response = client.get(CSV_URL + query)
    assert response.status_code == 400
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    assert text.startswith("That filter could not be read:")
    assert "Enter a valid date." in text


@pytest.mark.parametrize(("slug", "rows"), [(SEED_SLUG, 22), (BIG_SLUG, 250)])
def test_a_filtered_sorted_csv_costs_the_same_queries_however_many_rows(
    big_board, seeded, client, django_assert_num_queries, slug, rows
):
    with django_assert_num_queries(7):
        assert len(csv_models(client, slug)) == rows
    # One more: the primary keys the filters keep.
    with django_assert_num_queries(8):
        assert len(csv_models(client, slug, "?has_code=true&ran=true&sort=FPR95")) < rows


def test_the_pages_csv_link_carries_its_filters_and_sort_but_not_its_page(big_board, client):
    url = reverse("leaderboards:leaderboard", args=[BIG_SLUG])
    html = client.get(url + "?model=mood&sort=AUROC&page=2&chart=FPR95").content.decode()
    assert f'href="/sota/{BIG_SLUG}.csv?model=mood&amp;sort=AUROC"' in html
    assert f'href="/sota/{BIG_SLUG}.csv"' in client.get(url).content.decode()
