import io
import json

from django.core.management import call_command
from django.urls import reverse

from tests.helpers import SEED_FILE, SEED_SLUG


def key_order(value):
    """Every object's keys, in order, all the way down."""
    if isinstance(value, dict):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


def test_the_seed_exports_as_it_came(seeded, client):
    response = client.get(reverse("leaderboards:leaderboard_json", args=[SEED_SLUG]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    original = json.loads(SEED_FILE.read_text(encoding="utf-8"))
    exported = json.loads(response.content)
    assert exported == original
    assert key_order(exported) == key_order(original)


def test_export_seeds_writes_one_equal_file_per_page(seeded, tmp_path):
    call_command("export_seeds", tmp_path / "out", stdout=io.StringIO())
    written = list((tmp_path / "out").iterdir())
    assert [path.name for path in written] == [f"{SEED_SLUG}.json"]
    assert written[0].read_text(encoding="utf-8") == SEED_FILE.read_text(encoding="utf-8")


def test_export_gives_computed_figures_not_stated_ones(load, seed_page, write_page, client):
    seed_page["counts"]["rows_with_code"] = 17
    seed_page["syntology"]["samples_row_weighted"]["n_ran"] = 1
    seed_page["since_archive"]["measurement"]["wilson95_lower"] = 0.5
    ok, out, _ = load(write_page(seed_page))
    assert "counts.rows_with_code stated 17, computed 21" in out
    assert "syntology.samples_row_weighted.n_ran stated 1, computed 130" in out
    assert "since_archive.measurement.wilson95_lower stated 0.5, computed 0.9361" in out
    exported = client.get(reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])).json()
    assert exported["counts"]["rows_with_code"] == 21
    assert exported["syntology"]["samples_row_weighted"]["n_ran"] == 130
    assert exported["since_archive"]["measurement"]["wilson95_lower"] == 0.9361


def test_unknown_fields_and_since_archive_entries_come_back_verbatim(
    load, seed_page, write_page, client
):
    seed_page["mirror_note"] = {"z": 1, "a": [2]}
    seed_page["rows"][0]["tags"] = ["sota"]
    seed_page["since_archive"]["columns"] = ["model", "value", "new_col"]
    seed_page["since_archive"]["entries"] = [
        {"value": "97.1", "model": "Foo", "new_col": None, "unlisted": {"b": 1, "a": 2}}
    ]
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    exported = client.get(reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])).json()
    assert exported == seed_page
    assert key_order(exported) == key_order(seed_page)


def test_unknown_json_export_is_a_404(db, client):
    response = client.get("/sota/no-such-board.json")
    assert response.status_code == 404
