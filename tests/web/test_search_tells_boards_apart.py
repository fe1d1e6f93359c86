"""Search tells look-alike boards apart: row counts, the larger first, every match a click away."""

import re

from django.urls import reverse

from tests.helpers import board

SEARCH = reverse("leaderboards:search")
SUGGEST = reverse("leaderboards:search_suggest")


def lookalike(seed_page, slug, rows):
    page = board(seed_page, 1, rows=rows)
    page["url"] = f"/sota/{slug}"
    return page


def listed(html):
    """The leaderboards group's (link, name, row count) in order."""
    section = re.search(r"<h2>Leaderboards.*?</section>", html, re.S).group(0)
    return re.findall(
        r'<li><a href="([^"]*)">([^<]*)</a> <span class="muted small rows-count">([^<]*)</span>',
        section,
    )


def test_boards_of_one_name_show_their_rows_and_the_larger_comes_first(
    load, seed_page, write_page, client
):
    # The smaller one loaded first: without a rule it would be listed first.
    small = write_page(lookalike(seed_page, "ood-on-board-set-1-small", 3))
    large = write_page(lookalike(seed_page, "ood-on-board-set-1-large", 15))
    ok, _, err = load(small, large)
    assert ok, err
    html = client.get(SEARCH, {"q": "board set 1"}).content.decode()
    assert [(link.rsplit("/", 1)[1], rows) for link, _, rows in listed(html)] == [
        ("ood-on-board-set-1-large", "15 results"),
        ("ood-on-board-set-1-small", "3 results"),
    ]
    suggestions = client.get(SUGGEST, {"q": "board set 1"}).json()["suggestions"]
    boards = [s for s in suggestions if s["kind"] == "Leaderboard"]
    assert [(s["url"].rsplit("/", 1)[1], s["context"]) for s in boards] == [
        ("ood-on-board-set-1-large", "15 results"),
        ("ood-on-board-set-1-small", "3 results"),
    ]


def test_more_matches_than_shown_are_a_click_away(load, seed_page, write_page, client):
    paths = [write_page(board(seed_page, index, rows=2 + index % 3)) for index in range(23)]
    ok, _, err = load(*paths)
    assert ok, err
    html = client.get(SEARCH, {"q": "board set"}).content.decode()
    assert len(listed(html)) == 10
    link = re.search(r'<a href="([^"]*)">Show all 23 leaderboards</a>', html).group(1)
    link = link.replace("&amp;", "&")
    assert "kind=leaderboard" in link and "q=board+set" in link
    every = client.get(link).content.decode()
    assert "23 matches, the closest first" in every
    assert len(re.findall(r'<li><a href="/sota/', every)) == 23
    # Several pages, each a link from the one before.
    from leaderboards.web.views import search as view

    view.PER_PAGE, before = 10, view.PER_PAGE
    try:
        first = client.get(link).content.decode()
        assert "1–10 shown" in first
        after = re.search(r'<a href="([^"]*)" rel="next">', first).group(1).replace("&amp;", "&")
        third = client.get(SEARCH + after.replace("page=2", "page=3")).content.decode()
        assert "21–23 shown" in third and 'rel="next"' not in third
        names = {
            name
            for page in range(1, 4)
            for name in re.findall(
                r'<li><a href="/sota/([^"]*)"',
                client.get(
                    SEARCH, {"q": "board set", "kind": "leaderboard", "page": page}
                ).content.decode(),
            )
        }
        assert len(names) == 23
    finally:
        view.PER_PAGE = before


def test_a_garbage_kind_or_page_is_ignored_not_an_error(seeded, client):
    for params in ({"kind": "nope"}, {"kind": "leaderboard", "page": "-3"}, {"page": "9" * 30}):
        assert client.get(SEARCH, {"q": "detection", **params}).status_code == 200
