"""What every request must be before any view sees it: a read, in characters a database takes.

Public pages are read-only: they answer GET and HEAD, OPTIONS says so with
`Allow` and no body, and any other method is a 405 naming the allowed ones
(TRACE and OPTIONS once answered 200 with the whole page, POST a 403 from
the CSRF check). The admin, where editors write, and the visitors' suggestion
forms (/suggest/) are left to Django, and the API answers other methods
itself (in JSON, as its clients read every answer).

A NUL byte, or a lone surrogate, in the path or the query string is a 400
here: PostgreSQL refuses a NUL in any text it is given, so each view that
passed one on answered 500 (search, suggestions, the record's board filter,
an API evaluation id), and no address of the site holds one.
"""

import re

from django.conf import settings
from django.http import HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.urls import reverse

READ = ("GET", "HEAD")
ALLOW = ", ".join((*READ, "OPTIONS"))

BAD_ADDRESS = (
    "Bad request: the address holds a character no page of this site has "
    "(a NUL byte or a lone surrogate)."
)

# What no page address holds and no database takes as text.
_UNTAKEABLE = re.compile("[\x00\ud800-\udfff]")


def untakeable(text):
    """Whether text holds a character the database cannot take (a NUL, a lone surrogate)."""
    return bool(_UNTAKEABLE.search(text))


class RequestGuardMiddleware:
    """405 for a write to a public page, 400 for an address holding a NUL."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.writable = self.api = None

    def __call__(self, request):
        if self.writable is None:
            # Where editors sign in and write; reversed once the URLconf is loaded.
            self.writable = (reverse("admin:index"), reverse("leaderboards:suggest_root"))
            self.api = reverse("api:api-root")
        api = request.path.startswith(self.api)
        if untakeable(request.path) or any(
            untakeable(key) or any(untakeable(value) for value in values)
            for key, values in request.GET.lists()
        ):
            if api:
                return JsonResponse({"error": BAD_ADDRESS}, status=400)
            return HttpResponse(BAD_ADDRESS, status=400, content_type="text/plain; charset=utf-8")
        if request.method in READ or api or request.path.startswith(self.writable):
            return self.get_response(request)
        if request.method == "OPTIONS":
            response = HttpResponse(status=200)
            response.headers["Allow"] = ALLOW
            response.headers["Content-Length"] = "0"
            return response
        response = HttpResponseNotAllowed(list(READ))
        response.headers["Allow"] = ALLOW
        return response


def client_address(request):
    """The client's address, for login throttling and the suggestions' limits.

    Behind N trusted proxies (SOTASITE_PROXY_COUNT) it is the Nth address from
    the right of X-Forwarded-For, the last one a proxy of ours wrote; anything
    left of it is the client's to forge. Without proxies it is REMOTE_ADDR.
    """
    count = settings.SOTASITE_PROXY_COUNT
    forwarded = [part.strip() for part in request.headers.get("x-forwarded-for", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if count and len(forwarded) >= count:
        return forwarded[-count]
    return request.META.get("REMOTE_ADDR", "")
