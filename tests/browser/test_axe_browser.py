"""axe-core finds no accessibility violation on any page type, at both widths, light and dark.

The site is served as `make run` serves it (gunicorn, whitenoise, the CSP) from a
database of its own holding the seed page, the real ogb and nlp-progress samples
and the real 951-row ImageNet board (tools/pwc_scrape.py), loaded once for the
module: pytest-django's live_server would flush the database after every test.

axe-core comes from npm (package-lock.json pins it; `make test` runs `npm ci`).
It is run with `page.evaluate`, which the DevTools protocol executes outside the
page's CSP, so the page keeps the policy it is served with: a `<script>` tag
added to the page would be refused by `script-src 'self'`, and `bypass_csp` would
test a page no visitor gets.
"""

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from leaderboards.format.rules import compact_json, model_slug
from tests.helpers import (
    ARTIFACTS,
    CMA,
    CMA_PAPER,
    LINE,
    LINE_PAPER,
    PWC_DATA,
    ROOT,
    SEED_FILE,
    SEED_SLUG,
    a_reloaded_seed,
    child_env,
)
from tools import pwc_scrape

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
SCHEMES = ("light", "dark")
IMAGENET_SCRAPE = PWC_DATA / "pwc-sota-page_image-classification-on-imagenet.json"
IMAGENET_SLUG = "image-classification-on-imagenet"
OGB_BOARD = "/sota/node-property-prediction-on-ogbn-products"

# One page of every type a visitor reaches.
PAGES = {
    "home": "/",
    "leaderboard-list": "/sota/",
    "leaderboard-list-by-freshness": "/sota/?best_older_than=1&sort=oldest_best",
    "seed-board": f"/sota/{SEED_SLUG}",
    # Loaded twice (the second a changed page): each kind of change has its table.
    "board-history": f"/sota/{SEED_SLUG}/history",
    "ogb-board": OGB_BOARD,
    "imagenet-951-rows": f"/sota/{IMAGENET_SLUG}",
    "task-list": "/task/",
    "task-with-subtasks": "/task/dialogue",
    "dataset-list": "/dataset/",
    "dataset": "/dataset/imagenet-1k-vs-sun",
    "paper-list": "/paper/",
    "paper": "/paper/enhanced-ood-detection-through-cross-modal",
    "author": "/author/jeonghyeon-kim",
    "model": f"/model/{model_slug(CMA, CMA_PAPER)}",
    "model-compare": (
        f"/model/compare?m={model_slug(CMA, CMA_PAPER)}&m={model_slug(LINE, LINE_PAPER)}"
    ),
    "conference": "/conference/cvpr",
    "method-list": "/methods/",
    "method-area": "/methods/area/computer-vision",
    "method-category": "/methods/category/vision-transformers",
    "method": "/method/vision-transformer",
    "area-list": "/area/",
    "area": "/area/computer-vision",
    "search": "/search?q=image",
    "search-one-kind": "/search?q=image&kind=leaderboard",
    "suggest-correction": f"/suggest/{SEED_SLUG}/correction",
    "suggest-result": f"/suggest/{IMAGENET_SLUG}/result",
    "suggest-sent": f"/suggest/{SEED_SLUG}/sent",
    "suggest-about": "/suggest/",
    "changes": "/changes/",
    "dumps": "/dumps/",
    "not-found": "/no-such-page",
    "api-docs": "/api/v1/docs",
}

LOAD = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("loaddata", {areas!r}, verbosity=0)
call_command("load_seeds", {seed!r}, {imagenet!r}, verbosity=0)
call_command("load_seeds", {reloaded!r}, verbosity=0)
for path in {archives!r}:
    call_command("import_pwc", path, verbosity=0)
# What the papers, links, methods and datasets files say of the seed's paper
# and dataset: every page type of the archive, with realistic data.
from tests.helpers import make_showcase
make_showcase()
call_command("export_dumps", verbosity=0)
"""


def axe_source():
    if not AXE.is_file():
        pytest.fail(f"{AXE.relative_to(ROOT)} is missing: run `npm ci` (make test does)")
    return AXE.read_text(encoding="utf-8")


def imagenet_page_file(folder):
    """The 951-row board, converted from PwC's scraped page as tools/pwc_scrape.py does."""
    rows = json.loads(IMAGENET_SCRAPE.read_text(encoding="utf-8"))
    page = pwc_scrape.convert(
        rows, IMAGENET_SLUG, "Image Classification", "ImageNet", "Computer Vision"
    )
    path = folder / f"{IMAGENET_SLUG}.json"
    path.write_text(compact_json(page), encoding="utf-8")
    return path


class Database:
    """A database of the site's own for the served copy: a file, or a fresh PostgreSQL one."""

    ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"

    def __init__(self, folder):
        self.postgres = os.environ.get("DATABASE_URL", "").startswith("postgres")
        self.name = f"sotasite_axe_{uuid.uuid4().hex[:8]}"
        if self.postgres:
            self._admin(f'CREATE DATABASE "{self.name}"')
            self.url = f"postgres://postgres@127.0.0.1:5432/{self.name}"
        else:
            self.url = f"sqlite:///{folder / 'site.sqlite3'}"

    def drop(self):
        if self.postgres:
            self._admin(f'DROP DATABASE "{self.name}" WITH (FORCE)')

    def _admin(self, statement):
        import psycopg

        with psycopg.connect(self.ADMIN, autocommit=True) as connection:
            connection.execute(statement)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_up(url, server, log, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the site stopped: {log.read_text()[-2000:]}")
        try:
            # The first answer waits for the worker to boot: seconds on a busy machine.
            with urllib.request.urlopen(url + "/healthz", timeout=30):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.3)
    pytest.fail(f"the site did not answer at {url} within {seconds} s")


@contextlib.contextmanager
def serving(env, log):
    """gunicorn, one worker, as `make run` serves the site; its base URL."""
    port = free_port()
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "sotasite.wsgi", "--workers", "1",
             "--bind", f"127.0.0.1:{port}", "--log-level", "warning"],
            cwd=ROOT, env=env, stderr=output,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_up(url, server, log)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site served by gunicorn from a loaded database; its base URL."""
    folder = tmp_path_factory.mktemp("axe")
    imagenet = imagenet_page_file(folder)
    reloaded = folder / "seed-reloaded.json"
    page, _ = a_reloaded_seed(json.loads(SEED_FILE.read_text(encoding="utf-8")))
    reloaded.write_text(compact_json(page), encoding="utf-8")
    database = Database(folder)
    # A dump set of that data, so /dumps/ lists its files.
    env = {
        **child_env(database.url),
        "SOTASITE_PAGE_CACHE": "0",
        "SOTASITE_DUMPS_DIR": str(folder / "dumps"),
    }
    try:
        script = LOAD.format(
            areas=str(ROOT / "fixtures" / "areas.json"),
            seed=str(SEED_FILE),
            imagenet=str(imagenet),
            reloaded=str(reloaded),
            archives=[
                str(PWC_DATA / f"sota-extractor_{name}.json") for name in ("ogb", "nlp-progress")
            ],
        )
        loaded = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert loaded.returncode == 0, loaded.stderr[-3000:]
        log = folder / "gunicorn.log"
        with serving(env, log) as url:
            yield url
    finally:
        database.drop()


@pytest.fixture(scope="module")
def tabs(browser):
    """One tab per width and colour scheme, reused by every page of the module."""
    opened, contexts = {}, []

    def tab(width, scheme):
        if (width, scheme) not in opened:
            w, h = WIDTHS[width]
            context = browser.new_context(viewport={"width": w, "height": h}, color_scheme=scheme)
            contexts.append(context)
            opened[width, scheme] = context.new_page()
        return opened[width, scheme]

    yield tab
    for context in contexts:
        context.close()


def run_axe(tab):
    if not tab.evaluate("typeof window.axe === 'object'"):
        tab.evaluate(axe_source())
    return tab.evaluate(
        """tags => axe.run(document, {runOnly: {type: "tag", values: tags},
                                     resultTypes: ["violations"]})
                 .then(result => result.violations.map(v => ({
                     id: v.id, impact: v.impact, help: v.help,
                     nodes: v.nodes.map(n => ({target: n.target.join(" "),
                                              summary: n.failureSummary}))})))""",
        TAGS,
    )


def describe(violations):
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        lines += [f"    {node['target']}: {node['summary']}" for node in violation["nodes"]]
    return "\n".join(lines)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize(
    "name",
    list(PAGES),
)
def test_no_accessibility_violations(site, tabs, name, width, scheme):
    tab = tabs(width, scheme)
    response = tab.goto(site + PAGES[name])
    assert response.status == (404 if name == "not-found" else 200), PAGES[name]
    if name == "api-docs":
        # The description is drawn by script after load.
        tab.locator(".opblock-summary-path").first.wait_for()
    violations = run_axe(tab)
    assert not violations, f"{PAGES[name]} at {width}, {scheme}:\n{describe(violations)}"


def test_the_axe_run_reports_what_it_finds(site, tabs):
    """The check can fail: a page given an unlabelled image gets a violation back."""
    tab = tabs("desktop", "light")
    tab.goto(site + "/")
    tab.evaluate("document.querySelector('main').append(document.createElement('img'))")
    assert "image-alt" in {violation["id"] for violation in run_axe(tab)}


def test_the_951_row_board_shows_every_row(site, tabs):
    tab = tabs("desktop", "light")
    tab.goto(site + PAGES["imagenet-951-rows"])
    rows = json.loads(IMAGENET_SCRAPE.read_text(encoding="utf-8"))
    assert "951" in tab.locator(".key-figures").inner_text()
    first = tab.locator("table.results tbody tr").first.inner_text()
    assert rows[0]["Model"] in first and rows[0]["metrics"]["Top 1 Accuracy"] in first


# The pages issue #12 asks to be looked at; rerun after a merge with
# SOTASITE_SCREENSHOTS=DIR pytest tests/browser/test_axe_browser.py -k screenshots
SHOTS = Path(os.environ.get("SOTASITE_SCREENSHOTS") or ARTIFACTS / "axe")
SHOT_PAGES = (
    "imagenet-951-rows",
    "ogb-board",
    "task-with-subtasks",
    "paper",
    "method",
    "dataset",
    "dumps",
)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("name", SHOT_PAGES)
def test_screenshots(site, tabs, name, width, scheme):
    tab = tabs(width, scheme)
    tab.goto(site + PAGES[name])
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=SHOTS / f"{name}-{width}-{scheme}-first-screen.png")
    tab.screenshot(path=SHOTS / f"{name}-{width}-{scheme}-full.png", full_page=True)
    # A tall page's full shot is too small to read: its table and its end, a screen each.
    if tab.locator("#results").count():
        tab.locator("#results").scroll_into_view_if_needed()
        tab.screenshot(path=SHOTS / f"{name}-{width}-{scheme}-results.png")
    tab.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    tab.screenshot(path=SHOTS / f"{name}-{width}-{scheme}-end.png")
    # The shots show the scheme asked for: a dark page on a dark background.
    background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(part) for part in re.findall(r"\d+", background)[:3])
    assert (max(red, green, blue) < 64) == (scheme == "dark"), background
