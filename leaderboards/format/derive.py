"""Derived figures of a leaderboard page (SPEC 1.1), computed from plain data.

Every function here takes page-format dictionaries, so the loader (checking what
a file states), the export (writing what the site holds) and the generator all
compute a figure the same way.
"""

import math
from typing import NamedTuple

from leaderboards.format.rules import ROW_COUNTERS, has_code, n_samples, paper_identity

# The 97.5th percentile of the standard normal: a two-sided 95% interval.
Z_95 = 1.959963984540054


def page_counts(rows):
    """The `counts` block: how many shown rows have code, a paper page, etc."""
    return {
        "rows": len(rows),
        "rows_with_code": sum(1 for row in rows if has_code(row["code"])),
        "rows_with_paper_page": sum(1 for row in rows if row["paper"]),
        "rows_dated": sum(1 for row in rows if row["paper_date"]),
        "rows_using_additional_data": sum(1 for row in rows if row["uses_additional_data"]),
    }


def _sum_counters(blocks):
    blocks = list(blocks)
    sums = {name: sum(block[name] for block in blocks) for name in ROW_COUNTERS}
    # A row's n_samples is itself derived: sum what it must be, not what it says.
    sums["n_samples"] = sum(row_samples(block) for block in blocks)
    return sums


def syntology_figures(rows):
    """Page-level verification figures, from the rows' `syntology` blocks.

    A paper behind several rows carries the same counters on each; the
    "distinct papers" figures count it once, the row-weighted sums once per row.
    """
    with_line = [row for row in rows if row["syntology"] is not None]
    ran = [row for row in with_line if row["syntology"]["n_ran"] > 0]
    per_paper: dict[str | None, dict] = {}
    for row in with_line:
        per_paper.setdefault(paper_identity(row), row["syntology"])
    return {
        "rows_with_graph_line": len(with_line),
        "rows_with_any_sample_ran": len(ran),
        "distinct_papers_with_graph_line": len(per_paper),
        "distinct_papers_with_any_sample_ran": len({paper_identity(row) for row in ran}),
        "samples_over_distinct_papers": _sum_counters(per_paper.values()),
        "samples_row_weighted": _sum_counters(row["syntology"] for row in with_line),
    }


def wilson_lower(successes, trials, z=Z_95, places=4):
    """Lower bound of the Wilson score interval for successes/trials."""
    if not trials:
        return None
    p = successes / trials
    z2 = z * z
    centre = p + z2 / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return round((centre - spread) / (1 + z2 / trials), places)


def row_samples(block):
    """A row's `n_samples`, from its other counters."""
    return n_samples(block["n_ran"], block["n_unverified"])


class Difference(NamedTuple):
    """A derived figure a page states that differs from the one computed."""

    path: str  # its JSON path, as "counts.rows_with_code"
    stated: object
    computed: object


def differences(page):
    """Each stated derived figure that differs from the one computed, in document order."""
    found = []

    def compare(path, stated, computed):
        if stated != computed:
            found.append(Difference(path, stated, computed))

    rows = page["rows"]
    for name, value in page_counts(rows).items():
        compare(f"counts.{name}", page["counts"].get(name), value)
    for index, row in enumerate(rows):
        block = row["syntology"]
        if block is not None:
            compare(
                f"rows[{index}].syntology.n_samples",
                block["n_samples"],
                row_samples(block),
            )
    stated = page["syntology"]
    # Null when no verification read the page: no figures are stated to compare.
    for name, value in syntology_figures(rows).items() if stated is not None else ():
        if isinstance(value, dict):
            for counter, total in value.items():
                compare(
                    f"syntology.{name}.{counter}",
                    # The checker lets a file state these sums as null.
                    (stated.get(name) or {}).get(counter),
                    total,
                )
        else:
            compare(f"syntology.{name}", stated.get(name), value)
    since = page["since_archive"]
    if since is not None and since.get("measurement") is not None:
        measurement = since["measurement"]
        compare(
            "since_archive.measurement.wilson95_lower",
            measurement.get("wilson95_lower"),
            wilson_lower(measurement["judged_true"], measurement["judged"]),
        )
    return found
