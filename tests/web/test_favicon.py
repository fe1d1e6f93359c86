"""A favicon: linked from every page, and /favicon.ico leads to it rather than a 404."""

from django.contrib.staticfiles import finders
from django.templatetags.static import static


def test_pages_link_the_svg_favicon(client, db):
    html = client.get("/").content.decode()
    assert f'<link rel="icon" href="{static("favicon.svg")}" type="image/svg+xml">' in html
    assert finders.find("favicon.svg")


def test_favicon_ico_redirects_to_the_svg(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == static("favicon.svg")
