"""/healthz answers 200 only when the site can serve pages, not merely reach its database."""

from django.db import connection

from leaderboards.models import SiteState


def test_healthz_is_503_naming_the_site_state_when_its_table_is_gone(seeded, client):
    # A deploy that skipped a migration: the database answers, every page fails.
    with connection.cursor() as cursor:
        cursor.execute(
            "SET CONSTRAINTS ALL IMMEDIATE" if connection.vendor == "postgresql" else "SELECT 1"
        )
        cursor.execute(f"DROP TABLE {SiteState._meta.db_table}")
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["database"] == "ok"
    assert body["check"] == "site state"
    assert body["reason"].startswith("database 'default': site state could not be read")


def test_healthz_reads_what_pages_read_and_stays_cheap(
    seeded, client, django_assert_max_num_queries
):
    # Its own four reads, then the home page's, rendered whole.
    with django_assert_max_num_queries(8):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "pages": "ok", "cache": "ok"}
