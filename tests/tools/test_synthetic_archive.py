"""The synthetic archive: the five files' shapes and joins, its oddities, and slugs of its own."""

import gzip
import io
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

import pytest
from django.core.management import call_command

from leaderboards.format.rules import arxiv_id, slug_for
from leaderboards.ingest.records import CANONICAL, recognise
from leaderboards.models import Leaderboard
from tests.helpers import PWC_DATA, ROOT
from tools import synthetic_archive as generator
from tools.synthetic_archive import __main__ as command
from tools.synthetic_archive.catalogue import SHUTDOWN, plan, sizes_for
from tools.synthetic_archive.names import SLUG_MARKER, title_slug

SMALL = 30

# SPEC 2, field by field, in the order the archive writes them.
FIELDS = {
    "papers-with-abstracts": [
        "paper_url", "arxiv_id", "title", "abstract", "url_abs", "url_pdf", "proceeding",
        "authors", "tasks", "date", "methods",
    ],
    "links-between-papers-and-code": [
        "paper_url", "paper_title", "paper_arxiv_id", "paper_url_abs", "paper_url_pdf",
        "repo_url", "is_official", "mentioned_in_paper", "mentioned_in_github", "framework",
    ],
    "methods": [
        "url", "name", "full_name", "description", "paper", "introduced_year", "source_url",
        "source_title", "code_snippet_url", "num_papers", "collections",
    ],
    "datasets": [
        "url", "name", "full_name", "homepage", "description", "paper", "introduced_date",
        "warning", "modalities", "tasks", "languages", "variants", "num_papers", "data_loaders",
    ],
}  # fmt: skip
CONFERENCE_FIELDS = ["conference", "conference_url_abs", "conference_url_pdf"]
PAPER_METHOD_FIELDS = [
    "name", "full_name", "description", "introduced_year", "source_url", "source_title",
    "code_snippet_url", "main_collection",
]  # fmt: skip
TASK_FIELDS = [
    "categories", "datasets", "description", "source_link", "subtasks", "synonyms", "task",
]  # fmt: skip
TABLE_FIELDS = ["dataset_citations", "dataset_links", "description", "sota", "subdatasets"]
ROW_FIELDS = [
    "code_links", "metrics", "model_links", "model_name", "paper_date", "paper_title",
    "paper_url", "uses_additional_data",
]  # fmt: skip


def read(folder, gzipped=False):
    """The five files' records by kind."""
    files = {}
    for kind in generator.FILES:
        path = folder / generator.file_name(kind, gzipped)
        opener = gzip.open if gzipped else open
        with opener(path, "rt", encoding="utf-8") as stream:
            files[kind] = json.load(stream)
    return files


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    generator.write_archive(folder, SMALL, seed=3)
    return read(folder)


def all_tasks(tasks):
    for task in tasks:
        yield task
        yield from all_tasks(task["subtasks"])


def all_tables(tasks):
    """(task name, table name as the importer names it, table) of every table."""

    def walk(task, tables, parent):
        for table in tables:
            own = table.get("dataset") or table.get("subdataset")
            name = f"{parent} ({own})" if parent else own
            yield task["task"], name, table
            yield from walk(task, table["subdatasets"], name)

    for task in all_tasks(tasks):
        yield from walk(task, task["datasets"], None)


def all_rows(tasks):
    return [row for _, _, table in all_tables(tasks) for row in table["sota"]["rows"]]


def tail(url):
    return url.rstrip("/").rsplit("/", 1)[-1]


def row_paper_slug(row):
    """The slug the importer gives a row's paper: its title's, else its arXiv id's digits."""
    if not row["paper_url"]:
        return None
    return (
        title_slug(row["paper_title"])
        if row["paper_title"]
        else slug_for(arxiv_id(row["paper_url"]).replace("/", "-"), "paper")
    )


def slugs_of(tables_file):
    """Every slug an evaluation-tables file gives its tasks, datasets, boards and papers."""
    slugs = set()
    for task, dataset, table in all_tables(tables_file):
        slugs |= {slug_for(task, "task"), slug_for(dataset, "dataset")}
        slugs.add(f"{slug_for(task, 'task')}-on-{slug_for(dataset, 'dataset')}")
        slugs |= {row_paper_slug(row) for row in table["sota"]["rows"]} - {None}
    return slugs


def generated_slugs(files):
    """Every slug the five files give anything, by what it names."""
    papers, methods, datasets = (
        files[kind] for kind in ("papers-with-abstracts", "methods", "datasets")
    )
    yield from slugs_of(files["evaluation-tables"])
    for paper in papers:
        yield tail(paper["paper_url"])
        yield from (slug_for(author, "author") for author in paper["authors"])
        yield from (slug_for(task, "task") for task in paper["tasks"])
        yield from (slug_for(method["name"], "method") for method in paper["methods"])
        if paper["proceeding"]:
            yield slug_for(paper["proceeding"].rsplit(" ", 2)[0], "conference")
    for link in files["links-between-papers-and-code"]:
        if link["paper_url"]:
            yield tail(link["paper_url"])
        yield slug_for(link["repo_url"].split("/")[3], "owner")
    for method in methods:
        yield tail(method["url"])
        yield from (slug_for(each["collection"], "category") for each in method["collections"])
    for dataset in datasets:
        yield tail(dataset["url"])
        yield from (tail(task["url"]) for task in dataset["tasks"])


def test_files_are_named_as_the_importer_knows_them(tmp_path):
    generator.write_archive(tmp_path, SMALL, seed=1)
    assert generator.FILES == CANONICAL
    assert [recognise(tmp_path / generator.file_name(kind)) for kind in CANONICAL] == list(
        CANONICAL
    )


def test_records_have_the_spec_fields_in_order(small):
    for kind, fields in FIELDS.items():
        for record in small[kind]:
            assert list(record)[: len(fields)] == fields, kind
            assert list(record)[len(fields) :] in ([], CONFERENCE_FIELDS), kind
    assert any("conference" in paper for paper in small["papers-with-abstracts"])
    for paper in small["papers-with-abstracts"]:
        assert all(list(method) == PAPER_METHOD_FIELDS for method in paper["methods"])
    for task in all_tasks(small["evaluation-tables"]):
        assert list(task) == TASK_FIELDS
    for _, _, table in all_tables(small["evaluation-tables"]):
        assert sorted(set(table) - {"dataset", "subdataset"}) == TABLE_FIELDS
        assert len(set(table) & {"dataset", "subdataset"}) == 1
        assert all(list(row) == ROW_FIELDS for row in table["sota"]["rows"])
        assert all(
            isinstance(value, str)
            for row in table["sota"]["rows"]
            for value in row["metrics"].values()
        )


def test_same_seed_gives_the_same_bytes_and_another_seed_other_files(tmp_path):
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        generator.write_archive(tmp_path / name, SMALL, seed=seed)
    for kind in generator.FILES:
        first, again, other = (
            (tmp_path / name / generator.file_name(kind)).read_bytes() for name in "abc"
        )
        assert first == again
        assert first != other


@pytest.mark.slow
def test_the_bytes_do_not_depend_on_string_hashing(tmp_path):
    for name, hash_seed in (("a", "1"), ("b", "2")):
        subprocess.run(
            [sys.executable, "-m", "tools.synthetic_archive", "--out", str(tmp_path / name)]
            + ["--papers", "40", "--seed", "7"],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    for kind in generator.FILES:
        name = generator.file_name(kind)
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_run_stopped_part_way_leaves_no_file_that_reads_whole(tmp_path, monkeypatch):
    def fail(seed, plan, dataset):
        raise OSError("No space left on device")

    monkeypatch.setattr(generator, "dataset_record", fail)
    with pytest.raises(OSError):
        generator.write_archive(tmp_path, SMALL, seed=1)
    with pytest.raises(json.JSONDecodeError):
        json.loads((tmp_path / "datasets.json").read_text(encoding="utf-8"))


def test_gzip_files_hold_the_same_records(tmp_path):
    generator.write_archive(tmp_path / "plain", SMALL, seed=2)
    generator.write_archive(tmp_path / "zipped", SMALL, seed=2, gzipped=True)
    assert read(tmp_path / "zipped", gzipped=True) == read(tmp_path / "plain")
    # No time in the header: the importer then takes no snapshot date from it.
    header = (tmp_path / "zipped" / "methods.json.gz").read_bytes()[:8]
    assert header[:2] == b"\x1f\x8b" and header[4:8] == bytes(4)


# The oddities ------------------------------------------------------------------


def test_empty_and_null_fields(small):
    papers = small["papers-with-abstracts"]
    rows = all_rows(small["evaluation-tables"])
    tasks = list(all_tasks(small["evaluation-tables"]))
    assert {paper["abstract"] for paper in papers} >= {"", None}
    assert any(paper["authors"] == [] and paper["methods"] == [] for paper in papers)
    assert any(paper["date"] is None for paper in papers)
    assert any(paper["url_pdf"] is None for paper in papers)
    assert any(task["description"] == "" for task in tasks)
    assert any(task["source_link"] is None for task in tasks)
    assert any(row["paper_url"] == "" and row["paper_date"] is None for row in rows)
    assert any(row["code_links"] == [] for row in rows)
    assert any(value == "" for row in rows for value in row["metrics"].values())
    assert any(method["paper"] is None for method in small["methods"])
    assert any(method["collections"] == [] for method in small["methods"])
    assert {dataset["homepage"] for dataset in small["datasets"]} >= {"", None}
    assert any(dataset["full_name"] == "" for dataset in small["datasets"])
    assert any(link["paper_url_pdf"] is None for link in small["links-between-papers-and-code"])


def test_tex_in_abstracts_and_descriptions(small):
    tex = re.compile(r"\$[^$]*\\[a-z]+[^$]*\$")
    assert any(tex.search(paper["abstract"] or "") for paper in small["papers-with-abstracts"])
    assert any(tex.search(method["description"]) for method in small["methods"])
    tasks = all_tasks(small["evaluation-tables"])
    assert any(tex.search(task["description"]) for task in tasks)


def test_markdown_tables_and_links(small):
    link = re.compile(r"\[[^\]]+\]\(https://[^)]+\)")
    for kind in ("methods", "datasets"):
        descriptions = [record["description"] for record in small[kind]]
        assert any("|---|" in text for text in descriptions), kind
        assert any(link.search(text) for text in descriptions), kind


def test_non_ascii_names(small):
    authors = [name for paper in small["papers-with-abstracts"] for name in paper["authors"]]
    assert any(not name.isascii() for name in authors)
    # A name whose letters are all non-Latin: its slug is only the marker.
    assert any(slug_for(name, "author") == SLUG_MARKER for name in authors)
    assert any(not dataset["name"].isascii() for dataset in small["datasets"])


def test_one_repository_is_shared_by_many_papers(small):
    papers_of = defaultdict(set)
    for link in small["links-between-papers-and-code"]:
        papers_of[link["repo_url"]].add(link["paper_url"])
    assert max(len(papers) for papers in papers_of.values()) >= 3


def test_some_papers_have_no_arxiv_id(small):
    papers = small["papers-with-abstracts"]
    without = [paper for paper in papers if paper["arxiv_id"] is None]
    assert 0 < len(without) < len(papers) / 2
    assert all("arxiv.org" not in paper["url_abs"] for paper in without)


def test_repeated_names(small):
    titles = Counter(paper["title"] for paper in small["papers-with-abstracts"])
    assert max(titles.values()) == 2
    urls = [paper["paper_url"] for paper in small["papers-with-abstracts"]]
    assert len(set(urls)) == len(urls)
    for _, _, table in all_tables(small["evaluation-tables"]):
        models = Counter(row["model_name"] for row in table["sota"]["rows"])
        if max(models.values(), default=0) > 1:
            break
    else:
        pytest.fail("no board names one model twice")
    pairs = Counter((task, name) for task, name, _ in all_tables(small["evaluation-tables"]))
    assert max(pairs.values()) > 1


def test_tables_have_subtasks_subdatasets_empty_tables_and_tasks_without_tables(small):
    tables = small["evaluation-tables"]
    assert any(task["subtasks"] for task in tables)
    assert any(table["subdatasets"] for _, _, table in all_tables(tables))
    assert any(not table["sota"]["rows"] for _, _, table in all_tables(tables))
    assert any(not task["datasets"] for task in all_tasks(tables))


# Joins -------------------------------------------------------------------------


def test_links_name_papers_of_the_papers_file(small):
    papers = small["papers-with-abstracts"]
    urls = {paper["paper_url"] for paper in papers}
    arxiv_ids = {paper["arxiv_id"] for paper in papers} - {None}
    links = small["links-between-papers-and-code"]
    known = [link for link in links if link["paper_url"] in urls]
    by_arxiv = [link for link in links if not link["paper_url"] and link["paper_arxiv_id"]]
    unknown = [link for link in links if link["paper_url"] and link["paper_url"] not in urls]
    assert len(known) + len(by_arxiv) + len(unknown) == len(links)
    assert by_arxiv and unknown
    assert {link["paper_arxiv_id"] for link in by_arxiv} <= arxiv_ids
    assert len(unknown) < len(known)


def test_papers_name_tasks_of_the_tables_and_methods_of_the_methods_file(small):
    task_names = {task["task"] for task in all_tasks(small["evaluation-tables"])}
    method_names = {method["name"] for method in small["methods"]}
    by_name = {method["name"]: method for method in small["methods"]}
    named_tasks = Counter()
    named_methods = Counter()
    for paper in small["papers-with-abstracts"]:
        named_tasks.update(name in task_names for name in paper["tasks"])
        for method in paper["methods"]:
            named_methods[method["name"] in method_names] += 1
            if method["name"] in by_name:
                # A paper's copy of a method is the methods file's.
                record = by_name[method["name"]]
                assert [method[key] for key in PAPER_METHOD_FIELDS[:-1]] == [
                    record[key] for key in PAPER_METHOD_FIELDS[:-1]
                ]
    assert named_tasks[True] > named_tasks[False] > 0
    assert named_methods[True] > named_methods[False] > 0


def test_rows_cite_papers_by_arxiv_url_or_another_url(small):
    papers = small["papers-with-abstracts"]
    arxiv_ids = {paper["arxiv_id"] for paper in papers} - {None}
    other_urls = {paper["url_abs"] for paper in papers if paper["arxiv_id"] is None}
    titles = {paper["title"] for paper in papers}
    rows = [row for row in all_rows(small["evaluation-tables"]) if row["paper_url"]]
    kinds = Counter()
    for row in rows:
        found = arxiv_id(row["paper_url"])
        if found:
            assert found in arxiv_ids
            kinds["pdf" if "/pdf/" in row["paper_url"] else "abs"] += 1
            kinds["no title"] += row["paper_title"] == ""
        elif row["paper_url"] in other_urls:
            kinds["other"] += 1
        else:
            kinds["unknown"] += 1
            assert row["paper_title"] not in titles
    assert all(kinds[kind] for kind in ("abs", "pdf", "no title", "other", "unknown"))
    repositories = {link["repo_url"] for link in small["links-between-papers-and-code"]}
    assert {link["url"] for row in rows for link in row["code_links"]} <= repositories
    assert kinds["abs"] > kinds["unknown"]


def test_datasets_name_tasks_and_papers_and_tables_cite_their_variants(small):
    tables = small["evaluation-tables"]
    tasks = {task["task"]: slug_for(task["task"], "task") for task in all_tasks(tables)}
    urls = {paper["paper_url"] for paper in small["papers-with-abstracts"]}
    variants = {name for dataset in small["datasets"] for name in dataset["variants"]}
    for dataset in small["datasets"]:
        assert dataset["paper"] is None or dataset["paper"]["url"] in urls
        for task in dataset["tasks"]:
            if task["task"] in tasks:
                assert tail(task["url"]) == tasks[task["task"]]
    named = [task["task"] in tasks for dataset in small["datasets"] for task in dataset["tasks"]]
    assert named.count(True) > named.count(False) > 0
    cited = [name in variants for _, name, table in all_tables(tables) if table["sota"]["rows"]]
    assert cited.count(True) > cited.count(False) > 0


def test_methods_name_the_papers_that_introduced_them(small):
    by_url = {paper["paper_url"]: paper for paper in small["papers-with-abstracts"]}
    introduced = [method for method in small["methods"] if method["paper"]]
    assert introduced
    for method in introduced:
        paper = by_url[method["paper"]["url"]]
        assert method["paper"]["title"] == paper["title"]
        assert method["source_url"] == paper["url_abs"]


# Slugs -------------------------------------------------------------------------


def test_no_generated_slug_is_a_slug_of_the_real_samples(small):
    real = set()
    for name in ("sota-extractor_ogb.json", "sota-extractor_nlp-progress.json"):
        real |= slugs_of(json.loads((PWC_DATA / name).read_text(encoding="utf-8")))
    for path in PWC_DATA.glob("pwc-sota-page_*.json"):
        rows = json.loads(path.read_text(encoding="utf-8"))
        real |= {tail(row["paper"]["url"]) for row in rows if (row["paper"] or {}).get("url")}
    assert len(real) > 900
    generated = set(generated_slugs(small))
    assert not generated & real
    # Those not made from a marked name are arXiv ids' digits, of a month arXiv never had.
    unmarked = {slug for slug in generated if not slug.startswith(SLUG_MARKER)}
    assert unmarked
    assert all(re.fullmatch(r"\d{9}", slug) and int(slug[2:4]) > 12 for slug in unmarked)


def test_the_tables_import_with_their_slugs(tmp_path, db):
    generator.write_archive(tmp_path, SMALL, seed=3)
    out = io.StringIO()
    call_command(
        "import_pwc",
        str(tmp_path / "evaluation-tables.json"),
        "--snapshot=2025-07-28",
        stdout=out,
        stderr=io.StringIO(),
    )
    tables = json.loads((tmp_path / "evaluation-tables.json").read_text(encoding="utf-8"))
    boards = [table for _, _, table in all_tables(tables) if table["sota"]["rows"]]
    assert f"{len(boards)} created" in out.getvalue() and " 0 failed" in out.getvalue()
    assert all(
        slug.startswith(SLUG_MARKER) for slug in Leaderboard.objects.values_list("slug", flat=True)
    )


# Sizes -------------------------------------------------------------------------


@pytest.mark.slow
def test_counts_follow_pwc_proportions(tmp_path):
    papers = 8_000
    written = generator.write_archive(tmp_path, papers, seed=1)
    files = read(tmp_path)
    scale = papers / SHUTDOWN["papers"]
    tables = files["evaluation-tables"]
    counts = {
        "papers": len(files["papers-with-abstracts"]),
        "links": len(files["links-between-papers-and-code"]),
        "methods": len(files["methods"]),
        "datasets": len(files["datasets"]),
        "boards": sum(bool(table["sota"]["rows"]) for _, _, table in all_tables(tables)),
        "tasks": sum(1 for _ in all_tasks(tables)),
    }
    assert counts["papers"] == papers
    urls = [paper["paper_url"] for paper in files["papers-with-abstracts"]]
    assert len(set(urls)) == len(urls)
    for kind, count in counts.items():
        assert count == pytest.approx(SHUTDOWN[kind] * scale, rel=0.1), kind
    assert {kind: written.records[kind] for kind in generator.FILES} == {
        kind: len(records) for kind, records in files.items()
    }
    assert written.rows == len(all_rows(tables))
    # About ten rows a board, as in the archive, a few boards far longer.
    assert 5 < written.rows / counts["boards"] < 20


@pytest.mark.slow
def test_every_task_dataset_and_method_has_a_slug_of_its_own_at_full_size():
    catalogue = plan(1, sizes_for(SHUTDOWN["papers"]))
    for slugs in (
        [task.slug for task in catalogue.tasks],
        [dataset.slug for dataset in catalogue.datasets],
        [tail(method.record["url"]) for method in catalogue.methods],
    ):
        assert len(set(slugs)) == len(slugs)
    assert (len(catalogue.tasks), len(catalogue.boards)) == (4_450, 9_300)


def test_small_sizes_keep_their_minimums():
    sizes = sizes_for(SMALL)
    assert (sizes.tasks, sizes.boards, sizes.methods, sizes.datasets) == (8, 12, 12, 12)
    assert sizes_for(576_000).boards == 9_300


# The command ---------------------------------------------------------------------


def test_command_line_writes_the_five_files(tmp_path, capsys):
    command.main(["--out", str(tmp_path / "out"), "--papers", "40", "--seed", "4", "--gzip"])
    names = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert names == sorted(f"{kind}.json.gz" for kind in CANONICAL)
    assert "40 papers-with-abstracts" in capsys.readouterr().out


@pytest.mark.parametrize("papers", ["29", "5000001", "-1"])
def test_command_line_refuses_sizes_it_cannot_make(tmp_path, capsys, papers):
    with pytest.raises(SystemExit) as exited:
        command.main(["--out", str(tmp_path), "--papers", papers])
    assert exited.value.code == 2
    assert "--papers must be from 30 to 5,000,000" in capsys.readouterr().err


def test_command_line_refuses_a_file_as_its_folder(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("")
    with pytest.raises(SystemExit):
        command.main(["--out", str(path), "--papers", "30"])
    assert "is not a folder" in capsys.readouterr().err
