"""/healthz: is the site up and can it reach its databases?"""

import logging

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)


def _check(alias):
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


@never_cache
@require_safe
def healthz(request):
    """200 when the primary and every read replica answer, else 503 naming the one that did not."""
    for alias in [DEFAULT_DB_ALIAS, *settings.SOTASITE_READ_REPLICAS]:
        try:
            _check(alias)
        except DatabaseError as error:
            # The driver's message names the host and the failure, never the
            # password; the logging filter strips secrets all the same.
            logger.error("health check: database %r unreachable: %s", alias, error)
            return JsonResponse(
                {
                    "status": "error",
                    "database": "unreachable",
                    "reason": f"database {alias!r} did not answer ({type(error).__name__})",
                },
                status=503,
            )
    return JsonResponse({"status": "ok", "database": "ok"})
