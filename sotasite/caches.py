"""A Redis page cache the site can lose: errors and time-outs are a miss, never a 500.

The page cache only saves work: every page it holds can be rendered again.
With Django's RedisCache, a stopped Redis made every public page, the
suggestions and the API answer 500, a frozen one 500 after five seconds, and
a full one (refusing writes) 500 on every miss. Here each call that fails is
logged and answered as the cache's absence would be (a miss, a write not
kept); after FAILURES_BEFORE_PAUSE failures in a row the process stops
asking for PAUSE_SECONDS, so a dead Redis costs one short time-out now and
then, not one per request. The first call after the pause tries again:
recovery needs no restart.
"""

import functools
import logging
import threading
import time

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


FAILURES_BEFORE_PAUSE = 3
PAUSE_SECONDS = 10.0

# Well under a second: a frozen Redis must cost a page a blink, not its time-out.
SOCKET_TIMEOUT = 0.25


class _Health:
    """Failures in a row and the pause they started, shared by the process's threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.failures = 0
        self.paused_until = 0.0
        self.last_error = ""

    def paused(self):
        return time.monotonic() < self.paused_until

    def failed(self, error):
        with self.lock:
            self.failures += 1
            self.last_error = f"{type(error).__name__}: {error}"
            if self.failures >= FAILURES_BEFORE_PAUSE:
                self.paused_until = time.monotonic() + PAUSE_SECONDS
        return self.failures

    def answered(self):
        if self.failures:
            with self.lock:
                self.failures = 0
                self.paused_until = 0.0


def _falls_back(default):
    """The method, answering `default(args, kwargs)` when Redis fails or is paused."""

    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            if self.health.paused():
                return default(args, kwargs)
            try:
                answer = method(self, *args, **kwargs)
            except RedisError as error:
                failures = self.health.failed(error)
                logger.warning(
                    "page cache unavailable (%s, %d in a row): serving without it",
                    self.health.last_error,
                    failures,
                )
                return default(args, kwargs)
            self.health.answered()
            return answer

        return guarded

    return wrap


def _given_default(args, kwargs):
    """get(key, default=None): what a miss answers."""
    return kwargs.get("default", args[1] if len(args) > 1 else None)


class ResilientRedisCache(RedisCache):
    """RedisCache whose failures are misses, with a short time-out and a pause after failing."""

    def __init__(self, server, params):
        params = {**params, "OPTIONS": {**_TIMEOUTS, **params.get("OPTIONS", {})}}
        super().__init__(server, params)
        self.health = _Health()

    @property
    def degraded(self):
        """Why the cache is not being used now, or "" when it answers."""
        return self.health.last_error if self.health.failures else ""

    get = _falls_back(_given_default)(RedisCache.get)
    get_many = _falls_back(lambda args, kwargs: {})(RedisCache.get_many)
    has_key = _falls_back(lambda args, kwargs: False)(RedisCache.has_key)
    set = _falls_back(lambda args, kwargs: None)(RedisCache.set)
    add = _falls_back(lambda args, kwargs: False)(RedisCache.add)
    touch = _falls_back(lambda args, kwargs: False)(RedisCache.touch)
    set_many = _falls_back(lambda args, kwargs: list(args[0]) if args else [])(RedisCache.set_many)
    delete = _falls_back(lambda args, kwargs: False)(RedisCache.delete)
    delete_many = _falls_back(lambda args, kwargs: None)(RedisCache.delete_many)
    clear = _falls_back(lambda args, kwargs: False)(RedisCache.clear)


_TIMEOUTS = {"socket_timeout": SOCKET_TIMEOUT, "socket_connect_timeout": SOCKET_TIMEOUT}
