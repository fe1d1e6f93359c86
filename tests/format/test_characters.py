"""One rule for the characters stored text may hold (issue #32): a page file breaking it is refused.

XML 1.0 forbids the C0 controls but tab, newline and carriage return: a model
name holding U+0001 once loaded, then every reader of /feeds/newest.atom got
a 500. A file holding one anywhere fails alone, naming the file and the JSON
path, and nothing is written.
"""

import pytest

from leaderboards.format import rules
from leaderboards.models import Leaderboard
from tests.helpers import database_dump

FORBIDDEN = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1f"]


@pytest.mark.parametrize("char", FORBIDDEN)
def test_every_forbidden_control_is_named(char):
    problem = rules.text_problem(f"model{char}name")
    assert problem is not None
    if char != "\x00":
        assert f"U+{ord(char):04X}" in problem


@pytest.mark.parametrize("text", ["tab\there", "line\nbreak", "crlf\r\n", "é ✓ \u2028 \x7f", ""])
def test_tab_newline_return_and_any_other_character_are_allowed(text):
    assert rules.text_problem(text) is None
    assert rules.xml_text(text) == text


def test_xml_text_replaces_what_the_rule_forbids():
    assert rules.xml_text("a\x01b\x00c\ud800") == "a b c\ufffd"


# Where in a page a control character may stand, as the error names it.
PLACES = [
    "rows[3].model",
    "rows[0].metrics.AUROC",
    "task.note",
    "description",
    # Verbatim blocks and unknown fields are stored and served all the same.
    "since_archive.claim",
    "source.archive",
]


def put(page, place, value):
    """Set the value at a path such as rows[3].model."""
    keys = place.replace("[", ".").replace("]", "").split(".")
    *parents, last = [int(key) if key.isdigit() else key for key in keys]
    for key in parents:
        page = page[key]
    page[last] = value


@pytest.mark.parametrize("place", PLACES)
def test_a_page_file_holding_a_control_character_is_refused_by_file_and_path(
    seeded, load, write_page, seed_page, place
):
    put(seed_page, place, "Model\x01 name")
    path = write_page(seed_page)
    before = database_dump()
    ok, _, err = load(path)
    assert not ok
    assert f"{path}: {place}: contains the control character U+0001" in err
    assert database_dump() == before


def test_a_key_holding_a_control_character_is_refused_by_its_objects_path(
    load, write_page, seed_page
):
    seed_page["since_archive"]["entries"] = [{"bad\x1fkey": "x"}]
    path = write_page(seed_page)
    ok, _, err = load(path)
    assert not ok
    assert f"{path}: since_archive.entries[0]: contains the control character U+001F" in err
    assert not Leaderboard.objects.exists()


def test_tabs_and_newlines_in_text_load(load, write_page, seed_page):
    seed_page["rows"][3]["model"] = "Model\tname\r\nsecond line"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    assert Leaderboard.objects.get().rows.filter(model__contains="\t").count() == 1
