"""Chart benchmark: the progress chart's markup size and render time by board size.

    .venv/bin/python -m bench.chart [--rows 300 2000 100000] [--runs 5] [--no-page]

For each size, generates one leaderboard page file (tools/synthetic_pages.py, so
metric strings carry the archive's quirks) and times the chart alone in-process:
`build_chart` on the dated rows of a metric whose direction is known (the first
metric is made "higher" when none is), then the `_chart.html` include that
draws it. Then, unless
`--no-page`, loads the file into a fresh SQLite database in a temporary folder
and asks the whole page with Django's test client, to show what the chart's
share of the page is. Times are medians of `--runs` after one warm-up; CPU time
is the one to read on a shared machine (the load average is printed beside it).
"""

import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

from bench.page import board

ROOT = Path(__file__).resolve().parent.parent


def chart_points(page, metric):
    """The chart's input, as the view builds it: rows with a paper date and a number."""
    from leaderboards.format.values import parse_metric_value
    from leaderboards.web.chart import Point

    points = []
    for row in page["rows"]:
        raw = row["metrics"].get(metric)
        number = parse_metric_value(raw)
        if row.get("paper_date") and number is not None:
            points.append(
                Point(
                    rank=row["rank_in_archive_order"],
                    model=row["model"],
                    date=datetime.date.fromisoformat(row["paper_date"]),
                    number=number,
                    raw=raw,
                )
            )
    return points


def charted_metric(page):
    """The first metric whose direction is known; the first made "higher" if none is.

    A known direction is the costlier chart: records, their labels, the line.
    """
    known = page["metric_direction"]["by_metric"]
    metric = next((name for name in page["metrics"] if known.get(name)), page["metrics"][0])
    known[metric] = known.get(metric) or "higher"
    return metric


def render_chart(page, metric, points):
    """The chart section's HTML, from a fresh copy of `points` (the layout writes to them)."""
    from django.template.loader import render_to_string

    from leaderboards.web.chart import build_chart

    direction = page["metric_direction"]["by_metric"][metric]
    chart = build_chart(metric, direction, [fresh(p) for p in points])
    context = {
        "chart": chart,
        "chart_metric": SimpleNamespace(name=metric, direction_set_by="file"),
        "chart_links": [],
        "leaderboard": SimpleNamespace(
            task=SimpleNamespace(name=page["task"]["name"]),
            dataset=SimpleNamespace(name=page["dataset"]["name"]),
            direction_note="",
        ),
        "filtered": False,
        "dated_href": "?sort=date&order=asc",
    }
    return chart, render_to_string("leaderboards/leaderboard/_chart.html", context)


def fresh(point):
    from leaderboards.web.chart import Point

    return Point(point.rank, point.model, point.date, point.number, point.raw)


def median_ms(work, runs):
    work()  # warm-up: template loading
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = work()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu), result


def page_size(page, metric, runs):
    """(wall ms, CPU ms, bytes) of the whole page through the test client."""
    from django.test import Client

    from leaderboards.ingest.loader import Loader

    # Built in memory, as the serving benchmarks load theirs: a 100,000-row page
    # is over the page-file size limit the loader applies to files on disk.
    report = Loader().load_pages([(f"{len(page['rows'])} rows", page)])
    if report.failed:
        sys.exit(f"the {len(page['rows'])}-row board did not load: {report.failed}")
    client = Client()

    def get():
        url = f"{page['url']}?{urlencode({'chart': metric})}"
        response = client.get(url)
        if response.status_code != 200:
            sys.exit(f"GET {url} gave {response.status_code}")
        return len(response.content)

    return median_ms(get, runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[300, 2000, 100_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--no-page", action="store_true", help="time the chart alone")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(folder) / 'db.sqlite3'}"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
        os.environ["SOTASITE_PAGE_CACHE"] = "0"
        import django

        django.setup()
        from django.core.management import call_command
        from django.test.utils import setup_test_environment

        setup_test_environment()  # lets the test client's host in
        if not options.no_page:
            call_command("migrate", verbosity=0)
            call_command("loaddata", ROOT / "fixtures" / "areas.json", verbosity=0)

        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(
            f"{'rows':>8}{'plotted':>9}{'records':>9}{'chart KiB':>11}{'wall ms':>9}{'CPU ms':>8}"
            f"{'page KiB':>10}{'page wall ms':>14}{'page CPU ms':>13}"
        )
        for rows in options.rows:
            # A seed of its own per size: each is a board of its own, not a re-load of one.
            page = board(rows, f"{options.seed}-{rows}")
            metric = charted_metric(page)
            points = chart_points(page, metric)
            wall, cpu, (chart, html) = median_ms(
                lambda page=page, metric=metric, points=points: render_chart(page, metric, points),
                options.runs,
            )
            line = (
                f"{rows:>8,}{len(chart.points):>9,}{len(chart.records):>9,}"
                f"{len(html.encode()) / 1024:>11.0f}{wall:>9.1f}{cpu:>8.1f}"
            )
            if not options.no_page:
                page_wall, page_cpu, size = page_size(page, metric, options.runs)
                line += f"{size / 1024:>10.0f}{page_wall:>14.0f}{page_cpu:>13.0f}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
