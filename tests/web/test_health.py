"""/healthz and what the logs say when something fails (issue #8, item 8)."""

import json
import logging
import os
import subprocess
import sys

from django.conf import settings as django_settings
from django.db import OperationalError, connections
from django.urls import reverse

from sotasite.logfilters import REDACTED, RedactSecrets
from tests.helpers import ROOT

HEALTHZ = reverse("healthz")
PASSWORD = "s3cr3t-db-pw"

# Asks /healthz of a site whose database is down (nothing listens on port 1).
PROBE = """
import json, django
django.setup()
from django.test import Client
response = Client().get("/healthz")
print(json.dumps({"status": response.status_code, "body": response.json()}))
"""


def test_healthz_is_ok_when_the_database_answers(db, client, settings):
    settings.SOTASITE_PAGE_CACHE = True
    for _ in range(2):
        response = client.get(HEALTHZ)
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "database": "ok", "pages": "ok", "cache": "ok"}
        assert "no-store" in response.headers["Cache-Control"]
        assert "X-Page-Cache" not in response.headers


def test_healthz_is_503_with_a_reason_when_the_database_fails(db, client, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    with monkeypatch.context() as patch:
        patch.setattr(connections["default"], "cursor", refuse)
        response = client.get(HEALTHZ)
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "database": "unreachable",
        "reason": "database 'default' did not answer (OperationalError)",
    }


def test_a_site_whose_database_is_down_says_so_and_where_without_the_password():
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOTASITE_")}
    env |= {
        "DATABASE_URL": f"postgres://postgres:{PASSWORD}@127.0.0.1:1/sotasite",
        "SOTASITE_ALLOWED_HOSTS": "testserver",
        "DJANGO_SETTINGS_MODULE": "sotasite.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["status"] == 503
    assert answer["body"]["database"] == "unreachable"
    # The log line names the failure and the place in the code.
    assert "ERROR leaderboards.web.views.health" in result.stderr
    assert "health.py:" in result.stderr
    assert "database 'default' unreachable" in result.stderr
    assert PASSWORD not in result.stderr + result.stdout


def test_secrets_are_redacted_from_messages_and_tracebacks(settings, monkeypatch):
    # Trust authentication and SQLite both ignore a password: setting one is harmless.
    monkeypatch.setitem(django_settings.DATABASES["default"], "PASSWORD", PASSWORD)
    try:
        raise RuntimeError(f"could not log in with {PASSWORD}")
    except RuntimeError:
        record = logging.getLogger("x").makeRecord(
            "x", logging.ERROR, "f.py", 1, "key %s", (settings.SECRET_KEY,), sys.exc_info()
        )
    RedactSecrets().filter(record)
    text = logging.Formatter().format(record)
    assert settings.SECRET_KEY not in text and PASSWORD not in text
    assert text.startswith(f"key {REDACTED}")
    assert f"could not log in with {REDACTED}" in text


def test_every_log_line_goes_through_the_redaction():
    console = django_settings.LOGGING["handlers"]["console"]
    assert "redact_secrets" in console["filters"]
    assert "%(pathname)s:%(lineno)d" in django_settings.LOGGING["formatters"]["where"]["format"]


def test_healthz_fails_when_pages_cannot_find_their_static_files(db, client, settings, tmp_path):
    """Started in production on files collected without a manifest, every page answered
    500 (`Missing staticfiles manifest entry`) while /healthz said 200."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    response = client.get(HEALTHZ)
    assert response.status_code == 503
    body = response.json()
    assert body["pages"] == "failing"
    assert "manifest" in body["reason"]


def test_static_files_collected_as_make_collects_them_serve_a_production_start(
    db, client, settings
):
    """`make run` and `make static` collect with the manifest production reads."""
    assert (settings.STATIC_ROOT / "staticfiles.json").is_file(), "run `make static` first"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    assert client.get("/").status_code == 200
    assert client.get(HEALTHZ).json()["pages"] == "ok"
