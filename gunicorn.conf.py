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
replaced. A worker whose memory has grown past SOTASITE_MAX_WORKER_MB (a huge
board rendered) is replaced after the request that grew it, so that memory is
given back; not every thousand requests, as before: both workers restarted
together every few seconds under load, each start cost a second of import
and an empty page cache, and the cached seed page served 515 requests a
second with a p99 of 1 s instead of 2,000 with one of 0.2 s. `max_requests`
stays, far off, against a slow leak.

Logs: gunicorn's and Django's lines go to the error log, requests to the
access log; with --daemon and none named, both are files in SOTASITE_LOG_DIR.
"""

import gc
import os
import resource
from pathlib import Path

workers = int(os.environ.get("SOTASITE_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("SOTASITE_THREADS", "8"))
timeout = 30
graceful_timeout = 30
keepalive = 5
max_requests = 100_000
max_requests_jitter = 10_000
# A worker starts at about 80 MB; a 100,000-row board's uncached render took one to 217.
MAX_WORKER_MB = int(os.environ.get("SOTASITE_MAX_WORKER_MB", "300"))

# gunicorn's own lines go to its error log (stderr unless --error-logfile says
# otherwise), and so do Django's (LOGGING writes to stderr): capture_output
# sends the workers' stderr into the error log whenever it is a file.
capture_output = True
# Where a daemonised server logs when given no log file (see on_starting).
LOG_DIR = Path(os.environ.get("SOTASITE_LOG_DIR", Path(__file__).resolve().parent / "logs"))


def on_starting(server):
    """With --daemon, log to files in LOG_DIR rather than to stderr and stdout.

    Daemonising points stderr and stdout at /dev/null, so an error log of "-"
    (the default) or `--access-logfile -` kept nothing: a daemonised server's
    log showed not one error.
    """
    cfg = server.cfg
    if not cfg.daemon:
        return
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    if cfg.errorlog == "-":
        cfg.set("errorlog", str(LOG_DIR / "error.log"))
    if cfg.accesslog == "-":
        cfg.set("accesslog", str(LOG_DIR / "access.log"))
    server.log.setup(cfg)
    server.log.info("daemonised: errors to %s, requests to %s", cfg.errorlog, cfg.accesslog)


def post_worker_init(worker):
    """Leave what the worker has loaded (Django, the URLs, the settings) out of garbage collection.

    Every full collection walked all of it: a request that allocates much (an
    uncached 2,000-row board) set one off now and then, and those requests took
    twice the usual time (in-process, p95 147 ms against a median of 76; with
    the loaded objects frozen, 93 ms). Objects made by requests are collected
    as before.
    """
    gc.freeze()


def post_request(worker, req, environ, resp):
    """Replace this worker once the current request is answered if its memory peaked past the cap.

    The peak, not the current size: memory Python has freed mostly stays with
    the process, and the peak is what a huge render left behind.
    """
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if peak_mb > MAX_WORKER_MB:
        worker.log.info("worker %s reached %d MB; replacing it", worker.pid, peak_mb)
        worker.alive = False
