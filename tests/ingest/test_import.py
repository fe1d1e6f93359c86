import datetime
import gzip
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboards import decisions
from leaderboards.format.rules import arxiv_id, paper_key
from leaderboards.models import (
    Dataset,
    Leaderboard,
    Metric,
    MetricValue,
    Paper,
    Row,
    Task,
)
from tests.helpers import PWC_DATA, row, table, task

OGB = PWC_DATA / "sota-extractor_ogb.json"
NLP = PWC_DATA / "sota-extractor_nlp-progress.json"


@pytest.fixture
def import_pwc(db):
    """Run import_pwc; return its summary line."""

    def run(path, snapshot="2025-07-28"):
        out = io.StringIO()
        call_command(
            "import_pwc", str(path), f"--snapshot={snapshot}", stdout=out, stderr=io.StringIO()
        )
        return out.getvalue().strip()

    return run


@pytest.fixture
def archive(tmp_path):
    counter = iter(range(10**6))

    def write(tasks, gz=False):
        data = json.dumps(tasks).encode()
        path = tmp_path / f"archive-{next(counter)}.json{'.gz' if gz else ''}"
        path.write_bytes(gzip.compress(data) if gz else data)
        return path

    return write


def db_state():
    """Everything a re-import could change, as plain values."""
    return {
        model.__name__: sorted(map(repr, model.objects.values_list()))
        for model in (Task, Dataset, Paper, Metric, Row, MetricValue)
    } | {"Leaderboard": sorted(map(repr, Leaderboard.objects.values_list("slug", "source")))}


def test_ogb_sample_loads_exactly(import_pwc):
    summary = import_pwc(OGB)
    assert "15 created" in summary
    assert Task.objects.count() == 3
    assert Leaderboard.objects.count() == 15
    assert Row.objects.count() == 244
    value = MetricValue.objects.get(
        row__leaderboard__slug="node-property-prediction-on-ogbn-products",
        row__rank=1,
        metric__name="Test Accuracy",
    )
    assert value.raw == "0.8428 ± 0.0014"
    assert value.number == pytest.approx(0.8428)
    first = value.row
    assert (first.model, first.code) == ("SAGN+SLE", "https://github.com/skepsun/SAGN_with_SLE")
    assert first.paper.arxiv_id == "2104.09376"
    board = first.leaderboard
    assert board.source["snapshot"] == "2025-07-28"
    assert "CC BY-SA 4.0" in board.source["archive"]
    assert board.row_count == board.rows.count()
    # Archive order is the rank: the file's first row is rank 1, its last rank n.
    assert list(board.metrics.values_list("name", flat=True)) == [
        "Test Accuracy",
        "Validation Accuracy",
        "Number of params",
    ]


def test_nlp_progress_sample_links_subtasks_and_subdatasets(import_pwc):
    import_pwc(NLP)
    assert Leaderboard.objects.count() == 91
    assert Row.objects.count() == 559
    assert Task.objects.get(name="Sentence Compression").parent.name == "Summarization"
    assert set(Task.objects.get(name="Dialogue").subtasks.values_list("name", flat=True)) == {
        "Dialogue Act Classification",
        "Dialogue State Tracking",
        "Retrieval-Based Chatbots",
        "Generative-Based Chatbots",
        "Disentanglement",
    }
    restricted = Dataset.objects.get(name="JFLEG (Restricted)")
    assert restricted.parent.name == "JFLEG"
    assert restricted.leaderboards.get().rows.count() == 4
    # The parent table is empty in the archive: a dataset, but no leaderboard.
    assert not Dataset.objects.get(name="JFLEG").leaderboards.exists()


def test_rows_keep_archive_order_and_values_verbatim(import_pwc):
    import_pwc(OGB)
    with OGB.open() as stream:
        source = json.load(stream)[0]["datasets"][0]["sota"]["rows"]
    board = Leaderboard.objects.get(slug="node-property-prediction-on-ogbn-products")
    stored = list(board.rows.order_by("rank").prefetch_related("values__metric"))
    assert [r.model for r in stored] == [r["model_name"] for r in source]
    assert [{v.metric.name: v.raw for v in r.values.all()} for r in stored] == [
        r["metrics"] for r in source
    ]


def test_reimport_changes_nothing(import_pwc):
    from leaderboards.upkeep.cache import versions

    import_pwc(NLP)
    before, version = db_state(), versions()
    summary = import_pwc(NLP)
    assert "0 created, 0 updated, 91 unchanged" in summary
    assert db_state() == before
    # Nothing written, so no cached page retired either.
    assert versions() == version


def test_gzip_archive_imports_like_plain_json(import_pwc, archive):
    path = archive([task("Parsing", [table("PTB", [row("A", {"F1": "95.1"})])])], gz=True)
    import_pwc(path)
    assert MetricValue.objects.get().raw == "95.1"


def test_slugs_are_pwc_like_with_suffix_on_collision(import_pwc, archive):
    path = archive(
        [
            task("Question Answering", [table("SQuAD 1.1", [row("A", {"EM": "1"})])]),
            task("Question-Answering", [table("SQuAD 1.1", [row("B", {"EM": "2"})])]),
        ]
    )
    import_pwc(path)
    assert set(Task.objects.values_list("slug", flat=True)) == {
        "question-answering",
        "question-answering-2",
    }
    assert set(Leaderboard.objects.values_list("slug", flat=True)) == {
        "question-answering-on-squad-11",
        "question-answering-2-on-squad-11",
    }
    assert Dataset.objects.get().slug == "squad-11"


def test_a_later_archive_keeps_every_existing_url(import_pwc, archive):
    old = [task("Question-Answering", [table("SQuAD", [row("A", {"EM": "1"})])])]
    import_pwc(archive(old))
    before = dict(Leaderboard.objects.values_list("slug", "task__name"))
    # The newer archive puts a task first whose slug would have been taken first.
    newer = [task("Question Answering", [table("SQuAD", [row("B", {"EM": "2"})])]), *old]
    import_pwc(archive(newer), snapshot="2025-08-01")
    after = dict(Leaderboard.objects.values_list("slug", "task__name"))
    assert before.items() <= after.items()
    assert after["question-answering-2-on-squad"] == "Question Answering"


def test_papers_are_one_per_arxiv_id(import_pwc, archive):
    rows = [
        row("A", {"F1": "1"}, "https://arxiv.org/abs/2104.09376", "A Paper About Things"),
        row("A big", {"F1": "2"}, "http://arxiv.org/pdf/2104.09376v2.pdf", "A Paper About Things"),
        row("B", {"F1": "3"}, "https://example.org/b", "Another"),
        row("C", {"F1": "4"}),
    ]
    import_pwc(archive([task("Parsing", [table("PTB", rows)])]))
    assert Paper.objects.count() == 2
    paper = Paper.objects.get(arxiv_id="2104.09376")
    assert paper.slug == "a-paper-about-things"
    assert paper.rows.count() == 2
    assert Row.objects.get(model="C").paper is None


def test_code_links_are_all_kept(import_pwc, archive):
    links = ("https://github.com/a/one", "https://github.com/b/two")
    import_pwc(archive([task("Parsing", [table("PTB", [row("A", {"F1": "1"}, code=links)])])]))
    stored = Row.objects.get()
    assert (stored.code, stored.n_code_links) == (links[0], 2)
    assert [link["url"] for link in stored.extra["code_links"]] == list(links)


def test_synonyms_categories_and_metrics_missing_from_the_list(import_pwc, archive):
    rows = [row("A", {"F1": "1"}), row("B", {"F1": "2", "Speed": "3 ms"})]
    parent = task(
        "Parsing",
        [table("PTB", rows, metrics=["F1"])],
        subtasks=[task("Dependency Parsing", [table("PTB", [row("C", {"UAS": "9"})])])],
        categories=["Natural Language Processing"],
        synonyms=["syntactic parsing"],
    )
    import_pwc(archive([parent]))
    parsing = Task.objects.get(name="Parsing")
    assert parsing.synonyms == ["syntactic parsing"]
    assert parsing.areas.get().name == "Natural Language Processing"
    # A subtask without categories files under its parent's.
    child = Leaderboard.objects.get(task__name="Dependency Parsing")
    assert child.category.name == "Natural Language Processing"
    board = Leaderboard.objects.get(task=parsing)
    assert list(board.metrics.values_list("name", flat=True)) == ["F1", "Speed"]


def test_reimport_after_curation_keeps_editors_decisions(import_pwc, archive, editor):
    rows = [row("A", {"F1": "1"}), row("Spam", {"F1": "99"})]
    import_pwc(archive([task("Parsing", [table("PTB", rows)])]))
    decisions.withhold(Row.objects.filter(model="Spam"), "spam", editor)
    decisions.set_direction(Metric.objects.all(), "higher", editor)
    # A later snapshot with one more row: the page is rewritten, decisions carried.
    rows.append(row("C", {"F1": "2"}))
    summary = import_pwc(archive([task("Parsing", [table("PTB", rows)])]), snapshot="2025-09-01")
    assert "1 updated" in summary
    assert Row.objects.get(model="Spam").withheld
    assert Metric.objects.get().editor_direction == "higher"
    assert Leaderboard.objects.get().row_count == 2


def test_a_broken_archive_is_a_clear_error(import_pwc, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[{"task": "A", "datasets": [')
    with pytest.raises(CommandError, match="not a readable archive"):
        import_pwc(path)


def test_a_bad_snapshot_date_is_refused(import_pwc):
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        import_pwc(OGB, snapshot="yesterday")


def test_a_plain_json_archive_without_snapshot_has_an_unknown_date(db, archive):
    # The file's modification time is today; it must not become the archive's date.
    path = archive([task("Parsing", [table("PTB", [row("A", {"F1": "1"})])])])
    out = io.StringIO()
    call_command("import_pwc", str(path), stdout=out)
    assert "snapshot date: unknown" in out.getvalue()
    board = Leaderboard.objects.get()
    assert board.source["snapshot"] is None
    assert board.read_at is None


def test_a_gzip_archive_without_snapshot_takes_its_headers_date(db, tmp_path):
    document = [task("Parsing", [table("PTB", [row("A", {"F1": "1"})])])]
    path = tmp_path / "evaluation-tables.json.gz"
    taken = datetime.datetime(2025, 7, 28, 12, tzinfo=datetime.UTC).timestamp()
    path.write_bytes(gzip.compress(json.dumps(document).encode(), mtime=taken))
    out = io.StringIO()
    call_command("import_pwc", str(path), stdout=out)
    assert "snapshot date: 2025-07-28 (the gzip header)" in out.getvalue()
    assert Leaderboard.objects.get().source["snapshot"] == "2025-07-28"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://arxiv.org/abs/2104.09376", "2104.09376"),
        ("https://arxiv.org/abs/2104.09376v3", "2104.09376"),
        ("http://arxiv.org/pdf/1512.03385v1.pdf", "1512.03385"),
        ("https://arxiv.org/abs/cs/0112017", "cs/0112017"),
        ("https://example.org/paper.pdf", ""),
        ("", ""),
    ],
)
def test_arxiv_id(url, expected):
    assert arxiv_id(url) == expected


def test_paper_key_prefers_arxiv_id():
    assert paper_key("https://arxiv.org/pdf/2104.09376v2.pdf") == paper_key(
        "https://arxiv.org/abs/2104.09376"
    )
    assert paper_key("https://example.org/b/") == paper_key("https://example.org/b")
    assert paper_key("  ") is None


@pytest.mark.parametrize(
    "content",
    [
        '{"task": "not a list"}',
        '[{"task": 3}]',
        '[{"task": "A", "categories": [{"name": "CV"}]}]',
        '[{"task": "A", "datasets": [{"sota": {"rows": [1, 2]}}]}]',
        '[{"task": "A", "datasets": [{"sota": {"rows": [{"metrics": []}]}}]}]',
    ],
)
def test_an_archive_of_the_wrong_shape_is_refused(import_pwc, tmp_path, content):
    path = tmp_path / "odd.json"
    path.write_text(content)
    with pytest.raises(CommandError):
        import_pwc(path)


def test_a_table_the_loader_refuses_is_reported_and_the_rest_load(db, archive):
    bad = table("Broken", [row("A", {"": "1"})], metrics=[""])
    path = archive([task("Parsing", [table("PTB", [row("A", {"F1": "1"})]), bad])])
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 2 leaderboards failed"):
        call_command(
            "import_pwc", str(path), "--snapshot=2025-07-28", stdout=io.StringIO(), stderr=err
        )
    assert "parsing-on-broken" in err.getvalue()
    assert list(Leaderboard.objects.values_list("slug", flat=True)) == ["parsing-on-ptb"]


def test_dry_run_writes_nothing(db, archive):
    path = archive([task("Parsing", [table("PTB", [row("A", {"F1": "1"})])])])
    out = io.StringIO()
    call_command("import_pwc", str(path), "--snapshot=2025-07-28", "--dry-run", stdout=out)
    assert "1 created" in out.getvalue() and "dry run" in out.getvalue()
    assert not Leaderboard.objects.exists()
    assert not Task.objects.exists()


def test_a_paper_date_that_is_no_date_is_kept_aside(import_pwc, archive):
    rows = [
        row("A", {"F1": "1"}, date="2019-13-45"),
        row("B", {"F1": "2"}, date="2019-02-03"),
        row("C", {"F1": "3"}, date="2019-W01-1"),
    ]
    import_pwc(archive([task("Parsing", [table("PTB", rows)])]))
    odd, good, week = Row.objects.order_by("rank")
    assert week.paper_date is None
    assert (odd.paper_date, odd.extra["paper_date_in_archive"]) == (None, "2019-13-45")
    assert good.paper_date == datetime.date(2019, 2, 3)


def test_a_chunk_the_database_refuses_is_written_page_by_page(import_pwc, archive, monkeypatch):
    from django.db import DatabaseError

    from leaderboards.ingest.writer import Writer

    real = Writer._write

    def refuse_chunks(self, items, catalogue_only):
        # The chunk of both pages fails; each page written alone succeeds.
        if len(items) > 1:
            raise DatabaseError("simulated")
        return real(self, items, catalogue_only)

    monkeypatch.setattr(Writer, "_write", refuse_chunks)
    tables = [table("PTB", [row("A", {"F1": "1"})]), table("WSJ", [row("B", {"F1": "2"})])]
    summary = import_pwc(archive([task("Parsing", tables, synonyms=["p"])]))
    assert "2 created" in summary
    assert "failed" not in summary.replace("0 failed", "")
    assert Leaderboard.objects.count() == 2
    assert MetricValue.objects.count() == 2
    assert Task.objects.get().synonyms == ["p"]


def test_tasks_without_tables_come_with_their_archive_details(import_pwc, archive):
    child = task("Child", [table("PTB", [row("A", {"F1": "1"})])])
    tasks = [
        task("Parent", [], subtasks=[child], categories=["Natural Language Processing"]),
        task("Lonely", [], categories=["Computer Vision"], synonyms=["alone"]),
    ]
    import_pwc(archive(tasks))
    lonely = Task.objects.get(name="Lonely")
    assert (lonely.description, lonely.synonyms) == ("About Lonely.", ["alone"])
    assert [area.name for area in lonely.areas.all()] == ["Computer Vision"]
    assert Task.objects.get(name="Child").parent == Task.objects.get(name="Parent")
    assert [area.name for area in Task.objects.get(name="Parent").areas.all()] == [
        "Natural Language Processing"
    ]


def test_a_later_archive_updates_task_details_though_its_tables_are_unchanged(import_pwc, archive):
    tables = [table("PTB", [row("A", {"F1": "1"})])]
    import_pwc(archive([task("Parsing", tables, synonyms=["old"])]))
    summary = import_pwc(archive([task("Parsing", tables, synonyms=["new"])]))
    assert "1 unchanged" in summary
    assert Task.objects.get().synonyms == ["new"]


def test_an_archive_cut_short_keeps_what_it_wrote_whole(db, archive, monkeypatch):
    from leaderboards.ingest import writer
    from leaderboards.models import SearchEntry, UpkeepPending

    monkeypatch.setattr(writer, "CHUNK", 2)
    tasks = [task(f"Task {n}", [table("PTB", [row("A", {"F1": "1"})])]) for n in range(6)]
    path = archive(tasks)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b'{"task": "Task 5"')])
    with pytest.raises(CommandError, match="not a readable archive"):
        call_command("import_pwc", str(path), "--snapshot=2025-07-28", stdout=io.StringIO())
    assert Leaderboard.objects.count() >= 2
    # The catalogue figures and the search index cover what was written.
    assert sorted(Task.objects.filter(leaderboard_count=1).values_list("name", flat=True)) == (
        sorted(Leaderboard.objects.values_list("task__name", flat=True))
    )
    assert SearchEntry.objects.filter(kind="leaderboard").count() == Leaderboard.objects.count()
    assert not UpkeepPending.objects.exists()


def test_a_snapshot_older_than_the_newest_row_is_warned_of(db, archive):
    """It was taken without a word: a snapshot is when the archive was taken."""
    rows = [row("A", {"F1": "1"}, date="2025-06-01"), row("B", {"F1": "2"}, date="2025-09-14")]
    path = archive([task("Parsing", [table("PTB", rows)])])
    out, err = io.StringIO(), io.StringIO()
    call_command("import_pwc", str(path), "--snapshot=2025-07-28", stdout=out, stderr=err)
    assert (
        "warning: the snapshot date 2025-07-28 (--snapshot) is older than the newest row's "
        "date, 2025-09-14 on /sota/parsing-on-ptb"
    ) in err.getvalue()
    assert "1 created" in out.getvalue()  # imported all the same, as the operator said
    err = io.StringIO()
    call_command("import_pwc", str(path), "--snapshot=2025-09-14", stdout=out, stderr=err)
    assert "warning" not in err.getvalue()
