"""import_pwc with the archive's methods file: methods, their categories and areas (issue #28)."""

import functools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards.ingest import methods
from leaderboards.ingest.records import ImportReport
from leaderboards.models import Method, MethodArea, MethodCategory
from tests.helpers import archive_file, html, make_category, make_method, make_paper, run_import_pwc

PWC = "https://paperswithcode.com"


def a_method(slug, name=None, **fields):
    """A methods.json record as PwC wrote them."""
    return {
        "url": f"{PWC}/method/{slug}",
        "name": name or slug.replace("-", " ").title(),
        "full_name": fields.pop("full_name", ""),
        "description": "",
        "paper": None,
        "introduced_year": None,
        "source_url": None,
        "source_title": None,
        "code_snippet_url": None,
        "num_papers": 0,
        "collections": [],
        **fields,
    }


RESNET = a_method(
    "resnet",
    "ResNet",
    full_name="Residual Network",
    description="**Residual** blocks learn $F(x) + x$.",
    paper={"title": "Deep Residual Learning", "url": f"{PWC}/paper/deep-residual-learning-for"},
    introduced_year=2015,
    source_url="https://arxiv.org/abs/1512.03385v1",
    source_title="Deep Residual Learning for Image Recognition",
    code_snippet_url="https://github.com/pytorch/vision/blob/master/resnet.py",
    num_papers=2911,
    collections=[
        {
            "collection": "Convolutional Neural Networks",
            "area_id": "computer-vision",
            "area": "Computer Vision",
        }
    ],
)
ADAM = a_method(
    "adam",
    "Adam",
    paper={"title": "Adam: A Method for Stochastic Optimization", "url": "https://arxiv.org/x"},
    collections=[
        {"collection": "Stochastic Optimization", "area_id": "general", "area": "General"}
    ],
)


@pytest.fixture
def methods_file(tmp_path):
    return functools.partial(archive_file, tmp_path, "methods.json")


@pytest.fixture
def import_pwc(db):
    """import_pwc on these files: (stdout, stderr)."""
    return run_import_pwc


def test_a_method_and_its_categories_show_on_its_page(import_pwc, methods_file, client):
    make_paper("deep-residual-learning-for", "Deep Residual Learning for Image Recognition")
    out, _ = import_pwc(methods_file([RESNET, ADAM]))
    assert "methods: 2 created, 0 updated, 0 unchanged, 0 refused" in out
    assert "method categories: 2 created" in out
    assert "method areas: 2 created" in out
    page = html(client, "/method/resnet")
    assert "Residual Network" in page
    assert "<strong>Residual</strong>" in page
    assert 'href="/paper/deep-residual-learning-for"' in page
    assert "(2015)" in page
    assert "Convolutional Neural Networks" in page and "(Computer Vision)" in page
    assert "2,911 on Papers with Code" in page
    assert 'href="https://github.com/pytorch/vision/blob/master/resnet.py"' in page
    # A paper this site does not hold: its title, linked where it is http(s).
    assert '<a href="https://arxiv.org/x" rel="nofollow noopener">Adam: A Method' in html(
        client, "/method/adam"
    )
    assert MethodArea.objects.get(name="Computer Vision").slug == "computer-vision"
    category = MethodCategory.objects.get(name="Stochastic Optimization")
    assert (category.slug, category.area.name) == ("stochastic-optimization", "General")


def test_a_method_papers_made_joins_by_name_and_keeps_its_slug(import_pwc, methods_file, client):
    make_method("resnet-2", "ResNet", paper_count=3)
    out, _ = import_pwc(methods_file([{**RESNET, "url": f"{PWC}/method/resnet-v1"}]))
    assert "methods: 0 created, 1 updated" in out
    method = Method.objects.get()
    assert (method.slug, method.pwc_slug, method.full_name) == (
        "resnet-2",
        "resnet-v1",
        "Residual Network",
    )
    response = client.get("/method/resnet-v1")
    assert (response.status_code, response["Location"]) == (301, "/method/resnet-2")
    assert "Residual Network" in html(client, "/method/resnet-2")


def test_a_name_join_never_takes_another_records_method(import_pwc, methods_file):
    """A papers-made "Adam" whose slug is another record's PwC slug is that record's."""
    make_method("adam", "Adam")
    other = a_method("adam-optimizer", "Adam")
    out, _ = import_pwc(methods_file([other, ADAM]))
    assert "methods: 1 created, 1 updated" in out
    assert dict(Method.objects.values_list("slug", "pwc_slug")) == {
        "adam": "adam",
        "adam-optimizer": "adam-optimizer",
    }


def test_a_new_method_whose_slug_another_holds_gets_a_free_one(import_pwc, methods_file, client):
    """ "ResNet" (papers-made as `resnet`) is PwC's `resnet-v1`; PwC's `resnet` is another."""
    make_method("resnet", "ResNet")
    import_pwc(methods_file([{**RESNET, "url": f"{PWC}/method/resnet-v1"}]))
    out, _ = import_pwc(methods_file([a_method("resnet", "ResNet-D")]))
    assert "methods: 1 created" in out
    assert dict(Method.objects.values_list("pwc_slug", "slug")) == {
        "resnet-v1": "resnet",
        "resnet": "resnet-2",
    }
    assert "Residual Network" in html(client, "/method/resnet")
    assert "ResNet-D" in html(client, "/method/resnet-2")


def test_reimport_changes_nothing(import_pwc, methods_file):
    make_paper("deep-residual-learning-for")
    path = methods_file([RESNET, ADAM])
    import_pwc(path)
    before = sorted(map(repr, Method.objects.values_list()))
    out, _ = import_pwc(path)
    assert "methods: 0 created, 0 updated, 2 unchanged, 0 refused" in out
    assert "method categories: 0 created, 0 updated, 2 unchanged" in out
    assert "method areas: 0 created, 0 updated, 2 unchanged" in out
    assert sorted(map(repr, Method.objects.values_list())) == before


def test_a_later_file_updates_in_place(import_pwc, methods_file, client):
    import_pwc(methods_file([RESNET, ADAM]))
    first = dict(Method.objects.values_list("slug", "pk"))
    later = {
        **RESNET,
        "num_papers": 3100,
        "collections": [
            {"collection": "Image Models", "area_id": "computer-vision", "area": "Computer Vision"}
        ],
    }
    out, _ = import_pwc(methods_file([later, ADAM, a_method("gelu", "GELU")]))
    assert "methods: 1 created, 1 updated, 1 unchanged, 0 refused" in out
    assert dict(Method.objects.values_list("slug", "pk")) == first | {
        "gelu": Method.objects.get(slug="gelu").pk
    }
    # The file's collections are the method's categories: the old one is gone.
    page = html(client, "/method/resnet")
    assert "3,100 on Papers with Code" in page
    assert "Image Models" in page and "Convolutional Neural Networks" not in page


def test_a_categorys_area_is_kept_once_placed(import_pwc, methods_file):
    make_category("Attention Mechanisms", area="General")
    record = a_method(
        "attention",
        collections=[{"collection": "Attention Mechanisms", "area_id": "nlp", "area": "NLP"}],
    )
    import_pwc(methods_file([record]))
    assert MethodCategory.objects.get().area.name == "General"


def test_editors_columns_survive_a_reimport(import_pwc, methods_file, client):
    path = methods_file([RESNET, ADAM])
    import_pwc(path)
    Method.objects.filter(slug="resnet").update(editor_description="An editor's *own* words.")
    Method.objects.filter(slug="adam").update(withheld=True, withheld_reason="Spam.")
    out, _ = import_pwc(path)
    assert "methods: 0 created, 0 updated, 2 unchanged" in out
    assert "An editor's <em>own</em> words." in html(client, "/method/resnet")
    assert client.get("/method/adam").status_code == 404
    assert Method.objects.get(slug="adam").withheld_reason == "Spam."


def test_each_bad_record_is_refused_by_field_and_the_rest_imported(import_pwc, methods_file):
    records = [
        {**RESNET, "full_name": 42},
        {**ADAM, "url": None},
        a_method("x", url=f"{PWC}/dataset/imagenet"),
        a_method("long", collections=[{"collection": "C" * 301, "area": "General"}]),
        a_method("nameless", name="  "),
        a_method("future", introduced_year=20155),
        a_method("counted", num_papers=-1),
        a_method("gelu", "GELU"),
        a_method("gelu", "GELU again"),
    ]
    path = methods_file(records)
    out, err = import_pwc(path)
    assert "methods: 1 created, 0 updated, 0 unchanged, 8 refused" in out
    assert list(Method.objects.values_list("name", flat=True)) == ["GELU"]
    for index, field, reason in [
        (0, "full_name", "expected text, got int"),
        (1, "url", "expected a PwC /method/ URL, got None"),
        (2, "url", "expected a PwC /method/ URL"),
        (3, "collections[0].collection", "longer than 300 characters"),
        (4, "name", "empty"),
        (5, "introduced_year", "expected a year, got 20155"),
        (6, "num_papers", "expected a count, got -1"),
        (8, "url", "method 'gelu' again"),
    ]:
        assert f"refused methods.json[{index}].{field}: {reason}" in err


def test_dry_run_writes_nothing(import_pwc, methods_file):
    out, _ = import_pwc(methods_file([RESNET, ADAM]), dry_run=True)
    assert "methods: 2 created" in out and "dry run" in out
    assert not Method.objects.exists() and not MethodCategory.objects.exists()


def test_gzipped_file_imports(import_pwc, methods_file):
    out, _ = import_pwc(methods_file([RESNET, ADAM], gz=True))
    assert "methods: 2 created" in out
    assert Method.objects.get(slug="resnet").categories.get().name == (
        "Convolutional Neural Networks"
    )


def _queries_for(count, methods_file):
    records = [
        a_method(
            f"method-{index}",
            paper={"title": "", "url": f"{PWC}/paper/paper-{index}"},
            collections=[
                {"collection": f"Category {index % 7}", "area_id": "general", "area": "General"}
            ],
        )
        for index in range(count)
    ]
    path = methods_file(records)
    with CaptureQueriesContext(connection) as first:
        methods.import_file(path, ImportReport())
    with CaptureQueriesContext(connection) as again:
        methods.import_file(path, ImportReport())
    return len(first), len(again)


@pytest.mark.django_db
def test_a_chunks_queries_do_not_grow_with_its_records(methods_file):
    make_method("method-3", "Method 3")
    few = _queries_for(10, methods_file)
    for model in (Method, MethodCategory, MethodArea):
        model.objects.all().delete()
    make_method("method-3", "Method 3")
    assert _queries_for(100, methods_file) == few


# The mark this site's dumps give an editor's description (docs/loading.md) -------------

EDITED = '<span class="badge accent">edited</span>'


def marked(record, **fields):
    """A record as this site's dumps write a method an editor described."""
    return {**record, **fields, "description_source": "editor"}


def test_a_description_marked_as_an_editors_shows_as_edited(import_pwc, methods_file, client):
    path = methods_file([marked(RESNET)])
    out, _ = import_pwc(path)
    assert "methods: 1 created, 0 updated, 0 unchanged, 0 refused" in out
    page = html(client, "/method/resnet")
    assert "<strong>Residual</strong> blocks" in page and EDITED in page
    out, _ = import_pwc(path)
    assert "methods: 0 created, 0 updated, 1 unchanged, 0 refused" in out


def test_a_marked_record_keeps_an_editors_own_text(import_pwc, methods_file, client):
    import_pwc(methods_file([RESNET]))
    Method.objects.filter(slug="resnet").update(editor_description="An editor's *own* words.")
    out, _ = import_pwc(methods_file([marked(RESNET, description="Another site's words.")]))
    assert "methods: 0 created, 1 updated, 0 unchanged" in out
    page = html(client, "/method/resnet")
    assert "An editor's <em>own</em> words." in page and EDITED in page
    assert "Another site's words." not in page


def test_a_record_without_the_mark_writes_no_editors_text(import_pwc, methods_file, client):
    records = [
        RESNET,
        {**ADAM, "description": "Adaptive moments.", "description_source": "Editor"},
        a_method("gelu", description="Smooth.", description_source=["editor"]),
        a_method("relu", description_source=None),
        # No editor's text is empty: clearing one gives the archive's back.
        marked(a_method("silu"), description=""),
    ]
    out, err = import_pwc(methods_file(records))
    assert "methods: 5 created, 0 updated, 0 unchanged, 0 refused" in out
    assert "refused" not in err
    assert list(Method.objects.filter(editor_description__isnull=False)) == []
    assert EDITED not in html(client, "/method/resnet")
    assert "Adaptive moments." in html(client, "/method/adam")


def test_the_mark_alone_on_a_stored_method_counts_as_an_update(import_pwc, methods_file, client):
    import_pwc(methods_file([RESNET, ADAM]))
    assert EDITED not in html(client, "/method/resnet")
    out, _ = import_pwc(methods_file([marked(RESNET), ADAM]))
    assert "methods: 0 created, 1 updated, 1 unchanged" in out
    assert EDITED in html(client, "/method/resnet")
