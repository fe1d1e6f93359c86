"""Whole public pages served from the page cache, and answers to conditional GETs.

A page is kept under the versions of the data it shows (upkeep/cache.py,
which raises them after writes), so a change retires exactly the pages that
may show it. Pages carry an ETag (a hash of the body) and a Last-Modified
(when the data they show last changed), so a repeat visit costs a 304, and
`Cache-Control: public` so a CDN may keep them. The admin, and any request
from a signed-in editor, is never cached anywhere: `private, no-store`.
"""

import hashlib
import time
import zlib
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.core import signing
from django.core.cache import caches
from django.http import HttpResponse
from django.urls import Resolver404, resolve, reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.crypto import constant_time_compare
from django.utils.http import http_date

from leaderboards.upkeep.cache import versions

PAGE_CACHE = "pages"
# The signed mark, set on the admin's pages, that an editor's session may skip the page cache.
EDITOR_COOKIE = "sotasite_editor"
EDITOR_SALT = "sotasite.page_cache.editor"
# Pages rendered by this process may differ from an older deploy's even at the
# same data version, so Last-Modified is never earlier than the process start.
STARTED = int(time.time())

# The pages that show one board and nothing of the others, by URL name: the
# URL keyword that names the board.
BOARD_PAGES = {
    "leaderboards:leaderboard": "slug",
    "leaderboards:leaderboard_json": "slug",
    "leaderboards:leaderboard_csv": "slug",
    "leaderboards:leaderboard_badge": "slug",
    "api:evaluation_detail": "id",
    "api:evaluation_metrics": "id",
    "api:evaluation_metric_detail": "id",
    "api:evaluation_results": "id",
    "api:evaluation_result_detail": "id",
}


def _board_slug(request):
    """The slug of the board whose own page this is; None for any other page."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    keyword = BOARD_PAGES.get(match.view_name)
    return match.kwargs.get(keyword) if keyword else None


def _cache_key(request, found):
    url = hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()
    if found.board is not None:
        return f"page:{found.data}:board:{found.board}:{url}"
    changed = found.changed_at.timestamp() if found.changed_at else "-"
    return f"page:{found.data}:{changed}:{found.catalogue}:{url}"


def _last_modified(found):
    """When the data the page shows last changed, in whole seconds."""
    changed = int(found.changed_at.timestamp()) if found.changed_at else 0
    own = found.board if found.board is not None else found.catalogue
    return max(changed, own // 1_000_000, STARTED)


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
            if request.path.startswith(self.private_prefixes):
                _mark_editor(request, response)
            return response
        if request.method not in ("GET", "HEAD") or not settings.SOTASITE_PAGE_CACHE:
            return self.get_response(request)

        board_slug = _board_slug(request)
        found = versions(board_slug)
        # The board's view keeps the parts of its page under the same versions.
        request.page_versions = found
        key = _cache_key(request, found)
        cache = caches[PAGE_CACHE]
        entry = cache.get(key)
        if entry is None:
            response = self.get_response(request)
            if not _storable(response):
                if _varies_by_visitor(response):
                    patch_cache_control(response, private=True, no_store=True)
                return response
            last_modified = _last_modified(found)
            response.headers["ETag"] = f'"{hashlib.sha256(response.content).hexdigest()[:32]}"'
            response.headers["Last-Modified"] = http_date(last_modified)
            patch_cache_control(response, public=True, max_age=settings.SOTASITE_PAGE_MAX_AGE)
            if getattr(response, "remade_cheaply", False):
                # Made from parts kept in this cache (a board's page under a
                # query string that asks for no view of it: a campaign tag, a
                # crawler's cache-buster). Kept whole, such one-off addresses
                # would push out pages that cost more to make, and compressing
                # and storing each cost a quarter of its making.
                response.headers["X-Page-Cache"] = "remade"
            else:
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
            last_modified=_last_modified(found),
            response=response,
        )

    def _private(self, request):
        return request.path.startswith(self.private_prefixes) or _signed_in(request)


def _signed_in(request):
    """Whether the request carries the session of a signed-in editor.

    The cookie alone said so once: a made-up `sessionid` skipped the cache, a
    cheap way to make the site render every page (62 requests a second
    against 390 with random query strings). Then the session was looked up,
    and a made-up cookie cost a database read on every request (a quarter of
    the cached pages' rate). Now only a session the admin marked as an
    editor's (a cookie signed with the site's key, see _mark_editor) is looked
    up: anything else is a visitor, told apart without the database.
    """
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    mark = request.COOKIES.get(EDITOR_COOKIE)
    if not key or not mark:
        return False
    try:
        marked = signing.get_cookie_signer(salt=EDITOR_SALT).unsign(mark)
    except signing.BadSignature:
        return False
    if not constant_time_compare(marked, key):
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    user_id = session.get(SESSION_KEY)
    if user_id is None:
        return False
    return get_user_model().objects.filter(pk=user_id, is_active=True, is_staff=True).exists()


def _mark_editor(request, response):
    """On an admin page: mark the session as an editor's, or take the mark away once it is not.

    The admin reads the user anyway; the mark names the session it was given
    to, so it is worth nothing with another session or after a new login.
    """
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    key = session.session_key if session is not None else None
    if key and user is not None and user.is_active and user.is_staff:
        mark = signing.get_cookie_signer(salt=EDITOR_SALT).sign(key)
        if request.COOKIES.get(EDITOR_COOKIE) != mark:
            response.set_cookie(
                EDITOR_COOKIE,
                mark,
                max_age=settings.SESSION_COOKIE_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
    elif EDITOR_COOKIE in request.COOKIES:
        response.delete_cookie(EDITOR_COOKIE, samesite="Lax")


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
