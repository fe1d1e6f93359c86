"""A page file (SPEC 1) from the rows of a scraped Papers with Code leaderboard page.

PwC's `/sota/<slug>` pages embed their table as JSON (`evaluation-table-data`):
one object per row with `rank`, `Model`, `metrics` (name -> the string shown),
`uses_additional_data`, `paper` {title, url: "/paper/<slug>", published, code},
`evaluation_date` and `tags`. Those rows become the page's rows, in the scrape's
order, every value as scraped.

The scrape holds rows only, so what it does not say stays empty: no area unless
`--area` names one, no description, no metric direction, no code URL (it has only
a yes/no per paper, kept on the row as `paper_has_code`), no external paper URL,
and `syntology: null` (docs/format.md: nothing verified the page). The task and
dataset names are not in the rows either and must be given; their slugs follow
PwC's `<task>-on-<dataset>` page slug, taken from the scrape's file name
(`pwc-sota-page_<slug>.json`) unless `--slug` says otherwise.

    python -m tools.pwc_scrape SRC OUT --task "Image Classification" --dataset ImageNet
"""

import json
import re
from pathlib import Path

from leaderboards.format import derive
from leaderboards.format.rules import SLUG_PATTERN, compact_json

ARCHIVE = "Papers with Code leaderboard page, scraped (evaluation-table-data), CC BY-SA 4.0"
RANK_NOTE = "the scraped page's rank order; not re-ranked"
VALUES_NOTE = "the page's strings, untouched"
DIRECTION_NOTE = (
    "the scraped page records no direction, so the chart draws points only until an editor sets one"
)
FILE_PREFIX = "pwc-sota-page_"
# The scrape writes a paper's date as a midnight timestamp; anything else is not
# a date this converter can state without guessing.
PUBLISHED = re.compile(r"(\d{4}-\d{2}-\d{2})T00:00:00(\.0+)?")
PAPER_PATH = re.compile(rf"/paper/{SLUG_PATTERN}")


class ScrapeError(ValueError):
    """The scrape says something this converter cannot carry into a page file."""


def slug_from_name(path):
    """The page slug a scrape's file name carries: pwc-sota-page_<slug>.json."""
    stem = Path(path).stem
    if not stem.startswith(FILE_PREFIX) or not re.fullmatch(SLUG_PATTERN, stem[len(FILE_PREFIX) :]):
        raise ScrapeError(f"{path}: the file name carries no page slug; give --slug")
    return stem[len(FILE_PREFIX) :]


def convert(rows, slug, task, dataset, area=None, snapshot=None):
    """The page dict for scraped `rows` of the page `/sota/<slug>`."""
    task_slug, on, dataset_slug = slug.partition("-on-")
    if not on or not task_slug or not dataset_slug:
        raise ScrapeError(f"slug {slug!r} is not PwC's <task>-on-<dataset>")
    if not isinstance(rows, list):
        raise ScrapeError("expected the page's list of rows")
    page_rows = [_row(index, row) for index, row in enumerate(rows)]
    ranks = [row["rank_in_archive_order"] for row in page_rows]
    if len(set(ranks)) != len(ranks):
        raise ScrapeError("two rows share a rank")
    # Metric names in the order the scrape first lists them, misspellings kept.
    metrics = list(dict.fromkeys(name for row in rows for name in row["metrics"]))
    return {
        "url": f"/sota/{slug}",
        "task": {"name": task, "url": f"/task/{task_slug}", "note": None},
        "dataset": {"name": dataset, "url": f"/dataset/{dataset_slug}"},
        "category": area,
        "categories": [area] if area else [],
        "category_note": None,
        "description": None,
        "description_from": None,
        "source": {
            "archive": ARCHIVE,
            "snapshot": snapshot,
            "rank": RANK_NOTE,
            "rows_end_at": max(
                (row["paper_date"] for row in page_rows if row["paper_date"]), default=None
            ),
            "rows_withheld_as_spam": 0,
            "metric_values": VALUES_NOTE,
        },
        "metrics": metrics,
        "metric_direction": {"note": DIRECTION_NOTE, "by_metric": dict.fromkeys(metrics)},
        "counts": derive.page_counts(page_rows),
        "rows": page_rows,
        "since_archive": None,
        "syntology": None,
    }


def _row(index, row):
    where = f"row {index} (rank {row.get('rank')!r})" if isinstance(row, dict) else f"row {index}"
    try:
        paper = row["paper"]
        published = paper["published"]
        date = None
        if published is not None:
            match = PUBLISHED.fullmatch(published)
            if not match:
                raise ScrapeError(f"{where}: paper.published {published!r} is not a midnight date")
            date = match.group(1)
        paper_path = paper["url"]
        if paper_path is not None and not PAPER_PATH.fullmatch(paper_path):
            raise ScrapeError(f"{where}: paper.url {paper_path!r} is not a /paper/<slug> path")
        return {
            "rank_in_archive_order": row["rank"],
            "model": row["Model"],
            "metrics": dict(row["metrics"]),
            "uses_additional_data": row["uses_additional_data"],
            "paper_date": date,
            "paper": paper_path,
            "paper_url": None,
            "paper_title": paper["title"],
            "code": None,
            "n_code_links": 0,
            "syntology": None,
            # What the page format has no field for, kept on the row as scraped.
            "pwc_row_id": row["row_id"],
            "evaluation_date": row["evaluation_date"],
            "paper_has_code": paper["code"],
            "tags": [tag["name"] for tag in row["tags"]],
        }
    except (KeyError, TypeError) as error:
        raise ScrapeError(f"{where}: missing or malformed field {error}") from None


def main(argv=None):
    """`python -m tools.pwc_scrape SRC OUT --task NAME --dataset NAME`."""
    import argparse

    import django

    parser = argparse.ArgumentParser(
        prog="python -m tools.pwc_scrape",
        description="Turn a scraped PwC leaderboard page's rows into a page file (SPEC 1).",
    )
    parser.add_argument("src", type=Path, help="the scrape, e.g. pwc-sota-page_<slug>.json")
    parser.add_argument("out", type=Path, help="the page file to write")
    parser.add_argument("--task", required=True, help="the task's name (the scrape has none)")
    parser.add_argument("--dataset", required=True, help="the dataset's name")
    parser.add_argument("--slug", help="the page slug, if the file name does not carry it")
    parser.add_argument("--area", help="the task's area, e.g. 'Computer Vision'")
    parser.add_argument("--snapshot", help="the date the page was scraped (YYYY-MM-DD)")
    options = parser.parse_args(argv)
    try:
        slug = options.slug or slug_from_name(options.src)
        rows = json.loads(options.src.read_text(encoding="utf-8"))
        page = convert(rows, slug, options.task, options.dataset, options.area, options.snapshot)
    except (ScrapeError, OSError, json.JSONDecodeError) as error:
        parser.exit(1, f"{error}\n")
    # The loader's own check, so a file this writes is one load_seeds takes.
    django.setup()
    from leaderboards.format.page import PageError, read_page

    data = compact_json(page).encode("utf-8")
    try:
        read_page(data)
    except PageError as error:
        parser.exit(1, f"{options.src}: the page would not load: {error}\n")
    options.out.write_bytes(data)
    print(f"{options.out}: /sota/{slug}, {len(page['rows'])} rows, {len(page['metrics'])} metrics")


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    main()
