"""import_pwc on the papers file (papers-with-abstracts): papers described, with their
authors, proceedings, tasks and methods, joined to the papers boards cite."""

import gzip
import io
import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards.ingest.papers import parse_proceeding
from leaderboards.models import (
    Author,
    Conference,
    Method,
    MethodCategory,
    Paper,
    PaperAuthor,
    Proceeding,
    Task,
)
from tests.helpers import PWC_DATA, html, make_paper

OGB = PWC_DATA / "sota-extractor_ogb.json"


def paper(slug, **fields):
    """A papers-file record as PwC wrote them."""
    return {
        "paper_url": f"https://paperswithcode.com/paper/{slug}",
        "arxiv_id": None,
        "title": slug.replace("-", " ").title(),
        "abstract": f"We study {slug}.",
        "url_abs": f"https://example.org/{slug}",
        "url_pdf": f"https://example.org/{slug}.pdf",
        "proceeding": None,
        "authors": ["Ada Lovelace", "Alan Turing"],
        "tasks": [],
        "date": "2021-06-01",
        "methods": [],
    } | fields


@pytest.fixture
def papers_file(tmp_path):
    def write(records, gz=False, name="papers-with-abstracts.json"):
        data = json.dumps(records).encode()
        path = tmp_path / (name + (".gz" if gz else ""))
        path.write_bytes(gzip.compress(data) if gz else data)
        return str(path)

    return write


@pytest.fixture
def run(db):
    """import_pwc on these files: (stdout, stderr)."""

    def run(*files, dry_run=False):
        out, err = io.StringIO(), io.StringIO()
        args = [*files, "--snapshot=2025-07-28", *(["--dry-run"] if dry_run else [])]
        call_command("import_pwc", *args, stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()

    return run


def test_a_paper_is_described_with_its_authors_and_abstract(run, papers_file, client):
    out, err = run(papers_file([paper("deep-thoughts", proceeding="NeurIPS 2021 12")]))
    assert "papers: 1 created, 0 updated, 0 unchanged, 0 refused" in out
    assert "authors: 2 created" in out
    assert "refused" not in err
    stored = Paper.objects.get(slug="deep-thoughts")
    assert stored.described
    assert stored.url == stored.url_abs == "https://example.org/deep-thoughts"
    assert str(stored.date) == "2021-06-01"
    page = html(client, "/paper/deep-thoughts")
    assert "We study deep-thoughts." in page
    assert page.index("Ada Lovelace") < page.index("Alan Turing")
    assert "NeurIPS 2021 12" in page
    proceeding = Proceeding.objects.get()
    assert (proceeding.conference.name, proceeding.conference.slug) == ("NeurIPS", "neurips")
    assert (proceeding.year, proceeding.month) == (2021, 12)


def test_the_same_file_again_changes_nothing(run, papers_file):
    records = [
        paper("a", proceeding="ICML 2020", arxiv_id="2001.00001", tasks=["Node Classification"]),
        paper("b", methods=[{"name": "ResNet", "main_collection": {"name": "CNNs"}}]),
    ]
    path = papers_file(records)
    run(path)
    state = dump()
    out, _ = run(path)
    assert "papers: 0 created, 0 updated, 2 unchanged, 0 refused" in out
    assert "authors: 0 created, 0 updated" in out
    assert " 0 created" in out and "1 created" not in out
    assert dump() == state


def test_gzipped_file_imports(run, papers_file):
    out, _ = run(papers_file([paper("zipped")], gz=True))
    assert "papers: 1 created" in out
    assert Paper.objects.filter(slug="zipped", described=True).exists()


def dump():
    """Papers, their authors in order, tasks and methods, as plain values."""
    return {
        "papers": sorted(
            Paper.objects.values_list(
                "slug", "pwc_slug", "title", "arxiv_id", "url", "abstract", "described",
                "proceeding__name",
            )
        ),
        "authors": sorted(
            PaperAuthor.objects.values_list("paper__slug", "position", "author__name")
        ),
        "tasks": sorted(Paper.tasks.through.objects.values_list("paper__slug", "task__slug")),
        "methods": sorted(Method.papers.through.objects.values_list("paper__slug", "method__slug")),
        "categories": sorted(
            Method.categories.through.objects.values_list("method__slug", "methodcategory__slug")
        ),
    }  # fmt: skip


def test_proceedings_are_read_as_conference_year_and_month():
    assert parse_proceeding("NeurIPS 2021 12") == ("NeurIPS 2021 12", "NeurIPS", 2021, 12)
    assert parse_proceeding("ICML 2020") == ("ICML 2020", "ICML", 2020, None)
    assert parse_proceeding("ACL 2019 7") == ("ACL 2019 7", "ACL", 2019, 7)
    # Anything else is a conference of that name, with no year: never a refusal.
    assert parse_proceeding("Workshop on X") == ("Workshop on X", "Workshop on X", None, None)
    assert parse_proceeding("CVPR 2020 13") == ("CVPR 2020 13", "CVPR 2020 13", None, None)
