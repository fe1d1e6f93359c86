from functools import wraps

from django.urls import re_path
from django.views.decorators.http import require_safe

from leaderboards.api.views import api

app_name = "api"


def _read_only(view):
    """GET, and HEAD answered as GET (as Django's generic views do); else a 405.

    Outside ninja, whose 405 names the allowed methods in no fixed order.
    """

    @require_safe
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        request.method = "GET"
        return view(request, *args, **kwargs)

    return wrapped


def _not_found(request, rest):
    return api.create_response(request, {"error": "No such endpoint."}, status=404)


ninja_patterns, _, _ = api.urls
for pattern in ninja_patterns:
    pattern.callback = _read_only(pattern.callback)

urlpatterns = [
    *ninja_patterns,
    # Ending in a slash, so a missing one still gets its redirect (APPEND_SLASH).
    # [\s\S], not ".": a path with a newline in it is an API path too, whose 404
    # is JSON (it fell through to the site's HTML page).
    re_path(r"^(?P<rest>[\s\S]*/)$", _read_only(_not_found)),
]
