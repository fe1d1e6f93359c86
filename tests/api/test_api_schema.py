"""Schemathesis over every operation of the API's own OpenAPI description.

The schema is read from the app through WSGI, as a client would read it, and
each operation is called with generated valid and invalid input; every answer
must be a non-5xx that the description allows (status, content type, body).
"""

import re

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client, override_settings
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from leaderboards.api.lists import repositories
from leaderboards.ingest.loader import Loader
from leaderboards.models import (
    Area,
    Author,
    Conference,
    Dataset,
    Leaderboard,
    Method,
    Metric,
    Paper,
    Proceeding,
    Row,
    Task,
)
from tools.synthetic_pages import generate_pages

# Read at collection time, when the database is closed to tests: the description
# needs none, and the page cache (which looks up the data version) is kept out.
# `schemathesis.pytest.from_fixture` would defer the read to the test, but its
# runner sets `Node._nodeid`, which pytest 9.2 no longer has.
with override_settings(SOTASITE_PAGE_CACHE=False):
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", WSGIHandler())

# A random slug nearly always misses; ids that exist get the 200 bodies checked too
# (ids of what is shown: a withheld paper's is a 404 as an unknown one is).
REAL_IDS = {
    "areas": lambda: Area.objects.values_list("slug", flat=True),
    "tasks": lambda: Task.objects.values_list("slug", flat=True),
    "datasets": lambda: Dataset.objects.values_list("slug", flat=True),
    "papers": lambda: Paper.objects.filter(withheld=False).values_list("slug", flat=True),
    "evaluations": lambda: Leaderboard.objects.values_list("slug", flat=True),
    "authors": lambda: (
        Author.objects.filter(authorships__paper__withheld=False)
        .distinct()
        .values_list("slug", flat=True)
    ),
    "conferences": lambda: Conference.objects.values_list("slug", flat=True),
    "methods": lambda: Method.objects.shown().values_list("slug", flat=True),
}
# Paths of more than one id: each set of path parameters a stored object gives.
REAL_PARAMETERS = {
    # A result's id is text: a row's number, or "added-" and an editor-added result's.
    "result_id": lambda: [
        {"id": slug, "result_id": str(pk)}
        for slug, pk in Row.objects.values_list("leaderboard__slug", "pk")
    ],
    "metric_id": lambda: [
        {"id": slug, "metric_id": pk}
        for slug, pk in Metric.objects.values_list("leaderboard__slug", "pk")
    ],
    "proceeding_id": lambda: [
        {"id": slug, "proceeding_id": proceeding}
        for slug, proceeding in Proceeding.objects.values_list("conference__slug", "slug")
    ],
    "name": lambda: list(repositories().values("owner", "name")),
    "owner": lambda: list(repositories().values("owner")),
}


def _stored(path_parameters, path):
    """Path parameters of the same shape that name stored objects (a few)."""
    for name, stored in REAL_PARAMETERS.items():
        if name in path_parameters:
            return stored()[:20]
    return [{"id": slug} for slug in REAL_IDS[path.strip("/").split("/")[0]]()[:20]]


@schema.hook
def flatmap_case(context, case):
    # Only valid cases: a negative case's path may be the very part made invalid.
    if not case.path_parameters or case.meta.generation.mode is not GenerationMode.POSITIVE:
        return st.just(case)

    def naming(ids):
        case.path_parameters = ids
        return case

    stored = _stored(case.path_parameters, context.operation.path)
    return st.one_of(st.just(case), st.sampled_from(stored).map(naming))


@pytest.fixture
def api_data(catalogue):
    loader = Loader()
    loader.load_pages([(f"generated-{i}", page) for i, page in enumerate(generate_pages(4, 9))])
    assert not loader.report.failed
    # Django's test client keeps the test's connection across a request; a bare
    # WSGI call would close it as a request starts and ends, inside the test's
    # transaction, and lose the pages just loaded.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@schema.parametrize()
# The API only reads, so the pages the fixture loads serve every example alike.
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_api_conforms_to_its_description(case, api_data):
    case.call_and_validate()


def test_the_stored_ids_the_run_draws_answer_200(client, api_data):
    """Else the run would check only 404 bodies, and pass as well."""
    paths = [path for path in schema.raw_schema["paths"] if "{" in path]
    assert len(paths) == 30
    for path in paths:
        stored = _stored(dict.fromkeys(re.findall(r"{(\w+)}", path)), path)
        assert stored, path
        for ids in stored[:3]:
            url = "/api/v1" + path.format(**ids)
            assert client.get(url).status_code == 200, url


# What the run found, kept as plain tests -------------------------------------


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_method_is_not_allowed_rather_than_forbidden(db, method):
    # The CSRF check, which the default test client skips, used to answer first with a 403.
    response = getattr(Client(enforce_csrf_checks=True), method)("/api/v1/areas/")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_a_nul_in_text_is_refused_as_described(client, db):
    response = client.get("/api/v1/datasets/", {"name": "a\x00b"})
    assert response.status_code == 400
    assert "NUL" in response.json()["error"]
    # The description says so too: a schema-valid name used to get this 400.
    document = client.get("/api/v1/openapi.json").json()
    parameters = document["paths"]["/datasets/"]["get"]["parameters"]
    (name,) = (p for p in parameters if p["name"] == "name")
    assert re.fullmatch(name["schema"]["pattern"], "a\x00b") is None
    assert re.fullmatch(name["schema"]["pattern"], "ImageNet-1k") is not None


@pytest.mark.parametrize(
    "path", ["evaluations/x/results/a%0Ab/", "no%0Asuch/endpoint/", "tasks/x/%0A/"]
)
def test_an_unknown_api_path_with_a_newline_is_a_json_404(client, db, path):
    response = client.get(f"/api/v1/{path}")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]
