"""A new board's figures are worked out from its page and inserted with it, not read back.

The lists sort and filter by them (rows, newest result, code that ran, newer
results, the top result); they must be exactly what refresh_leaderboards()
reads from the database, which stays the definition and re-writes them on
every editor's action.
"""

import copy
import io
import random

from django.core.management import call_command

from leaderboards.format import derive
from leaderboards.ingest.loader import Loader
from leaderboards.models import TOP_RESULT, Leaderboard, Metric
from leaderboards.upkeep.figures import refresh_leaderboards
from tests.helpers import PWC_DATA, scaled_page, unranked

FIGURES = (
    "slug",
    "row_count",
    "newest_paper_date",
    "verified_row_count",
    "since_archive_entry_count",
    "papers_waiting",
    "checked_at",
    *TOP_RESULT,
)


def _variants(seed_page):
    """The seed page made to take each way through the figures."""
    pages = []

    def variant(name, change, rows=6):
        page = scaled_page(seed_page, rows)
        page["url"] = f"/sota/{name}"
        change(page)
        page["counts"] = derive.page_counts(page["rows"])
        if page["syntology"] is not None:
            page["syntology"].update(derive.syntology_figures(page["rows"]))
        pages.append((name, page))

    def directed(direction):
        def change(page):
            first = page["metrics"][0]
            page["metric_direction"]["by_metric"][first] = direction

        return change

    def unverified(page):
        page["syntology"] = page["since_archive"] = None
        for row in page["rows"]:
            row["syntology"] = None

    def some_ran(page):
        for row in page["rows"][::2]:
            if row["syntology"] is not None:
                row["syntology"]["n_unverified"] += row["syntology"]["n_ran"]
                row["syntology"]["n_ran"] = 0

    def gaps(page):
        # The first metric missing from some rows, null in one, dates missing.
        first = page["metrics"][0]
        del page["rows"][0]["metrics"][first]
        page["rows"][2]["metrics"][first] = None
        page["rows"][1]["paper_date"] = None
        page["rows"][3]["paper_date"] = None

    def shuffled(page):
        random.Random(4).shuffle(page["rows"])

    def no_numbers(page):
        for row in page["rows"]:
            row["metrics"] = dict.fromkeys(row["metrics"], "n/a")

    def no_rows(page):
        page["rows"] = []

    def newer_results(page):
        page["since_archive"]["entries"] = [{"model": f"newer {n}"} for n in range(3)]

    def no_entries(page):
        page["since_archive"] = None

    variant("as-seeded", lambda page: None)
    variant("higher", directed("higher"))
    variant("lower", directed("lower"))
    variant("higher-with-gaps", lambda page: (directed("higher")(page), gaps(page)))
    variant("shuffled", shuffled)
    variant("unranked", lambda page: page.update(unranked(page)))
    variant("lower-shuffled", lambda page: (directed("lower")(page), shuffled(page)))
    variant("some-ran", some_ran)
    variant("unverified", unverified)
    variant("no-numbers", lambda page: (directed("higher")(page), no_numbers(page)))
    variant("no-rows", no_rows, rows=1)
    variant("newer-results", newer_results)
    variant("no-entries", no_entries)
    return pages


def _figures():
    return list(Leaderboard.objects.order_by("slug").values_list(*FIGURES))


def _orders():
    """Each metric's evidence from the archive's order, as the loader or upkeep wrote it."""
    return list(
        Metric.objects.order_by("pk").values_list("order_lean", "order_agree", "order_pairs")
    )


def test_new_boards_figures_equal_those_read_back(db, seed_page):
    report = Loader().load_pages(_variants(copy.deepcopy(seed_page)))
    assert not report.failed, report.failed
    # Real boards of the archive, through the importer's writes.
    for archive in ("sota-extractor_ogb.json", "sota-extractor_nlp-progress.json"):
        out = io.StringIO()
        call_command("import_pwc", str(PWC_DATA / archive), "--snapshot=2025-07-28", stdout=out)
    written = _figures()
    orders = _orders()
    refresh_leaderboards(list(Leaderboard.objects.values_list("pk", flat=True)))
    assert written == _figures()
    assert orders == _orders()

    # The variants took every way: a best by either direction, a first row
    # when no direction or number, code that ran, newer results, no rows.
    by_slug = {figures[0]: figures for figures in written}
    top_is_best = FIGURES.index("top_is_best")
    assert by_slug["higher"][top_is_best] and by_slug["lower"][top_is_best]
    assert not by_slug["no-numbers"][top_is_best] and not by_slug["unranked"][top_is_best]
    # The seed's file gives no direction; its archive order settles one.
    top_inferred = FIGURES.index("top_inferred")
    assert by_slug["as-seeded"][top_is_best] and by_slug["as-seeded"][top_inferred]
    assert not by_slug["higher"][top_inferred]
    top_value = FIGURES.index("top_value")
    assert by_slug["higher"][top_value] != by_slug["lower"][top_value]
    assert 0 < by_slug["some-ran"][FIGURES.index("verified_row_count")] < 6
    assert by_slug["newer-results"][FIGURES.index("since_archive_entry_count")] == 3
    assert by_slug["no-entries"][FIGURES.index("since_archive_entry_count")] == 0
    assert by_slug["no-rows"][FIGURES.index("row_count")] == 0
    assert len(written) > 100
