"""The papers file's joins look each slug up: no chunk reads the whole papers table."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards.ingest.chunks import free_slugs
from leaderboards.ingest.joins import by_pwc_slug
from leaderboards.models import Paper
from tests.helpers import make_paper


@pytest.fixture
def papers(db):
    for slug in ("deep-nets", "deep-nets-2", "deep-nets-x", "wide-nets"):
        make_paper(slug)
    Paper.objects.filter(slug="wide-nets").update(pwc_slug="wide-nets-pwc")


def test_slugs_and_pwc_slugs_are_found_as_before(papers):
    found = by_pwc_slug(Paper, ["deep-nets", "wide-nets-pwc", "nowhere"])
    ids = dict(Paper.objects.values_list("slug", "pk"))
    assert found == {"deep-nets": ids["deep-nets"], "wide-nets-pwc": ids["wide-nets"]}
    # Every stored "deep-nets-..." is taken: the first free number follows them.
    assert free_slugs(Paper, ["Deep Nets"], "paper") == {"Deep Nets": "deep-nets-3"}


def plans(run):
    with CaptureQueriesContext(connection) as captured:
        run()
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            cursor.execute(f"EXPLAIN QUERY PLAN {query['sql']}")
            yield query["sql"], " / ".join(str(row[-1]) for row in cursor.fetchall())


@pytest.mark.skipif("connection.vendor != 'sqlite'")
def test_no_join_reads_every_paper_on_sqlite(papers):
    """SQLite's LIKE folds case and reads no index, and an OR of two columns' IN
    lists read the table: at PwC's size each was a scan of 576,000 papers a chunk."""
    for sql, plan in [
        *plans(lambda: by_pwc_slug(Paper, ["deep-nets", "wide-nets-pwc"])),
        *plans(lambda: free_slugs(Paper, ["Deep Nets", "Wide Nets"], "paper")),
    ]:
        assert "SCAN" not in plan, (sql, plan)
