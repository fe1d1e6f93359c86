"""Every public URL, with real and hostile path segments and query strings: never a 5xx.

The URLs come from walking the resolver, not from a list, so a URL added
anywhere in the project is fuzzed without this file changing. Only the admin
is left out: it is behind a login and Django's own.
"""

import random
from urllib.parse import quote

import pytest
from django.apps import apps
from django.test import Client

from leaderboards.ingest.loader import Loader
from tests.helpers import PARAMETER, SEED_FILE, fill, public_routes
from tests.hostile import hostile_page
from tools.synthetic_pages import generate_pages

# Every URL pattern walked with many inputs: the full run's, not the quick loop's.
pytestmark = pytest.mark.slow

# Reflected back as markup, this would run: pages must escape what they echo.
MARKUP = '"><script>alert("fuzz")</script>'

# As they would appear in a raw request path: some escaped, some not.
HOSTILE_SEGMENTS = [
    quote(MARKUP),
    "a" * 5000,
    "ünïcødé-😀",
    quote("名前-\u202e-ünï"),
    "%00",
    "a%00b",
    "%ff",
    "%c0%af",
    "%",
    "%zz",
    "..",
    "../../etc/passwd",
    "..%2f..%2fetc%2fpasswd",
    "a%2Fb",
    quote("'\"`"),
    quote("<script>alert(1)</script>"),
    "-1",
    "0",
    "9" * 40,
    "1e308",
    "NaN",
    "null",
    "%20",
    "~",
]

PARAMETERS = [
    "page", "sort", "order", "o", "ordering", "q", "search", "items_per_page", "page_size",
    "limit", "offset", "cursor", "metric", "area", "task", "dataset", "paper", "date",
    "date_after", "date_before", "since", "until", "year", "verified", "has_code",
    "direction", "format", "fields", "id", "min_rows", "status", "unknown",
]  # fmt: skip

VALUES = [
    "", "-1", "0", "1", "2", "99999999", "9" * 400, "abc", "1.5", "1e308", "NaN", "-inf",
    "%00", "%ff", "'", "%27%22", quote("<script>alert(1)</script>"), "a" * 3000,
    "2026-13-45", "0000-00-00", "2026-02-30", "9999-12-31T99:99", "true", "null", "[]",
    "__class__", "-", "--rank", "rank", "-rank", "-name", quote("ü😀"), quote("\u202e"),
    "%0d%0aSet-Cookie:x=1", "%uD800", quote(MARKUP),
]  # fmt: skip

QUERIES = [
    "sort=",
    "page=-1",
    "page=0",
    "page=99999999",
    "page=abc",
    "page=1&page=2&page=x",
    "page=" + "9" * 400,
    "items_per_page=0",
    "items_per_page=-1",
    "items_per_page=100000000",
    "q=" + "a" * 10000,
    "q=%00",
    f"q={quote(MARKUP)}",
    "date=2026-13-45",
    "since=yesterday",
    "unknown=1",
    "%ff=%ff",
    "&&&==&",
    "=",
    "a[]=1&a[b]=2",
    "sort=-rank&sort=rank",
    "page=%00",
    "&".join(f"p{i}={i}" for i in range(500)),
]

# Random query strings shared out over the routes, so that the test's time
# stays bounded as routes are added; every route gets a few.
RANDOM_QUERIES = 300


def real_values():
    """Slugs and ids of a few stored objects of every model that has them."""
    found = ["1"]
    for model in apps.get_app_config("leaderboards").get_models():
        fields = {field.name for field in model._meta.fields}
        sample = model.objects.order_by("pk")[:2]
        found += [str(pk) for pk in sample.values_list("pk", flat=True)]
        if "slug" in fields:
            found += list(sample.values_list("slug", flat=True))
    return list(dict.fromkeys(found))


def random_query(rng):
    pairs = [(rng.choice(PARAMETERS), rng.choice(VALUES)) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.3:
        pairs.append(pairs[0])  # a repeated parameter
    return "&".join(f"{name}={value}" for name, value in pairs)


def test_the_resolver_is_walked():
    routes = list(public_routes())
    assert "/" + "sota/<slug:slug>" in ["/" + route for route in routes]
    assert not any(route.startswith("admin") for route in routes)


def test_no_public_url_answers_5xx(db, seed_page):
    loader = Loader()
    loader.load([SEED_FILE])
    pages = [(f"generated-{i}", page) for i, page in enumerate(generate_pages(12, 8))]
    loader.load_pages([*pages, ("hostile", hostile_page(seed_page))])
    assert not loader.report.failed

    client = Client()
    rng = random.Random(8)
    real = real_values()
    failures, requests = [], 0

    def fetch(url, method="get"):
        nonlocal requests
        requests += 1
        try:
            response = getattr(client, method)(url)
        except Exception as error:  # noqa: BLE001 - every crash is recorded, with its URL
            failures.append((url[:300], repr(error)[:300]))
            return None
        if response.status_code >= 500:
            failures.append((url[:300], response.status_code))
        if response.get("Content-Type", "").startswith("text/html") and (
            MARKUP.encode() in response.content
        ):
            failures.append((url[:300], "echoed markup unescaped"))
        return response.status_code

    routes = list(public_routes())
    random_queries = max(5, RANDOM_QUERIES // len(routes))
    answered = {}  # route -> the first parameter's values it answered 200 to
    for route in routes:
        parameters = PARAMETER.findall(route)
        if not parameters:
            targets = [fill(route, [])]
        else:
            # A route of several parameters (evaluations/<id>/metrics/<int:metric_id>/)
            # takes for its first a value that a route of the same stem answered to.
            stem = route[: route.index(parameters[0]) + len(parameters[0])]
            first = next(
                (values[:1] for other, values in answered.items() if other.startswith(stem)),
                [],
            )
            fillings = (
                [[*first, value] for value in real] if parameters[1:] else [[v] for v in real]
            )
            answering = [values for values in fillings if fetch(fill(route, values)) == 200]
            answered[route] = [values[0] for values in answering]
            base = answering[0] if answering else fillings[0]
            for segment in HOSTILE_SEGMENTS:
                fetch(fill(route, [segment]))
                if parameters[1:]:
                    # One hostile segment beside a real one.
                    fetch(fill(route, [base[0], segment]))
            targets = [fill(route, base)]
        for url in targets:
            # A public site is sent other methods too: 405 or a page, never a crash.
            for method in ("head", "options", "post", "put", "delete"):
                fetch(url, method)
            for query in [*QUERIES, *(random_query(rng) for _ in range(random_queries))]:
                fetch(f"{url}?{query}")
    assert failures == [], f"{len(failures)} of {requests} requests failed"
    assert requests > 100
