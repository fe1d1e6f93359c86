"""How many expensive renders run at once: a few per process and per machine, the rest a 503.

A view of a board built from its rows (a sort, a filter, a page past the
first, its .json or .csv, the API's results) costs about a second on a board
of 100,000 rows; a page from the cache costs a millisecond. Left alone,
sixteen clients asking for such views held every thread of every worker, and
the cached pages waited behind them for seconds. So such a render of a board
of SOTASITE_RENDERS_FROM_ROWS rows or more first takes a slot (smaller boards
render in milliseconds, and a worker's first visit to one must never wait):

- one of SOTASITE_RENDERS_PER_PROCESS in its own process (a semaphore), so a
  worker keeps threads free for cheap requests and its memory holds one
  render's rows at a time;
- one of SOTASITE_RENDERS_PER_MACHINE across every worker of the machine: a
  lock file each in SOTASITE_RENDERS_LOCK_DIR, taken with flock, which the
  kernel gives back when a process dies, so a killed worker never keeps one.

While a slot is held, the process collects no garbage: a render builds
about a million objects that live until it ends, and each full
collection walked them all while holding the GIL, so every thread of the
worker, the cheap pages' too, stood still for 100 to 170 ms at a time (and the
render took twice as long). Its objects are freed by their reference counts
when it ends, as long as no reference cycle holds them (see the board view's
paginator).

A page of a board too large to keep, read along a kept order (its rows by
id), or a page of its API results ranked from kept numbers, costs 30 to 100
ms: cheap alone, but sixteen clients asking for them held all of a worker's
threads, and a cached page waited for a thread and then for the GIL (the seed
page's p50 66 ms, p99 132 ms). Such a page takes a page slot instead, one of
SOTASITE_PAGE_RENDERS_PER_PROCESS, with no machine-wide lock and no pause of
the collector: it builds a page's objects, not a board's.

A request that finds none free waits up to SOTASITE_RENDERS_WAIT seconds,
with no more than SOTASITE_RENDERS_QUEUE others of its process waiting too
(for a slot of either kind),
then is answered 503 with Retry-After: far sooner than the worker timeout,
and without holding a thread that a cached page needs.
"""

import contextvars
import fcntl
import functools
import gc
import logging
import os
import threading
import time
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

from django.conf import settings
from django.http import HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

# How often a waiting request looks for a free slot on the machine.
POLL_SECONDS = 0.05


class Busy(Exception):
    """No slot came free in time."""


class _Collection:
    """No garbage collection while any thread of this process holds a render slot."""

    def __init__(self):
        self.lock = threading.Lock()
        self.holders = 0
        self.was_enabled = False

    @contextmanager
    def paused(self):
        with self.lock:
            if self.holders == 0:
                self.was_enabled = gc.isenabled()
                gc.disable()
            self.holders += 1
        try:
            yield
        finally:
            with self.lock:
                self.holders -= 1
                if self.holders == 0 and self.was_enabled:
                    gc.enable()


_collection = _Collection()


class _Waiting:
    """The requests of this process waiting for a slot, of either kind: each holds one of
    the worker's threads, and with a queue for each kind they held all eight, so a cached
    page waited for a thread (the seed page's p99 141 ms)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0


_waiting = _Waiting()


class Limiter:
    """The slots of one configuration: per process (a semaphore) and per machine (lock files)."""

    def __init__(self, per_process, per_machine, lock_dir, wait, queue, pause_collection=True):
        self.per_process = threading.BoundedSemaphore(per_process)
        self.pause_collection = pause_collection
        self.lock_dir = Path(lock_dir)
        self.slot_paths = [self.lock_dir / f"render-{index}.lock" for index in range(per_machine)]
        self.wait = wait
        self.queue = queue

    @contextmanager
    def slot(self):
        """Hold a render slot for the block; Busy when none comes free in time."""
        deadline = time.monotonic() + self.wait
        # Only a request that must wait counts as waiting: a free page slot is taken
        # even while others wait for a render slot.
        if not self.per_process.acquire(blocking=False):
            with _waiting.lock:
                if _waiting.count >= self.queue + 1:
                    raise Busy
                _waiting.count += 1
            try:
                got_process = self.per_process.acquire(timeout=self.wait)
            finally:
                with _waiting.lock:
                    _waiting.count -= 1
            if not got_process:
                raise Busy
        try:
            descriptor = self._machine_slot(deadline) if self.slot_paths else None
            try:
                with _collection.paused() if self.pause_collection else nullcontext():
                    yield
            finally:
                if descriptor is not None:
                    os.close(descriptor)  # closing the file releases its flock
        finally:
            self.per_process.release()

    def _machine_slot(self, deadline):
        """An open, flocked descriptor of one of the machine's slot files."""
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        while True:
            for path in self.slot_paths:
                # A descriptor of its own each time: flock is held per open file,
                # so two threads of one process never share a slot by mistake.
                descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(descriptor)
                    continue
                return descriptor
            if time.monotonic() >= deadline:
                raise Busy
            time.sleep(POLL_SECONDS)


@functools.cache
def _limiter(per_process, per_machine, lock_dir, wait, queue, pause_collection=True):
    return Limiter(per_process, per_machine, lock_dir, wait, queue, pause_collection)


def limiter():
    """This process's Limiter for the current settings."""
    return _limiter(
        settings.SOTASITE_RENDERS_PER_PROCESS,
        settings.SOTASITE_RENDERS_PER_MACHINE,
        str(settings.SOTASITE_RENDERS_LOCK_DIR),
        settings.SOTASITE_RENDERS_WAIT,
        settings.SOTASITE_RENDERS_QUEUE,
    )


def page_limiter():
    """This process's Limiter of page slots (see above) for the current settings."""
    return _limiter(
        settings.SOTASITE_PAGE_RENDERS_PER_PROCESS,
        0,
        "",
        settings.SOTASITE_RENDERS_WAIT,
        settings.SOTASITE_RENDERS_QUEUE,
        pause_collection=False,
    )


BUSY = (
    "The site is busy building other views of large leaderboards. "
    "Please try again in a few seconds."
)


def busy_response(request):
    """503 with Retry-After: JSON for the API, as its other errors are; text elsewhere."""
    match = request.resolver_match
    if match is not None and match.namespace == "api":
        response = JsonResponse({"error": BUSY}, status=503)
    else:
        response = HttpResponse(BUSY + "\n", content_type="text/plain; charset=utf-8", status=503)
    response["Retry-After"] = str(settings.SOTASITE_RENDERS_RETRY_AFTER)
    return response


class _Refusals:
    """Counts the 503s, logged at most once every LOG_EVERY seconds, not one line each."""

    LOG_EVERY = 10.0

    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0
        self.logged_at = 0.0

    def note(self, path):
        with self.lock:
            self.count += 1
            now = time.monotonic()
            if now - self.logged_at < self.LOG_EVERY:
                return
            count, self.count, self.logged_at = self.count, 0, now
        logger.warning("no render slot free: %d request(s) answered 503, last %s", count, path)


_refusals = _Refusals()


# The slots the current request holds, given back when its view returns.
_held: contextvars.ContextVar[ExitStack] = contextvars.ContextVar("render_slots")


def take_slot(rows):
    """Hold a render slot until the view returns, if a board of `rows` rows is expensive to
    render; True when one was taken (the request may have waited).

    Raises Busy when none comes free in time; only inside a view wrapped by expensive().
    """
    if rows < settings.SOTASITE_RENDERS_FROM_ROWS:
        return False
    held = _held.get()
    if not getattr(held, "render_slot", False):
        # Once a request: a second would wait for the one it holds (a large board's view
        # answered, after its wait, from what another request kept meanwhile).
        held.enter_context(limiter().slot())
        held.render_slot = True
    return True


def take_page_slot():
    """Hold a page slot until the view returns: one page of a large board (see above).

    Raises Busy when none comes free in time; only inside a view wrapped by expensive().
    """
    held = _held.get()
    if not getattr(held, "render_slot", False):
        held.enter_context(page_limiter().slot())


def expensive(view):
    """A view that may take_slot(): answered 503 with Retry-After when no slot comes free."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        with ExitStack() as stack:
            token = _held.set(stack)
            try:
                return view(request, *args, **kwargs)
            except Busy:
                _refusals.note(request.path)
                response = busy_response(request)
                # Counted above; Django would log each as an error otherwise.
                response._has_been_logged = True
                return response
            finally:
                _held.reset(token)

    return wrapped
