"""/healthz: can the site serve its pages?

A database that answers `SELECT 1` is not enough: a missing table or a stored
value the driver cannot read breaks every list while the ping still passes.
So each database is asked what every page needs: the site state that keys
the page cache, the first page of the leaderboard list, and the newest
results that the home page and the feed show, each read whole. Then the
home page is rendered, through its templates and the static files' manifest:
a deploy missing the manifest answered 500 on every page while this said 200.
The page cache is asked too; one that fails makes the site slower, not down,
so it is reported as degraded with a 200.
"""

import logging

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from leaderboards.models import Leaderboard, Row, SiteState
from leaderboards.web.page_cache import PAGE_CACHE
from leaderboards.web.views.catalogue import PER_PAGE
from leaderboards.web.views.home import NEWEST, home

# Asked for, never stored: a read tells whether the page cache answers.
HEALTH_KEY = "healthz"

logger = logging.getLogger(__name__)


def _ping(alias):
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _site_state(alias):
    # The row may be absent before the first load (the cache then reads version 0).
    list(SiteState.objects.using(alias).values_list("data_version", "changed_at"))


def _leaderboard_list(alias):
    list(Leaderboard.objects.using(alias).named().order_by("slug")[:PER_PAGE])


def _newest_results(alias):
    list(Row.objects.using(alias).newest_results()[:NEWEST])


# What every page needs, in the order a request meets it; named in a 503.
CHECKS = [
    ("site state", _site_state),
    ("leaderboard list", _leaderboard_list),
    ("newest results", _newest_results),
]

# What reading a stored value can raise: the driver's errors come as
# DatabaseError; SQLite's text dates fail in Python's own parsing.
READ_ERRORS = (DatabaseError, ValueError, OverflowError)


def _unreachable(alias, error):
    # The driver's message names the host and the failure, never the
    # password; the logging filter strips secrets all the same.
    logger.error("health check: database %r unreachable: %s", alias, error)
    reason = f"database {alias!r} did not answer ({type(error).__name__})"
    return JsonResponse(
        {"status": "error", "database": "unreachable", "reason": reason}, status=503
    )


def _cannot_serve(alias, check, error):
    logger.error("health check: database %r answers but %s fails: %s", alias, check, error)
    reason = f"database {alias!r}: {check} could not be read ({type(error).__name__})"
    return JsonResponse(
        {"status": "error", "database": "ok", "check": check, "reason": reason}, status=503
    )


def _page_cache():
    """ "ok", or why the page cache is not in use: the site serves without it, slower."""
    cache = caches[PAGE_CACHE]
    cache.get(HEALTH_KEY)
    return getattr(cache, "degraded", "") or "ok"


def _renders(request):
    """Render the home page through its template, its static files' manifest and the
    database; raises what any of them raises."""
    response = home(request)
    if response.status_code != 200:
        raise RuntimeError(f"the home page answered {response.status_code}")


@never_cache
@require_safe
def healthz(request):
    """200 when every database answers and serves what pages need and a real page renders,
    else 503 naming what failed. A page cache that fails is reported, not fatal."""
    for alias in [DEFAULT_DB_ALIAS, *settings.SOTASITE_READ_REPLICAS]:
        try:
            _ping(alias)
        except DatabaseError as error:
            return _unreachable(alias, error)
        for check, run in CHECKS:
            try:
                run(alias)
            except READ_ERRORS as error:
                return _cannot_serve(alias, check, error)
    cache = _page_cache()
    try:
        _renders(request)
    except Exception as error:
        # Anything a page's rendering can raise: a missing template, a static
        # file the manifest lacks (every page then answered 500 while this said 200).
        logger.error("health check: the home page does not render: %r", error)
        reason = f"a page does not render ({type(error).__name__}: {error})"
        return JsonResponse(
            {"status": "error", "database": "ok", "pages": "failing", "reason": reason},
            status=503,
        )
    answer = {"status": "ok", "database": "ok", "pages": "ok", "cache": "ok"}
    if cache != "ok":
        answer.update(status="degraded", cache="degraded", cache_reason=cache)
    return JsonResponse(answer)
