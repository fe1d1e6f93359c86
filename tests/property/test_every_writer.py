"""Property: whatever text a page file or an editor gives, every writer answers well (issue #32).

Hypothesis writes arbitrary Unicode (controls, lone surrogates, long and empty
strings) into a page file's fields and into an editor's added result. A file
loads or is refused with its path; a form saves or says why. Then every page
type, feed, badge, export and API entry answers 2xx with output its reader
parses: XML by an XML parser, JSON strictly, CSV by a CSV reader.
"""

import csv
import io
import json
from xml.etree import ElementTree

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboards.models import Area, Dataset, EditorAddition, Leaderboard, Paper, Task
from tests.helpers import DATASET, SEED_FILE, SEED_SLUG, TASK, add_in_admin

pytestmark = pytest.mark.slow

# Any code point, surrogates and controls included, and now and then a long run.
any_text = st.one_of(
    st.text(st.characters(codec=None), max_size=30),
    st.text(st.characters(max_codepoint=0x20), max_size=10),
    st.integers(90_000, 110_000).map(lambda n: "x" * n),
)
# Places in the seed page a string stands, as (path of keys, what the field is).
PLACES = [
    ("rows", 1, "model"),
    ("rows", 0, "paper_title"),
    ("rows", 0, "metrics", "AUROC"),
    ("task", "note"),
    ("description",),
    ("source", "archive"),
    ("syntology", "claim"),
    ("category_note",),
]
BOUNDED = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def reset_catalogue():
    Leaderboard.objects.all().delete()
    Paper.objects.all().delete()
    Task.objects.all().delete()
    Dataset.objects.all().delete()
    Area.objects.exclude(pk__lte=16).delete()


def urls(slug):
    """Every kind of answer that shows the board: (url, how its reader parses it)."""
    paper = "line-out-of-distribution-detection-by"
    return [
        (f"/sota/{slug}", "html"),
        ("/", "html"),
        ("/sota/", "html"),
        (f"/task/{TASK}", "html"),
        (f"/dataset/{DATASET}", "html"),
        ("/changes/", "html"),
        (f"/sota/{slug}.json", "json"),
        (f"/sota/{slug}.csv", "csv"),
        ("/feeds/newest.atom", "xml"),
        ("/changes/feed.atom", "xml"),
        (f"/sota/{slug}/badge.svg", "xml"),
        (f"/paper/{paper}/badge.svg", "xml"),
        ("/sitemap-leaderboards.xml", "xml"),
        (f"/api/v1/evaluations/{slug}/", "json"),
        (f"/api/v1/evaluations/{slug}/results/", "json"),
        (f"/api/v1/papers/{paper}/results/", "json"),
    ]


def refuse(constant):
    raise ValueError(f"{constant} is not JSON")


def assert_every_writer_answers(client, slug):
    for url, kind in urls(slug):
        response = client.get(url)
        assert response.status_code == 200, url
        if kind == "xml":
            ElementTree.fromstring(response.content)
        elif kind == "json":
            json.loads(response.content, parse_constant=refuse)
        elif kind == "csv":
            list(csv.reader(io.StringIO(response.content.decode())))
        else:
            response.content.decode()


def load_seed(load):
    ok, _, err = load(SEED_FILE)
    assert ok, err


@BOUNDED
@given(place=st.sampled_from(PLACES), text=any_text)
def test_a_page_file_with_any_text_loads_or_is_refused_and_every_writer_answers(
    load, tmp_path, place, text
):
    reset_catalogue()
    page = json.loads(SEED_FILE.read_text(encoding="utf-8"))
    parent = page
    for key in place[:-1]:
        parent = parent[key]
    parent[place[-1]] = text
    path = tmp_path / "page.json"
    # ASCII escapes let the file carry a lone surrogate, as a hostile file could.
    path.write_text(json.dumps(page), encoding="ascii")
    ok, _, err = load(path)
    if not ok:
        assert err.startswith(f"{path}: "), err
        assert "Traceback" not in err and "(database)" not in err, err
        load_seed(load)
    assert_every_writer_answers(Client(), SEED_SLUG)


@BOUNDED
@given(
    model=any_text,
    note=any_text,
    value=any_text,
    day=st.dates().map(lambda day: day.isoformat()) | st.text(max_size=12),
)
def test_an_editor_adds_any_text_and_every_writer_answers(load, editor, model, note, value, day):
    reset_catalogue()
    load_seed(load)
    board = Leaderboard.objects.get()
    client = Client()
    client.force_login(editor)
    response = add_in_admin(client, board, model=model, note=note, value_0=value, paper_date=day)
    # Saved, or the form again with its errors: never a 500.
    assert response.status_code in (200, 302)
    assert EditorAddition.objects.exists() == (response.status_code == 302)
    assert_every_writer_answers(Client(), SEED_SLUG)
