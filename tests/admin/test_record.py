"""The public record of editors' work: /changes/, its feed, and each board's count."""

import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import ChangeKind, EditorialChange, Leaderboard, Metric, Row
from tests.helpers import SEED_SLUG, SPAM_MODEL, set_direction_in_admin, spam_row, withhold_in_admin

CHANGES = reverse("leaderboards:changes")
FEED = reverse("leaderboards:changes_feed")
BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def named_editor(editor):
    editor.first_name, editor.last_name = "Erin", "Okafor"
    editor.email = "erin@example.org"
    editor.save()
    return editor


def entries(html):
    return re.findall(r'<tr id="change-\d+" data-kind="([a-z_]+)">', html)


def test_a_withheld_row_is_listed_with_its_reason_and_not_its_content(
    seeded, named_editor, editor_client, client
):
    withhold_in_admin(editor_client, spam_row(), reason="Retracted <b>paper</b> & co.")
    html = client.get(CHANGES).content.decode()
    assert entries(html) == [ChangeKind.ROW_WITHHELD]
    assert "Retracted &lt;b&gt;paper&lt;/b&gt; &amp; co." in html
    assert "shown → withheld" in html
    assert SPAM_MODEL not in html
    # The row's values and paper are not named either.
    assert "LINe" not in html
    assert "Erin Okafor" in html
    assert "erin@example.org" not in html and ">erin<" not in html
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d', html)


def test_a_direction_change_says_what_it_was_and_what_it_is(
    seeded, named_editor, editor_client, client
):
    set_direction_in_admin(editor_client, Metric.objects.get(name="FPR95"), "lower")
    html = client.get(CHANGES, {"board": SEED_SLUG}).content.decode()
    assert entries(html) == [ChangeKind.DIRECTION]
    assert '<span class="subject">FPR95</span>' in html
    assert "unknown → lower" in html


def test_every_way_a_decision_is_made_is_recorded_newest_first(
    seeded, editor, editor_client, client
):
    withhold_in_admin(editor_client, spam_row(), reason="Spam")
    decisions.restore([spam_row()], editor)
    auroc = Metric.objects.get(name="AUROC")
    decisions.set_direction([auroc], "higher", editor, message="Accepted the suggested direction")
    decisions.set_direction([auroc], None, editor)
    html = client.get(CHANGES).content.decode()
    assert entries(html) == ["direction", "direction", "row_restored", "row_withheld"]
    assert "higher → unknown" in html and "Accepted the suggested direction" in html
    # A change that changes nothing is no entry.
    decisions.set_direction([auroc], None, editor)
    assert EditorialChange.objects.count() == 4
    seeded.refresh_from_db()
    assert seeded.editorial_change_count == 4


def test_the_board_page_counts_its_changes_and_links_to_them(seeded, editor, client):
    html = client.get(BOARD).content.decode()
    assert f'href="{CHANGES}?board={SEED_SLUG}">0 editorial changes</a>' in html
    decisions.withhold([spam_row()], "Spam", editor)
    decisions.set_direction([Metric.objects.get(name="AUROC")], "higher", editor)
    html = client.get(BOARD).content.decode()
    assert f'href="{CHANGES}?board={SEED_SLUG}">2 editorial changes</a>' in html


def test_the_board_filter_keeps_to_one_board(seeded, load, seed_page, write_page, editor, client):
    other = dict(seed_page, url="/sota/another-board")
    load(write_page(other))
    decisions.withhold([Row.objects.get(model=SPAM_MODEL, leaderboard=seeded)], "Spam", editor)
    decisions.set_direction(
        Metric.objects.filter(leaderboard__slug="another-board", name="AUROC"), "higher", editor
    )
    mine = client.get(CHANGES, {"board": SEED_SLUG}).content.decode()
    assert entries(mine) == ["row_withheld"]
    theirs = client.get(CHANGES, {"board": "another-board"}).content.decode()
    assert entries(theirs) == ["direction"]
    assert entries(client.get(CHANGES).content.decode()) == ["direction", "row_withheld"]


@pytest.mark.parametrize(
    "query, status",
    [
        ({"board": "no-such-board"}, 404),
        ({"board": "<script>"}, 400),
        ({"board": "x" * 301}, 400),
        ({"before": "abc"}, 400),
        ({"before": "-3"}, 400),
        ({"after": "1e9"}, 400),
        ({"before": str(2**64)}, 400),
    ],
)
def test_bad_parameters_are_a_400_or_404_never_a_500(db, client, query, status):
    assert client.get(CHANGES, query).status_code == status


def test_the_feed_filters_by_board_and_answers_404_for_an_unknown_one(seeded, editor, client):
    assert client.get(FEED, {"board": "no-such-board"}).status_code == 404
    assert client.get(FEED, {"board": "<bad>"}).status_code == 404


def test_the_feed_lists_the_changes_without_a_withheld_rows_content(
    seeded, named_editor, editor, client
):
    decisions.withhold([spam_row()], "Spam <i>farm</i>", editor)
    decisions.set_direction([Metric.objects.get(name="FPR95")], "lower", editor)
    response = client.get(FEED, {"board": SEED_SLUG})
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    items = feed.findall(f"{ATOM}entry")
    titles = [item.findtext(f"{ATOM}title") for item in items]
    assert titles[0].startswith("Metric direction: FPR95 on ")
    assert titles[1].startswith("Result withheld as spam: a result, not named here")
    assert "Spam <i>farm</i>" in items[1].findtext(f"{ATOM}summary")
    assert items[0].find(f"{ATOM}author/{ATOM}name").text == "Erin Okafor"
    assert SPAM_MODEL.encode() not in response.content


def test_pages_go_by_key_and_keep_the_board_filter(seeded, editor, client):
    auroc = Metric.objects.get(name="AUROC")
    for _ in range(60):
        decisions.set_direction([auroc], "higher", editor)
        decisions.set_direction([auroc], "lower", editor)
    newest = list(EditorialChange.objects.order_by("-pk").values_list("pk", flat=True))
    html = client.get(CHANGES, {"board": SEED_SLUG}).content.decode()
    shown = [int(pk) for pk in re.findall(r'<tr id="change-(\d+)"', html)]
    assert shown == newest[:50]
    older = re.search(r'href="\?([^"]+)" rel="next"', html).group(1).replace("&amp;", "&")
    assert older == f"board={SEED_SLUG}&before={newest[49]}"
    html = client.get(f"{CHANGES}?{older}").content.decode()
    assert [int(pk) for pk in re.findall(r'<tr id="change-(\d+)"', html)] == newest[50:100]
    newer = re.search(r'href="\?([^"]+)" rel="prev"', html).group(1).replace("&amp;", "&")
    html = client.get(f"{CHANGES}?{newer}").content.decode()
    assert [int(pk) for pk in re.findall(r'<tr id="change-(\d+)"', html)] == newest[:50]
    assert 'rel="prev"' not in html


def _many_changes(count, boards):
    """`count` entries spread over the first `boards` boards, each a decision of its own
    (no batch: one decision's entries are listed as one), and the boards' counts kept."""
    from collections import Counter

    from leaderboards import record

    ids = list(Leaderboard.objects.values_list("pk", flat=True)[:boards])
    written = EditorialChange.objects.bulk_create(
        EditorialChange(
            leaderboard_id=ids[index % len(ids)],
            kind=ChangeKind.DIRECTION,
            subject=f"Metric {index}",
            old_value="unknown",
            new_value="higher",
        )
        for index in range(count)
    )
    record.recount(Counter(entry.leaderboard_id for entry in written))


def test_the_record_costs_the_same_few_queries_however_many_changes(
    seeded, load, seed_page, write_page, client, django_assert_num_queries
):
    for index in range(4):
        load(write_page(dict(seed_page, url=f"/sota/board-{index}")))
    _many_changes(3, 3)
    with django_assert_num_queries(1):
        client.get(CHANGES)
    with django_assert_num_queries(2):
        client.get(CHANGES, {"board": SEED_SLUG})
    _many_changes(3000, 5)
    with django_assert_num_queries(1):
        response = client.get(CHANGES)
    assert len(entries(response.content.decode())) == 50
    with django_assert_num_queries(2):
        client.get(CHANGES, {"board": SEED_SLUG})
    with django_assert_num_queries(1):
        client.get(FEED)


@pytest.mark.parametrize("url", [CHANGES, f"{CHANGES}?board={SEED_SLUG}", FEED])
def test_a_change_retires_the_cached_record_and_feed(
    seeded, page_cache, editor, client, django_capture_on_commit_callbacks, url
):
    assert client.get(url).headers["X-Page-Cache"] == "miss"
    assert client.get(url).headers["X-Page-Cache"] == "hit"
    with django_capture_on_commit_callbacks(execute=True):
        decisions.withhold([spam_row()], "Spam", editor)
    response = client.get(url)
    assert response.headers["X-Page-Cache"] == "miss"
    assert b"Spam" in response.content
