"""A full dump set: the archive's five files and the boards' page files, with a manifest.

`export_set(root)` writes a new set beside the current one and switches to it
(sets.py); nothing a reader sees changes until the set is whole. The files
depend on the data alone (deterministic gzip and tar), so an unchanged site
gives files of the same sha256; only the manifest says when it was made.
"""

import datetime
import hashlib
import json
import os
import shutil
import uuid

from django.db import connection, transaction
from django.utils import timezone

from leaderboards.dumps import records, sets
from leaderboards.dumps.boards import BoardTally, write_boards
from leaderboards.dumps.files import write_array
from leaderboards.models import SiteState
from sotasite.routers import reads_from_primary

PAGES = "pages.tar.gz"
TABLES = "evaluation-tables.json.gz"
# The four record files, in the order import_pwc reads them.
RECORD_FILES = (
    ("papers-with-abstracts.json.gz", records.papers),
    ("links-between-papers-and-code.json.gz", records.code_links),
    ("methods.json.gz", records.methods),
    ("datasets.json.gz", records.datasets),
)
README = "README.txt"
README_TEXT = """\
sotasite full dump
==================

Data version {data_version}. manifest.json says when it was made and lists every file with
its size, sha256 and record counts. Licence: the Papers with Code data is CC BY-SA 4.0.

The files
---------
pages.tar.gz
    One page file (SPEC 1) per leaderboard, <slug>.json: each is byte for byte the
    board's /sota/<slug>.json export when the dump was made (editors' decisions applied,
    withheld rows left out and counted in source.rows_withheld_as_spam).
evaluation-tables.json.gz
    The boards as the Papers with Code archive's evaluation-tables.json: tasks, their
    datasets and tables, subtasks.
papers-with-abstracts.json.gz
    Every paper (withheld papers left out), under its Papers with Code slug; `url`
    (not in Papers with Code's own file) is the address a board's row named it by.
links-between-papers-and-code.json.gz
    Every link between a paper and its code the site shows.
methods.json.gz
    Every method the archive's methods file described (withheld methods left out).
datasets.json.gz
    Every dataset; `dataset_links` (not in Papers with Code's own file) keeps the
    address a board's table gave it.

Editors' texts are written in place of the archive's where an editor wrote one; a
method's is marked "description_source": "editor" (a key not in Papers with Code's own
files), so a restored site shows it as an editor's.

Restoring an empty site from this dump
--------------------------------------
    python manage.py migrate
    python manage.py loaddata fixtures/areas.json
    mkdir pages && tar -xzf pages.tar.gz -C pages
    python manage.py load_seeds pages
    python manage.py import_pwc papers-with-abstracts.json.gz \\
        links-between-papers-and-code.json.gz methods.json.gz datasets.json.gz

The boards come from the page files (they carry what evaluation-tables.json cannot:
Syntology's checks, editors' directions, newer results), the rest from the four record
files. Every board's .json is then byte for byte as it was, and every paper's,
method's and dataset's page shows the same, an editor's "edited" mark included, and
papers of one date list in the same order (by slug). Editors' accounts and the public
record of their work are not in the dump. evaluation-tables.json.gz is for those who
read the Papers with Code format; the restore does not need it.
"""


def export_set(root, said=None):
    """A new set written under `root` and made current: its manifest."""
    os.makedirs(root, exist_ok=True)
    made_at = timezone.now().replace(microsecond=0)
    name = f"{made_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    folder = sets.new_set(root, name)
    try:
        # One snapshot of the database for the whole set: a load committing meanwhile
        # cannot leave a paper in one file and its code links missing from the next.
        outermost = not connection.in_atomic_block
        with reads_from_primary(), transaction.atomic():
            if outermost:
                _one_snapshot()
            manifest = _write_files(folder, made_at, said)
        (folder / sets.MANIFEST).write_text(
            json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        _fsync_folder(folder)
    except BaseException:
        # Never half a set: the current one stays as it was.
        shutil.rmtree(folder, ignore_errors=True)
        raise
    sets.switch_to(root, folder)
    return manifest


def _one_snapshot():
    """Every read of the transaction from one snapshot (PostgreSQL reads each statement's
    own under its default READ COMMITTED; SQLite's transaction is one already). Only a
    transaction's first statement may set it: inside another (a test's), that one's holds."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")


def _write_files(folder, made_at, said):
    version = SiteState.objects.filter(pk=1).values_list("data_version", flat=True).first() or 0
    files = []
    tally = BoardTally()
    tables, pages = write_boards(folder / TABLES, folder / PAGES, tally)
    files.append(_entry(PAGES, pages, boards=tally.boards, rows=tally.rows,
                        rows_withheld=tally.rows_withheld, left_out=tally.left_out))  # fmt: skip
    files.append(_entry(TABLES, tables, tasks=tally.tasks, boards=tally.boards))
    if said:
        said(f"{PAGES}: {tally.boards:,} boards, {tally.rows:,} rows")
    for filename, reader in RECORD_FILES:
        counted = records.Tally()
        written = write_array(folder / filename, reader(counted))
        files.append(_entry(filename, written, records=counted.records, withheld=counted.withheld))
        if said:
            said(f"{filename}: {counted.records:,} records, {counted.withheld:,} withheld")
    readme = README_TEXT.format(data_version=version).encode()
    (folder / README).write_bytes(readme)
    files.append(_readme_entry(readme))
    return {
        "format": 1,
        "made_at": made_at.astimezone(datetime.UTC).isoformat(),
        "data_version": version,
        "files": files,
    }


def _entry(name, written, **counts):
    size, sha256 = written
    return {"name": name, "size": size, "sha256": sha256, "counts": counts}


def _readme_entry(data):
    return {"name": README, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "counts": {}}  # fmt: skip


def _fsync_folder(folder):
    """Every file of the set on disk before `current` points at it."""
    for path in folder.iterdir():
        with open(path, "rb") as handle:
            os.fsync(handle.fileno())
