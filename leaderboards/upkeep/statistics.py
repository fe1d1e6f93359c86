"""The query planner's statistics, made current at the end of every load that moved them.

Neither database keeps them current by itself after a load: SQLite never
gathers them unasked, and PostgreSQL only through autovacuum, which a server may
run without and which lags a load by minutes where it runs. Until then the
planner plans for the tables as they were before the load: on 15,000 boards in
PostgreSQL the seed page took 107 ms right after a load (a scan of every metric
value) and 30 ms after ANALYZE.
"""

from django.db import connection, connections, router

from leaderboards.models import (
    Dataset,
    Leaderboard,
    LeaderboardArea,
    Paper,
    SearchEntry,
    SearchPrefix,
    Task,
)

# The end of a load deletes and writes again every row of these. On PostgreSQL the
# old rows stay in the table and its indexes until a VACUUM, and every search
# reads past them: without autovacuum, one load doubled the search entries' pages
# and a suggestion's index scan went from 2 ms to 12 ms.
REWRITTEN = [SearchEntry, SearchPrefix]
# The lists read these through indexes that hold every column a filter and a
# sort need; the scan skips the table only for pages the visibility map marks
# all-visible, and only VACUUM marks them. Without autovacuum that never
# happens, and with it minutes after a load: at ten times the archive the 20th
# page of `/sota/?task=detection&min_rows=5` walked its boards in 34 ms before
# and 18 ms after. Vacuuming them took about a second there.
LISTED = [Leaderboard, LeaderboardArea, Task, Dataset, Paper]


def refresh_statistics(using="default"):
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # VACUUM cannot run inside a transaction: a load's end runs outside
            # one, a test's load inside one (its rows are rolled back anyway).
            if not connection.in_atomic_block:
                for model in REWRITTEN + LISTED:
                    cursor.execute(f"VACUUM {connection.ops.quote_name(model._meta.db_table)}")
            # This session's counts of rows written reach the server's statistics
            # at most once a second; sent now, before ANALYZE resets them, they do
            # not arrive after it and make autovacuum analyze the tables again.
            cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("ANALYZE")


# After a load that wrote a few boards a table is analyzed only once more than
# FEW rows and this share of them changed since the planner last read it, and
# vacuumed (PostgreSQL) once as many are new or dead since its last VACUUM:
# autovacuum's own rule (its defaults are 50 rows and 10% or 20%), applied at
# once. A table never analyzed, or never vacuumed, is so at its first rows. One
# board's rows leave every plan as it was; a whole ANALYZE and the VACUUMs took
# seconds at the archive's size, most of such a load's time.
CHANGED = 0.1
FEW = 50
_CHANGED = """
SELECT s.relname,
       s.n_mod_since_analyze > 0 AND (
           coalesce(s.last_analyze, s.last_autoanalyze) IS NULL
           OR s.n_mod_since_analyze > %(few)s + %(share)s * greatest(c.reltuples, 0)),
       s.relname = ANY(%(vacuumed)s) AND s.n_dead_tup + s.n_ins_since_vacuum > 0 AND (
           coalesce(s.last_vacuum, s.last_autovacuum) IS NULL
           OR s.n_dead_tup + s.n_ins_since_vacuum > %(few)s + %(share)s * greatest(c.reltuples, 0))
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = current_schema() AND s.relname LIKE %(prefix)s
ORDER BY s.relname
"""


def refresh_changed_statistics(prefix="leaderboards\\_%"):
    """refresh_statistics() for the tables a load changed by a real share (CHANGED).

    PostgreSQL: the tables with that share of their rows changed since their
    last ANALYZE are analyzed, and of those refresh_statistics() vacuums, those
    with that share new or dead since their last VACUUM are vacuumed (a rebuilt
    search index is all new). SQLite keeps no such counts: the tables
    sqlite_stat1 has not read yet, and those grown by that share past what it
    recorded, are analyzed. Returns the tables analyzed and those vacuumed.
    """
    if connection.vendor == "sqlite":
        return _analyze_grown_sqlite(prefix, 1 + CHANGED, unread=True), []
    if connection.vendor != "postgresql":
        return [], []
    vacuumable = [model._meta.db_table for model in REWRITTEN + LISTED]
    with connection.cursor() as cursor:
        # This session's counts of rows written reach the statistics views at
        # most once a second; flushed now, the next statement reads them.
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(
            _CHANGED, {"share": CHANGED, "few": FEW, "vacuumed": vacuumable, "prefix": prefix}
        )
        due = cursor.fetchall()
        vacuumed = [name for name, _, vacuum in due if vacuum and not connection.in_atomic_block]
        analyzed = [name for name, analyze, _ in due if analyze and name not in vacuumed]
        for name in vacuumed:
            cursor.execute(f"VACUUM (ANALYZE) {connection.ops.quote_name(name)}")
        for name in analyzed:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(name)}")
    return analyzed + vacuumed, vacuumed


def vacuum_rewritten(model, rewritten, rows):
    """After `rewritten` of `rows` rows of `model`'s table were updated in place since the
    load's end (boards naming their prepared parts): on PostgreSQL, past autovacuum's own
    share, VACUUM (ANALYZE) it, as refresh_statistics() does after a load. Counted here,
    not read from the statistics views: an update that stays on its page (HOT) leaves
    the page not all-visible without counting as a dead row there."""
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return False
    if rewritten <= FEW + CHANGED * rows:
        return False
    with connection.cursor() as cursor:
        # The updates' counts, sent before ANALYZE resets them (see refresh_statistics).
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(f"VACUUM (ANALYZE) {connection.ops.quote_name(model._meta.db_table)}")
    return True


# A table is analyzed in the middle of a load once it holds this many times the
# pages the planner last read: from a page on, as a plan made on a table of eight
# pages read it whole for each of a few thousand values.
GROWTH = 2
_GROWN = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE %s
AND pg_relation_size(c.oid) / current_setting('block_size')::int > %s * c.relpages
ORDER BY c.relname
"""


def analyze_grown_tables(prefix="leaderboards\\_%"):
    """ANALYZE each of the app's tables that has outgrown what the planner last read.

    For a load's chunks, before each commits, and before its end's work.

    PostgreSQL: the foreign-key checks a commit runs are planned once per
    connection and kept until the table's statistics change: planned when a
    load began on a small site (the seed page loaded and analyzed), the check
    of each metric value read the whole metrics table, and a load of 15,000
    boards had not finished after four minutes instead of 78 s. Analyzing a
    table that has doubled makes them be planned again, and keeps the
    statistics the site's pages read current while a long load runs. A few
    ANALYZEs per table per load: its size doubles a few times at most. Each
    holds its table's lock until the chunk commits, so two loads take them in
    one order (by name): in the catalogue's order they could wait on each other.

    SQLite plans every statement by the statistics the last ANALYZE left: on a
    site that held the seed page (15 rows) the search index's INSERT ... SELECT
    over 150,000 rows took 318 s at the end of a load instead of 1.1 s.
    """
    if connection.vendor == "sqlite":
        return _analyze_grown_sqlite(prefix, GROWTH)
    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute(_GROWN, [prefix, GROWTH])
        grown = [name for (name,) in cursor.fetchall()]
        for name in grown:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(name)}")
    return grown


# SQLite: below this many rows a table is read whole quickly whatever the plan.
SQLITE_SMALL = 1000


def _analyze_grown_sqlite(prefix, growth, unread=False):
    """The SQLite half of analyze_grown_tables: rows now (the largest rowid, one
    index step, and where that says grown, their count) against the rows
    sqlite_stat1 recorded (its first number); with `unread`, a table it holds
    nothing of is analyzed at its first row."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE %s ESCAPE '\\' "
            # Django's own tables, not the full-text index and its shadow tables.
            "AND sql LIKE 'CREATE TABLE \"%%' ORDER BY name",
            [prefix],
        )
        tables = [name for (name,) in cursor.fetchall()]
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        known = {}
        if cursor.fetchone():
            cursor.execute("SELECT tbl, max(CAST(stat AS INTEGER)) FROM sqlite_stat1 GROUP BY tbl")
            known = dict(cursor.fetchall())
        grown = []
        for name in tables:
            quoted = connection.ops.quote_name(name)
            cursor.execute(f"SELECT max(rowid) FROM {quoted}")
            rows = cursor.fetchone()[0] or 0
            grew = rows >= SQLITE_SMALL and rows > growth * (known.get(name) or 0)
            if grew:
                # The largest id only bounds the rows: ids are sparse where rows were
                # replaced, and the search entries are numbered in spans by kind, so
                # they looked grown after every load (1.8 s of a one-board load at
                # PwC size). Counted before an ANALYZE is spent on them.
                cursor.execute(f"SELECT count(*) FROM {quoted}")
                rows = cursor.fetchone()[0]
                grew = rows >= SQLITE_SMALL and rows > growth * (known.get(name) or 0)
            if grew or (unread and rows and name not in known):
                cursor.execute(f"ANALYZE {quoted}")
                grown.append(name)
    return grown
