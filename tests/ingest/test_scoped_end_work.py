"""A load that changes a few boards does its end work on what they touched, and
leaves every figure and search entry as the whole site's work would."""

import copy
import json

import pytest

from leaderboards import search
from leaderboards.ingest import writer
from leaderboards.ingest.loader import Loader
from leaderboards.models import Paper, SearchEntry, UpkeepPending
from leaderboards.upkeep import scope
from tests.helpers import board, upkeep_state

BOARDS = 4


def later(page, day):
    """The page read again `day` days into 2099: a newer version of it."""
    page = copy.deepcopy(page)
    page["syntology"]["read_at"] = f"2099-01-{day:02d}T00:00:00+00:00"
    return page


@pytest.fixture
def site(db, tmp_path, seed_page):
    """BOARDS boards over two tasks, loaded; their folder and pages."""
    folder = tmp_path / "pages"
    folder.mkdir()
    pages = [
        board(seed_page, index, task="Image Classification" if index % 2 else "Detection")
        for index in range(BOARDS)
    ]
    for index, page in enumerate(pages):
        (folder / f"board-{index}.json").write_text(json.dumps(page))
    Loader().load([folder])
    assert upkeep_state()["right"]
    return folder, pages


def found_models(query):
    return [entry.name for entry in search.search(query).get("model", (0, []))[1]]


def reload(folder, index, page):
    (folder / f"board-{index}.json").write_text(json.dumps(page))
    return Loader().load([folder])


@pytest.fixture
def whole_site_work(monkeypatch):
    """The names of the whole-site steps a load ran."""
    ran = []
    for name in ("refresh_counts", "refresh_statistics"):
        step = getattr(writer, name)
        monkeypatch.setattr(
            writer,
            name,
            lambda *a, _step=step, _name=name, **k: ran.append(_name) or _step(*a, **k),
        )
    rebuilt = writer.search.refresh_index
    for where in ("leaderboards.search.refresh_index", "leaderboards.search.index.refresh_index"):
        monkeypatch.setattr(where, lambda *a, **k: ran.append("refresh_index") or rebuilt(*a, **k))
    return ran


def test_a_board_with_new_values_leaves_the_figures_a_whole_refresh_gives(site, whole_site_work):
    folder, pages = site
    page = later(pages[1], 1)
    page["rows"][0]["metrics"] = dict.fromkeys(page["rows"][0]["metrics"], "12.5")
    report = reload(folder, 1, page)
    assert (report.updated, report.unchanged) == (1, BOARDS - 1)
    # No name changed: nothing of the whole site's work was owed.
    assert whole_site_work == []
    state = upkeep_state()
    assert state["right"] and state["pending"] == 0


def test_a_renamed_model_rebuilds_the_search_index(site, whole_site_work):
    """A name changed: rebuilt whole, so the suggestions' prefix lists stay whole too."""
    folder, pages = site
    page = later(pages[2], 1)
    old_name = page["rows"][0]["model"]
    page["rows"][0]["model"] = "A Model Named Once"
    reload(folder, 2, page)
    assert whole_site_work == ["refresh_index"]
    assert upkeep_state()["right"]
    assert found_models("named once") == ["A Model Named Once"]
    # The other boards' rows keep the old name: its one entry counts them.
    (entry,) = SearchEntry.objects.filter(kind="model", name=old_name)
    assert entry.context == str(BOARDS - 1)


def test_a_paper_the_board_drops_loses_its_code_flag_when_no_other_board_names_it(site, seed_page):
    folder, pages = site
    # The paper of the first row, on every board: dropped from each in turn.
    slug = pages[0]["rows"][0]["paper"].removeprefix("/paper/")
    assert Paper.objects.get(slug=slug).has_code
    for index, page in enumerate(pages):
        page = later(page, 2)
        page["rows"] = [row for row in page["rows"] if row["paper"] != f"/paper/{slug}"]
        reload(folder, index, page)
        assert upkeep_state()["right"]
    assert not Paper.objects.get(slug=slug).has_code


def test_a_load_past_the_scoped_size_does_the_whole_sites_work(site, monkeypatch, whole_site_work):
    folder, pages = site
    monkeypatch.setattr(scope, "WHOLE_SITE_BOARDS", 0)
    reload(folder, 3, later(pages[3], 1))
    assert sorted(whole_site_work) == ["refresh_counts", "refresh_index", "refresh_statistics"]
    assert upkeep_state()["right"] and not UpkeepPending.objects.exists()


def test_a_marker_written_before_scopes_named_models_owes_the_whole_sites_work():
    """Its boards' models before the load are unknown: a model they no longer name
    would keep its entry."""
    written = scope.Scope(boards={1}, models={"a-model-0123456789ab"}).as_json()
    assert scope.owed([written]) == scope.Scope(boards={1}, models={"a-model-0123456789ab"})
    del written["models"]
    assert scope.owed([written]) is None
