"""Pages that read a leaderboard in several queries see it at one moment.

The loader commits each leaderboard whole, but a page reads it in several
queries (board, metrics, rows, values, snapshot, verifications). Between two
of them a load may commit a newer version, and the page would mix the two.
"""

import functools

from django.db import connections, router, transaction

from leaderboards.models import Leaderboard

REPEATABLE_READ_ONLY = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"


def consistent_read(view):
    """Run the view in one read-only transaction whose first query fixes what it sees.

    PostgreSQL's default READ COMMITTED takes a fresh snapshot per statement;
    REPEATABLE READ keeps the first one for the whole transaction. SQLite in
    WAL mode does the same for any transaction, but only a deferred BEGIN
    leaves writers free: settings make every other transaction IMMEDIATE so
    that writes wait for each other rather than fail, and a reader holding
    the write lock would stall a load for as long as it reads.
    """

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        # Where this request's reads go: the primary, or a read replica if routed.
        alias = router.db_for_read(Leaderboard)
        connection = connections[alias]
        if connection.in_atomic_block:
            # Already inside a transaction (a test's, or a caller's): it decides.
            return view(request, *args, **kwargs)
        connection.ensure_connection()
        if connection.vendor == "sqlite":
            mode, connection.transaction_mode = connection.transaction_mode, None
            try:
                with transaction.atomic(using=alias):
                    connection.transaction_mode = mode
                    return view(request, *args, **kwargs)
            finally:
                connection.transaction_mode = mode
        with transaction.atomic(using=alias):
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute(REPEATABLE_READ_ONLY)
            return view(request, *args, **kwargs)

    return wrapped
