"""Every public address is a read, and none holds a NUL: a 405 or a 400, never a page or a 500."""

import pytest
from django.test import Client

from tests.helpers import PARAMETER, SEED_SLUG, fill, public_routes

WRITES = ["post", "put", "patch", "delete"]
WITH_PARAMETERS = sorted({route for route in public_routes() if PARAMETER.search(route)})


def test_the_walk_finds_the_routes_with_parameters():
    assert "sota/<slug:slug>" in WITH_PARAMETERS
    assert any(route.startswith("api/v1/") for route in WITH_PARAMETERS)


@pytest.mark.parametrize("route", WITH_PARAMETERS)
def test_a_nul_in_any_path_parameter_is_a_400(seeded, client, route):
    """PostgreSQL takes no NUL in text: a slug or id holding one answered 500 there."""
    path = fill(route, [f"{SEED_SLUG}%00"])
    response = client.get(path)
    assert response.status_code == 400, path


@pytest.mark.parametrize(
    "path",
    ["/search", "/search/suggest", "/changes/", "/changes/feed.atom", "/sota/", "/paper/", "/"],
)
@pytest.mark.parametrize("param", ["q", "board", "page", "task"])
def test_a_nul_in_any_query_parameter_is_a_400(seeded, client, path, param):
    assert client.get(path, {param: "a\x00b"}).status_code == 400
    # Its name, too.
    assert client.get(f"{path}?a%00b=1").status_code == 400


@pytest.mark.parametrize("path", ["/", f"/sota/{SEED_SLUG}", "/sota/", "/search"])
@pytest.mark.parametrize("method", WRITES)
def test_a_write_to_a_public_page_is_a_405_naming_what_is_allowed(seeded, path, method):
    # With the CSRF check on, as a browser meets it: it answered 403 before.
    response = getattr(Client(enforce_csrf_checks=True), method)(path)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert SEED_SLUG not in response.content.decode()


@pytest.mark.parametrize("method", ["OPTIONS", "TRACE"])
def test_options_says_what_is_allowed_and_trace_is_refused(seeded, client, method):
    response = client.generic(method, f"/sota/{SEED_SLUG}")
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    # Neither sends the page back: TRACE and OPTIONS once answered 200 with all of it.
    assert response.content == b""
    assert response.status_code == (200 if method == "OPTIONS" else 405)


def test_the_admin_still_takes_an_editors_post(db, client):
    response = client.post("/admin/login/", {"username": "nobody", "password": "wrong"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
