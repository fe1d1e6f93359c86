"""A board's history: /sota/<slug>/history, its .json, and the Atom feeds of data changes."""

import re
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.urls import reverse

from leaderboards.models import (
    BoardChange,
    DataLoad,
    Leaderboard,
    RowVerification,
    SyntologySnapshot,
)
from leaderboards.upkeep.snapshot_changes import COUNTERS_LISTED, counter_changes
from leaderboards.web.history import CHANGES_PER_PAGE
from tests.helpers import NEW_MODEL_2026, SEED_FILE, SEED_SLUG, a_reloaded_seed, html

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
HISTORY = reverse("leaderboards:leaderboard_history", args=[SEED_SLUG])
HISTORY_JSON = reverse("leaderboards:leaderboard_history_json", args=[SEED_SLUG])
HISTORY_FEED = reverse("leaderboards:leaderboard_history_feed", args=[SEED_SLUG])
LOADS_FEED = reverse("leaderboards:loads_feed")


@pytest.fixture
def reloaded(load, seed_page, write_page):
    ok, _, err = load(SEED_FILE)
    assert ok, err
    page, gone = a_reloaded_seed(seed_page)
    ok, _, err = load(write_page(page))
    assert ok, err
    return page, gone


def _atom(response):
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert root.find(f"{ATOM}{required}") is not None
    entries = root.findall(f"{ATOM}entry")
    for entry in entries:
        for required in ("id", "title", "updated"):
            assert entry.find(f"{ATOM}{required}").text
    return entries


def test_the_page_shows_each_change_with_old_and_new_strings_and_dates(client, reloaded):
    page, gone = reloaded
    text = html(client, HISTORY)
    change = BoardChange.objects.filter(created=False).get()
    assert f'id="load-{change.pk}"' in text
    assert change.made_at.strftime("%Y-%m-%d %H:%M") in text
    assert "1 row added, 1 removed, 1 value changed" in text
    assert '<span class="old">96.36</span> → <span class="new">96.40</span>' in text
    assert NEW_MODEL_2026 in text and "AUROC 97.01; FPR95 12.5" in text
    assert gone["model"] in text
    assert "board added with 22 rows" in text
    # Honest about when values began to be recorded, and where editors' work is.
    assert "Changes of values are recorded from the load of" in text
    assert f"{reverse('leaderboards:changes')}?board={SEED_SLUG}" in text


def test_the_board_page_links_its_history(client, seeded):
    assert f'href="{HISTORY}"' in html(client, seeded.get_absolute_url())


def test_the_json_gives_the_same_changes(client, reloaded):
    page, gone = reloaded
    data = client.get(HISTORY_JSON).json()
    assert data["board"] == f"/sota/{SEED_SLUG}"
    first_load = DataLoad.objects.order_by("pk")[0]
    assert data["values_recorded_since"] == first_load.started_at.isoformat()
    newest, first = data["loads"]["items"]
    assert (newest["rows_added"], newest["rows_removed"], newest["values_changed"]) == (1, 1, 1)
    assert newest["changed"] == [
        {"rank": 1, "model": page["rows"][0]["model"], "metric": "AUROC",
         "old": "96.36", "new": "96.40"},
    ]  # fmt: skip
    assert newest["added"][0]["values"] == {"AUROC": "97.01", "FPR95": "12.5"}
    assert newest["removed"][0]["model"] == gone["model"]
    assert newest["at"] and newest["source_sha256_before"] != newest["source_sha256_after"]
    assert first["board_added"] and first["rows_added"] == 22
    assert data["loads"]["count"] == 2


def test_an_identical_reload_adds_nothing_to_the_page(client, load):
    load(SEED_FILE)
    before = client.get(HISTORY_JSON).json()["loads"]
    load(SEED_FILE)
    assert client.get(HISTORY_JSON).json()["loads"] == before
    assert before["count"] == 1


def test_verification_counters_changed_between_snapshots_are_shown(client, reloaded):
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    newest = board.snapshots.order_by("-read_at")[0]
    verification = RowVerification.objects.filter(snapshot=newest).order_by("rank")[0]
    old = (verification.n_ran, verification.n_unverified)
    verification.n_ran += 3
    verification.save()
    data = client.get(HISTORY_JSON).json()["snapshots"]
    assert data["count"] == 2
    step, first = data["items"]
    assert step["previous_read_at"] == first["read_at"] == "2026-09-25T09:33:49+00:00"
    moved = [row for row in step["counters_changed"] if row["model"] == verification.model]
    assert moved[0]["old"]["n_ran"] == old[0] and moved[0]["new"]["n_ran"] == old[0] + 3
    assert first["previous_read_at"] is None and first["counters_changed"] == []
    text = html(client, HISTORY)
    assert f"{old[0]} → {old[0] + 3}" in text


def snapshot_of(board, day, rows):
    """A snapshot of the board read on `day` days after the seed's, its rows
    (rank, model, n_ran, n_unverified, n_pointer_only_licence)."""
    first = board.snapshots.order_by("read_at")[0].read_at
    snapshot = SyntologySnapshot.objects.create(
        leaderboard=board,
        read_at=first + timedelta(days=day),
        read_at_text=(first + timedelta(days=day)).isoformat(),
    )
    RowVerification.objects.bulk_create(
        RowVerification(snapshot=snapshot, rank=rank, model=model, n_ran=ran,
                        n_unverified=unverified, n_pointer_only_licence=pointer)
        for rank, model, ran, unverified, pointer in rows
    )  # fmt: skip
    return snapshot.pk


def test_counter_changes_match_rows_by_model_whatever_their_rank(seeded):
    older = snapshot_of(seeded, 1, [(1, "A", 1, 0, 0), (2, "B", 2, 1, 0), (3, "C", 0, 1, 0)])
    newer = snapshot_of(seeded, 2, [(1, "B", 2, 1, 0), (2, "A", 2, 0, 0), (3, "D", 1, 1, 0)])
    verified, changed = counter_changes([newer], [(newer, older)])
    total, changes = changed[newer]
    assert verified == {newer: 3} and total == 3
    assert [(c["model"], c["rank"]) for c in changes] == [("A", 2), ("D", 3), ("C", None)]
    assert changes[0]["old"]["n_ran"] == 1 and changes[0]["new"]["n_ran"] == 2
    assert changes[1]["old"] is None and changes[2]["new"] is None


def test_rows_of_one_model_are_matched_in_their_order(seeded):
    older = snapshot_of(seeded, 1, [(1, "A", 1, 0, 0), (2, "A", 2, 0, 0), (3, "A", 3, 0, 0)])
    newer = snapshot_of(seeded, 2, [(1, "A", 1, 0, 0), (2, "A", 2, 0, 0), (3, "A", 4, 0, 0)])
    _, changed = counter_changes([newer], [(newer, older)])
    ((total, changes),) = changed.values()
    assert total == 1 and [(c["rank"], c["old"]["n_ran"], c["new"]["n_ran"]) for c in changes] == [
        (3, 3, 4)
    ]


def test_the_board_feed_is_atom_with_each_load(client, reloaded):
    entries = _atom(client.get(HISTORY_FEED))
    assert len(entries) == 2
    title = entries[0].find(f"{ATOM}title").text
    assert title == "1 row added, 1 removed, 1 value changed"
    summary = entries[0].find(f"{ATOM}summary").text
    assert "AUROC: 96.36 → 96.40" in summary
    link = entries[0].find(f"{ATOM}link").get("href")
    assert link.endswith(f"{HISTORY}#load-{BoardChange.objects.order_by('-pk')[0].pk}")


def test_the_site_feed_lists_what_each_load_changed(client, reloaded, load, seed_page):
    entries = _atom(client.get(LOADS_FEED))
    titles = [entry.find(f"{ATOM}title").text for entry in entries]
    assert titles == [
        "0 boards added, 1 changed, 1 row added",
        "1 board added, 0 changed, 22 rows added",
    ]
    newest, first = entries
    assert f"Changed: {SEED_SLUG}." in newest.find(f"{ATOM}summary").text
    assert f"Added: {SEED_SLUG}." in first.find(f"{ATOM}summary").text
    assert newest.find(f"{ATOM}link").get("href").endswith(HISTORY)


def test_unknown_boards_and_bad_pages_are_404_or_400(client, reloaded):
    for url in (
        reverse("leaderboards:leaderboard_history", args=["no-such-board"]),
        reverse("leaderboards:leaderboard_history_json", args=["no-such-board"]),
        reverse("leaderboards:leaderboard_history_feed", args=["no-such-board"]),
        f"{HISTORY}?page=2",
        f"{HISTORY}?snapshots=9",
        f"{HISTORY_JSON}?page=3",
    ):
        assert client.get(url).status_code == 404, url
    for query in ("?page=x", "?page=0", "?page=-1", "?snapshots=1e9", "?page=99999999999999999999"):
        assert client.get(f"{HISTORY}{query}").status_code == 400, query
        assert client.get(f"{HISTORY_JSON}{query}").status_code == 400, query


def test_values_show_whatever_their_metric_is_named(client, seeded):
    loaded = DataLoad.objects.create(started_at=seeded.updated_at)
    BoardChange.objects.create(
        load=loaded, leaderboard=seeded, made_at=seeded.updated_at, version=1,
        sha256_before="a", sha256_after="b", rows_added=1,
        changes={"added": [{"rank": 3, "model": "M", "values": {"items": "<b>1</b>"}}]},
    )  # fmt: skip
    text = html(client, HISTORY)
    assert "items &lt;b&gt;1&lt;/b&gt;" in text


def _many_loads(board, count):
    """`count` recorded loads of the board, each changing one value (as a load would)."""
    loaded = DataLoad.objects.create(started_at=board.updated_at)
    BoardChange.objects.bulk_create(
        BoardChange(
            load=loaded, leaderboard=board, made_at=board.updated_at, version=n,
            sha256_before="a", sha256_after="b", values_changed=1,
            changes={"added": [], "removed": [], "changed": [
                {"rank": 1, "model": "M", "metric": "AUROC", "old": str(n), "new": str(n + 1)}
            ]},
        )
        for n in range(count)
    )  # fmt: skip


def test_snapshot_pages_cost_the_same_however_many_snapshots(
    client, seeded, django_assert_num_queries
):
    first = seeded.snapshots.get()
    verifications = list(first.verifications.all())
    for day in range(1, 25):
        snapshot = SyntologySnapshot.objects.create(
            leaderboard=seeded,
            read_at=first.read_at + timedelta(days=day),
            read_at_text=(first.read_at + timedelta(days=day)).isoformat(),
        )
        for verification in verifications:
            verification.pk, verification.snapshot, verification.row = None, snapshot, None
            verification.n_ran += 1
        RowVerification.objects.bulk_create(verifications)
    with django_assert_num_queries(7):
        data = client.get(f"{HISTORY_JSON}?snapshots=2").json()["snapshots"]
    assert (data["count"], data["pages"], len(data["items"])) == (25, 3, 10)
    assert all(len(step["counters_changed"]) == len(verifications) for step in data["items"])
    with django_assert_num_queries(7):
        text = html(client, f"{HISTORY}?snapshots=3")
    assert "the first snapshot kept" in text and 'rel="prev"' in text


def test_snapshots_cost_the_same_however_many_rows_they_verify(
    client, seeded, django_assert_num_queries
):
    """Compared and counted by the database where not stored (snapshots made here,
    not by a load): the page reads the rows that changed, the first COUNTERS_LISTED
    of each snapshot's, and says how many there were."""
    with django_assert_num_queries(6):
        assert client.get(HISTORY_JSON).status_code == 200
    many = COUNTERS_LISTED + 50
    for day in (1, 2, 3):
        snapshot_of(
            seeded, day, [(rank, f"Model {rank}", day, 0, 0) for rank in range(1, many + 1)]
        )
    with django_assert_num_queries(7):
        newest, older, *_ = client.get(HISTORY_JSON).json()["snapshots"]["items"]
    assert (newest["verified_rows"], newest["rows_changed"]) == (many, many)
    listed = newest["counters_changed"]
    assert [row["rank"] for row in listed] == list(range(1, COUNTERS_LISTED + 1))
    assert listed[0] == {
        "rank": 1,
        "model": "Model 1",
        "old": {"n_ran": 2, "n_unverified": 0, "n_pointer_only_licence": 0},
        "new": {"n_ran": 3, "n_unverified": 0, "n_pointer_only_licence": 0},
    }
    # Against the seed's snapshot: every row new, then the seed's rows gone.
    oldest = client.get(HISTORY_JSON).json()["snapshots"]["items"][2]
    seed_rows = seeded.snapshots.order_by("read_at")[0].verifications.count()
    assert oldest["rows_changed"] == many + seed_rows
    with django_assert_num_queries(7):
        text = html(client, HISTORY)
    assert f"Rows whose counters changed: the first {COUNTERS_LISTED} of {many}" in text
    tables = re.findall(r'<table class="record history-counters">(.*?)</table>', text, re.S)
    assert [table.count("<tr>") - 1 for table in tables] == [COUNTERS_LISTED] * 3  # the heads


def test_query_counts_are_pinned_and_do_not_grow_with_history(
    client, seeded, django_assert_num_queries
):
    # The board, the loads' count and page, the snapshots' count and page with
    # their stored comparisons, when recording began.
    with django_assert_num_queries(6):
        assert client.get(HISTORY).status_code == 200
    with django_assert_num_queries(6):
        assert client.get(HISTORY_JSON).status_code == 200
    with django_assert_num_queries(2):
        assert client.get(HISTORY_FEED).status_code == 200
    _many_loads(seeded, CHANGES_PER_PAGE * 5)
    with django_assert_num_queries(6):
        text = html(client, f"{HISTORY}?page=3")
    assert text.count('class="history-load"') == CHANGES_PER_PAGE
    with django_assert_num_queries(6):
        assert len(client.get(f"{HISTORY_JSON}?page=6").json()["loads"]["items"]) == 1
    with django_assert_num_queries(2):
        assert client.get(HISTORY_FEED).status_code == 200
    with django_assert_num_queries(1):
        assert client.get(LOADS_FEED).status_code == 200
