"""The URLs every page's frame (base.html) links to, reversed once a process.

Reversing them and looking up the static files' hashed names on each page
cost a third of a millisecond, more than a board's page made from its
prepared parts spends on its own links. They change only with the script
prefix a deployment serves under, or with the static files' settings.
"""

import functools
import hashlib
import json

from django.conf import settings
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse

NAV = [
    ("Leaderboards", "leaderboards:leaderboard_list"),
    ("Areas", "leaderboards:area_list"),
    ("Tasks", "leaderboards:task_list"),
    ("Datasets", "leaderboards:dataset_list"),
    ("Papers", "leaderboards:paper_list"),
    ("Methods", "leaderboards:method_list"),
]


@functools.cache
def _frame_urls(prefix, static_url, static_root, storage):
    return {
        "home": reverse("leaderboards:home"),
        "search": reverse("leaderboards:search"),
        "suggest": reverse("leaderboards:search_suggest"),
        "feed": reverse("leaderboards:feed_newest"),
        "changes": reverse("leaderboards:changes"),
        "dumps": reverse("leaderboards:dumps"),
        "favicon": static("favicon.svg"),
        "css": static("css/site.css"),
        "suggest_js": static("js/search-suggest.js"),
        "nav": [(label, reverse(name)) for label, name in NAV],
    }


def _frame_of():
    storage = settings.STORAGES["staticfiles"]["BACKEND"]
    return get_script_prefix(), settings.STATIC_URL, str(settings.STATIC_ROOT), storage


def frame_urls(request):
    return {"frame": _frame_urls(*_frame_of())}


@functools.cache
def _frame_tag(*frame):
    urls = json.dumps(_frame_urls(*frame), sort_keys=True)
    return hashlib.sha256(urls.encode()).hexdigest()[:16]


def frame_tag():
    """A digest of the frame's URLs: a page stored whole by one process (prepare_boards)
    is served by another only where they agree (a script prefix, the static files' names)."""
    return _frame_tag(*_frame_of())
