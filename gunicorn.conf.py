"""How gunicorn serves the site: `make run`, bench/serve.py and docs/deployment.md use this file.

Command-line flags (--bind, --workers) override it.

Threads, not one request per process: with sync workers, two slow requests
(a board of 100,000 rows rendered uncached takes seconds) held both workers,
and every visitor behind them waited as long for a page the cache answers in
a millisecond. A thread of the same process answers it meanwhile; the GIL is
handed over every 5 ms, so a cached page waits a fraction of a second, not
the slow requests' whole time. Eight threads, not four: a worker that took
four slow requests had no thread left, and a visitor whose kept-alive
connection was on that worker waited as long as with sync workers (a kept-alive
connection asking for the seed page while four 30,000-row renders ran, on a
busy machine: 34 s with sync workers, 36 s with four threads, 0.1 to 1 s with
eight).

A worker that stops answering its master for `timeout` seconds is killed and
replaced, and each worker is replaced after about a thousand requests
(jittered, so the workers do not restart together), so memory a huge render
took is given back.
"""

import gc
import os

workers = int(os.environ.get("SOTASITE_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("SOTASITE_THREADS", "8"))
timeout = 30
graceful_timeout = 30
keepalive = 5
max_requests = 1000
max_requests_jitter = 100


def post_worker_init(worker):
    """Leave what the worker has loaded (Django, the URLs, the settings) out of garbage collection.

    Every full collection walked all of it: a request that allocates much (an
    uncached 2,000-row board) set one off now and then, and those requests took
    twice the usual time (in-process, p95 147 ms against a median of 76; with
    the loaded objects frozen, 93 ms). Objects made by requests are collected
    as before.
    """
    gc.freeze()
