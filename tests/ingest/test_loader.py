import copy

import pytest

from leaderboards.models import (
    Area,
    Leaderboard,
    Metric,
    MetricValue,
    Paper,
    Row,
    RowVerification,
    SyntologySnapshot,
)
from tests.helpers import SEED_FILE, SEED_SLUG


def table_counts():
    return {
        model.__name__: model.objects.count()
        for model in (Leaderboard, Metric, Row, MetricValue, Paper, SyntologySnapshot)
    }


def test_the_seed_loads_whole(seeded):
    assert seeded.row_count == 22
    assert str(seeded) == "Out-of-Distribution Detection on ImageNet-1k vs SUN"
    assert list(seeded.metrics.values_list("name", flat=True)) == ["FPR95", "AUROC"]
    assert seeded.category.slug == "computer-vision"
    # DICE, MCM and KNN each stand behind two rows: one paper each.
    assert Paper.objects.count() == 19
    assert Row.objects.filter(paper__slug="on-the-effectiveness-of-sparsification-for").count() == 2
    value = MetricValue.objects.get(row__rank=22, metric__name="AUROC")
    assert (value.raw, value.number) == ("89.8", 89.8)
    # MOOD has no FPR95: no value at all, not an empty one.
    assert not MetricValue.objects.filter(row__rank=22, metric__name="FPR95").exists()
    assert RowVerification.objects.count() == 15


def test_reloading_the_same_file_changes_nothing_and_says_so(seeded, load):
    before = table_counts()
    updated_at = Leaderboard.objects.get().updated_at
    ok, out, _ = load(SEED_FILE)
    assert ok
    assert "1 files: 0 created, 0 updated, 1 unchanged" in out
    assert table_counts() == before
    assert Leaderboard.objects.get().updated_at == updated_at


def test_a_newer_file_updates_the_page_and_keeps_the_old_snapshot(
    seeded, load, seed_page, write_page
):
    seed_page["syntology"]["read_at"] = "2026-10-25T09:33:49+00:00"
    seed_page["rows"][0]["metrics"]["AUROC"] = "96.40"
    ok, out, _ = load(write_page(seed_page))
    assert ok
    assert "1 updated" in out
    assert MetricValue.objects.get(row__rank=1, metric__name="AUROC").raw == "96.40"
    snapshots = list(seeded.snapshots.newest_first().values_list("read_at_text", flat=True))
    assert snapshots == ["2026-10-25T09:33:49+00:00", "2026-09-25T09:33:49+00:00"]
    # The old snapshot still has its row counters, though its rows were replaced.
    old = seeded.snapshots.get(read_at_text="2026-09-25T09:33:49+00:00")
    assert old.verifications.count() == 15
    assert Row.objects.count() == 22


def test_an_older_file_does_not_overwrite_and_is_reported(seeded, load, seed_page, write_page):
    seed_page["syntology"]["read_at"] = "2025-01-01T00:00:00+00:00"
    seed_page["rows"][0]["model"] = "Older name"
    ok, out, err = load(write_page(seed_page))
    assert ok
    assert "1 older than stored" in out
    assert "older than the stored" in err
    assert Row.objects.get(rank=1).model == "CMA(ViT-B/16, NegLabel)"
    assert SyntologySnapshot.objects.count() == 1


def test_a_wrong_stated_figure_is_reported_with_file_field_and_both_values(
    load, seed_page, write_page
):
    seed_page["counts"]["rows_with_code"] = 17
    path = write_page(seed_page, "edited.json")
    ok, out, _ = load(path)
    assert ok
    assert f"{path}: counts.rows_with_code stated 17, computed 21" in out


def test_dry_run_checks_and_writes_nothing(load):
    ok, out, _ = load(SEED_FILE, dry_run=True)
    assert ok
    assert "1 created" in out and "dry run" in out
    assert Leaderboard.objects.count() == 0


def test_a_file_naming_an_unknown_area_creates_it(load, seed_page, write_page):
    seed_page["category"] = "Quantum Widgets"
    seed_page["categories"] = ["Quantum Widgets", "Computer Vision"]
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    board = Leaderboard.objects.get()
    assert board.category.slug == "quantum-widgets"
    assert [link.area.name for link in board.area_links.order_by("position")] == [
        "Quantum Widgets",
        "Computer Vision",
    ]
    assert Area.objects.filter(name="Computer Vision").count() == 1


def test_every_file_in_a_folder_loads_whatever_its_extension(load, seed_page, tmp_path):
    import json

    other = copy.deepcopy(seed_page)
    other["url"] = "/sota/another-board"
    (tmp_path / "a.txt").write_text(json.dumps(seed_page))
    (tmp_path / "b.data").write_text(json.dumps(other))
    ok, out, _ = load(tmp_path)
    assert ok
    assert "2 files: 2 created" in out
    # The two pages share their papers rather than copying them.
    assert Paper.objects.count() == 19


# Bad input: each file gets one message naming the file and the JSON path,
# changes nothing, and does not stop the good file beside it.
def _mutate(page, change):
    change(page)
    return page


BAD_FILES = {
    "invalid JSON": (b'{"url": "/sota/x", ', "(file): invalid JSON at line 1"),
    "not UTF-8": (b'{"url": "\xff"}', "(file): not UTF-8"),
    "missing field": (lambda p: p.pop("dataset"), "(top level): missing field 'dataset'"),
    "row metrics not an object": (
        lambda p: p["rows"][3].__setitem__("metrics", ["96.1"]),
        "rows[3].metrics: expected an object, found a list",
    ),
    "duplicate rank": (
        lambda p: p["rows"][5].__setitem__("rank_in_archive_order", 2),
        "rows[5].rank_in_archive_order: rank 2 appears twice",
    ),
    "non-integer counter": (
        lambda p: p["rows"][1]["syntology"].__setitem__("n_ran", "14"),
        "rows[1].syntology.n_ran: expected an integer, found a string",
    ),
    "boolean counter": (
        lambda p: p["rows"][1].__setitem__("n_code_links", True),
        "rows[1].n_code_links: expected an integer, found true/false",
    ),
    "negative counter": (
        lambda p: p["rows"][1]["syntology"].__setitem__("n_unverified", -1),
        "rows[1].syntology.n_unverified: must be at least 0",
    ),
    "bad date": (
        lambda p: p["rows"][0].__setitem__("paper_date", "2025-02-30"),
        "rows[0].paper_date: expected a date YYYY-MM-DD or null",
    ),
    "metric not on the page": (
        lambda p: p["rows"][0]["metrics"].__setitem__("Top-1", "1"),
        "rows[0].metrics: 'Top-1' is not one of the page's metrics",
    ),
    "bad page url": (
        lambda p: p.__setitem__("url", "/sota/../../etc"),
        "url: expected a path like /sota/<slug>",
    ),
    "no time zone": (
        lambda p: p["syntology"].__setitem__("read_at", "2026-09-25T09:33:49"),
        "syntology.read_at: timestamp '2026-09-25T09:33:49' has no time zone",
    ),
    "not a page": (b"[1, 2, 3]", "(top level): expected an object, found a list"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_is_named_changes_nothing_and_the_rest_load(
    case, load, seed_page, write_page, tmp_path
):
    bad, message = BAD_FILES[case]
    folder = tmp_path / "run"
    folder.mkdir()
    bad_path = folder / "0-bad.json"
    if isinstance(bad, bytes):
        bad_path.write_bytes(bad)
    else:
        import json

        bad_path.write_text(json.dumps(_mutate(copy.deepcopy(seed_page), bad)))
    good = copy.deepcopy(seed_page)
    good["url"] = "/sota/a-good-board"
    (folder / "1-good.json").write_text(__import__("json").dumps(good))

    ok, out, err = load(folder)
    assert not ok
    assert f"{bad_path}: {message}" in err
    assert "1 of 2 files failed" in err
    assert "1 created" in out
    assert list(Leaderboard.objects.values_list("slug", flat=True)) == ["a-good-board"]


def test_an_unknown_direction_is_kept_verbatim_and_warned(load, seed_page, write_page):
    seed_page["metric_direction"]["by_metric"]["FPR95"] = "smaller-is-better"
    ok, _, err = load(write_page(seed_page))
    assert ok
    assert "metric_direction.by_metric.FPR95: unknown direction 'smaller-is-better'" in err
    metric = Metric.objects.get(name="FPR95")
    assert metric.source_direction == "smaller-is-better"
    # The word is no direction; the archive's ranking is what the page goes by.
    assert metric.stated_direction is None
    assert (metric.direction, metric.direction_set_by) == ("lower", "archive order")


def test_a_failed_write_rolls_back_only_that_file(load, seed_page, write_page, monkeypatch):
    from django.db import IntegrityError

    from leaderboards.ingest import tables

    real = tables._verifications

    # New pages are written together first, then one by one when that fails:
    # the failure must end up charged to its own file only.
    def fail_for_one(snapshot, item):
        if snapshot.leaderboard.slug == "will-fail":
            raise IntegrityError("simulated failure")
        return real(snapshot, item)

    monkeypatch.setattr(tables, "_verifications", fail_for_one)
    failing = copy.deepcopy(seed_page)
    failing["url"] = "/sota/will-fail"
    failing["rows"][0]["paper"] = "/paper/only-in-the-failing-file"
    ok, out, err = load(write_page(failing, "a.json"), write_page(seed_page, "b.json"))
    assert not ok
    assert "(database): simulated failure" in err
    assert list(Leaderboard.objects.values_list("slug", flat=True)) == [SEED_SLUG]
    assert not Paper.objects.filter(slug="only-in-the-failing-file").exists()
    assert Row.objects.count() == 22


def test_catalogue_figures_follow_the_load(seeded):
    import datetime

    from leaderboards.models import Task

    seeded.refresh_from_db()
    assert seeded.row_count == 22
    assert seeded.newest_paper_date == datetime.date(2025, 3, 24)
    assert seeded.verified_row_count == 15
    assert seeded.since_archive_entry_count == 0
    task = Task.objects.get()
    assert (task.leaderboard_count, task.row_count) == (1, 22)
    assert [area.slug for area in task.areas.all()] == ["computer-vision"]
    area = Area.objects.get(slug="computer-vision")
    assert (area.task_count, area.leaderboard_count) == (1, 1)
    assert Paper.objects.get(slug="decoupling-maxlogit-for-out-of-distribution").has_code is False
    assert Paper.objects.filter(has_code=True).count() == 18
    # 12 papers stand behind the 15 rows whose code samples ran.
    assert Paper.objects.filter(verified=True).count() == 12


def test_pages_built_by_a_program_load_like_files(load, seed_page):
    from leaderboards.ingest.loader import Loader

    report = Loader().load_pages([("built", seed_page)])
    assert (report.created, report.failed) == (1, [])
    again = Loader().load_pages([("built", seed_page)])
    assert again.unchanged == 1
    broken = dict(seed_page, rows="none")
    assert Loader().load_pages([("broken", broken)]).failed == [
        ("broken", "rows: expected a list, found a string")
    ]


def test_a_null_description_from_the_task_loads(load, seed_page, write_page):
    # Found by the property test: the task's description column is never null.
    seed_page["description"] = None
    ok, _, err = load(write_page(seed_page))
    assert ok, err


def test_sources_that_break_off_leave_every_chunk_before_the_break_written(
    db, seed_page, monkeypatch
):
    # The next chunk is read while one is written: a break in the sources is
    # raised only after the chunks read before it are in the database.
    from leaderboards.ingest import writer
    from leaderboards.ingest.loader import Loader

    monkeypatch.setattr(writer, "CHUNK", 3)

    def pages():
        for index in range(7):
            page = copy.deepcopy(seed_page)
            page["url"] = f"/sota/broken-off-{index}"
            yield f"page {index}", page
        raise OSError("the archive ends here")

    with pytest.raises(OSError, match="the archive ends here"):
        Loader().load_pages(pages())
    stored = Leaderboard.objects.filter(slug__startswith="broken-off-")
    # Two whole chunks; the seventh page was in the chunk the break cut short.
    assert sorted(stored.values_list("slug", flat=True)) == [f"broken-off-{i}" for i in range(6)]
    # Finished as a whole load would be: its figures counted, its boards searchable.
    assert all(board.row_count == len(seed_page["rows"]) for board in stored)


def test_a_page_from_another_archive_replacing_a_stored_one_is_warned_of(
    seeded, load, seed_page, write_page
):
    """A generated board once replaced the real one of its slug, reported as '1 updated'."""
    seed_page["syntology"]["read_at"] = "2026-12-01T00:00:00+00:00"
    seed_page["source"]["archive"] = "a generator"
    ok, out, err = load(write_page(seed_page))
    assert ok and "1 updated" in out
    assert (
        f"source.archive: {seed_page['url']} was loaded from "
        "'pwc-archive (Hugging Face), CC BY-SA 4.0'; this page, from 'a generator', replaces it"
    ) in err


def test_a_newer_page_from_the_same_archive_says_nothing_of_it(seeded, load, seed_page, write_page):
    seed_page["syntology"]["read_at"] = "2026-12-01T00:00:00+00:00"
    ok, _, err = load(write_page(seed_page))
    assert ok and "source.archive" not in err
