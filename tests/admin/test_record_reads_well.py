"""The record reads well (issue #31 item 4): one decision on many boards is one entry,
with its boards behind a link; the record and its feed filter by kind."""

import re
import xml.etree.ElementTree as ET

from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import ChangeKind, EditorialChange, Row
from tests.helpers import SEED_SLUG, unranked

CHANGES = reverse("leaderboards:changes")
FEED = reverse("leaderboards:changes_feed")
ATOM = "{http://www.w3.org/2005/Atom}"


def rows(html):
    return re.findall(r'<tr id="change-\d+" data-kind="([a-z_]+)">(.*?)</tr>', html, re.S)


def text(html):
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def boards(load_boards, seed_page, count):
    load_boards(
        *((f"ood-{i}", 6, ["FPR95", "AUROC"]) for i in range(count)), seed=unranked(seed_page)
    )


def test_a_name_decided_on_many_boards_is_one_entry_with_its_boards_behind_a_link(
    load_boards, seed_page, editor, client
):
    boards(load_boards, seed_page, 12)
    decisions.decide_name("FPR95", "lower", editor, reason="FPR is an error rate")
    listed = rows(client.get(CHANGES).content.decode())
    assert len(listed) == 1
    kind, row = listed[0]
    assert kind == "direction"
    assert "12 boards" in text(row) and "Metric direction: FPR95 on 12 boards" in text(row)
    link = re.search(r'href="(\?batch=[0-9a-f]{32})"', row).group(1)
    each = rows(client.get(CHANGES + link).content.decode())
    assert len(each) == 12
    # A board each.
    linked = {re.search(r'href="/sota/([^"]+)"', row).group(1) for _, row in each}
    assert linked == {f"ood-{i}" for i in range(12)}
    # Each board's own record still lists its entry.
    assert len(rows(client.get(CHANGES, {"board": "ood-3"}).content.decode())) == 1
    # The feed: one entry, linking to the boards.
    feed = ET.fromstring(client.get(FEED).content)
    [entry] = feed.iter(f"{ATOM}entry")
    assert entry.find(f"{ATOM}title").text == "Metric direction: FPR95 on 12 boards"
    assert "?batch=" in entry.find(f"{ATOM}link").get("href")


def test_rows_withheld_together_are_one_entry_of_the_board(seeded, editor, client):
    two = list(Row.objects.filter(leaderboard=seeded).order_by("rank")[:2])
    decisions.withhold(two, "Duplicates of rank 3", editor)
    [(kind, row)] = rows(client.get(CHANGES).content.decode())
    assert kind == "row_withheld" and "2 at once" in text(row)
    assert len(rows(client.get(CHANGES, {"board": SEED_SLUG}).content.decode())) == 2


def test_the_record_and_its_feed_filter_by_kind(seeded, editor, client):
    decisions.withhold([Row.objects.get(leaderboard=seeded, rank=2)], "spam", editor)
    fpr = seeded.metrics.get(name="FPR95")
    decisions.set_direction([fpr], "lower", editor)
    kinds = [kind for kind, _ in rows(client.get(CHANGES).content.decode())]
    assert kinds == ["direction", "row_withheld"]
    assert [k for k, _ in rows(client.get(CHANGES, {"kind": "directions"}).content.decode())] == [
        "direction"
    ]
    assert [k for k, _ in rows(client.get(CHANGES, {"kind": "withheld"}).content.decode())] == [
        "row_withheld"
    ]
    assert rows(client.get(CHANGES, {"kind": "added"}).content.decode()) == []
    feed = ET.fromstring(client.get(FEED, {"kind": "withheld"}).content)
    titles = [e.find(f"{ATOM}title").text for e in feed.iter(f"{ATOM}entry")]
    assert len(titles) == 1 and titles[0].startswith("Result withheld as spam")
    page = client.get(CHANGES, {"kind": "directions"}).content.decode()
    assert 'aria-current="true">Metric directions</a>' in page


def test_unknown_kinds_and_batches_are_a_400(seeded, client):
    for query in ({"kind": "everything"}, {"batch": "not-a-batch"}, {"batch": "0" * 33}):
        assert client.get(CHANGES, query).status_code == 400
        assert client.get(FEED, query).status_code == 404
    assert rows(client.get(CHANGES, {"batch": "0" * 32}).content.decode()) == []
    assert EditorialChange.objects.filter(kind=ChangeKind.DIRECTION).count() == 0
