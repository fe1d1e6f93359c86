"""The synthetic page generator: deterministic, seed-shaped, figures that add up."""

import json
import statistics
from collections import defaultdict

import pytest

from leaderboards.format import derive
from leaderboards.format import page as page_format
from leaderboards.format.values import parse_metric_value
from tests.helpers import PWC_DATA, SEED_FILE
from tools import synthetic_pages as generator

BOARDS = 300


@pytest.fixture(scope="module")
def pages():
    return list(generator.generate_pages(BOARDS, seed=11))


@pytest.fixture(scope="module")
def seed():
    return json.loads(SEED_FILE.read_text(encoding="utf-8"))


def all_rows(pages):
    return [row for page in pages for row in page["rows"]]


def all_values(pages):
    return [value for row in all_rows(pages) for value in row["metrics"].values()]


def key_shape(value, path=""):
    """Every object's key order by path; data-keyed objects stand for one key."""
    if isinstance(value, list):
        shapes = {}
        for item in value:
            shapes.update(key_shape(item, f"{path}[]"))
        return shapes
    if not isinstance(value, dict):
        return {}
    # Metric names and since_archive columns are data, not format.
    if path.endswith(("by_metric", ".metrics", "entries[]")):
        return {}
    shapes = {path: list(value)}
    for key, item in value.items():
        shapes.update(key_shape(item, f"{path}.{key}"))
    return shapes


def test_same_seed_gives_the_same_pages():
    first = [generator.dump_page(page) for page in generator.generate_pages(40, seed=5)]
    second = [generator.dump_page(page) for page in generator.generate_pages(40, seed=5)]
    assert first == second


def test_another_seed_gives_other_pages():
    first = list(generator.generate_pages(40, seed=5))
    other = list(generator.generate_pages(40, seed=6))
    assert first != other


def test_every_stated_figure_is_the_computed_one(pages):
    assert [derive.differences(page) for page in pages] == [[]] * BOARDS


def test_key_order_is_the_seed_key_order(pages, seed):
    expected = key_shape(seed)
    for page in pages:
        shape = key_shape(page)
        assert shape.keys() <= expected.keys()
        # A page whose rows all have null syntology has no row block to compare.
        assert expected.keys() - shape.keys() <= {".rows[].syntology"}
        assert {path: expected[path] for path in shape} == shape


def test_every_row_has_every_row_key(pages, seed):
    expected = list(seed["rows"][0])
    assert all(list(row) == expected for row in all_rows(pages))


def test_entries_are_keyed_by_the_columns(pages):
    with_entries = [page for page in pages if page["since_archive"]["entries"]]
    assert with_entries
    for page in with_entries:
        columns = page["since_archive"]["columns"]
        assert columns[:3] == ["model", "metric", "value"]
        assert all(list(entry) == columns for entry in page["since_archive"]["entries"])


def test_papers_are_shared_across_pages(pages):
    boards_of = defaultdict(set)
    for page in pages:
        for row in page["rows"]:
            boards_of[derive.paper_identity(row)].add(page["url"])
    assert sum(len(boards) > 1 for boards in boards_of.values()) > 50
    assert len(boards_of) < 0.6 * len(all_rows(pages))


def test_a_paper_carries_the_same_syntology_on_every_row(pages):
    blocks = defaultdict(list)
    for row in all_rows(pages):
        blocks[derive.paper_identity(row)].append(row["syntology"])
    assert all(all(block == found[0] for block in found) for found in blocks.values())


def test_rows_per_page_are_long_tailed(pages):
    counts = [len(page["rows"]) for page in pages]
    assert statistics.median(counts) <= 5
    assert sum(count <= 15 for count in counts) > 0.85 * BOARDS
    assert max(counts) > 100


def test_some_rows_lack_code_date_or_paper_page(pages):
    rows = all_rows(pages)
    assert any(row["code"] is None and row["n_code_links"] == 0 for row in rows)
    assert any(row["paper_date"] is None for row in rows)
    assert any(row["paper"] is None for row in rows)
    assert any(row["uses_additional_data"] for row in rows)
    assert any(len(row["metrics"]) < len(page["metrics"]) for page in pages for row in page["rows"])


def test_some_values_have_no_number(pages):
    assert any(parse_metric_value(value) is None for value in all_values(pages))


def test_some_values_are_scaled_or_carry_a_spread(pages):
    values = all_values(pages)
    scaled = [value for value in values if value[-1:] in ("K", "M", "B")]
    assert scaled
    assert all(parse_metric_value(value) >= 1e3 for value in scaled)
    assert any("±" in value for value in values)


def test_pages_pass_the_page_format_check(pages):
    for page in pages:
        data = generator.dump_page(page).encode("utf-8")
        warnings = page_format.read_page(data).warnings
        assert warnings == []


def test_write_pages_writes_one_compact_file_per_page(tmp_path):
    pages = list(generator.generate_pages(20, seed=3))
    written = generator.write_pages(pages, tmp_path / "out")
    files = sorted((tmp_path / "out").iterdir())
    assert (written.pages, written.rows) == (20, len(all_rows(pages)))
    assert len(files) == 20
    page = pages[0]
    text = (tmp_path / "out" / f"{generator.page_slug(page)}.json").read_text(encoding="utf-8")
    assert text == json.dumps(page, ensure_ascii=False, separators=(",", ":"))


def test_command_line_writes_the_pages(tmp_path, capsys):
    generator.main(["--out", str(tmp_path / "pages"), "--boards", "12", "--seed", "4"])
    assert len(list((tmp_path / "pages").iterdir())) == 12
    assert "12 pages" in capsys.readouterr().out


def test_every_generated_address_is_marked_so_no_real_page_is_ever_replaced(pages):
    """A generated board once took `speech-recognition-on-aishell-1`, the real board's
    slug, and replaced it in a load: the names are real, the slugs never are."""
    seed_page = json.loads(SEED_FILE.read_text(encoding="utf-8"))
    real = {seed_page["url"], seed_page["task"]["url"], seed_page["dataset"]["url"]}
    real |= {
        "/sota/" + path.stem.removeprefix("pwc-sota-page_")
        for path in PWC_DATA.glob("pwc-sota-page_*.json")
    }
    marked = f"/{generator.SLUG_MARKER}-"
    for page in pages:
        addresses = [page["url"], page["task"]["url"], page["dataset"]["url"]]
        addresses += [row["paper"] for row in page["rows"] if row.get("paper")]
        for address in addresses:
            assert marked in address and address not in real
    names = {page["dataset"]["name"] for page in pages}
    assert "AISHELL-1" in names or "ImageNet" in names  # real names, still
