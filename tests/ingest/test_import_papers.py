"""import_pwc on the papers file (papers-with-abstracts): papers described, with their
authors, proceedings, tasks and methods, joined to the papers boards cite."""

import pytest
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
from tests.helpers import PWC_DATA, archive_file, html, make_method, make_paper, run_import_pwc

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
    return lambda records, gz=False: archive_file(
        tmp_path, "papers-with-abstracts.json", records, gz
    )


@pytest.fixture
def run(db):
    """import_pwc on these files: (stdout, stderr)."""
    return run_import_pwc


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


SAGN = paper(
    "scalable-and-adaptive-graph-neural-networks-with",
    arxiv_id="2104.09376",
    title="Scalable and Adaptive Graph Neural Networks with Self-Label-Enhanced training",
    url_abs="https://arxiv.org/abs/2104.09376v3",
    url_pdf="https://arxiv.org/pdf/2104.09376v3.pdf",
    abstract="Self-label-enhanced training for large graphs.",
    tasks=["Node Property Prediction"],
)


def sagn_page(client):
    """The page of the paper the OGB sample's first row cites, wherever it is served."""
    stored = Paper.objects.get(arxiv_id="2104.09376")
    return stored, html(client, f"/paper/{stored.slug}")


def test_a_board_row_and_the_papers_file_name_one_paper(run, papers_file, client):
    run(str(OGB))
    before = Paper.objects.count()
    out, _ = run(papers_file([SAGN]))
    assert "papers: 0 created, 1 updated" in out
    assert Paper.objects.count() == before
    stored, page = sagn_page(client)
    # The board's slug stays; PwC's redirects to it.
    assert stored.pwc_slug == SAGN["paper_url"].rsplit("/", 1)[1]
    assert client.get(f"/paper/{stored.pwc_slug}").status_code == 301
    assert "Self-label-enhanced training for large graphs." in page
    assert "Scalable and Adaptive Graph Neural Networks" in page
    assert "SAGN+SLE" in page  # its result on the board
    assert [t.name for t in stored.tasks.all()] == ["Node Property Prediction"]


def test_papers_first_then_the_board_makes_no_second_paper(run, papers_file, client):
    run(papers_file([SAGN]))
    run(str(OGB))
    stored, page = sagn_page(client)
    assert Paper.objects.filter(arxiv_id="2104.09376").count() == 1
    assert stored.slug == "scalable-and-adaptive-graph-neural-networks-with"
    assert "Self-label-enhanced training for large graphs." in page
    assert "SAGN+SLE" in page
    # Papers file before the boards: tasks named by no board yet are not made.
    assert not stored.tasks.exists()


def test_a_later_larger_file_updates_in_place(run, papers_file, client):
    run(papers_file([paper("first", authors=["A", "B"])]))
    slug_of_b = Author.objects.get(name="B").slug
    newer = [
        paper("first", title="First, revised", authors=["B", "C", "A"], abstract="New words."),
        paper("second"),
    ]
    out, _ = run(papers_file(newer))
    assert "papers: 1 created, 1 updated, 0 unchanged" in out
    first = Paper.objects.get(slug="first")
    assert first.title == "First, revised"
    assert [a.author.name for a in first.authorships.order_by("position")] == ["B", "C", "A"]
    assert Author.objects.get(name="B").slug == slug_of_b
    page = html(client, "/paper/first")
    assert page.index(">B<") < page.index(">C<") < page.index(">A<")


def test_an_empty_value_never_erases_a_stored_one(run, papers_file):
    make_paper("kept", title="Kept title", date="2020-01-02", described=False)
    run(papers_file([paper("kept", title="", date=None)]))
    kept = Paper.objects.get(slug="kept")
    assert (kept.title, str(kept.date), kept.described) == ("Kept title", "2020-01-02", True)


def test_withheld_paper_stays_withheld(run, papers_file, client):
    path = papers_file([paper("retracted")])
    run(path)
    Paper.objects.filter(slug="retracted").update(withheld=True, withheld_reason="Retracted.")
    out, _ = run(papers_file([paper("retracted", abstract="Changed.")]))
    assert "papers: 0 created, 1 updated" in out
    stored = Paper.objects.get(slug="retracted")
    assert (stored.withheld, stored.withheld_reason, stored.abstract) == (
        True,
        "Retracted.",
        "Changed.",
    )
    assert client.get("/paper/retracted").status_code == 410


def test_dry_run_writes_nothing_and_counts_the_same(run, papers_file):
    path = papers_file([paper("a", proceeding="ICML 2020"), paper("b"), {"paper_url": 3}])
    dry, dry_err = run(path, dry_run=True)
    assert Paper.objects.count() == Author.objects.count() == Conference.objects.count() == 0
    real, real_err = run(path)
    assert "nothing written" in dry
    counts = [line for line in dry.splitlines() if ": " in line and "created" in line]
    assert counts and all(line in real for line in counts)
    assert "refused papers-with-abstracts.json[2].paper_url" in dry_err
    assert "refused papers-with-abstracts.json[2].paper_url" in real_err


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"paper_url": None}, "paper_url"),
        ({"paper_url": "https://example.org/paper/x"}, "paper_url"),
        ({"paper_url": "https://paperswithcode.com/method/x"}, "paper_url"),
        ({"title": ["a list"]}, "title"),
        ({"title": "x" * 1001}, "title"),
        ({"date": "01/06/2021"}, "date"),
        ({"date": "2021-02-30"}, "date"),
        ({"authors": "Ada Lovelace"}, "authors"),
        ({"authors": ["x" * 301]}, "authors[0]"),
        ({"arxiv_id": "1" * 33}, "arxiv_id"),
        ({"proceeding": "x" * 301}, "proceeding"),
        ({"methods": [{"full_name": "no name"}]}, "methods[0].name"),
        ({"methods": [{"name": "M", "introduced_year": "1999"}]}, "methods[0].introduced_year"),
        (
            {"methods": [{"name": "M", "main_collection": {"name": 4}}]},
            "methods[0].main_collection.name",
        ),
    ],
)
def test_a_bad_record_is_refused_by_field_and_the_rest_imported(run, papers_file, record, field):
    bad = paper("bad") | record
    out, err = run(papers_file([paper("good"), bad, "not an object"]))
    assert f"refused papers-with-abstracts.json[1].{field}: " in err
    assert "refused papers-with-abstracts.json[2].(record): expected an object" in err
    assert "papers: 1 created, 0 updated, 0 unchanged, 1 refused" in out
    assert list(Paper.objects.values_list("slug", flat=True)) == ["good"]


def test_one_arxiv_id_never_makes_two_papers(run, papers_file):
    records = [paper("one", arxiv_id="1234.56789"), paper("other", arxiv_id="1234.56789")]
    out, err = run(papers_file(records))
    assert "refused papers-with-abstracts.json[1].arxiv_id: '1234.56789' names the paper" in err
    assert list(Paper.objects.values_list("slug", flat=True)) == ["one"]
    # Again, in another chunk and another run: the same answer, nothing changed.
    out, err = run(papers_file(records[1:]))
    assert "papers: 0 created, 0 updated, 0 unchanged, 1 refused" in out
    assert Paper.objects.get().title == "One"


def test_a_board_slug_that_is_another_papers_pwc_slug(run, papers_file):
    # A board named its paper "shared" (from its title); PwC's "shared" is another paper.
    make_paper("shared", url="https://arxiv.org/abs/1111.11111", arxiv_id="1111.11111",
               described=False)  # fmt: skip
    records = [paper("mine", arxiv_id="1111.11111"), paper("shared", arxiv_id="2222.22222")]
    run(papers_file(records))
    assert Paper.objects.get(arxiv_id="1111.11111").pwc_slug == "mine"
    other = Paper.objects.get(pwc_slug="shared")
    assert other.slug == "shared-2" and other.abstract == "We study shared."
    out, _ = run(papers_file(records))
    assert "papers: 0 created, 0 updated, 2 unchanged" in out


def test_methods_and_their_categories(run, papers_file, client):
    cnn = {
        "name": "Convolutional Neural Networks",
        "description": "Image models.",
        "area": "Computer Vision",
        "parent": {"name": "Image Models", "description": "", "area": "Computer Vision"},
    }
    resnet = {
        "name": "ResNet", "full_name": "Residual Network", "description": "Skips.",
        "introduced_year": 2015, "source_url": "https://arxiv.org/abs/1512.03385",
        "source_title": "Deep Residual Learning", "code_snippet_url": None,
        "main_collection": cnn,
    }  # fmt: skip
    make_method("resnet", name="ResNet", full_name="Kept full name")
    run(papers_file([paper("uses-resnet", methods=[resnet, {"name": "Dropout"}])]))
    method = Method.objects.get(slug="resnet")
    # The methods file is their authority: only empty fields are filled.
    assert (method.full_name, method.description, method.introduced_year) == (
        "Kept full name", "Skips.", 2015,
    )  # fmt: skip
    category = MethodCategory.objects.get(name="Convolutional Neural Networks")
    assert (category.slug, category.area.name, category.parent.name) == (
        "convolutional-neural-networks", "Computer Vision", "Image Models",
    )  # fmt: skip
    assert list(method.categories.all()) == [category]
    assert Method.objects.get(name="Dropout").slug == "dropout"
    page = html(client, "/paper/uses-resnet")
    assert 'href="/method/resnet"' in page and 'href="/method/dropout"' in page
    # A paper's methods are exactly the file's: one dropped, one left.
    run(papers_file([paper("uses-resnet", methods=[{"name": "Dropout"}])]))
    assert [m.slug for m in Paper.objects.get().methods.all()] == ["dropout"]


def test_a_method_marked_as_described_by_an_editor_keeps_the_mark(run, papers_file, client):
    """As this site's dumps write a method an editor described (docs/loading.md)."""
    make_method("resnet", name="ResNet", description="The archive's words.")
    methods = [
        {"name": "Dropout", "description": "Drops *units*.", "description_source": "editor"},
        # Stored with other words, which the mark does not make an editor's.
        {"name": "ResNet", "description": "Another site's words.", "description_source": "editor"},
        {"name": "GELU", "description": "Smooth."},
    ]
    path = papers_file([paper("p", methods=methods)])
    out, _ = run(path)
    assert "methods: 2 created, 0 updated, 1 unchanged" in out
    assert dict(Method.objects.values_list("name", "editor_description")) == {
        "Dropout": "Drops *units*.", "ResNet": None, "GELU": None,
    }  # fmt: skip
    assert '<span class="badge accent">edited</span>' in html(client, "/method/dropout")
    out, _ = run(path)
    assert "methods: 0 created, 0 updated, 3 unchanged" in out


def test_tasks_are_joined_by_name_or_synonym_and_never_made(run, papers_file):
    Task.objects.create(slug="image-classification", name="Image Classification",
                        synonyms=["Object Classification"])  # fmt: skip
    record = paper("p", tasks=["image classification", "Object Classification", "Unknown", 7])
    run(papers_file([record]))
    assert [t.slug for t in Paper.objects.get().tasks.all()] == ["image-classification"]
    assert Task.objects.count() == 1


def test_a_chunks_queries_do_not_grow_with_its_records(papers_file, db):
    from leaderboards.ingest import papers
    from leaderboards.ingest.records import ImportReport

    def queries(count, prefix):
        records = [
            paper(f"{prefix}-{i}", arxiv_id=f"2{i:03}.{prefix}0001", proceeding=f"C{i} 2020",
                  authors=[f"{prefix} author {i}", "Ada"], tasks=["Image Classification"],
                  methods=[{"name": f"{prefix} method {i}", "main_collection": {"name": "Cat"}}])
            for i in range(count)
        ]  # fmt: skip
        path = papers_file(records)
        with CaptureQueriesContext(connection) as captured:
            papers.import_file(path, ImportReport())
        return len(captured)

    Task.objects.create(slug="image-classification", name="Image Classification")
    queries(1, "0")  # the author, category and area every record shares, made once
    assert queries(10, "1") == queries(100, "2")


def test_names_that_make_one_slug_get_free_ones(run, papers_file, client):
    Author.objects.create(name="Someone Else", slug="wei-zhang-2")
    run(papers_file([paper("p", authors=["Wei Zhang", "Wei ZHANG", "wei zhang"])]))
    slugs = dict(Author.objects.values_list("name", "slug"))
    assert slugs == {
        "Someone Else": "wei-zhang-2",
        "Wei Zhang": "wei-zhang",
        "Wei ZHANG": "wei-zhang-3",
        "wei zhang": "wei-zhang-4",
    }
    assert html(client, "/author/wei-zhang-4").count("wei zhang") >= 1
