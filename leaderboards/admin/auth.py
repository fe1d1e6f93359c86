"""Login throttling for the admin."""

from axes.backends import AxesStandaloneBackend
from django.conf import settings


class AxesRequestBackend(AxesStandaloneBackend):
    """django-axes' lockout check, for logins that come with a request.

    Axes refuses `authenticate()` calls without a request (the test client's
    `login()`, a shell); those do not come from a client it could throttle,
    so they pass to the next backend instead of raising.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request):
    """The client's address for login throttling.

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
