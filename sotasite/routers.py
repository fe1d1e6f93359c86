"""Reads to the read replicas, writes to the primary.

Replicas are the aliases in settings.SOTASITE_READ_REPLICAS (from the
DATABASE_REPLICA_URLS environment variable). Reads stay on the primary where a
replica could answer with data older than what the reader just wrote or is
about to write: the admin, any request that is not GET or HEAD, and any
transaction on the primary that has written.
"""

import contextlib
import random
from contextvars import ContextVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.urls import reverse

_primary_only = ContextVar("primary_only", default=False)
# The one replica a request reads from. The page cache reads the data version
# and the page reads its rows: from two replicas at different lags, an old
# page could be cached under the new version.
_request_replica = ContextVar("request_replica", default=None)


class _Wrote:
    """An on_commit marker: this transaction wrote (dropped with its savepoint)."""

    def __call__(self):
        pass


def _transaction_wrote():
    connection = connections[DEFAULT_DB_ALIAS]
    return connection.in_atomic_block and any(
        isinstance(callback, _Wrote) for _, callback, _ in connection.run_on_commit
    )


class ReplicaRouter:
    def db_for_read(self, model, **hints):
        replicas = settings.SOTASITE_READ_REPLICAS
        if not replicas or _primary_only.get() or _transaction_wrote():
            return DEFAULT_DB_ALIAS
        return _request_replica.get() or random.choice(replicas)

    def db_for_write(self, model, **hints):
        connection = connections[DEFAULT_DB_ALIAS]
        if connection.in_atomic_block and not _transaction_wrote():
            transaction.on_commit(_Wrote(), using=DEFAULT_DB_ALIAS)
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        # Every alias holds the same data: the replicas copy the primary.
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        # Replicas get their schema by replication, never by migrate.
        return db not in settings.SOTASITE_READ_REPLICAS


@contextlib.contextmanager
def reads_from_primary():
    """Every read in the block from the primary: reads that must all see one snapshot
    (a full dump), which replicas at different lags would not give."""
    token = _primary_only.set(True)
    try:
        yield
    finally:
        _primary_only.reset(token)


class ReadDatabaseMiddleware:
    """Pick where a request reads: one replica for all of it, or the primary.

    Editors' requests and every write request read from the primary.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.admin_prefix = None

    def __call__(self, request):
        if self.admin_prefix is None:
            self.admin_prefix = reverse("admin:index")
        primary = request.method not in ("GET", "HEAD") or request.path.startswith(
            self.admin_prefix
        )
        replicas = settings.SOTASITE_READ_REPLICAS
        tokens = (
            _primary_only.set(primary),
            _request_replica.set(random.choice(replicas) if replicas else None),
        )
        try:
            return self.get_response(request)
        finally:
            _request_replica.reset(tokens[1])
            _primary_only.reset(tokens[0])
