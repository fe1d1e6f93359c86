"""export_dumps: a whole set or none, the same bytes for the same data, withheld rows
counted, and the load commands' --write-dumps."""

import gzip
import io
import json
import tarfile

import pytest
from django.core.management import CommandError, call_command

from leaderboards.dumps import export, records, sets
from leaderboards.dumps.export import export_set
from tests.helpers import SEED_FILE, SEED_SLUG, make_method, make_paper, spam_row

DATA_FILES = (
    "pages.tar.gz",
    "evaluation-tables.json.gz",
    "papers-with-abstracts.json.gz",
    "links-between-papers-and-code.json.gz",
    "methods.json.gz",
    "datasets.json.gz",
)


def files_of(manifest):
    return {entry["name"]: entry for entry in manifest["files"]}


@pytest.fixture
def withheld(seeded, admin_user):
    from leaderboards import decisions

    row = spam_row()
    decisions.withhold([decisions.row_ref(row.leaderboard_id, row.key, row.model)], "Spam.",
                       admin_user)  # fmt: skip
    return row


def test_two_exports_of_an_unchanged_site_give_the_same_files(seeded, tmp_path):
    first = files_of(export_set(tmp_path / "a"))
    second = files_of(export_set(tmp_path / "b"))
    for name in DATA_FILES:
        assert first[name]["sha256"] == second[name]["sha256"], name
        assert first[name]["size"] == second[name]["size"], name
    raw = (tmp_path / "a" / "current" / "papers-with-abstracts.json.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # no time in the gzip header, nor a file name
    assert not raw[3] & 0x08


def test_the_manifest_tells_each_files_size_and_checksum(seeded, tmp_path):
    import hashlib

    manifest = export_set(tmp_path)
    folder = tmp_path / "current"
    assert set(files_of(manifest)) == {*DATA_FILES, "README.txt"}
    for entry in manifest["files"]:
        data = (folder / entry["name"]).read_bytes()
        assert entry["size"] == len(data)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["made_at"] and "data_version" in manifest
    assert json.loads((folder / "manifest.json").read_text()) == manifest


def test_each_page_file_is_the_boards_json_export_byte_for_byte(withheld, tmp_path, client):
    manifest = export_set(tmp_path)
    with tarfile.open(tmp_path / "current" / "pages.tar.gz") as tar:
        names = tar.getnames()
        page = tar.extractfile(f"{SEED_SLUG}.json").read()
    assert names == [f"{SEED_SLUG}.json"]
    assert page == client.get(f"/sota/{SEED_SLUG}.json").content
    pages = files_of(manifest)["pages.tar.gz"]["counts"]
    assert pages["boards"] == 1 and pages["rows_withheld"] == 1
    assert withheld.model.encode() not in page


def test_withheld_papers_and_methods_are_left_out_and_counted(seeded, admin_user, tmp_path):
    from leaderboards import curation
    from leaderboards.models import Paper

    paper = Paper.objects.order_by("slug").first()
    curation.withhold_papers([paper.slug], "Retracted.", admin_user)
    manifest = export_set(tmp_path)
    counts = files_of(manifest)["papers-with-abstracts.json.gz"]["counts"]
    assert counts == {"records": Paper.objects.count() - 1, "withheld": 1}
    with gzip.open(tmp_path / "current" / "papers-with-abstracts.json.gz") as stream:
        written = json.load(stream)
    assert f"/paper/{paper.slug}" not in json.dumps(written)
    assert len(written) == counts["records"]


def test_an_editors_description_is_written_marked_as_theirs(db, admin_user, tmp_path):
    from leaderboards import curation
    from leaderboards.models import Method

    paper = make_paper("uses-both")
    make_method("gcn", "GCN", pwc_slug="gcn", description="The archive's.", papers=[paper])
    make_method("mlp", "MLP", pwc_slug="mlp", description="Plain.", papers=[paper])
    curation.describe(Method, "gcn", "An editor's words.", "Clearer.", admin_user)
    export_set(tmp_path)
    with gzip.open(tmp_path / "current" / "methods.json.gz") as stream:
        described = {record["name"]: record for record in json.load(stream)}
    with gzip.open(tmp_path / "current" / "papers-with-abstracts.json.gz") as stream:
        (written,) = json.load(stream)
    for methods in (described, {method["name"]: method for method in written["methods"]}):
        assert methods["GCN"]["description"] == "An editor's words."
        assert methods["GCN"]["description_source"] == "editor"
        assert methods["MLP"]["description"] == "Plain."
        assert "description_source" not in methods["MLP"]


def test_a_failed_export_leaves_the_current_set_as_it_was(seeded, tmp_path, monkeypatch):
    old = export_set(tmp_path)
    folder = sets.current_folder(tmp_path)

    def killed(tally):
        yield from ()
        raise OSError("disk full")

    monkeypatch.setattr(export, "RECORD_FILES", (("methods.json.gz", killed),))
    with pytest.raises(OSError):
        export_set(tmp_path)
    assert sets.current_folder(tmp_path) == folder
    assert sets.read_manifest(tmp_path)[1] == old
    # The half-written set is gone; only the current one is kept.
    assert [path.name for path in (tmp_path / "sets").iterdir()] == [folder.name]


def test_a_new_set_replaces_the_old_which_stays_one_export_more(seeded, tmp_path):
    export_set(tmp_path)
    first = sets.current_folder(tmp_path)
    export_set(tmp_path)
    second = sets.current_folder(tmp_path)
    assert second != first and first.exists()
    export_set(tmp_path)
    assert not first.exists() and second.exists()
    assert (tmp_path / "current").is_symlink()


def test_a_reader_streaming_an_old_file_reads_it_whole(seeded, tmp_path):
    export_set(tmp_path)
    path, entry = sets.listed_file(tmp_path, "pages.tar.gz")
    with open(path, "rb") as reading:
        head = reading.read(10)
        export_set(tmp_path)
        export_set(tmp_path)  # the set it belongs to is removed now
        assert not path.exists()
        data = head + reading.read()
    assert len(data) == entry["size"]


def test_records_are_read_a_chunk_at_a_time(seeded, monkeypatch):
    """Memory follows a chunk: the papers are read CHUNK rows a query, never all at once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from leaderboards.models import Paper

    monkeypatch.setattr(records, "CHUNK", 2)
    count = Paper.objects.count()
    assert count > 4
    with CaptureQueriesContext(connection) as queries:
        written = list(records.papers(records.Tally()))
    assert [r["paper_url"].rsplit("/", 1)[1] for r in written] == list(
        Paper.objects.order_by("pk").values_list("slug", flat=True)
    )
    reads = [q["sql"] for q in queries if q["sql"].startswith('SELECT "leaderboards_paper"."id"')]
    assert len(reads) == -(-count // 2) + 1  # the last one finds none
    assert all("LIMIT 2" in sql for sql in reads)


def test_load_seeds_writes_the_dumps_when_asked(db, tmp_path, settings):
    settings.SOTASITE_DUMPS_DIR = tmp_path
    call_command("load_seeds", str(SEED_FILE), "--write-dumps", stdout=io.StringIO())
    assert files_of(sets.read_manifest(tmp_path)[1])["pages.tar.gz"]["counts"]["boards"] == 1


def test_a_failed_load_writes_no_dumps(db, tmp_path, settings):
    settings.SOTASITE_DUMPS_DIR = tmp_path / "dumps"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CommandError):
        call_command("load_seeds", str(bad), "--write-dumps", stdout=io.StringIO(),
                     stderr=io.StringIO())  # fmt: skip
    assert sets.read_manifest(tmp_path / "dumps") == (None, None)


def test_export_dumps_command(seeded, tmp_path):
    out = io.StringIO()
    call_command("export_dumps", str(tmp_path), stdout=out)
    assert "pages.tar.gz: 1 boards" in out.getvalue()
    assert (tmp_path / "current" / "README.txt").read_text().count("import_pwc") == 1


def test_a_killed_exports_half_set_is_never_served_and_goes_with_the_next(seeded, tmp_path):
    old = export_set(tmp_path)
    # What a export killed mid-way leaves: a folder of the set it was writing, no switch.
    half = tmp_path / "sets" / "20991231T000000Z-deadbeef"
    half.mkdir()
    (half / "pages.tar.gz").write_bytes(b"\x1f\x8b half")
    assert sets.read_manifest(tmp_path)[1] == old
    export_set(tmp_path)
    assert not half.exists()


# A child that exports until its methods file has begun, says so, and waits to be killed.
STUCK_EXPORT = """
import sys, time
import django
django.setup()
from leaderboards.dumps import export

def stuck(tally):
    yield {"name": "half"}
    print("writing", file=sys.stderr, flush=True)
    time.sleep(120)

if sys.argv[2] == "stuck":
    export.RECORD_FILES = (("methods.json.gz", stuck),)
export.export_set(sys.argv[1])
"""


@pytest.mark.slow
def test_an_export_killed_mid_file_leaves_the_served_set(child_database_url, tmp_path):
    import signal
    import subprocess
    import sys

    from tests.helpers import ROOT, child_env, manage

    env = child_env(child_database_url)
    assert manage("migrate", "--noinput", env=env).returncode == 0
    dumps = tmp_path / "dumps"

    def export_in_child(mode):
        return subprocess.Popen(
            [sys.executable, "-c", STUCK_EXPORT, str(dumps), mode],
            cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    whole = export_in_child("whole")
    assert whole.wait(timeout=120) == 0, whole.stderr.read()
    whole.stderr.close()
    served = sets.read_manifest(dumps)
    child = export_in_child("stuck")
    assert child.stderr.readline().strip() == "writing"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stderr.close()
    assert sets.read_manifest(dumps) == served
    assert len(list((dumps / "sets").iterdir())) == 2  # the served one, and the half one


def test_evaluation_tables_imports_into_an_empty_site(withheld, tmp_path):
    from leaderboards.models import Leaderboard, Row
    from tests.dumps.sample import empty_site
    from tests.helpers import run_import_pwc

    export_set(tmp_path)
    shown = Row.objects.filter(withheld=False).count()
    empty_site()
    run_import_pwc(tmp_path / "current" / "evaluation-tables.json.gz")
    assert Leaderboard.objects.count() == 1
    assert Row.objects.count() == shown  # the withheld row is not in it


def test_import_pwc_writes_the_dumps_when_asked(db, tmp_path, settings):
    from tests.dumps.sample import OGB

    settings.SOTASITE_DUMPS_DIR = tmp_path / "dumps"
    call_command("import_pwc", str(OGB), "--snapshot=2025-07-28", "--write-dumps",
                 stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    manifest = sets.read_manifest(tmp_path / "dumps")[1]
    assert files_of(manifest)["pages.tar.gz"]["counts"]["boards"] == 15
    bad = tmp_path / "datasets.json"
    bad.write_text("not json")
    with pytest.raises(CommandError):
        call_command("import_pwc", str(bad), "--write-dumps",
                     stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert sets.read_manifest(tmp_path / "dumps")[1] == manifest
