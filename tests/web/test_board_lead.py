"""Every board says who leads and since when, on its first screen (issue #31, item 1).

With a direction the board names the best result, its value as written, its
paper and the date it took the lead; the direction may be the one the
archive's ranking settles, said as inferred. Without one it names the result
the archive ranked first, at the archive's snapshot. Inference never writes
into the page file's `metric_direction`.
"""

import json
import re

from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import Metric, Row
from tests.helpers import SEED_FILE, SEED_SLUG, exported

URL = reverse("leaderboards:leaderboard", args=[SEED_SLUG])


def lead(client):
    """The lead block's text as a visitor reads it."""
    page = client.get(URL).content.decode()
    block = re.search(r'<section class="lead[^"]*".*?</section>', page, re.S).group(0)
    return " ".join(re.sub(r"<[^>]+>", "", block).split()), block


def test_the_seed_names_its_leader_by_the_direction_the_archive_ranking_settles(seeded, client):
    text, block = lead(client)
    assert text.startswith("Leads on FPR95 CMA(ViT-B/16, NegLabel) 16.84 in Enhanced OoD")
    assert "Leading since 24 Mar 2025, its paper's date" in text
    assert (
        "Lower is better, inferred from the archive's ranking: 20 of 20 neighbouring results "
        "agree. No editor has confirmed it yet." in text
    )
    assert 'href="/paper/enhanced-ood-detection-through-cross-modal"' in block
    # The page file stays the archive's: no direction written into it.
    assert exported(client)["metric_direction"]["by_metric"] == {"FPR95": None, "AUROC": None}
    assert exported(client) == json.loads(SEED_FILE.read_text())


def test_an_editor_confirming_it_is_said_so_and_a_reversal_changes_the_leader(
    seeded, editor, client
):
    fpr = Metric.objects.get(leaderboard=seeded, name="FPR95")
    decisions.set_direction([fpr], "lower", editor)
    text, _ = lead(client)
    assert "Lower is better, as an editor set it." in text and "inferred" not in text
    decisions.set_direction([fpr], "higher", editor)
    text, _ = lead(client)
    # The highest FPR95 of the seed, and the date that paper gave it.
    assert text.startswith("Leads on FPR95 DOE 80.94")
    assert "Higher is better, as an editor set it." in text


def test_an_editors_unknown_overrules_the_inference(seeded, editor, client):
    fpr = Metric.objects.get(leaderboard=seeded, name="FPR95")
    decisions.set_direction([fpr], "unknown", editor)
    text, _ = lead(client)
    assert text.startswith(
        "Ranked first by Papers with Code at its July 2025 snapshot "
        "CMA(ViT-B/16, NegLabel) 16.84 FPR95"
    )
    assert "The direction of FPR95 is unknown" in text and "Leads on" not in text


def test_a_board_whose_order_settles_nothing_names_the_archive_first(unsettled, client):
    text, block = lead(client)
    first = Row.objects.get(leaderboard=unsettled, rank=1)
    assert text.startswith(
        f"Ranked first by Papers with Code at its July 2025 snapshot {first.model}"
    )
    assert "so no result is called the best" in text
    assert "lead-unranked" in block


def test_the_file_direction_wins_over_the_archive_order(load, seed_page, write_page, client):
    seed_page["metric_direction"]["by_metric"]["FPR95"] = "higher"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    text, _ = lead(client)
    assert text.startswith("Leads on FPR95 DOE 80.94")
    assert "Higher is better, as the page file gives it." in text


def test_a_withheld_first_row_is_not_called_ranked_first(unsettled, editor, client):
    first = Row.objects.get(leaderboard=unsettled, rank=1)
    decisions.withhold([first], "spam", editor)
    text, _ = lead(client)
    second = Row.objects.get(leaderboard=unsettled, rank=2)
    assert text.startswith(
        "First of the rows shown, in Papers with Code's order at its July 2025 snapshot "
        f"{second.model}"
    )


def test_an_undated_leader_says_the_archive_gives_no_date(load, seed_page, write_page, client):
    for row in seed_page["rows"]:
        if row["model"] == "CMA(ViT-B/16, NegLabel)":
            row["paper_date"] = None
    seed_page["counts"]["rows_dated"] -= 1
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    text, _ = lead(client)
    assert "Leading since a date the archive does not give" in text


def test_the_lists_mark_a_best_by_inference(seeded, client):
    # As the loader wrote the board's figures: no refresh between the load and the list.
    page = client.get(reverse("leaderboards:leaderboard_list")).content.decode()
    assert ">best, inferred<" in page
