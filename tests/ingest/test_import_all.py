"""import_pwc on the boards, the papers file and the links file together: one paper
however the files name it, whatever order they are given in or imported in."""

import json

import pytest

from leaderboards.models import (
    Author,
    Dataset,
    Leaderboard,
    Method,
    MethodCategory,
    Paper,
    PaperRepository,
    Repository,
    Row,
    Task,
)
from tests.helpers import PWC_DATA, archive_file, html, row, run_import_pwc, table, task

OGB = PWC_DATA / "sota-extractor_ogb.json"
SAGN_SLUG = "scalable-and-adaptive-graph-neural-networks-with"


@pytest.fixture
def files(tmp_path):
    """The papers and links files for the OGB sample's first row's paper (and one more)."""
    papers = [
        {
            "paper_url": f"https://paperswithcode.com/paper/{SAGN_SLUG}",
            "arxiv_id": "2104.09376",
            "title": "Scalable and Adaptive Graph Neural Networks with Self-Label-Enhanced",
            "abstract": "Self-label-enhanced training for large graphs.",
            "url_abs": "https://arxiv.org/abs/2104.09376v3",
            "url_pdf": "https://arxiv.org/pdf/2104.09376v3.pdf",
            "proceeding": None,
            "authors": ["Chuxiong Sun", "Hongming Gu", "Jie Hu"],
            "tasks": ["Node Property Prediction"],
            "date": "2021-04-19",
            "methods": [{"name": "GCN", "main_collection": {"name": "Graph Models"}}],
        },
        {
            "paper_url": "https://paperswithcode.com/paper/no-board-cites-me",
            "arxiv_id": None,
            "title": "No board cites me",
            "abstract": "",
            "url_abs": "https://example.org/quiet",
            "url_pdf": "",
            "proceeding": "ICLR 2022",
            "authors": ["Jie Hu"],
            "tasks": [],
            "date": None,
            "methods": [],
        },
    ]
    links = [
        {
            "paper_url": f"https://paperswithcode.com/paper/{SAGN_SLUG}",
            "paper_title": "Scalable and Adaptive Graph Neural Networks",
            "paper_arxiv_id": "2104.09376",
            "paper_url_abs": "https://arxiv.org/abs/2104.09376v3",
            "paper_url_pdf": None,
            "repo_url": "https://github.com/skepsun/SAGN_with_SLE",
            "is_official": True,
            "mentioned_in_paper": True,
            "mentioned_in_github": True,
            "framework": "pytorch",
        },
        {
            "paper_url": "https://paperswithcode.com/paper/only-code-knows-me",
            "paper_title": "Only code knows me",
            "paper_arxiv_id": "1901.00001",
            "paper_url_abs": "https://arxiv.org/abs/1901.00001",
            "paper_url_pdf": None,
            "repo_url": "https://github.com/skepsun/SAGN_with_SLE",
            "is_official": False,
            "mentioned_in_paper": False,
            "mentioned_in_github": False,
            "framework": "none",
        },
    ]
    papers_path = tmp_path / "papers-with-abstracts.json"
    papers_path.write_text(json.dumps(papers))
    links_path = tmp_path / "links-between-papers-and-code.json"
    links_path.write_text(json.dumps(links))
    return str(OGB), str(papers_path), str(links_path)


run = run_import_pwc


def dump():
    """Papers by slug and arXiv id, their links, authors and results, as plain values."""
    return {
        "papers": sorted(
            Paper.objects.values_list(
                "slug", "pwc_slug", "arxiv_id", "title", "described", "has_code"
            )
        ),
        "links": sorted(
            PaperRepository.objects.values_list("paper__slug", "repository__url", "is_official")
        ),
        "authors": sorted(Author.objects.values_list("slug", "name", "paper_count")),
        "rows": sorted(Row.objects.values_list("leaderboard__slug", "model", "paper__slug")),
    }


@pytest.mark.slow
@pytest.mark.django_db
def test_one_command_in_any_order_gives_one_database(files):
    run(*files)
    first = dump()
    assert Paper.objects.filter(arxiv_id="2104.09376").count() == 1
    for model in (Leaderboard, Paper, Task, Dataset, Author, Repository, Method, MethodCategory):
        model.objects.all().delete()
    run(*reversed(files))
    assert dump() == first


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("order", [(0, 1, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)])
def test_separate_commands_in_any_order_make_no_duplicate_paper(files, order, client):
    for index in order:
        run(files[index])
    assert Paper.objects.filter(arxiv_id="2104.09376").count() == 1
    assert Paper.objects.filter(arxiv_id="1901.00001").count() == 1
    stored = Paper.objects.get(arxiv_id="2104.09376")
    assert stored.described and stored.has_code
    page = html(client, stored.get_absolute_url())
    assert "Self-label-enhanced training for large graphs." in page
    assert "Chuxiong Sun" in page
    assert "SAGN+SLE" in page  # its result on the OGB board
    assert "github.com/skepsun/SAGN_with_SLE" in page and "official" in page
    # PwC's address of the paper reaches its page, whatever slug it has here.
    response = client.get(f"/paper/{SAGN_SLUG}")
    assert response.status_code in (200, 301)
    # Again, every file: nothing is created or changed.
    out, _ = run(*files)
    for kind in ("papers", "code links", "repositories", "authors"):
        line = next(line for line in out.splitlines() if line.startswith(f"{kind}:"))
        assert line.startswith(f"{kind}: 0 created, 0 updated"), line
    assert "0 created, 0 updated, 15 unchanged" in out


def _record(slug, title, url_abs, arxiv_id=None):
    return {
        "paper_url": f"https://paperswithcode.com/paper/{slug}",
        "arxiv_id": arxiv_id,
        "title": title,
        "abstract": f"The paper at {url_abs}.",
        "url_abs": url_abs,
        "url_pdf": "",
        "proceeding": None,
        "authors": [],
        "tasks": [],
        "date": "2021-06-01",
        "methods": [],
    }


@pytest.fixture
def one_title_two_papers(tmp_path):
    """A board citing two papers of one title, in the order opposite to PwC's slugs:
    its title slug goes to the arXiv paper here, PwC's to the OpenReview one."""
    title = "Unified Models for Everything"
    arxiv, openreview = "https://arxiv.org/abs/2220.00001", "https://openreview.net/forum?id=x6"
    board = [
        task("Parsing", [table("PTB", [
            row("On arXiv", {"F1": "2"}, paper_url=arxiv, title=title),
            row("At ICLR", {"F1": "1"}, paper_url=openreview, title=title),
            row("Conference URL", {"F1": "0"}, paper_url="https://aclanthology.org/P1/",
                title="Cited by venue"),
        ])]),
    ]  # fmt: skip
    papers = [
        _record("unified-models-for-everything", title, openreview),
        _record("unified-models-for-everything-2", title, arxiv, "2220.00001"),
        # The board named this paper by its venue; PwC knows it by its arXiv id too.
        _record("cited-by-venue", "Cited by venue", "https://aclanthology.org/P1/", "2301.00002"),
    ]
    return archive_file(tmp_path, "evaluation-tables.json", board), archive_file(
        tmp_path, "papers-with-abstracts.json", papers
    )


@pytest.mark.django_db
def test_two_papers_of_one_title_keep_their_own_arxiv_id_and_page(one_title_two_papers, client):
    boards, papers = one_title_two_papers
    run(boards)
    run(papers)
    out, err = run(boards, papers)
    assert "refused" not in err
    # Each paper once, each with its own identity: one arXiv id, one paper.
    assert Paper.objects.filter(arxiv_id="2220.00001").count() == 1
    on_arxiv = Paper.objects.get(arxiv_id="2220.00001")
    at_iclr = Paper.objects.get(url_abs="https://openreview.net/forum?id=x6")
    assert on_arxiv.abstract == "The paper at https://arxiv.org/abs/2220.00001."
    assert at_iclr.abstract == "The paper at https://openreview.net/forum?id=x6."
    assert at_iclr.arxiv_id == ""
    # The board's rows link the pages the papers file describes, still after the re-run.
    rows = dict(Row.objects.values_list("model", "paper__slug"))
    assert rows["On arXiv"] == on_arxiv.slug and rows["At ICLR"] == at_iclr.slug
    assert rows["Conference URL"] == Paper.objects.get(arxiv_id="2301.00002").slug
    page = html(client, f"/paper/{on_arxiv.slug}")
    assert "The paper at https://arxiv.org/abs/2220.00001." in page
    # The same files again change nothing: no board rewritten, no paper made.
    assert "leaderboards: 0 created, 0 updated, 1 unchanged" in out
    assert "papers: 0 created, 0 updated, 3 unchanged" in out
