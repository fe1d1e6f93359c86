import copy
import json
import os
import shutil
import uuid

import pytest
from django.core.management import call_command
from hypothesis import settings as hypothesis_settings

from tests.helpers import (
    ARTIFACTS,
    CHROMIUM,
    EDITOR_PASSWORD,
    ROOT,
    SEED_FILE,
    SEED_SLUG,
    board_with_metrics,
    sign_in,
    unranked,
)

# Property tests draw the same examples on every run, so CI is deterministic, and keep
# no example database (.hypothesis/) in the checkout.
hypothesis_settings.register_profile("sotasite", database=None, derandomize=True)
hypothesis_settings.load_profile("sotasite")

# Playwright's sync API runs an event loop in the test thread; Django refuses
# database access from a thread with a running loop unless told it is safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


# A test reaches a database through one of these (directly or through another fixture),
# or through the django_db marker. The last is the PostgreSQL database of its own a
# child process gets.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_setup",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
    "child_database_url",
}
# A test that starts a server, a browser or a child process is slow by nature.
PROCESS_FIXTURES = {"live_server", "browser", "child_database_url"}


def touches_a_database(item):
    fixtures = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("django_db") is not None or bool(DATABASE_FIXTURES & fixtures)


def pytest_collection_modifyitems(config, items):
    """Mark the slow tests, and on PostgreSQL leave out those no database reaches.

    `make test` runs the suite on SQLite then on PostgreSQL; a test that never touches
    a database would only run twice for nothing.
    """
    for item in items:
        if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    kept, left_out = [], []
    for item in items:
        (kept if touches_a_database(item) else left_out).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        call_command("loaddata", ROOT / "fixtures" / "areas.json", verbosity=0)


@pytest.fixture
def seed_page():
    """A fresh parsed copy of the real seed page, to change in a test."""
    return json.loads(SEED_FILE.read_text(encoding="utf-8"))


@pytest.fixture
def write_page(tmp_path):
    """Write a page dict as a file and return its path."""
    counter = iter(range(10**6))

    def write(page, name=None):
        path = tmp_path / (name or f"page-{next(counter)}.json")
        path.write_text(json.dumps(page, ensure_ascii=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def load(db):
    """Run load_seeds on paths; return (exit ok, stdout, stderr)."""
    import io

    from django.core.management.base import CommandError

    def run(*paths, dry_run=False):
        out, err = io.StringIO(), io.StringIO()
        ok = True
        try:
            call_command("load_seeds", *map(str, paths), dry_run=dry_run, stdout=out, stderr=err)
        except CommandError as error:
            ok = False
            err.write(str(error))
        return ok, out.getvalue(), err.getvalue()

    return run


@pytest.fixture
def seeded(load):
    ok, out, err = load(SEED_FILE)
    assert ok, err
    from leaderboards.models import Leaderboard

    return Leaderboard.objects.get(slug=SEED_SLUG)


@pytest.fixture
def unsettled(load, seed_page, write_page):
    """The seed with its rows in an order that settles no direction (helpers.unranked)."""
    ok, _, err = load(write_page(unranked(seed_page)))
    assert ok, err
    from leaderboards.models import Leaderboard

    return Leaderboard.objects.get(slug=SEED_SLUG)


@pytest.fixture
def load_boards(load, write_page, tmp_path):
    """Load boards given as (slug, rows, metric names), in one load."""

    def run(*boards, seed):
        folder = tmp_path / "boards"
        folder.mkdir(exist_ok=True)
        for slug, rows, metrics in boards:
            page = board_with_metrics(copy.deepcopy(seed), slug, rows, metrics)
            write_page(page, name=f"boards/{slug}.json")
        ok, out, err = load(folder)
        assert ok, err

    return run


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium driven by Playwright; no browser download involved."""
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh browser tab at desktop size; screenshots go to tests/artifacts/."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture
def screenshot():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(tab, name, full_page=True):
        path = ARTIFACTS / f"{name}.png"
        tab.screenshot(path=str(path), full_page=full_page)
        return path

    return take


@pytest.fixture(autouse=True)
def _no_page_cache(settings):
    """Pages are rendered afresh in tests, so query counts pin the views' own cost.

    The page_cache fixture turns it on where it is under test.
    """
    settings.SOTASITE_PAGE_CACHE = False
    # Kept by a board's version: a test's board may take an earlier test's id and version.
    from leaderboards.api.ranking import numbers_kept

    numbers_kept.clear()


# The shared cache the deployment section describes; `make test` starts a Redis
# server and names a database of it here.
TEST_REDIS_URL = os.environ.get("SOTASITE_TEST_REDIS_URL")


@pytest.fixture(params=["per-process", "redis"])
def page_cache(request, settings):
    """The page cache on, once per process's own memory and once in Redis."""
    from django.core.cache import caches

    from leaderboards.web.page_cache import PAGE_CACHE
    from sotasite.settings import redis_page_cache

    if request.param == "redis":
        if not TEST_REDIS_URL:
            pytest.skip("SOTASITE_TEST_REDIS_URL names no Redis server (make test does)")
        settings.CACHES = {**settings.CACHES, PAGE_CACHE: redis_page_cache(TEST_REDIS_URL)}
    from leaderboards.web.prepared import orders_kept, rows_kept

    settings.SOTASITE_PAGE_CACHE = True
    caches[PAGE_CACHE].clear()
    rows_kept.clear()
    orders_kept.clear()
    yield
    caches[PAGE_CACHE].clear()
    rows_kept.clear()
    orders_kept.clear()


# Editors (issue #5): an account made the way the README says, signed in.
@pytest.fixture
def editor(db, monkeypatch):
    import io

    from django.contrib.auth.models import User

    monkeypatch.setenv("SOTASITE_EDITOR_PASSWORD", EDITOR_PASSWORD)
    call_command("createeditor", "erin", "--no-input", stdout=io.StringIO())
    return User.objects.get(username="erin")


@pytest.fixture
def editor_client(client, editor):
    return sign_in(client, editor)


@pytest.fixture
def child_database_url(tmp_path, settings):
    """A database of its own for child processes: a file, or a fresh PostgreSQL one.

    pytest-django's SQLite test database lives in memory, out of a child's reach.
    """
    import psycopg

    if "sqlite" in settings.DATABASES["default"]["ENGINE"]:
        yield f"sqlite:///{tmp_path / 'child.sqlite3'}"
        return
    name = f"sotasite_child_{uuid.uuid4().hex[:8]}"
    admin = "postgres://postgres@127.0.0.1:5432/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield f"postgres://postgres@127.0.0.1:5432/{name}"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(autouse=True)
def quick_password_hashing(settings):
    """Passwords hashed in one step: each editor a test makes cost PBKDF2's 1.2 million
    rounds, a third of a second, and the admin's tests make hundreds. What the tests
    check of logins (throttling, lockouts, who may sign in) does not depend on the hasher.
    """
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
