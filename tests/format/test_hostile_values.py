"""Values no database or Python can hold or re-encode: each file is refused, named, alone.

Every file in tests/format/data/hostile is the seed page with one such value. Each
loaded before this check, and then either broke every list (a timestamp
PostgreSQL could not give back), broke its own page and .json (nesting,
NaN), or aborted the whole batch naming no file (a 5,000-digit integer).
"""

import copy
import decimal
import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from leaderboards.ingest.loader import Loader
from leaderboards.models import Leaderboard, Task
from tests.helpers import SEED_FILE, SEED_SLUG, database_dump

HOSTILE = Path(__file__).parent / "data" / "hostile"


def deep(path, levels):
    """The error for a list nested without end at a path `levels` deep."""
    return f"{path}{'[0]' * (64 - levels)}: nested deeper than 64 levels"


FINITE = "is not a finite number; a page's JSON cannot carry it"
READ_AT = "syntology.read_at: timestamp"
BEYOND = "is beyond 64 bits"
OUTSIDE = "is outside 1900-01-01 to 9000-12-31 (UTC)"


def over(path, length, column):
    """The error for a string of `length` characters, one more than its column holds."""
    return f"{path}: {length} characters, over the {length - 1} its column ({column}) holds"


# Each file and the JSON path and reason its one error line must give.
EXPECTED = {
    "read-at-year-0-in-utc.json": f"{READ_AT} 0001-01-01T00:00:00+01:00 {OUTSIDE}",
    "read-at-year-10000-in-utc.json": f"{READ_AT} 9999-12-31T23:59:59-01:00 {OUTSIDE}",
    "read-at-before-1900.json": f"{READ_AT} 1899-12-31T23:59:59+00:00 {OUTSIDE}",
    "read-at-longer-than-column.json": (
        "syntology.read_at: 126 characters, over the 64 its column "
        "(SyntologySnapshot.read_at_text) holds"
    ),
    "paper-date-year-1.json": f"rows[2].paper_date: date 0001-01-01 {OUTSIDE}",
    "paper-date-year-9999.json": f"rows[3].paper_date: date 9999-12-31 {OUTSIDE}",
    "deep-unknown-field.json": deep("deep_unknown", 1),
    "deep-row-extra.json": deep("rows[1].notes", 3),
    "deep-since-archive-entry.json": deep("since_archive.entries[0].value", 4),
    "deep-1500.json": "(file): nested deeper than 64 levels",
    "nan-in-since-archive.json": f"since_archive.entries[0].value: NaN {FINITE}",
    "infinity-unknown-field.json": f"figure: Infinity {FINITE}",
    "minus-infinity-row-extra.json": f"rows[4].score: -Infinity {FINITE}",
    "1e999-in-measurement.json": (
        "since_archive.measurement.wilson95_lower: 1e999 is beyond the range of a 64-bit float"
    ),
    "integer-65-bits.json": f"syntology.checksum: integer 18446744073709551616 {BEYOND}",
    "negative-integer-65-bits.json": f"syntology.checksum: integer -9223372036854775809 {BEYOND}",
    "integer-5000-digits.json": f"since_archive.entries[0].value: integer of 5,000 digits {BEYOND}",
    "integer-over-its-column.json": (
        "rows[0].n_code_links: must be at most 2,147,483,647, found 1099511627776"
    ),
    "long-board-slug.json": over("url", 301, "Leaderboard.slug"),
    "long-task-slug.json": over("task.url", 301, "Task.slug"),
    "long-dataset-slug.json": over("dataset.url", 301, "Dataset.slug"),
    "long-paper-slug.json": over("rows[0].paper", 301, "Paper.slug"),
    "long-task-name.json": over("task.name", 501, "Task.name"),
    "long-dataset-name.json": over("dataset.name", 501, "Dataset.name"),
    "long-main-area-name.json": over("category", 201, "Area.name"),
    "long-area-name.json": over("categories[1]", 201, "Area.name"),
    "long-metric-name.json": over("metrics[0]", 301, "Metric.name"),
    "long-direction.json": over("metric_direction.by_metric.AUROC", 101, "Metric.source_direction"),
    "long-description-from.json": over("description_from", 101, "Leaderboard.description_from"),
    "lone-surrogate-in-key.json": "figure: contains a lone surrogate: not valid Unicode",
    "duplicate-key.json": "(top level): key 'url' appears twice in one object",
}


def test_the_corpus_is_what_the_table_names():
    assert sorted(path.name for path in HOSTILE.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_hostile_value_is_refused_with_its_path_and_changes_nothing(seeded, load, name):
    before = database_dump()
    ok, _, err = load(HOSTILE / name)
    assert not ok
    errors = [line for line in err.splitlines() if line.startswith(f"{HOSTILE / name}: ")]
    assert len(errors) == 1, err
    assert errors[0] == f"{HOSTILE / name}: {EXPECTED[name]}"
    assert database_dump() == before


def test_the_whole_corpus_fails_file_by_file_and_the_good_file_after_it_loads(load, tmp_path):
    folder = tmp_path / "mixed"
    shutil.copytree(HOSTILE, folder)
    shutil.copy(SEED_FILE, folder / "zz-good.json")
    ok, out, err = load(folder)
    assert not ok
    assert f"{len(EXPECTED)} of {len(EXPECTED) + 1} files failed" in err
    assert "Traceback" not in err
    assert "1 created" in out
    assert list(Leaderboard.objects.values_list("slug", flat=True)) == [SEED_SLUG]
    client = Client(headers={"host": "localhost"})
    pages = ("/", "/sota/", f"/sota/{SEED_SLUG}", f"/sota/{SEED_SLUG}.json")
    for url in (*pages, "/feeds/newest.atom", "/api/v1/evaluations/"):
        assert client.get(url).status_code == 200, url


# Pages a program built, as the archive importer builds them: numbers are Decimal,
# and a value may be any Python object. Each is refused by name with its path.
def _built(seed_page, change):
    page = copy.deepcopy(seed_page)
    change(page)
    return page


def _deep(depth):
    value = "bottom"
    for _ in range(depth):
        value = [value]
    return value


BUILT = {
    "decimal-nan": (
        lambda page: page["rows"][0].update(code_links=[{"title": decimal.Decimal("NaN")}]),
        f"rows[0].code_links[0].title: NaN {FINITE}",
    ),
    "decimal-infinity": (
        lambda page: page["rows"][1].update(score=decimal.Decimal("-Infinity")),
        f"rows[1].score: -Infinity {FINITE}",
    ),
    "decimal-number": (
        lambda page: page["dataset"].update(name=decimal.Decimal("1E+999")),
        "dataset.name: the number 1E+999 where the page has text",
    ),
    "huge-integer": (
        lambda page: page["rows"][2].update(code_links=[{"title": 10**5000}]),
        "rows[2].code_links[0].title: integer of 16,610 bits is beyond 64 bits",
    ),
    "deep-row-field": (
        lambda page: page["rows"][3].update(code_links=_deep(5000)),
        deep("rows[3].code_links", 3),
    ),
    "long-task-name": (
        lambda page: page["task"].update(name="T" * 501),
        over("task.name", 501, "Task.name"),
    ),
    "not-json": (
        lambda page: page["rows"][0].update(model_links={1, 2}),
        "rows[0].model_links: set is not a JSON value",
    ),
}


def test_a_built_page_with_a_value_that_cannot_be_served_is_refused_alone(db, seed_page):
    pages = [(name, _built(seed_page, change)) for name, (change, _) in BUILT.items()]
    report = Loader().load_pages([*pages, ("good", seed_page)])
    assert dict(report.failed) == {name: message for name, (_, message) in BUILT.items()}
    assert report.created == 1
    assert Leaderboard.objects.get().slug == SEED_SLUG


def test_an_archive_table_with_a_value_that_cannot_be_served_is_refused_alone(
    db, tmp_path, monkeypatch
):
    """Through import_pwc: the bad tables fail with their paths, the good one imports.

    Before, a 5,000-digit integer crashed the importer's parser (a segfault)
    and 100,000 levels of nesting took it past its memory.
    """
    from tests.helpers import row, table, task

    deep_title = "[" * 100_000 + "]" * 100_000
    good = table("PTB", [row("A", {"F1": "1"})])
    deep = table("WSJ", [row("B", {"F1": "2"}, code=["https://example.org"])])
    deep["sota"]["rows"][0]["code_links"][0]["title"] = "@@DEEP@@"
    long_name = table("N" * 501, [row("C", {"F1": "3"})])
    huge = table("CTB", [row("D", {"F1": "@@HUGE@@"})])
    text = json.dumps([task("Parsing", [good, deep, long_name, huge])])
    text = text.replace('"@@DEEP@@"', deep_title).replace('"@@HUGE@@"', "7" * 5000)
    path = tmp_path / "archive.json"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_pwc", str(path), "--snapshot=2025-07-28", stdout=out, stderr=err)
    lines = err.getvalue().splitlines()
    assert any(
        line.startswith("/sota/parsing-on-wsj: rows[0].code_links[0].title[0][0]")
        and line.endswith("nested deeper than 64 levels")
        for line in lines
    ), lines
    name = "N" * 40
    assert f"archive dataset '{name}': {over('dataset.name', 501, 'Dataset.name')}" in lines
    # The integer the dump wrote bare is kept as its digits, as every number is.
    assert Leaderboard.objects.get(slug="parsing-on-ctb").rows.get().values.get().raw == "7" * 5000
    assert Leaderboard.objects.filter(slug="parsing-on-ptb").exists()


def test_an_archive_paper_url_with_an_overlong_arxiv_id_imports(db, tmp_path):
    """An arXiv-like URL whose id would not fit its column is an ordinary URL.

    Before, on PostgreSQL, the id was written after every page and the whole
    import failed there ("value too long").
    """
    from tests.helpers import row, table, task

    url = f"https://arxiv.org/abs/{'a' * 40}/1234567"
    path = tmp_path / "archive.json"
    path.write_text(json.dumps([task("Parsing", [table("PTB", [row("A", {"F1": "1"}, url)])])]))
    call_command("import_pwc", str(path), "--snapshot=2025-07-28", stdout=io.StringIO())
    paper = Leaderboard.objects.get().rows.get().paper
    assert (paper.url, paper.arxiv_id) == (url, "")


# Past a page's text limit: what the archive's text cannot be, once its characters
# are made storable.
LONG = "x" * 100_001
TOO_LONG = "string of 100,001 characters is over 100,000"


def test_archive_text_has_the_characters_the_rule_forbids_replaced(db, tmp_path):
    """PwC's tables carry stray U+0002 and U+0003: replaced by a space, as in its records."""
    from tests.helpers import row, table, task

    odd = task("Odd\x02 task", [table("PTB\x03", [row("A\x00B", {"F1": "1"})])])
    odd["description"] = "About\x0c this"
    path = tmp_path / "archive.json"
    path.write_text(json.dumps([odd]))
    call_command("import_pwc", str(path), "--snapshot=2025-07-28", stdout=io.StringIO())
    board = Leaderboard.objects.get()
    assert (board.task.name, board.task.description) == ("Odd  task", "About  this")
    assert board.dataset.name == "PTB "
    assert list(board.rows.values_list("model", flat=True)) == ["A B"]


def test_archive_details_that_cannot_be_stored_are_reported_and_the_rest_imports(db, tmp_path):
    """A task or dataset whose details cannot be stored is reported by name, and not written.

    Before, its tables were refused but the details were written after every
    page, and on PostgreSQL the whole import failed there.
    """
    from tests.helpers import row, table, task

    nul = task("Nul task", [table("PTB", [row("A", {"F1": "1"})])])
    nul["description"] = LONG
    linked_data = table("WSJ", [row("B", {"F1": "2"})])
    linked_data["dataset_links"] = [{"title": "home", "url": f"https://example.org/{LONG}"}]
    link = task("Linked", [table("CTB", [row("C", {"F1": "3"})])])
    link["source_link"] = {"url": f"https://example.org/{LONG}"}
    good = task("Parsing", [table("Penn", [row("D", {"F1": "4"})]), linked_data])
    path = tmp_path / "archive.json"
    path.write_text(json.dumps([nul, link, good]))
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_pwc", str(path), "--snapshot=2025-07-28", stdout=io.StringIO(), stderr=err
        )
    lines = err.getvalue().splitlines()
    assert f"archive task 'Nul task': description: {TOO_LONG}" in lines
    assert "archive task 'Linked': source_link: string of 100,021 characters" in "\n".join(lines)
    assert "archive dataset 'WSJ': url: string of 100,021 characters" in "\n".join(lines)
    assert list(Leaderboard.objects.values_list("slug", flat=True)) == ["parsing-on-penn"]
    assert list(Task.objects.values_list("name", flat=True)) == ["Parsing"]


def test_archive_subdatasets_of_a_dataset_that_cannot_be_stored_still_import(db, tmp_path):
    from tests.helpers import row, table, task

    child = table("Dev", [row("A", {"F1": "1"})])
    parent = table("PTB", [row("B", {"F1": "2"})], sub=[child])
    parent["description"] = LONG
    odd = table("WSJ", [row("C", {"F1": "3"})])
    odd["dataset"] = ["not", "a", "name"]
    path = tmp_path / "archive.json"
    path.write_text(json.dumps([task("Parsing", [parent, odd])]))
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_pwc", str(path), "--snapshot=2025-07-28", stdout=io.StringIO(), stderr=err
        )
    lines = err.getvalue().splitlines()
    assert f"archive dataset 'PTB': description: {TOO_LONG}" in lines
    assert "archive task 'Parsing': dataset: expected a name, not a value" in lines
    dev = Leaderboard.objects.get(dataset__name="PTB (Dev)")
    assert dev.dataset.parent is None


def test_a_page_with_a_huge_list_of_metric_names_is_checked_in_one_pass(db):
    """30,000 distinct metric names load; a repeat at the end is named; 40,000 are refused.

    Each name used to be compared with every name before it, which kept the
    loader busy for minutes on such a file; and past 32,767 names the places
    overflowed PostgreSQL's small integer column with no JSON path said. The
    alarm fails the test rather than hanging CI.
    """
    import signal

    def with_metrics(names):
        page = json.loads(SEED_FILE.read_text(encoding="utf-8"))
        page["metrics"] = names
        page["metric_direction"]["by_metric"] = dict.fromkeys(names)
        for row in page["rows"]:
            row["metrics"] = {}
        return page

    names = [f"metric {index}" for index in range(30_000)]
    repeated = with_metrics([*names, names[0]])
    repeated["url"] += "-repeated"
    too_many = with_metrics([f"metric {index}" for index in range(40_000)])
    too_many["url"] += "-too-many"

    def too_slow(signum, frame):
        raise AssertionError("checking one page's metric names took over 60 s")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(60)
    try:
        report = Loader().load_pages(
            [("huge", with_metrics(names)), ("repeated", repeated), ("too-many", too_many)]
        )
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert report.failed == [
        ("repeated", "metrics[30000]: metric 'metric 0' is listed twice"),
        ("too-many", "metrics: 40,000 names, over the 32,767 a page may list"),
    ]
    assert report.created == 1
    assert Leaderboard.objects.get().metrics.count() == 30_000
