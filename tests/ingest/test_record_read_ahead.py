"""The papers and links files are read and checked in a second process, ahead of the writer.

What an import stores and reports must not depend on where its records were read;
a reader that dies must stop the import with a word, with the chunks before it
written, never hang it.
"""

import os

import pytest

from leaderboards.ingest import chunks
from leaderboards.ingest.records import ImportReport, RecordError
from leaderboards.models import Paper, PaperRepository
from tests.helpers import archive_file, run_import_pwc

# Imports whose reader is a second Python, started and killed: the full run's.
pytestmark = pytest.mark.slow


def paper(n, **fields):
    return {
        "paper_url": f"https://paperswithcode.com/paper/paper-{n}",
        "arxiv_id": f"2101.{n:05d}",
        "title": f"Paper {n}",
        "abstract": f"We study {n}.",
        "url_abs": f"https://arxiv.org/abs/2101.{n:05d}",
        "url_pdf": "",
        "proceeding": None,
        "authors": [f"Author {n % 7}"],
        "tasks": [],
        "date": "2021-06-01",
        "methods": [],
    } | fields


def files(tmp_path):
    papers = [paper(n) for n in range(30)]
    papers[4]["date"] = "June"  # refused by field
    papers[9] = "not an object"  # refused as a record
    papers[13]["title"] = "Control \u0001 character"  # stored, replaced
    links = [
        {
            "paper_url": f"https://paperswithcode.com/paper/paper-{n}",
            "paper_title": f"Paper {n}",
            "paper_arxiv_id": f"2101.{n:05d}",
            "paper_url_abs": f"https://arxiv.org/abs/2101.{n:05d}",
            "paper_url_pdf": "",
            "repo_url": f"https://github.com/lab/repo-{n}" if n != 30 else "ftp://x",
            "is_official": n % 2 == 0,
            "mentioned_in_paper": False,
            "mentioned_in_github": True,
            "framework": "pytorch",
        }
        for n in range(25, 40)
    ]
    return (
        archive_file(tmp_path, "papers-with-abstracts.json", papers),
        archive_file(tmp_path, "links-between-papers-and-code.json", links),
    )


def test_records_read_in_a_second_process_import_and_report_as_read_here(db, tmp_path, monkeypatch):
    paths = files(tmp_path)
    # Chunks of 4: several cross between the processes. Read here, a dry run
    # reports what the import would.
    monkeypatch.setattr(chunks, "CHUNK", 4)
    expected = run_import_pwc(*paths, dry_run=True)
    assert "refused papers-with-abstracts.json[4].date" in expected[1]

    def not_here(*args):
        raise AssertionError("read in the importing process")

    with monkeypatch.context() as patched:
        patched.setattr(chunks, "READ_AHEAD_BYTES", 0)
        patched.setattr(chunks, "_prepared_chunks", not_here)
        out, err = run_import_pwc(*paths)

    assert err == expected[1]
    assert out.splitlines() == expected[0].splitlines()[:-1]
    # 28 described (two refused), 9 more only the links name (the 10th link refused).
    assert "papers: 37 created" in out
    assert "refused links-between-papers-and-code.json[5].repo_url" in err
    assert "\u0001" not in Paper.objects.get(slug="paper-13").title
    assert PaperRepository.objects.count() == 14
    # And again: nothing changes, whoever read it.
    with monkeypatch.context() as patched:
        patched.setattr(chunks, "READ_AHEAD_BYTES", 0)
        again, _ = run_import_pwc(*paths)
    assert "papers: 0 created, 0 updated" in again


def dies_at_record_5(record):
    """Runs in the reader (imported there by name): dies as a killed process does."""
    if record["title"] == "Paper 5":
        os._exit(1)
    if not record["abstract"]:
        raise RecordError("abstract", "empty")
    return record["title"]


def test_a_reader_that_dies_stops_the_import_saying_so_with_the_chunks_before_written(
    db, tmp_path, monkeypatch
):
    path = archive_file(tmp_path, "papers-with-abstracts.json", [paper(n) for n in range(8)])
    monkeypatch.setattr(chunks, "READ_AHEAD_BYTES", 0)
    written = []
    with pytest.raises(OSError, match=r"the process reading papers-with-abstracts.json stopped"):
        chunks.import_file(
            path,
            "papers",
            dies_at_record_5,
            lambda items, counted: written.extend(items),
            ImportReport(),
            size=2,
            read_ahead=True,
        )
    # What it sent before it died is written, in order (a chunk still in its pipe
    # dies with it); nothing of the chunk it died in or after.
    assert written == ["Paper 0", "Paper 1", "Paper 2", "Paper 3"][: len(written)]
