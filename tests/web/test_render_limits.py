"""Expensive renders run a few at a time; beyond that a 503 with Retry-After, never a queue.

A large board's views built from its rows, its .json and .csv, and the API's
results take a render slot (leaderboards/web/limiter.py); the board's own page,
made from its prepared parts, a small board's views and every other page take none.
"""

import fcntl
import gc
import os
import threading
import time

import pytest
from django.urls import resolve, reverse

from leaderboards.web import limiter
from leaderboards.web.page_data import PageRow
from leaderboards.web.table import TableRow
from tests.helpers import SEED_SLUG

BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
EXPENSIVE = [
    f"{BOARD}?sort=model",
    f"{BOARD}?page=1&order=desc",
    reverse("leaderboards:leaderboard_json", args=[SEED_SLUG]),
    reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG]),
    f"/api/v1/evaluations/{SEED_SLUG}/results/",
]


@pytest.fixture
def slots(settings, tmp_path):
    """Two slots on the machine, one per process, a short wait; yield the lock directory."""
    settings.SOTASITE_RENDERS_LOCK_DIR = str(tmp_path / "renders")
    settings.SOTASITE_RENDERS_PER_MACHINE = 2
    settings.SOTASITE_RENDERS_PER_PROCESS = 1
    settings.SOTASITE_RENDERS_WAIT = 0.2
    settings.SOTASITE_RENDERS_RETRY_AFTER = 7
    # The seed board stands for a large one: every board takes a slot.
    settings.SOTASITE_RENDERS_FROM_ROWS = 0
    return tmp_path / "renders"


def hold_machine_slots(folder, count):
    """Take `count` of the machine's slots as another worker would: an flock on each file."""
    folder.mkdir(parents=True, exist_ok=True)
    held = []
    for index in range(count):
        descriptor = os.open(folder / f"render-{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.append(descriptor)
    return held


def release(held):
    for descriptor in held:
        os.close(descriptor)


@pytest.mark.parametrize("url", EXPENSIVE)
def test_every_slot_on_the_machine_taken_means_a_503_with_retry_after(seeded, client, slots, url):
    held = hold_machine_slots(slots, 2)
    try:
        response = client.get(url)
    finally:
        release(held)
    assert response.status_code == 503
    assert response["Retry-After"] == "7"
    assert "try again" in response.content.decode()
    assert client.get(url).status_code == 200


def test_the_api_says_busy_in_json(seeded, client, slots):
    held = hold_machine_slots(slots, 2)
    try:
        response = client.get(f"/api/v1/evaluations/{SEED_SLUG}/results/")
    finally:
        release(held)
    assert response.status_code == 503
    assert "try again" in response.json()["error"]


def test_one_free_slot_on_the_machine_is_enough(seeded, client, slots):
    held = hold_machine_slots(slots, 1)
    try:
        assert client.get(f"{BOARD}?sort=model").status_code == 200
    finally:
        release(held)


def test_the_process_slot_taken_means_a_503_though_the_machine_has_room(seeded, client, slots):
    process_slots = limiter.limiter().per_process
    process_slots.acquire()
    try:
        response = client.get(f"{BOARD}?sort=model")
    finally:
        process_slots.release()
    assert response.status_code == 503
    assert client.get(f"{BOARD}?sort=model").status_code == 200


def test_a_slot_freed_within_the_wait_serves_the_request(seeded, client, slots, settings):
    settings.SOTASITE_RENDERS_WAIT = 5
    held = hold_machine_slots(slots, 2)
    threading.Timer(0.3, release, [held]).start()
    started = time.monotonic()
    assert client.get(f"{BOARD}?sort=model").status_code == 200
    assert 0.3 <= time.monotonic() - started < 5


def test_pages_that_render_cheaply_take_no_slot(seeded, client, slots, page_cache):
    client.get(BOARD)  # the board's parts prepared, as any first visit does
    held = hold_machine_slots(slots, 2)
    try:
        for url in [BOARD, f"{BOARD}?utm_source=feed", "/", "/sota/", "/feeds/newest.atom"]:
            assert client.get(url).status_code == 200, url
    finally:
        release(held)


def test_a_board_of_fewer_rows_than_the_threshold_takes_no_slot(seeded, client, slots, settings):
    settings.SOTASITE_RENDERS_FROM_ROWS = 23  # the seed board has 22
    held = hold_machine_slots(slots, 2)
    try:
        for url in EXPENSIVE:
            assert client.get(url).status_code == 200, url
    finally:
        release(held)


def test_a_worker_that_dies_gives_its_slot_back(slots):
    # flock belongs to the open file: closing it, as a dying process's kernel
    # does, frees the slot for the next request.
    held = hold_machine_slots(slots, 2)
    release(held[:1])
    with limiter.limiter().slot():
        pass
    release(held[1:])


def test_waiting_requests_beyond_the_queue_are_refused_at_once(slots, settings):
    settings.SOTASITE_RENDERS_WAIT = 2
    settings.SOTASITE_RENDERS_QUEUE = 0
    limits = limiter.limiter()
    limits.per_process.acquire()
    waiter = threading.Thread(target=_enter, args=[limits])  # served once the slot frees
    waiter.start()
    time.sleep(0.1)  # the one waiter the queue allows is waiting now
    started = time.monotonic()
    with pytest.raises(limiter.Busy):
        _enter(limits)
    assert time.monotonic() - started < 0.5
    limits.per_process.release()
    waiter.join()


def _enter(limits):
    with limits.slot():
        pass


def test_no_garbage_is_collected_while_a_render_holds_its_slot(slots):
    """A full collection walked the render's million objects with the GIL held: every
    thread of the worker, the cached pages' too, stood still for 100 ms and more."""
    assert gc.isenabled()
    with limiter.limiter().slot():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), limiter.limiter().slot():
        raise RuntimeError("the render failed")
    assert gc.isenabled()


def test_collection_resumes_only_when_the_last_render_of_the_process_ends(slots, settings):
    settings.SOTASITE_RENDERS_PER_PROCESS = 2
    limits = limiter.limiter()
    first_in, second_out = threading.Event(), threading.Event()

    def first():
        with limits.slot():
            first_in.set()
            second_out.wait(5)
            assert not gc.isenabled()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with limits.slot():
        pass
    still_paused = not gc.isenabled()
    second_out.set()
    thread.join()
    assert still_paused
    assert gc.isenabled()


@pytest.mark.parametrize("url", EXPENSIVE)
def test_a_view_built_from_rows_leaves_no_row_for_the_garbage_collector(seeded, rf, url):
    """Its rows are freed by their reference counts as the response is: a row held in a
    reference cycle (a paginator over every row, kept in the template's context) lived
    on until a collection walked them all. The view is called as the handler calls it:
    the test client keeps every template's context, a cycle of its own."""
    path, _, query = url.partition("?")
    view = resolve(path)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        response = view.func(rf.get(path + "?" + query), *view.args, **view.kwargs)
        assert response.status_code == 200
        del response
        gc.collect()
        left = [kept for kept in gc.garbage if isinstance(kept, (TableRow, PageRow))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


@pytest.mark.parametrize("query", ["", "?sort=model", "?model=vit&sort=date"])
def test_a_request_that_waited_for_its_slot_uses_what_another_kept_meanwhile(
    seeded, client, slots, page_cache, monkeypatch, query
):
    """The requests queued behind the one preparing a large board read none of its rows."""
    from django.test import Client

    from leaderboards.models import Leaderboard
    from leaderboards.web.page_data import _Reader
    from leaderboards.web.prepared import rows_kept
    from leaderboards.web.views import board_page as views

    monkeypatch.setattr(rows_kept, "max_size", 10)  # the seed stands for a 100,000-row board
    # Not prepared for its versions (an editor changed it since the load): its first
    # visitor in a worker reads its rows.
    Leaderboard.objects.update(prepared_key="")
    real_take_slot, real_rows, others, reads = views.take_slot, _Reader.rows, [], []

    def take_slot_after_another(rows):
        if not others:
            # While this request waits, another prepares the board and keeps its parts.
            others.append(None)
            others[0] = Client().get(BOARD)
            reads.append("the other's")
        return real_take_slot(rows)

    def rows(reader, leaderboard_id, extras, ids=None):
        reads.append("every row" if ids is None else f"{len(ids)} by id")
        return real_rows(reader, leaderboard_id, extras, ids)

    monkeypatch.setattr(views, "take_slot", take_slot_after_another)
    monkeypatch.setattr(_Reader, "rows", rows)
    response = client.get(BOARD + query)
    assert response.status_code == others[0].status_code == 200
    # Every row read once, by the other request; this one at most its page's, by id.
    # (Narrowed, its page holds the rows the filter keeps: the slot it holds serves it.)
    page = {"": [], "?sort=model": ["22 by id"], "?model=vit&sort=date": ["1 by id"]}[query]
    assert reads == ["every row", "the other's", *page]
    assert "CMA(ViT-B/16, NegLabel)" in response.content.decode()


@pytest.fixture
def paged_board(seeded, client, slots, page_cache, monkeypatch, settings):
    """The seed as a board too large to keep, prepared and its orders and numbers kept."""
    from leaderboards.api import ranking
    from leaderboards.models import Leaderboard
    from leaderboards.web.prepared import rows_kept

    monkeypatch.setattr(rows_kept, "max_size", 10)  # the seed stands for a 100,000-row board
    monkeypatch.setattr(ranking, "KEPT_FROM_ROWS", 10)
    # Loaded as a small board: its first visit below prepares it as a large one.
    Leaderboard.objects.update(prepared_key="")
    settings.SOTASITE_PAGE_RENDERS_PER_PROCESS = 2
    assert client.get(BOARD).status_code == 200
    assert client.get(f"/api/v1/evaluations/{SEED_SLUG}/results/").status_code == 200


PAGED = [
    f"{BOARD}?sort=date",
    f"{BOARD}?page=2&order=desc",
    f"/api/v1/evaluations/{SEED_SLUG}/results/?page=2&items_per_page=5",
]


def test_a_page_of_a_large_board_takes_a_page_slot_not_a_render_slot(paged_board, client, slots):
    """Read by id along a kept order, or ranked from kept numbers, such a page costs a page's
    rows: it does not wait behind the 1 s renders, and the collector runs while it does."""
    held = hold_machine_slots(slots, 2)
    try:
        for url in PAGED:
            assert client.get(url).status_code == 200, url
    finally:
        release(held)
    with limiter.page_limiter().slot():
        assert gc.isenabled()


def test_pages_of_a_large_board_run_two_at_a_time_in_a_worker(paged_board, client):
    """Sixteen clients asking for them held every thread of a worker: a cached page waited."""
    limits = limiter.page_limiter()
    limits.per_process.acquire()
    limits.per_process.acquire()
    try:
        for url in PAGED:
            response = client.get(url)
            assert response.status_code == 503, url
            assert response["Retry-After"] == "7"
    finally:
        limits.per_process.release()
        limits.per_process.release()
    for url in PAGED:
        assert client.get(url).status_code == 200, url
