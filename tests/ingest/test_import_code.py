"""import_pwc on the links file (links-between-papers-and-code): repositories and the
papers whose code they hold, joined to papers the other files describe."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards.ingest.code_links import owner_and_name
from leaderboards.models import Paper, PaperRepository, Repository
from tests.helpers import archive_file, html, make_paper, run_import_pwc


def link(slug, repo, **fields):
    """A links-file record as PwC wrote them."""
    return {
        "paper_url": f"https://paperswithcode.com/paper/{slug}",
        "paper_title": slug.replace("-", " ").title(),
        "paper_arxiv_id": None,
        "paper_url_abs": f"https://example.org/{slug}",
        "paper_url_pdf": f"https://example.org/{slug}.pdf",
        "repo_url": f"https://github.com/{repo}",
        "is_official": False,
        "mentioned_in_paper": False,
        "mentioned_in_github": True,
        "framework": "pytorch",
    } | fields


@pytest.fixture
def links_file(tmp_path):
    return lambda records, gz=False: archive_file(
        tmp_path, "links-between-papers-and-code.json", records, gz
    )


@pytest.fixture
def run(db):
    """import_pwc on these files: (stdout, stderr)."""
    return run_import_pwc


def test_links_show_on_the_paper_page_official_first(run, links_file, client):
    make_paper("resnet", title="Deep Residual Learning")
    records = [
        link("resnet", "someone/resnet-tf", framework="tf"),
        link("resnet", "kaiming/resnet", is_official=True, mentioned_in_paper=True),
    ]
    out, err = run(links_file(records))
    assert "code links: 2 created, 0 updated, 0 unchanged, 0 refused" in out
    assert "repositories: 2 created" in out
    assert "refused" not in err
    page = html(client, "/paper/resnet")
    assert page.index("github.com/kaiming/resnet") < page.index("github.com/someone/resnet-tf")
    assert "official" in page and "pytorch" in page and ">tf<" in page
    assert Paper.objects.get(slug="resnet").has_code
    repository = Repository.objects.get(url="https://github.com/kaiming/resnet")
    assert (repository.owner, repository.name, repository.paper_count) == ("kaiming", "resnet", 1)


def test_a_paper_no_file_describes_is_made_undescribed(run, links_file, client):
    out, _ = run(links_file([link("unknown-paper", "a/b", paper_arxiv_id="2101.00001")]))
    assert "papers: 1 created" in out
    made = Paper.objects.get()
    assert (made.slug, made.described, made.arxiv_id, made.url) == (
        "unknown-paper", False, "2101.00001", "https://example.org/unknown-paper",
    )  # fmt: skip
    assert "github.com/a/b" in html(client, "/paper/unknown-paper")


def test_a_link_without_paper_url_joins_by_arxiv_id_or_url(run, links_file):
    make_paper("by-arxiv", arxiv_id="2101.00002", url="https://arxiv.org/abs/2101.00002")
    make_paper("by-url", url="https://example.org/by-url-page")
    records = [
        link("x", "a/one", paper_url=None, paper_arxiv_id="2101.00002"),
        link("x", "a/two", paper_url="", paper_url_abs="https://example.org/by-url-page/"),
        link(
            "x",
            "a/three",
            paper_url=None,
            paper_title="A Fresh Paper",
            paper_url_abs="https://example.org/fresh",
        ),  # fmt: skip
    ]
    run(links_file(records))
    assert dict(PaperRepository.objects.values_list("repository__name", "paper__slug")) == {
        "one": "by-arxiv",
        "two": "by-url",
        "three": "a-fresh-paper",
    }


def test_one_repository_many_papers_and_idempotent(run, links_file):
    records = [link(f"paper-{i}", "big/toolkit") for i in range(3)]
    path = links_file(records)
    run(path)
    assert Repository.objects.count() == 1
    assert PaperRepository.objects.count() == 3
    out, _ = run(path)
    assert "code links: 0 created, 0 updated, 3 unchanged" in out
    assert "repositories: 0 created, 0 updated, 1 unchanged" in out
    assert "papers: 0 created" in out or "papers:" not in out
    assert Repository.objects.get().paper_count == 3


def test_a_later_file_updates_links_in_place_and_keeps_editors_decisions(run, links_file, client):
    make_paper("p")
    run(links_file([link("p", "a/code"), link("p", "b/code")]))
    PaperRepository.objects.filter(repository__url__endswith="a/code").update(
        editor_official=False, editor_reason="A reimplementation."
    )
    PaperRepository.objects.filter(repository__url__endswith="b/code").update(editor_unlinked=True)
    newer = [
        link("p", "a/code", is_official=True, framework="jax"),
        link("p", "c/code"),
    ]
    out, _ = run(links_file(newer))
    assert "code links: 1 created, 1 updated, 0 unchanged" in out
    a = PaperRepository.objects.get(repository__url__endswith="a/code")
    assert (a.is_official, a.framework, a.editor_official) == (True, "jax", False)
    # A link the newer file lacks is never deleted; an editor's unlinking stays.
    assert PaperRepository.objects.get(repository__url__endswith="b/code").editor_unlinked
    page = html(client, "/paper/p")
    assert "marked not official by an editor: A reimplementation." in page
    assert "github.com/b/code" not in page


def test_dry_run_writes_nothing_and_counts_the_same(run, links_file):
    path = links_file([link("p", "a/b"), link("q", "a/b"), link("q", "a/c", repo_url="ftp://x")])
    dry, dry_err = run(path, dry_run=True)
    assert Paper.objects.count() == Repository.objects.count() == 0
    real, real_err = run(path)
    counts = [line for line in dry.splitlines() if "created" in line]
    assert len(counts) == 3 and all(line in real for line in counts)
    assert "[2].repo_url" in dry_err and "[2].repo_url" in real_err


def test_gzipped_file_imports(run, links_file):
    out, _ = run(links_file([link("p", "a/b")], gz=True))
    assert "code links: 1 created" in out


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"repo_url": "javascript:alert(1)"}, "repo_url"),
        ({"repo_url": None}, "repo_url"),
        ({"repo_url": "https://github.com/" + "x" * 2000}, "repo_url"),
        ({"paper_url": "https://example.org/not-pwc"}, "paper_url"),
        ({"paper_url": None, "paper_arxiv_id": None, "paper_url_abs": ""}, "paper_url"),
        ({"is_official": "yes"}, "is_official"),
        ({"framework": ["pytorch"]}, "framework"),
        ({"framework": "x" * 101}, "framework"),
        ({"paper_title": 5}, "paper_title"),
    ],
)
def test_a_bad_link_is_refused_by_field_and_the_rest_imported(run, links_file, record, field):
    out, err = run(links_file([link("good", "a/b"), link("bad", "c/d") | record]))
    assert f"refused links-between-papers-and-code.json[1].{field}: " in err
    assert "code links: 1 created, 0 updated, 0 unchanged, 1 refused" in out
    assert list(Paper.objects.values_list("slug", flat=True)) == ["good"]


def test_owner_and_name_from_forge_urls():
    assert owner_and_name("https://github.com/facebookresearch/detectron2") == (
        "facebookresearch", "detectron2",
    )  # fmt: skip
    assert owner_and_name("https://gitlab.com/group/project.git") == ("group", "project")
    assert owner_and_name("https://bitbucket.org/a/b") == ("", "")
    assert owner_and_name("https://github.com/only-owner") == ("", "")


def test_a_chunks_queries_do_not_grow_with_its_records(links_file, db):
    from leaderboards.ingest import code_links
    from leaderboards.ingest.records import ImportReport

    def queries(count, prefix):
        records = [
            link(f"{prefix}-{i}", f"{prefix}/repo-{i}", paper_arxiv_id=f"2{i:03}.{prefix}0001")
            for i in range(count)
        ]
        path = links_file(records)
        with CaptureQueriesContext(connection) as captured:
            code_links.import_file(path, ImportReport())
        return len(captured)

    assert queries(10, "1") == queries(100, "2")
