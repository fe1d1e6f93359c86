"""import_pwc with the archive's datasets file: datasets, their modalities, languages, tasks."""

import functools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards.ingest import datasets
from leaderboards.ingest.records import ImportReport
from leaderboards.models import Dataset, DatasetLanguage, DatasetModality, Leaderboard, Task
from tests.helpers import PWC_DATA, archive_file, html, make_paper, run_import_pwc

PWC = "https://paperswithcode.com"
NLP = PWC_DATA / "sota-extractor_nlp-progress.json"


def a_dataset(slug, name=None, **fields):
    """A datasets.json record as PwC wrote them."""
    return {
        "url": f"{PWC}/dataset/{slug}",
        "name": name or slug.upper(),
        "full_name": "",
        "homepage": "",
        "description": "",
        "paper": None,
        "introduced_date": None,
        "warning": None,
        "modalities": [],
        "tasks": [],
        "languages": [],
        "variants": [],
        "num_papers": 0,
        "data_loaders": [],
        **fields,
    }


GIGAWORD = a_dataset(
    "gigaword",
    "Gigaword",
    full_name="English Gigaword",
    homepage="https://catalog.ldc.upenn.edu/LDC2003T05",
    description="A **news** corpus.",
    paper={"title": "A Neural Attention Model", "url": f"{PWC}/paper/a-neural-attention-model"},
    introduced_date="2003-01-28",
    modalities=["Texts"],
    languages=["English"],
    tasks=[
        {"task": "Text Summarization", "url": f"{PWC}/task/summarization"},
        {"task": "Some task nobody holds", "url": f"{PWC}/task/nobody"},
    ],
    variants=["Gigaword", "English Gigaword"],
    num_papers=120,
    data_loaders=[
        {
            "url": "https://huggingface.co/datasets/gigaword",
            "repo": "https://github.com/huggingface/datasets",
            "frameworks": ["jax", "pytorch"],
        }
    ],
)
PTB = a_dataset(
    "ptb",
    "PTB",
    full_name="Penn Treebank",
    variants=["Penn Treebank", "PTB"],
    modalities=["Texts"],
    languages=["English"],
)


@pytest.fixture
def datasets_file(tmp_path):
    return functools.partial(archive_file, tmp_path, "datasets.json")


@pytest.fixture
def import_pwc(db):
    """import_pwc on these files: (stdout, stderr)."""
    return run_import_pwc


def test_a_dataset_shows_what_the_file_says_of_it(import_pwc, datasets_file, client):
    Task.objects.create(slug="summarization", name="Summarization")
    make_paper("a-neural-attention-model", "A Neural Attention Model for Summarization")
    out, _ = import_pwc(datasets_file([GIGAWORD, PTB]))
    assert "datasets: 2 created, 0 updated, 0 unchanged, 0 refused" in out
    assert "dataset modalities: 1 created" in out
    page = html(client, "/dataset/gigaword")
    assert "English Gigaword" in page
    assert 'href="https://catalog.ldc.upenn.edu/LDC2003T05"' in page
    assert 'href="/paper/a-neural-attention-model"' in page
    assert ">Texts</a>" in page and ">English</a>" in page
    assert 'href="/task/summarization"' in page
    assert 'href="https://huggingface.co/datasets/gigaword"' in page
    assert '<span class="badge">pytorch</span>' in page
    assert "A <strong>news</strong> corpus." in page
    assert "120 on Papers with Code" in page
    # The task nobody holds is left out; the one held is linked.
    assert list(Dataset.objects.get(slug="gigaword").tasks.values_list("slug", flat=True)) == [
        "summarization"
    ]
    assert DatasetModality.objects.get().slug == "texts"
    assert DatasetLanguage.objects.get().slug == "english"


@pytest.mark.slow
def test_a_dataset_the_boards_made_joins_by_variant_and_keeps_its_url(
    import_pwc, datasets_file, client
):
    import_pwc(NLP)
    board_made = Dataset.objects.get(name="Penn Treebank")
    boards = sorted(Leaderboard.objects.values_list("slug", flat=True))
    out, _ = import_pwc(datasets_file([PTB]))
    assert "datasets: 0 created, 1 updated" in out
    joined = Dataset.objects.get(pk=board_made.pk)
    assert (joined.slug, joined.name, joined.pwc_slug) == (
        board_made.slug,
        "Penn Treebank",
        "ptb",
    )
    assert joined.full_name == "Penn Treebank"
    response = client.get("/dataset/ptb")
    assert (response.status_code, response["Location"]) == (301, f"/dataset/{board_made.slug}")
    assert ">Texts</a>" in html(client, f"/dataset/{board_made.slug}")
    # Both files again: nothing changes, not the boards, not the dataset's text.
    before = sorted(map(repr, Dataset.objects.values_list()))
    out, _ = import_pwc(NLP, datasets_file([{**PTB, "description": "From the file."}]))
    assert "leaderboards: 0 created, 0 updated" in out
    assert "datasets: 0 created, 1 updated, 0 unchanged" in out
    out, _ = import_pwc(NLP, datasets_file([{**PTB, "description": "From the file."}]))
    assert "leaderboards: 0 created, 0 updated" in out
    assert "datasets: 0 created, 0 updated, 1 unchanged" in out
    assert sorted(Leaderboard.objects.values_list("slug", flat=True)) == boards
    assert Dataset.objects.count() == len(before)
    assert Dataset.objects.get(pk=board_made.pk).description == "From the file."


def test_a_variant_naming_another_records_dataset_joins_nothing(import_pwc, datasets_file):
    gigaword = Dataset.objects.create(slug="gigaword-2", name="Gigaword")
    # Listed first, citing "Gigaword" among its variants: Gigaword's record still gets it.
    other = a_dataset("gigaword-10k", "Gigaword 10k", variants=["Gigaword"])
    out, _ = import_pwc(datasets_file([other, GIGAWORD]))
    assert "datasets: 1 created, 1 updated" in out
    assert Dataset.objects.get(pk=gigaword.pk).pwc_slug == "gigaword"
    assert Dataset.objects.get(pwc_slug="gigaword-10k").name == "Gigaword 10k"


def test_reimport_changes_nothing(import_pwc, datasets_file):
    Task.objects.create(slug="summarization", name="Summarization")
    path = datasets_file([GIGAWORD, PTB])
    import_pwc(path)
    before = sorted(map(repr, Dataset.objects.values_list()))
    out, _ = import_pwc(path)
    assert "datasets: 0 created, 0 updated, 2 unchanged, 0 refused" in out
    assert "dataset modalities: 0 created, 0 updated, 1 unchanged" in out
    assert "dataset languages: 0 created, 0 updated, 1 unchanged" in out
    assert sorted(map(repr, Dataset.objects.values_list())) == before


def test_a_later_file_updates_in_place(import_pwc, datasets_file, client):
    Task.objects.create(slug="summarization", name="Summarization", synonyms=["Abstractive"])
    import_pwc(datasets_file([GIGAWORD, PTB]))
    first = dict(Dataset.objects.values_list("slug", "pk"))
    # Only a list changes: the dataset counts as updated.
    later_ptb = {**PTB, "modalities": ["Texts", "Speech"]}
    later_gigaword = {
        **GIGAWORD,
        "tasks": [{"task": "abstractive", "url": None}],
        "num_papers": 130,
    }
    out, _ = import_pwc(datasets_file([later_gigaword, later_ptb, a_dataset("squad", "SQuAD")]))
    assert "datasets: 1 created, 2 updated, 0 unchanged, 0 refused" in out
    assert dict(Dataset.objects.values_list("slug", "pk")) == first | {
        "squad": Dataset.objects.get(slug="squad").pk
    }
    assert ">Speech</a>" in html(client, "/dataset/ptb")
    assert "130 on Papers with Code" in html(client, "/dataset/gigaword")


def test_editor_description_survives_a_reimport(import_pwc, datasets_file, client):
    path = datasets_file([GIGAWORD])
    import_pwc(path)
    Dataset.objects.filter(slug="gigaword").update(editor_description="The *editor's* text.")
    out, _ = import_pwc(path)
    assert "datasets: 0 created, 0 updated, 1 unchanged" in out
    page = html(client, "/dataset/gigaword")
    assert "The <em>editor's</em> text." in page and "news" not in page


def test_each_bad_record_is_refused_by_field_and_the_rest_imported(import_pwc, datasets_file):
    records = [
        {**GIGAWORD, "homepage": ["not", "text"]},
        {**PTB, "url": ""},
        a_dataset("x", url=f"{PWC}/method/x"),
        a_dataset("long", "L" * 501),
        a_dataset("dated", introduced_date="28/01/2003"),
        a_dataset("loaders", data_loaders=["https://example.org"]),
        a_dataset("moods", modalities=["M" * 201]),
        a_dataset("tasks", tasks=[{"task": 7, "url": None}]),
        a_dataset("paper", paper="A paper"),
        a_dataset("squad", "SQuAD"),
    ]
    out, err = import_pwc(datasets_file(records))
    assert "datasets: 1 created, 0 updated, 0 unchanged, 9 refused" in out
    assert list(Dataset.objects.values_list("name", flat=True)) == ["SQuAD"]
    for index, field, reason in [
        (0, "homepage", "expected text, got list"),
        (1, "url", "expected a PwC /dataset/ URL, got ''"),
        (2, "url", "expected a PwC /dataset/ URL"),
        (3, "name", "longer than 500 characters"),
        (4, "introduced_date", "expected a date YYYY-MM-DD, got '28/01/2003'"),
        (5, "data_loaders[0]", "expected an object, got str"),
        (6, "modalities[0]", "longer than 200 characters"),
        (7, "tasks[0].task", "expected text, got int"),
        (8, "paper", "expected an object or null, got str"),
    ]:
        assert f"refused datasets.json[{index}].{field}: {reason}" in err


def test_dry_run_writes_nothing(import_pwc, datasets_file):
    out, _ = import_pwc(datasets_file([GIGAWORD, PTB]), dry_run=True)
    assert "datasets: 2 created" in out and "dry run" in out
    assert not Dataset.objects.exists() and not DatasetModality.objects.exists()


def test_gzipped_file_imports(import_pwc, datasets_file):
    out, _ = import_pwc(datasets_file([GIGAWORD, PTB], gz=True))
    assert "datasets: 2 created" in out
    assert Dataset.objects.get(slug="ptb").variants == ["Penn Treebank", "PTB"]


def _queries_for(count, datasets_file):
    records = [
        a_dataset(
            f"dataset-{index}",
            paper={"title": "", "url": f"{PWC}/paper/paper-{index}"},
            modalities=[f"Modality {index % 3}"],
            languages=["English"],
            tasks=[{"task": "Summarization", "url": None}],
            variants=[f"D{index}"],
        )
        for index in range(count)
    ]
    path = datasets_file(records)
    with CaptureQueriesContext(connection) as first:
        datasets.import_file(path, ImportReport())
    with CaptureQueriesContext(connection) as again:
        datasets.import_file(path, ImportReport())
    return len(first), len(again)


@pytest.mark.django_db
def test_a_chunks_queries_do_not_grow_with_its_records(datasets_file):
    Task.objects.create(slug="summarization", name="Summarization")
    few = _queries_for(10, datasets_file)
    for model in (Dataset, DatasetModality, DatasetLanguage):
        model.objects.all().delete()
    assert _queries_for(100, datasets_file) == few
