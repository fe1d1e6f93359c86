"""Results editors add compete (issue #31 item 2): ranked among the rows in every
sorted view, plotted with a marker of their own, counted, and considered for the
leader, the badge and the lists, always marked as added after the archive."""

import re
import xml.etree.ElementTree as ET

from django.urls import reverse

from leaderboards import record
from leaderboards.models import EditorAddition, Leaderboard
from tests.helpers import NEW_MODEL, SEED_SLUG, add_in_admin

BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
BADGE = reverse("leaderboards:leaderboard_badge", args=[SEED_SLUG])


def text(html):
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def lead(html):
    return text(re.search(r'<section class="lead.*?</section>', html, re.S).group(0))


def test_a_better_added_result_leads_is_charted_counted_and_badged(seeded, editor_client, client):
    # The seed's FPR95 is lower-better by the archive's ranking; its leader has 16.84.
    assert add_in_admin(editor_client, seeded).status_code == 302
    html = client.get(BOARD).content.decode()
    assert lead(html).startswith(f"Leads on FPR95 {NEW_MODEL} added by editors 9.87 in NewOOD")
    assert "After the archive, cited by an editor: Table 2 of the paper" in lead(html)
    assert "Leading since 2 Nov 2025" in lead(html)
    figures = text(html[html.index('<ul class="key-figures"') : html.index("</ul>")])
    assert "22 results + 1 added by editors" in figures
    # On the chart: a diamond of its own, and the newest record of the best-so-far line.
    chart = html[html.index('<figure class="chart">') : html.index("</figure>")]
    added = re.findall(r'<g class="point record added[^"]*"[^>]*><title>([^<]*)</title>', chart)
    assert added == [f"{NEW_MODEL}: 9.87 (2 Nov 2025) (added by editors)"]
    assert '<path class="diamond"' in chart and "added by editors, after the archive" in chart
    records = html[html.index("Record-setting results for FPR95") :]
    assert re.search(rf"{re.escape(NEW_MODEL)}</td><td class=\"num\">9.87</td>"
                     r"<td class=\"num\">added by editors</td>", records)  # fmt: skip
    # The badge and the lists name it too.
    svg = ET.fromstring(client.get(BADGE).content)
    texts = [element.text for element in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["FPR95", f"9.87 · {NEW_MODEL}"]
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    assert (board.top_model, board.top_value, board.top_is_best) == (NEW_MODEL, "9.87", True)


def test_withholding_it_gives_the_lead_back(seeded, editor, editor_client, client):
    add_in_admin(editor_client, seeded)
    record.withhold_additions(list(EditorAddition.objects.all()), "not reproducible", editor)
    html = client.get(BOARD).content.decode()
    assert lead(html).startswith("Leads on FPR95 CMA(ViT-B/16, NegLabel) 16.84")
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    assert (board.top_model, board.top_value) == ("CMA(ViT-B/16, NegLabel)", "16.84")


def results_models(client, query):
    html = client.get(BOARD, query).content.decode()
    table = html[html.index('id="results"') :]
    return re.findall(r'<td class="model"><span class="clamp" title="([^"]*)"', table)


def test_the_filters_judge_added_results_as_rows(seeded, editor_client, client):
    add_in_admin(editor_client, seeded)
    assert NEW_MODEL in results_models(client, {"model": "newood"})
    assert NEW_MODEL in results_models(client, {"date_from": "2025-11-01"})
    assert NEW_MODEL not in results_models(client, {"date_to": "2025-10-31"})
    assert NEW_MODEL not in results_models(client, {"has_code": "true"})  # cited with no code
    assert NEW_MODEL in results_models(client, {"has_code": "false"})
    # No verification reads editors' results, and they carry no archive tags.
    assert NEW_MODEL not in results_models(client, {"ran": "true"})
    assert NEW_MODEL in results_models(client, {"ran": "false"})
    assert NEW_MODEL not in results_models(client, {"tag": "Transformer"})
    # Sorted by date, newest first, it leads the table; its rank cell is a dash.
    assert results_models(client, {"sort": "date"})[0] == NEW_MODEL
    html = client.get(BOARD, {"model": "newood"}).content.decode()
    assert "1 of 23 rows match" in html and "(1 of them added by editors)" in html


def test_the_csv_stays_the_archive_rows(seeded, editor_client, client):
    add_in_admin(editor_client, seeded)
    csv = reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG])
    assert NEW_MODEL not in client.get(csv, {"sort": "FPR95"}).content.decode()


API_RESULTS = f"/api/v1/evaluations/{SEED_SLUG}/results/"


def test_the_api_lists_added_results_after_the_archive_and_ranks_them_among_it(
    seeded, editor_client, client
):
    add_in_admin(editor_client, seeded)
    [addition] = EditorAddition.objects.all()
    body = client.get(API_RESULTS, {"items_per_page": 50}).json()
    assert body["count"] == 23
    added = body["results"][-1]
    assert added == {
        "id": f"added-{addition.pk}",
        "best_rank": 1,
        "metrics": {"FPR95": "9.87", "AUROC": "98.1 ± 0.1"},
        "methodology": NEW_MODEL,
        "uses_additional_data": False,
        "paper": None,
        "best_metric": "FPR95",
        "evaluated_on": "2025-11-02",
        "external_source_url": "https://arxiv.org/abs/2511.00001",
        "evaluation": SEED_SLUG,
        "rank_in_archive_order": None,
        "added_by_editors": True,
        "note": "Table 2 of the paper; found by Syntology since the archive.",
    }
    former = next(r for r in body["results"] if r["methodology"] == "CMA(ViT-B/16, NegLabel)")
    assert (former["best_rank"], former["added_by_editors"]) == (2, False)
    # Pages run on from the archive's rows into the added ones.
    second = client.get(API_RESULTS, {"items_per_page": 22, "page": 2}).json()
    assert [r["id"] for r in second["results"]] == [f"added-{addition.pk}"]
    assert client.get(f"{API_RESULTS}added-{addition.pk}/").json() == added
    assert client.get(f"{API_RESULTS}added-{addition.pk + 1}/").status_code == 404
    for garbage in ("added-", "added-x", "added-0", "x-1"):
        assert client.get(f"{API_RESULTS}{garbage}/").status_code in (400, 404), garbage
    # Withheld, it leaves the API as it leaves the page.
    record.withhold_additions([addition], "spam", addition.added_by)
    assert client.get(API_RESULTS).json()["count"] == 22
    assert client.get(f"{API_RESULTS}added-{addition.pk}/").status_code == 404
