"""The API's browsable description renders in chromium from this site alone."""

from urllib.parse import urlsplit

import pytest
from django.urls import reverse

pytestmark = pytest.mark.browser


def test_the_docs_render_every_operation_from_local_files_under_the_csp(
    db, live_server, page, screenshot
):
    requested, problems = [], []
    page.on("request", lambda request: requested.append(request.url))
    # A CSP refusal is reported on the console as an error.
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.goto(live_server.url + reverse("api:openapi-view"))
    operations = page.locator(".opblock-summary-path")
    operations.first.wait_for()
    # The 40 read calls of paperswithcode-client 0.3.1 and the root that lists them.
    assert operations.count() == 41
    assert "/evaluations/{id}/results/" in operations.all_inner_texts()
    assert "/papers/{id}/repositories/" in operations.all_inner_texts()

    page.locator(".opblock-summary", has_text="/tasks/{id}/").first.click()
    page.get_by_text("Try it out").click()
    page.get_by_placeholder("id").fill("no-such-task")
    page.get_by_text("Execute").click()
    status = page.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip() == "404"

    screenshot(page, "api-docs")
    here = urlsplit(live_server.url).netloc
    assert {urlsplit(url).netloc for url in requested if not url.startswith("data:")} == {here}
    # The one console error is the 404 asked for above; a CSP refusal would be another.
    assert len(problems) == 1 and "status of 404" in problems[0], problems
