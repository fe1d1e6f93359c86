"""Whole public pages cached, and retired whenever the data behind them changes.

Cached pages are keyed by the site's data version (the one SiteState row),
read once a request from the database the page itself would be read from: a
lagging replica gives an old version with old rows, never a new version with
old rows. Every write to a leaderboards model bumps the version after it
commits (signals, for single saves and deletes, editors' included), and a load
bumps it once more at its end because bulk writes send no signals.

Pages carry an ETag (a hash of the body) and a Last-Modified (when the data
last changed), so a repeat visit costs a 304, and `Cache-Control: public` so a
CDN may keep them. The admin, and any request from someone with a session, is
never cached anywhere: `private, no-store`.
"""

import datetime
import hashlib
import time
import zlib

from django.conf import settings
from django.core.cache import caches
from django.db import connections, router, transaction
from django.db.models import F
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.dateparse import parse_datetime
from django.utils.http import http_date

from leaderboards.models import SiteState, UpkeepPending

PAGE_CACHE = "pages"
# Pages rendered by this process may differ from an older deploy's even at the
# same data version, so Last-Modified is never earlier than the process start.
STARTED = int(time.time())


def data_version():
    """(version, changed_at) of the public data; (0, None) before the first change.

    Plain SQL, not the ORM: it runs on every request, cached or not, and
    building the query cost more than running it.
    """
    alias = router.db_for_read(SiteState)
    connection = connections[alias]
    if connection.in_atomic_block:
        # Read inside a transaction that has written (a test, a shell): what is
        # cached now may hold its writes so far, so its next write needs a
        # bump of its own rather than the one already pending.
        for _, callback, _ in connection.run_on_commit:
            if isinstance(callback, _BumpAfterCommit):
                callback.pending = False
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(connection))
        row = cursor.fetchone()
    if row is None:
        return 0, None
    version, changed_at = row
    if isinstance(changed_at, str):
        changed_at = parse_datetime(changed_at)
    if changed_at.tzinfo is None:
        # SQLite keeps UTC without saying so.
        changed_at = changed_at.replace(tzinfo=datetime.UTC)
    return version, changed_at


def _version_sql(connection):
    table = connection.ops.quote_name(SiteState._meta.db_table)
    return f"SELECT data_version, changed_at FROM {table} WHERE id = 1"


def bump_data_version(using="default"):
    """Retire every cached page, in every process sharing this database."""
    now = timezone.now()
    bumped = (
        SiteState.objects.using(using)
        .filter(pk=1)
        .update(data_version=F("data_version") + 1, changed_at=now)
    )
    if not bumped:
        # The row is missing (a flushed database): its first bump makes it.
        SiteState.objects.using(using).bulk_create(
            [SiteState(pk=1, data_version=1, changed_at=now)], ignore_conflicts=True
        )


class _BumpAfterCommit:
    """An on_commit callback that a transaction holds at most once.

    Django drops a savepoint's callbacks when the savepoint rolls back, so
    finding one pending means a bump will follow this transaction's commit.
    """

    def __init__(self, using):
        self.using = using
        self.pending = True

    def __call__(self):
        bump_data_version(self.using)


def data_changed(using="default"):
    """Bump the data version once the current transaction commits (now, outside one).

    After the commit, not inside the transaction: no lock on the SiteState row
    is held while a load or an editor writes, and readers never see the new
    version before the new rows.
    """
    connection = connections[using]
    if connection.in_atomic_block and any(
        isinstance(callback, _BumpAfterCommit) and callback.pending
        for _, callback, _ in connection.run_on_commit
    ):
        return
    transaction.on_commit(_BumpAfterCommit(using), using=using, robust=True)


def _on_write(sender, using="default", **kwargs):
    data_changed(using)


def _on_m2m(sender, action, using="default", **kwargs):
    if action.startswith("post_"):
        data_changed(using)


def connect_signals():
    from django.apps import apps

    for model in apps.get_app_config("leaderboards").get_models():
        if model in (SiteState, UpkeepPending):
            # Bookkeeping, not public data: no page shows it.
            continue
        post_save.connect(_on_write, sender=model, dispatch_uid=f"page-cache-save-{model}")
        post_delete.connect(_on_write, sender=model, dispatch_uid=f"page-cache-delete-{model}")
        for field in model._meta.local_many_to_many:
            m2m_changed.connect(
                _on_m2m, sender=field.remote_field.through, dispatch_uid=f"page-cache-m2m-{field}"
            )


def _private_prefixes():
    return (reverse("admin:index"), reverse("healthz"))


class PageCacheMiddleware:
    """Serve public GET pages from the page cache and answer conditional GETs."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.private_prefixes = None

    def __call__(self, request):
        if self.private_prefixes is None:
            self.private_prefixes = _private_prefixes()
        if self._private(request):
            response = self.get_response(request)
            patch_cache_control(response, private=True, no_store=True)
            return response
        if request.method not in ("GET", "HEAD") or not settings.SOTASITE_PAGE_CACHE:
            return self.get_response(request)

        version, changed_at = data_version()
        key = "page:{}:{}:{}".format(
            version,
            changed_at.timestamp() if changed_at else "-",
            hashlib.sha256(request.build_absolute_uri().encode()).hexdigest(),
        )
        cache = caches[PAGE_CACHE]
        entry = cache.get(key)
        if entry is None:
            response = self.get_response(request)
            if not _storable(response):
                if _varies_by_visitor(response):
                    patch_cache_control(response, private=True, no_store=True)
                return response
            last_modified = max(int(changed_at.timestamp()) if changed_at else 0, STARTED)
            response.headers["ETag"] = f'"{hashlib.sha256(response.content).hexdigest()[:32]}"'
            response.headers["Last-Modified"] = http_date(last_modified)
            patch_cache_control(response, public=True, max_age=settings.SOTASITE_PAGE_MAX_AGE)
            # Compressed: any query string makes a new entry, and a 2,000-row
            # page is most of a megabyte of HTML that shrinks about tenfold.
            entry = (
                response.status_code,
                dict(response.headers),
                zlib.compress(response.content, 1),
            )
            cache.set(key, entry, settings.SOTASITE_PAGE_CACHE_TIMEOUT)
            response.headers["X-Page-Cache"] = "miss"
        else:
            status, headers, content = entry
            response = HttpResponse(zlib.decompress(content), status=status, headers=headers)
            response.headers["X-Page-Cache"] = "hit"
        return get_conditional_response(
            request,
            etag=response.headers["ETag"],
            last_modified=max(int(changed_at.timestamp()) if changed_at else 0, STARTED),
            response=response,
        )

    def _private(self, request):
        return request.path.startswith(self.private_prefixes) or (
            settings.SESSION_COOKIE_NAME in request.COOKIES
        )


def _varies_by_visitor(response):
    vary = {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}
    return bool(response.cookies) or "cookie" in vary


def _storable(response):
    """A 200 that is the same for every visitor and that its view did not opt out of."""
    control = response.headers.get("Cache-Control", "").lower()
    return (
        response.status_code == 200
        and not response.streaming
        and not _varies_by_visitor(response)
        and not any(word in control for word in ("private", "no-store", "no-cache"))
    )
