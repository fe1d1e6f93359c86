"""Security headers and production settings (issue #8, item 5)."""

import re
import runpy

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from tests.helpers import PRODUCTION_ENV, ROOT, SEED_SLUG, manage

SETTINGS_FILE = ROOT / "sotasite" / "settings.py"
LEADERBOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])


def production_settings(monkeypatch, **env):
    """The settings module as production reads it, without touching the running settings."""
    for name in ("SOTASITE_SECRET_KEY", "SOTASITE_DEBUG", "SOTASITE_SSL_REDIRECT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {**PRODUCTION_ENV, **env}.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS_FILE))


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "SOTASITE_SECRET_KEY"}
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "SOTASITE_SECRET_KEY must be set" in result.stderr


def test_an_empty_secret_key_is_no_key(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match="SOTASITE_SECRET_KEY"):
        production_settings(monkeypatch, SOTASITE_SECRET_KEY="")


def test_deploy_check_is_clean_in_production():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_production_sends_https_only_with_secure_cookies(monkeypatch):
    prod = production_settings(monkeypatch)
    assert prod["DEBUG"] is False
    assert prod["SECURE_SSL_REDIRECT"] is True
    assert prod["SECURE_HSTS_SECONDS"] >= 31536000
    assert prod["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and prod["SECURE_HSTS_PRELOAD"]
    assert prod["SESSION_COOKIE_SECURE"] and prod["CSRF_COOKIE_SECURE"]
    assert prod["ALLOWED_HOSTS"] == ["example.org"]
    # A load balancer's plain-HTTP probe must not be redirected.
    assert any(re.match(pattern, "healthz") for pattern in prod["SECURE_REDIRECT_EXEMPT"])


def test_policy_allows_no_inline_script_or_style(monkeypatch):
    policy = production_settings(monkeypatch)["SECURE_CSP"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


def test_pages_carry_the_security_headers(seeded, client):
    response = client.get(LEADERBOARD)
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert response.headers["X-Frame-Options"] == "DENY"


def test_https_pages_carry_hsts_under_production_values(seeded, client, settings, monkeypatch):
    prod = production_settings(monkeypatch)
    for name in ("SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD"):
        setattr(settings, name, prod[name])
    response = client.get(LEADERBOARD, secure=True)
    assert response.headers["Strict-Transport-Security"] == (
        f"max-age={prod['SECURE_HSTS_SECONDS']}; includeSubDomains; preload"
    )


# An inline <script>, a <style> block or a style="" / on...="" attribute. A JSON data
# block (<script type="application/json">, the API docs' settings) is never run.
INLINE = re.compile(
    r"<script(?![^>]*\s(?:src=|type=\"application/json\"))[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=",
    re.I,
)


def test_templates_hold_no_inline_script_or_style():
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for match in INLINE.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


# Injected by the browser itself, so the policy does not block the listener.
RECORD_VIOLATIONS = (
    "window.violations = [];"
    "document.addEventListener('securitypolicyviolation',"
    " e => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));"
)


@pytest.mark.browser
def test_chromium_reports_no_policy_violation(seeded, live_server, page):
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(live_server.url + LEADERBOARD)
    assert page.title().startswith("Out-of-Distribution Detection")
    # The stylesheet, from 'self', applies: the header is laid out as a flex row.
    header = "getComputedStyle(document.querySelector('.site-header')).display"
    assert page.evaluate(header) == "flex"
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.violations") == []


@pytest.mark.browser
def test_the_admin_works_under_the_policy(db, live_server, page):
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(live_server.url + reverse("admin:login"))
    page.wait_for_load_state("networkidle")
    assert page.locator("input[name=username]").is_visible()
    assert page.evaluate("window.violations") == []
