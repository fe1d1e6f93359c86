"""Fixtures of the tests that drive Debian's chromium (the shared ones are in tests/conftest.py)."""

import pytest
from django.contrib.auth.models import Group, Permission

from leaderboards.admin.editors import ensure_editors_group
from tests.helpers import EDITOR_PASSWORD


@pytest.fixture
def browser_editor(transactional_db, monkeypatch):
    # A live-server test empties the tables after itself, the migration's
    # group with them; make it again the way the migration does.
    ensure_editors_group(Group, Permission)
    import io

    from django.core.management import call_command

    monkeypatch.setenv("SOTASITE_EDITOR_PASSWORD", EDITOR_PASSWORD)
    call_command("createeditor", "erin", "--no-input", stdout=io.StringIO())
