"""Paths that are not page files: each is refused by name, never read, never skipped.

Before, /dev/zero was read until memory ran out, a FIFO hung the load, and a
broken link or a link loop was left out without a word (a folder holding only
one reported "0 files, 0 failed" and exited 0).
"""

import errno
import os
import shutil
import socket
import subprocess
import sys

import pytest

from leaderboards.format import page as page_format
from leaderboards.ingest import files
from leaderboards.models import Leaderboard
from tests.helpers import ROOT, SEED_FILE, SEED_SLUG, child_env, database_dump

NOT_READ = "not a page file; not read"


@pytest.fixture
def special(tmp_path):
    """A folder of every kind of path that is not a page file, and one good file."""
    folder = tmp_path / "special"
    folder.mkdir()
    os.mkfifo(folder / "fifo")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "socket"))
    (folder / "zero").symlink_to("/dev/zero")
    (folder / "null").symlink_to("/dev/null")
    (folder / "broken").symlink_to(folder / "missing.json")
    (folder / "loop-a").symlink_to(folder / "loop-b")
    (folder / "loop-b").symlink_to(folder / "loop-a")
    (folder / "self").symlink_to(folder / "self")
    (folder / "to-folder").symlink_to(tmp_path)
    yield (
        folder,
        {
            "fifo": f"a FIFO (named pipe), {NOT_READ}",
            "socket": f"a socket, {NOT_READ}",
            "zero": f"a character device, {NOT_READ}",
            "null": f"a character device, {NOT_READ}",
            "broken": (
                f"a broken symbolic link (to {folder / 'missing.json'}: No such file or directory)"
            ),
            "loop-a": "a symbolic link loop; not followed",
            "loop-b": "a symbolic link loop; not followed",
            "self": "a symbolic link loop; not followed",
            "to-folder": "a symbolic link to a folder; not followed",
        },
    )
    server.close()


def test_each_special_file_is_refused_by_name_and_the_good_ones_load(seeded, load, special):
    folder, expected = special
    good = folder / "zz-good.json"
    shutil.copy(SEED_FILE, good)
    # A link to a regular file is followed: it loads as the file it names.
    linked = folder / "zz-linked.json"
    text = SEED_FILE.read_text().replace(SEED_SLUG, "linked-board")
    (folder.parent / "elsewhere.json").write_text(text)
    linked.symlink_to(folder.parent / "elsewhere.json")
    ok, out, err = load(folder)
    assert not ok
    for name, reason in expected.items():
        assert f"{folder / name}: (file): {reason}" in err.splitlines()
    total = len(expected) + 2
    assert f"{len(expected)} of {total} files failed" in err
    assert f"{total} files: 1 created, 0 updated, 1 unchanged" in out
    assert set(Leaderboard.objects.values_list("slug", flat=True)) == {SEED_SLUG, "linked-board"}


def test_a_folder_of_only_a_broken_link_fails(load, tmp_path):
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere.json")
    ok, out, err = load(tmp_path)
    assert not ok
    assert "1 files: 0 created, 0 updated, 0 unchanged, 0 older than stored, 1 failed" in out
    assert f"{tmp_path / 'gone.json'}: (file): a broken symbolic link" in err


def test_a_device_named_directly_is_refused_and_changes_nothing(seeded, load):
    before = database_dump()
    ok, _, err = load("/dev/zero", "/dev/null")
    assert not ok
    assert f"/dev/zero: (file): a character device, {NOT_READ}" in err
    assert f"/dev/null: (file): a character device, {NOT_READ}" in err
    assert database_dump() == before


def test_an_unreadable_file_is_refused_by_name(load, tmp_path, monkeypatch):
    secret = tmp_path / "secret.json"
    shutil.copy(SEED_FILE, secret)
    secret.chmod(0)
    if os.geteuid() == 0:
        # root reads any file: make the open fail as it would for anyone else.
        real_open = os.open

        def refuse(path, *args, **kwargs):
            if str(path) == str(secret):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(files.os, "open", refuse)
    ok, _, err = load(tmp_path)
    assert not ok
    assert f"{secret}: (file): cannot open: Permission denied" in err
    assert not Leaderboard.objects.exists()


def test_a_file_that_grew_past_the_limit_is_not_read_past_it(tmp_path, monkeypatch):
    # The size is read before the file is opened; should the file grow in
    # between, the read still stops one byte past the limit.
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 10)
    monkeypatch.setattr(page_format, "MAX_FILE_BYTES", 10)
    grown = tmp_path / "grown.json"
    grown.write_bytes(b" " * 5)
    real_check = files.check_regular

    def then_grow(path):
        info = real_check(path)
        path.write_bytes(b" " * 10_000)
        return info

    monkeypatch.setattr(files, "check_regular", then_grow)
    with pytest.raises(files.PageError, match="^[(]file[)]: 11 bytes is over the 10-byte limit"):
        files.read_file(grown)


def test_load_seeds_refuses_dev_zero_and_a_fifo_without_hanging(child_database_url, tmp_path):
    """Through manage.py, as an operator would run it; a hang fails on the timeout."""
    env = child_env(child_database_url)

    def manage(*args):
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env,
            text=True, capture_output=True, timeout=120,
        )  # fmt: skip

    assert manage("migrate", "--noinput").returncode == 0
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = manage("load_seeds", "/dev/zero", str(fifo), str(SEED_FILE))
    assert result.returncode == 1, result.stderr
    assert f"/dev/zero: (file): a character device, {NOT_READ}" in result.stderr
    assert f"{fifo}: (file): a FIFO (named pipe), {NOT_READ}" in result.stderr
    assert "3 files: 1 created" in result.stdout
    assert "Traceback" not in result.stderr
    # The archive importer too: a FIFO named as the archive is refused, not waited on.
    result = manage("import_pwc", str(fifo), "--snapshot=2025-07-28")
    assert result.returncode == 1
    assert f"{fifo}: a FIFO (named pipe), {NOT_READ}" in result.stderr
