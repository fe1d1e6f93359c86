"""The promise of issue #30: an empty site restored from the dumps, by the commands their
README gives, shows the same pages: each board's .json byte for byte, each paper's,
method's and dataset's page content."""

import re
import tarfile

import pytest
from django.core.management import call_command

from leaderboards.dumps.export import export_set
from leaderboards.models import Dataset, Leaderboard, Method, Paper
from tests.dumps.sample import WITHHELD_PAPER, build_site, empty_site

MAIN = re.compile(r"<main[^>]*>(.*)</main>", re.DOTALL)


def content(page):
    """A page's main content: a restore gives back all of it."""
    return MAIN.search(page)[1]


def site_pages(client):
    """{address: what a visitor gets}: each board's .json, each shown paper's, method's
    and dataset's page content."""
    pages = {}
    for slug in Leaderboard.objects.values_list("slug", flat=True):
        response = client.get(f"/sota/{slug}.json")
        assert response.status_code == 200
        pages[f"/sota/{slug}.json"] = response.content
    for model, kind in ((Paper, "paper"), (Method, "method"), (Dataset, "dataset")):
        shown = model.objects.all()
        if hasattr(model, "withheld"):
            shown = shown.filter(withheld=False)
        for slug in shown.values_list("slug", flat=True):
            response = client.get(f"/{kind}/{slug}")
            assert response.status_code == 200, f"/{kind}/{slug}"
            pages[f"/{kind}/{slug}"] = content(response.content.decode())
    return pages


def restore(folder, dumps):
    """The README's commands, run on an empty site."""
    pages = folder / "pages"
    pages.mkdir()
    with tarfile.open(dumps / "pages.tar.gz") as tar:
        tar.extractall(pages, filter="data")
    call_command("load_seeds", str(pages), verbosity=0)
    call_command(
        "import_pwc",
        *(
            str(dumps / name)
            for name in (
                "papers-with-abstracts.json.gz",
                "links-between-papers-and-code.json.gz",
                "methods.json.gz",
                "datasets.json.gz",
            )
        ),
        verbosity=0,
    )


@pytest.mark.slow
@pytest.mark.django_db
def test_a_site_restored_from_its_dumps_shows_the_same_pages(tmp_path, client):
    build_site(tmp_path)
    before = site_pages(client)
    assert len([page for page in before if page.startswith("/sota/")]) == 18
    shown = "\n".join(content for address, content in before.items() if "/sota/" not in address)
    # Every file's words are on some page: an abstract, a method's editor's text,
    # a dataset's details, a code link.
    for words in ("ünïcode", "clearer", "Open Graph Benchmark", "SAGN_with_SLE", "NeurIPS",
                  "https://example.org/tiny"):  # fmt: skip
        assert words in shown, words
    # Both methods an editor described say so, and say so again after the restore.
    for slug in ("gcn", "label-propagation"):
        assert "edited</span>" in before[f"/method/{slug}"], slug
    manifest = export_set(tmp_path / "dumps")
    again = export_set(tmp_path / "again")
    # The same data, the same bytes, on a site with every kind of record.
    assert [(f["name"], f["sha256"]) for f in manifest["files"]] == [
        (f["name"], f["sha256"]) for f in again["files"]
    ]
    empty_site()
    assert not Leaderboard.objects.exists() and not Paper.objects.exists()
    restore(tmp_path, tmp_path / "dumps" / "current")
    after = site_pages(client)
    assert set(after) == set(before)
    assert [address for address, page in before.items() if after[address] != page] == []
    assert not Paper.objects.filter(slug=WITHHELD_PAPER).exists()
    assert not Method.objects.filter(pwc_slug="spam-net").exists()
