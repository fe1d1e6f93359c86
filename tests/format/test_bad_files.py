"""Malformed page files: one clear line each, nothing changed, the rest still load."""

import json
import shutil
from pathlib import Path

import pytest

from leaderboards.models import Leaderboard
from tests.helpers import SEED_FILE, database_dump

BAD = Path(__file__).parent / "data" / "bad"

# Each file in tests/format/data/bad and the place and reason its error must name.
EXPECTED = {
    "truncated.json": "(file): invalid JSON at line 1",
    "empty.json": "(file): invalid JSON at line 1 column 1",
    "non-utf8.json": "(file): not UTF-8 text",
    "wrong-type-top-rows.json": "rows: expected a list, found an object",
    "wrong-type-task.json": "task: expected an object, found a string",
    "wrong-type-dataset-name.json": "dataset.name: expected a string, found an integer",
    "wrong-type-categories.json": "categories: expected a list, found a string",
    "wrong-type-source-spam.json": "source.rows_withheld_as_spam: expected an integer",
    "wrong-type-metrics.json": "metrics: expected a list, found a string",
    "wrong-type-direction.json": "metric_direction.by_metric.AUROC: expected a string or null",
    "wrong-type-row.json": "rows[4]: expected an object, found a list",
    "wrong-type-row-metric-value.json": "rows[0].metrics.AUROC: expected a string or null",
    "wrong-type-row-flag.json": "rows[2].uses_additional_data: expected true or false",
    "wrong-type-row-syntology.json": "rows[1].syntology.n_ran: expected an integer, found a number",
    "wrong-type-since-entries.json": "since_archive.entries: expected a list, found an object",
    "wrong-type-measurement.json": "since_archive.measurement.judged: expected an integer",
    "wrong-type-read-at.json": "syntology.read_at: expected a string, found an integer",
    "missing-url.json": "(top level): missing field 'url'",
    "missing-row-model.json": "rows[7]: missing field 'model'",
    "missing-syntology.json": "(top level): missing field 'syntology'",
    "huge-string.json": "rows[0].model: string of 150,000 characters is over 100,000",
    "huge-integer.json": "rows[0].n_code_links: integer 100000000000000000000 is beyond 64 bits",
    "deep-nesting.json": "(file): nested deeper than 64 levels",
    "duplicate-rank.json": "rows[21].rank_in_archive_order: rank 1 appears twice",
    "not-a-page.json": "(top level): missing field 'url'",
    "nul-character.json": "rows[3].model: contains a NUL character",
    "lone-surrogate.json": "since_archive.entries[0].model: contains a lone surrogate",
}


def test_the_corpus_is_what_the_table_names():
    assert sorted(path.name for path in BAD.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_bad_file_fails_with_one_line_and_changes_nothing(seeded, load, name):
    before = database_dump()
    ok, _, err = load(BAD / name)
    assert not ok
    errors = [line for line in err.splitlines() if line.startswith(str(BAD / name))]
    assert len(errors) == 1, err
    assert EXPECTED[name] in errors[0]
    assert database_dump() == before


def test_the_whole_corpus_fails_file_by_file_and_the_good_file_loads(load, tmp_path):
    folder = tmp_path / "mixed"
    shutil.copytree(BAD, folder)
    shutil.copy(SEED_FILE, folder / "zz-good.json")
    ok, out, err = load(folder)
    assert not ok
    assert f"{len(EXPECTED)} of {len(EXPECTED) + 1} files failed" in err
    assert "1 created" in out
    assert Leaderboard.objects.count() == 1


def test_a_100_mb_file_is_refused_before_it_is_read(seeded, load, tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: costs no disk
    before = database_dump()
    ok, _, err = load(big)
    assert not ok
    assert f"{big}: (file): 104,857,600 bytes is over the 33,554,432-byte limit" in err
    assert database_dump() == before


def test_two_files_with_the_same_page_and_moment_but_different_rows(load, tmp_path, seed_page):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(seed_page))
    seed_page["rows"][0]["model"] = "Someone else's claim"
    second.write_text(json.dumps(seed_page))
    ok, out, err = load(tmp_path)
    assert not ok
    assert f"{second}: syntology.read_at: 2026-09-25T09:33:49+00:00 is the read_at of " in err
    assert f"already loaded from {first} in this run, with different content" in err
    assert Leaderboard.objects.get().rows.get(rank=1).model == "CMA(ViT-B/16, NegLabel)"


def test_a_file_with_the_stored_read_at_and_other_content_is_refused_in_a_later_run(
    load, tmp_path, seed_page, write_page
):
    assert load(write_page(seed_page))[0]
    before = database_dump()
    seed_page["rows"] = seed_page["rows"][:2]
    seed_page["task"]["name"] = "Renamed"
    other = write_page(seed_page, "other.json")
    for _ in range(2):
        ok, out, err = load(other)
        assert not ok
        assert (
            f"{other}: syntology.read_at: 2026-09-25T09:33:49+00:00 is the read_at of the "
            "stored /sota/out-of-distribution-detection-on-imagenet-1k-8, but the content "
            "differs" in err
        )
        assert "0 updated" in out and "1 failed" in out
        assert database_dump() == before
