"""The page cache in Redis is optional at run time: stopped, frozen or full, pages still answer.

Each test starts a Redis server of its own on a free port, so it can stop,
freeze and fill it under the running site without touching the one the rest
of the suite shares.
"""

import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
from django.core.cache import caches

from sotasite import caches as resilient
from tests.helpers import SEED_SLUG

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server"),
]

PAGES = ["/", f"/sota/{SEED_SLUG}", "/sota/", "/search?q=ood", "/search/suggest?q=ou"]
API = f"/api/v1/evaluations/{SEED_SLUG}/results/"


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def own_redis(tmp_path):
    port = _free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    yield server, port
    if server.poll() is None:
        os.kill(server.pid, signal.SIGCONT)
        server.terminate()
        server.wait(10)


@pytest.fixture
def site_on_own_redis(own_redis, settings, seeded, monkeypatch):
    from leaderboards.web.page_cache import PAGE_CACHE
    from sotasite.settings import redis_page_cache

    server, port = own_redis
    settings.CACHES = {
        **settings.CACHES,
        PAGE_CACHE: redis_page_cache(f"redis://127.0.0.1:{port}/0"),
    }
    settings.SOTASITE_PAGE_CACHE = True
    # A short pause, so that recovery is seen within the test.
    monkeypatch.setattr(resilient, "PAUSE_SECONDS", 0.5)
    caches[PAGE_CACHE].clear()
    return server, caches[PAGE_CACHE]


def _every_page_answers(client, limit=1.0):
    for path in [*PAGES, API]:
        started = time.monotonic()
        response = client.get(path)
        took = time.monotonic() - started
        assert response.status_code == 200, path
        assert took < limit, (path, took)


def test_pages_answer_with_redis_stopped_and_health_says_degraded(site_on_own_redis, client):
    server, _ = site_on_own_redis
    _every_page_answers(client)  # warm: pages now come from the cache
    assert client.get(f"/sota/{SEED_SLUG}")["X-Page-Cache"] == "hit"
    server.terminate()
    server.wait(10)
    _every_page_answers(client)
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["cache"] == "degraded"


def test_pages_answer_within_a_second_with_redis_frozen(site_on_own_redis, client):
    server, _ = site_on_own_redis
    _every_page_answers(client)  # warm: the process's first renders are not the cache's wait
    os.kill(server.pid, signal.SIGSTOP)
    try:
        # The first requests each wait one short socket time-out, then the cache is paused.
        _every_page_answers(client, limit=1.0)
    finally:
        os.kill(server.pid, signal.SIGCONT)


def test_pages_answer_with_redis_full_and_refusing_writes(site_on_own_redis, client):
    _, cache = site_on_own_redis
    client_ = cache._cache.get_client(write=True)
    client_.config_set("maxmemory-policy", "noeviction")
    client_.config_set("maxmemory", "1")
    _every_page_answers(client)


def test_the_cache_is_used_again_once_redis_answers_again(site_on_own_redis, client):
    server, cache = site_on_own_redis
    _every_page_answers(client)  # warm, as above
    os.kill(server.pid, signal.SIGSTOP)
    _every_page_answers(client)
    assert cache.degraded
    os.kill(server.pid, signal.SIGCONT)
    time.sleep(0.6)  # the pause ends
    client.get(f"/sota/{SEED_SLUG}")
    assert client.get(f"/sota/{SEED_SLUG}")["X-Page-Cache"] == "hit"
    assert client.get("/healthz").json()["cache"] == "ok"
