"""Tasks, datasets and papers are shared by boards: the first source's name stands.

A new board's file or archive table that names a shared object differently
does not rename it for every other board; the load says what it kept.
"""

import io
import json

import pytest
from django.core.management import call_command

from leaderboards.models import Dataset, Leaderboard, Paper, Row, Task
from tests.helpers import SEED_SLUG, row, table, task

TASK = "out-of-distribution-detection"
DATASET = "imagenet-1k-vs-sun"
PAPER = "enhanced-ood-detection-through-cross-modal"  # the seed's rank 1


def another_board(seed_page):
    seed_page["url"] = "/sota/another-board"
    seed_page["task"]["name"] = "OOD Detection (renamed)"
    seed_page["dataset"]["name"] = "SUN (renamed)"
    first = seed_page["rows"][0]
    first["paper_title"] = "A Different Title"
    first["paper_url"] = "https://example.org/elsewhere"
    first["paper_date"] = "2001-01-01"
    return seed_page


def test_a_new_boards_file_does_not_rename_what_other_boards_share(
    seeded, load, seed_page, write_page
):
    paper = Paper.objects.get(slug=PAPER)
    kept = (paper.title, paper.url, paper.date)
    Task.objects.filter(slug=TASK).update(editor_description="An editor's words.")
    path = write_page(another_board(seed_page), "another.json")

    ok, out, err = load(path)
    assert ok, err
    assert "1 created" in out
    assert (
        f"{path}: task {TASK!r} keeps its name 'Out-of-Distribution Detection'; "
        "this source's 'OOD Detection (renamed)' is not applied"
    ) in err
    assert (
        f"{path}: dataset {DATASET!r} keeps its name 'ImageNet-1k vs SUN'; "
        "this source's 'SUN (renamed)' is not applied"
    ) in err
    assert f"{path}: paper {PAPER!r} keeps its title {kept[0]!r}; this source's " in err
    assert f"keeps its url {kept[1]!r}; this source's 'https://example.org/elsewhere'" in err
    assert f"keeps its date {kept[2].isoformat()!r}; this source's '2001-01-01'" in err

    task = Task.objects.get(slug=TASK)
    assert (task.name, task.editor_description) == (
        "Out-of-Distribution Detection",
        "An editor's words.",
    )
    assert Dataset.objects.get(slug=DATASET).name == "ImageNet-1k vs SUN"
    paper.refresh_from_db()
    assert (paper.title, paper.url, paper.date) == kept
    # Both boards stand under the one task; the new board's row keeps its own copy.
    assert set(task.leaderboards.values_list("slug", flat=True)) == {SEED_SLUG, "another-board"}
    assert Row.objects.get(leaderboard__slug="another-board", rank=1).paper_title == (
        "A Different Title"
    )


def test_a_file_that_agrees_gets_no_warning(seeded, load, seed_page, write_page):
    seed_page["url"] = "/sota/another-board"
    ok, _, err = load(write_page(seed_page))
    assert ok
    assert "keeps its" not in err


@pytest.fixture
def archive(tmp_path):
    counter = iter(range(10**6))

    def write(tasks):
        path = tmp_path / f"archive-{next(counter)}.json"
        path.write_text(json.dumps(tasks))
        return path

    return write


def import_archive(path, snapshot):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_pwc", str(path), f"--snapshot={snapshot}", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_later_archive_does_not_rename_a_shared_paper(db, archive):
    arxiv = "https://arxiv.org/abs/2104.09376"
    first = row("A", {"F1": "1"}, arxiv, "The First Title", date="2021-04-19")
    import_archive(archive([task("Parsing", [table("PTB", [first])])]), "2025-07-28")
    paper = Paper.objects.get()
    assert (paper.slug, paper.title) == ("the-first-title", "The First Title")

    # The newer archive names the same arXiv paper, on a new table, otherwise.
    other = row("B", {"F1": "2"}, f"{arxiv}v2", "A Second Title", date="2021-05-01")
    newer = [task("Parsing", [table("PTB", [first]), table("WSJ", [other])])]
    out, err = import_archive(archive(newer), "2025-08-01")
    assert "1 created" in out
    assert (
        "/sota/parsing-on-wsj: paper 'the-first-title' keeps its title 'The First Title'; "
        "this source's 'A Second Title' is not applied"
    ) in err
    assert "keeps its date '2021-04-19'; this source's '2021-05-01'" in err
    paper.refresh_from_db()
    assert (paper.title, paper.date.isoformat()) == ("The First Title", "2021-04-19")
    assert Paper.objects.count() == 1
    assert Leaderboard.objects.get(slug="parsing-on-wsj").rows.get().paper == paper


def test_a_page_file_does_not_rename_an_imported_task(db, archive, load, seed_page, write_page):
    import_archive(
        archive([task("Parsing", [table("PTB", [row("A", {"F1": "1"})])])]), "2025-07-28"
    )
    seed_page["task"] = {"name": "Parsing, renamed", "url": "/task/parsing", "note": None}
    path = write_page(seed_page)
    ok, _, err = load(path)
    assert ok
    assert f"{path}: task 'parsing' keeps its name 'Parsing'" in err
    assert Task.objects.get(slug="parsing").name == "Parsing"


def test_a_chunk_written_again_page_by_page_warns_once(
    seeded, load, seed_page, write_page, monkeypatch
):
    from django.db import IntegrityError

    from leaderboards.ingest import tables

    real = tables._verifications

    def fail_for_one(snapshot, item):
        if snapshot.leaderboard.slug == "will-fail":
            raise IntegrityError("simulated failure")
        return real(snapshot, item)

    monkeypatch.setattr(tables, "_verifications", fail_for_one)
    failing = dict(seed_page, url="/sota/will-fail")
    renaming = another_board(seed_page)
    path = write_page(renaming, "b.json")
    ok, _, err = load(write_page(failing, "a.json"), path)
    assert not ok
    assert err.count(f"{path}: task {TASK!r} keeps its name") == 1
    assert Leaderboard.objects.filter(slug="another-board").exists()
