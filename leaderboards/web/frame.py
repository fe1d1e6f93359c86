"""The URLs every page's frame (base.html) links to, reversed once a process.

Reversing them and looking up the static files' hashed names on each page
cost a third of a millisecond, more than a board's page made from its
prepared parts spends on its own links. They change only with the script
prefix a deployment serves under, or with the static files' settings.
"""

import functools

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


def frame_urls(request):
    storage = settings.STORAGES["staticfiles"]["BACKEND"]
    urls = _frame_urls(get_script_prefix(), settings.STATIC_URL, str(settings.STATIC_ROOT), storage)
    return {"frame": urls}
