"""The query planner's statistics, made current at the end of every load.

Neither database keeps them current by itself after a load: SQLite never
gathers them unasked, and PostgreSQL only through autovacuum, which a server may
run without and which lags a load by minutes where it runs. Until then the
planner plans for the tables as they were before the load: on 15,000 boards in
PostgreSQL the seed page took 107 ms right after a load (a scan of every metric
value) and 30 ms after ANALYZE.
"""

from django.db import connections


def refresh_statistics(using="default"):
    with connections[using].cursor() as cursor:
        cursor.execute("ANALYZE")
