"""Verbatim blocks and unknown fields have a size limit, each and per page (issue #32).

A page reads a stored block whole, so its size, not the file's, is what one
request holds: past the limit a file is refused with the JSON path.
"""

import json

import pytest

from leaderboards.format.page import (
    MAX_BLOCK_CHARS,
    MAX_PAGE_BLOCK_CHARS,
    PageError,
    check_block_sizes,
    read_page,
)
from leaderboards.format.rules import compact_json
from tests.helpers import PWC_DATA, ROOT, SEED_FILE


def seed():
    return json.loads(SEED_FILE.read_text(encoding="utf-8"))


def refused(page):
    with pytest.raises(PageError) as error:
        read_page(json.dumps(page).encode())
    return str(error.value)


def test_a_top_level_unknown_field_past_the_limit_is_refused_by_name():
    page = seed()
    page["scraped_html"] = "x" * MAX_BLOCK_CHARS
    assert refused(page) == (
        f"scraped_html: {MAX_BLOCK_CHARS + 2:,} characters as stored, over the "
        f"{MAX_BLOCK_CHARS:,} a verbatim block or unknown field may hold"
    )


def test_one_just_within_the_limit_loads():
    page = seed()
    page["scraped_html"] = "x" * (MAX_BLOCK_CHARS - 2)
    assert read_page(json.dumps(page).encode()).page["scraped_html"] == page["scraped_html"]


@pytest.mark.parametrize(
    ("place", "path"),
    [
        (lambda page, big: page["source"].update(notes=big), "source"),
        (lambda page, big: page["since_archive"]["entries"].append({"x": big}), "since_archive"),
        (lambda page, big: page["syntology"].update(raw=big), "syntology.raw"),
        (lambda page, big: page["rows"][3].update(html=big), "rows[3].html"),
    ],
)
def test_every_verbatim_block_and_unknown_field_is_measured(place, path):
    page = seed()
    place(page, "é" * MAX_BLOCK_CHARS)
    assert refused(page).startswith(f"{path}: ")


def test_fields_each_within_the_limit_are_refused_together_past_the_page_s():
    page = seed()
    per_row = MAX_BLOCK_CHARS - 10_000
    for row in page["rows"][:5]:
        row["notes"] = "y" * per_row
    message = refused(page)
    # The fifth takes the page past 4,000,000: the path names the field that did.
    assert message.startswith("rows[4].notes: the page's verbatim blocks and unknown fields")
    assert f"over the {MAX_PAGE_BLOCK_CHARS:,} a page may hold" in message


def test_the_real_pages_are_far_within_the_limits():
    for path in (ROOT / "seeds").glob("*.txt"):
        check_block_sizes(json.loads(path.read_text(encoding="utf-8")))
    # PwC's own page data, every row's keys as unknown fields: a whole board's worth.
    for name in (
        "pwc-sota-page_image-classification-on-imagenet.json",
        "pwc-sota-page_natural-language-inference-on-anli-test.json",
    ):
        rows = json.loads((PWC_DATA / name).read_text(encoding="utf-8"))
        largest = max(len(compact_json(row)) for row in rows)
        assert largest * 100 < MAX_BLOCK_CHARS
        assert len(compact_json(rows)) < MAX_PAGE_BLOCK_CHARS
