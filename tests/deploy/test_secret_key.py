"""Production refuses to start with a key that could be guessed (issue #11, item 7)."""

import re
import subprocess

import pytest

from bench import common
from sotasite import keycheck
from tests.helpers import PRODUCTION_ENV, ROOT, manage

WEAK = {
    "short": "0123456789abcdefghijklmnopqrstuvwxyz",
    "one character": "x" * 64,
    "few characters": "ab12" * 16,
    "a repeated phrase": "correct-horse-battery-staple-correct-horse-battery-staple",
    "one piece padded": "a" * 45 + "bcdefghijklm",
    "the local default": keycheck.LOCAL_DEFAULT,
    "django-insecure-": "django-insecure-" + "q7x!m2@z9#k4w8^r1v6$e3n5*t0y&u" * 2,
    "a placeholder": "please-changeme-before-deploying-0123456789-ABCDEFGHIJ",
}


@pytest.mark.parametrize("name", WEAK)
def test_production_refuses_to_start_with_a_weak_key(name):
    result = manage("check", env={**PRODUCTION_ENV, "SOTASITE_SECRET_KEY": WEAK[name]})
    assert result.returncode != 0
    assert "ImproperlyConfigured: SOTASITE_SECRET_KEY is too weak for production" in result.stderr
    # The message says why, never what the key is.
    assert WEAK[name] not in result.stderr


def test_a_weak_key_is_fine_for_a_local_run():
    result = manage("check", env={"SOTASITE_SECRET_KEY": WEAK["short"]})
    assert result.returncode == 0, result.stderr


def test_the_makefile_check_key_passes_the_rule():
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8")
    # The key as make hands it to the shell: `$$` is make's `$`, expanded by sh.
    template = re.search(r"SOTASITE_SECRET_KEY=(.*?) \\$", recipe, re.MULTILINE).group(1)
    key = subprocess.run(
        ["sh", "-c", f'echo "{template.replace("$$", "$")}"'], capture_output=True, text=True
    ).stdout.strip()
    assert len(key) >= keycheck.MIN_LENGTH and "$" not in key
    assert keycheck.weakness(key) is None


def test_the_bench_production_key_passes_the_rule(tmp_path):
    env = common.production_env(tmp_path / "db.sqlite3")
    assert keycheck.weakness(env["SOTASITE_SECRET_KEY"]) is None


def test_a_random_key_passes_and_production_starts():
    import secrets

    for _ in range(200):
        assert keycheck.weakness(secrets.token_urlsafe(50)) is None
        assert keycheck.weakness(secrets.token_hex(32)) is None
    key = secrets.token_urlsafe(50)
    result = manage("check", env={**PRODUCTION_ENV, "SOTASITE_SECRET_KEY": key})
    assert result.returncode == 0, result.stderr
