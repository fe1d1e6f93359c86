"""Login throttling for the admin."""

from axes.backends import AxesStandaloneBackend


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
