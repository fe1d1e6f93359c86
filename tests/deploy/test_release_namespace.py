"""A deploy that changes how pages render starts with an empty page cache namespace."""

import shutil

from django.conf import settings

from sotasite.release import RENDERING, code_version
from tests.helpers import ROOT


def release_copy(tmp_path):
    for folder in RENDERING:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


def test_the_shared_page_caches_are_kept_under_this_releases_namespace():
    from sotasite.settings import redis_page_cache

    assert f"sotasite:{code_version(ROOT)}" == settings.PAGE_CACHE_PREFIX
    assert redis_page_cache("redis://x")["KEY_PREFIX"] == settings.PAGE_CACHE_PREFIX


def test_a_changed_template_or_module_is_another_release_and_data_is_not(tmp_path):
    base = release_copy(tmp_path)
    before = code_version(base)
    assert code_version(base) == before
    (base / "leaderboards" / "notes.md").write_text("not code")
    assert code_version(base) == before
    template = base / "templates" / "leaderboards" / "leaderboard" / "_header.html"
    template.write_text(template.read_text() + "\n")
    changed = code_version(base)
    assert changed != before
    module = base / "leaderboards" / "web" / "table.py"
    module.write_text(module.read_text() + "\n")
    assert code_version(base) not in (before, changed)
