"""The serving benchmark's pages at CI size: each answers, and its query count holds.

bench/serve.py measures these pages under gunicorn and wrk; here the same list
(bench/common.py) goes through the test client against a small set and then a
larger one. Nothing is timed. A page the site cannot find or resolve fails by
name: the benchmark would measure nothing there, so it is broken, not pending.
"""

from urllib.parse import urlsplit

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import Resolver404, resolve
from django.utils.html import escape

from bench import cold, common
from leaderboards.ingest.loader import Loader
from tools.synthetic_pages import generate_pages

PAGE_NAMES = [page.name for page in common.site_pages()]

# The larger set has six times the generated boards, ten times the big board's
# rows, and copies of the seed page on other datasets: its task page gains
# boards and its papers' pages gain rows, so a per-item query would show.
SMALL = {"boards": 4, "big_rows": 30, "copies": 0, "read_at": "2026-06-01T00:00:00+00:00"}
LARGE = {"boards": 24, "big_rows": 300, "copies": 3, "read_at": "2026-07-01T00:00:00+00:00"}


def expected_text():
    """What a visitor must see on the pages whose content the seed decides."""
    seed = common.seed_page()
    first = seed["rows"][0]
    return {
        "leaderboard (seed, 22 rows)": first["model"],
        "task page": seed["task"]["name"],
        "paper page": first["paper_title"],
        "search, narrow": common.NARROW_QUERY,
    }


def seed_copy(index):
    page = common.seed_page()
    page["url"] = f"{page['url']}-copy-{index}"
    page["dataset"] = {"name": f"Copy {index}", "url": f"/dataset/bench-copy-{index}"}
    return page


def load_set(boards, big_rows, copies, read_at):
    pages = [(f"generated-{index}", page) for index, page in enumerate(generate_pages(boards, 7))]
    pages.append(("seed", common.seed_page()))
    pages += [(f"copy-{index}", seed_copy(index)) for index in range(copies)]
    pages.append(("big", common.big_page(big_rows, read_at)))
    report = Loader().load_pages(pages)
    assert not report.failed, report.failed


def routed(path):
    try:
        resolve(urlsplit(path).path)
    except Resolver404:
        return False
    return True


def visit(client, name):
    """(path, response, queries) of the named page, with every cache emptied first.

    Emptying the caches makes each visit render the page, so the count is the
    page's own, not a cache hit's.
    """
    for cache in caches.all():
        cache.clear()
    pages = common.resolve_pages(lambda path: _status_and_text(client.get(path)))
    page = next(page for page in pages if page.name == name)
    assert page.path is not None, f"{name}: the benchmark finds no such page ({page.missing})"
    assert routed(page.path), f"{name}: the site has no route for {page.path}"
    for cache in caches.all():
        cache.clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(page.path)
    return page.path, response, len(queries)


def _status_and_text(response):
    return response.status_code, response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGE_NAMES)
def test_bench_page_answers_and_costs_the_same_queries_on_a_larger_set(client, name):
    load_set(**SMALL)
    path, response, small = visit(client, name)
    assert response.status_code == 200, path
    text = expected_text().get(name)
    if text:
        assert escape(text) in response.content.decode()

    load_set(**LARGE)
    path, response, large = visit(client, name)
    assert response.status_code == 200, path
    assert large == small, f"{path}: {small} queries on the small set, {large} on the larger"


def test_the_big_board_keeps_its_figures_true():
    from leaderboards.format import derive

    page = common.big_page(50)
    assert len(page["rows"]) == 50
    assert page["counts"] == derive.page_counts(page["rows"])
    # Each row stands for a paper of its own, so paper pages keep their usual size.
    assert len({row["paper"] for row in page["rows"]}) == 50
    assert not list(derive.differences(page))


@pytest.mark.parametrize(
    ("html", "last"),
    [
        ('<a href="?page=2">2</a> <a href="?page=37">37</a>', "/sota/?page=37"),
        ('<a href="/sota/?q=x&amp;page=9">9</a>', "/sota/?q=x&page=9"),
        ('<a rel="last" href="/sota/?after=zz">Last</a>', "/sota/?after=zz"),
        ('<a href="/sota/?cursor=abc">Last page &raquo;</a>', "/sota/?cursor=abc"),
        ("<p>nothing to page</p>", None),
    ],
)
def test_the_last_page_is_found_whatever_the_pagination(html, last):
    assert common.find_last_page(html) == last


def _first_column(sql):
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db
def test_cold_pages_are_distinct_across_runs_and_each_answers(client):
    from tests.helpers import make_authors, make_method, make_paper

    load_set(**SMALL)
    papers = [make_paper(f"cold-paper-{index}") for index in range(4)]
    for index, paper in enumerate(papers):
        make_authors(paper, f"Cold Author {index}")
        make_method(f"cold-method-{index}", papers=[paper])
    found = cold.kinds(_first_column, "1", per_run=40)
    assert [kind.name for kind in found] == [
        "board page",
        "board sorted by date",
        "paper page",
        "method page",
        "author page",
        "dataset page",
    ]
    every = [path for kind in found for paths in kind.paths.values() for path in paths]
    assert len(every) == len(set(every))
    seed = common.seed_page()["url"]
    assert not [path for path in every if path.split("?")[0] == seed]
    for kind in found:
        assert kind.paths[8], kind.name
        for path in kind.paths[8][:2] + kind.paths[2][:2]:
            assert client.get(path).status_code == 200, path


def test_a_repeated_path_fails_the_cold_run():
    def result(repeats=0, rps=100.0, p95=5.0):
        return cold.ColdResult(int(rps), 200, int(rps), repeats, 1.0, 1.0, p95, p95, 0, None)

    found = [cold.Kind("paper page", 0.2, {})]
    static = {8: result(rps=400.0), 2: result(rps=300.0)}
    clean = cold.verdicts(found, static, {"paper page": {8: result(), 2: result()}}, {1: 90}, 10**5)
    assert all(ok == "PASS" for ok, _, _ in clean)
    repeated = {"paper page": {8: result(repeats=1), 2: result()}}
    rows = cold.verdicts(found, static, repeated, {1: 90}, 10**5)
    assert ("MISS", "no path asked twice (requests <= distinct paths)") in [r[:2] for r in rows]


def test_the_cold_script_hands_out_each_path_once():
    script = cold.COLD_SCRIPT % {"paths": '"/a", "/b"', "repeat": "false"}
    assert 'local paths = {"/a", "/b"}' in script
    assert "wrk.thread:stop()" in script
