"""The query planner's statistics, made current at the end of every load.

Neither database keeps them current by itself after a load: SQLite never
gathers them unasked, and PostgreSQL only through autovacuum, which a server may
run without and which lags a load by minutes where it runs. Until then the
planner plans for the tables as they were before the load: on 15,000 boards in
PostgreSQL the seed page took 107 ms right after a load (a scan of every metric
value) and 30 ms after ANALYZE.
"""

from django.db import connections

from leaderboards.models import SearchEntry, SearchPrefix

# The end of a load deletes and writes again every row of these. On PostgreSQL the
# old rows stay in the table and its indexes until a VACUUM, and every search
# reads past them: without autovacuum, one load doubled the search entries' pages
# and a suggestion's index scan went from 2 ms to 12 ms.
REWRITTEN = [SearchEntry, SearchPrefix]


def refresh_statistics(using="default"):
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # VACUUM cannot run inside a transaction: a load's end runs outside
            # one, a test's load inside one (its rows are rolled back anyway).
            if not connection.in_atomic_block:
                for model in REWRITTEN:
                    cursor.execute(f"VACUUM {connection.ops.quote_name(model._meta.db_table)}")
            # This session's counts of rows written reach the server's statistics
            # at most once a second; sent now, before ANALYZE resets them, they do
            # not arrive after it and make autovacuum analyze the tables again.
            cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("ANALYZE")
