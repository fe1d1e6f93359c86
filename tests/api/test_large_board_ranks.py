"""A large board's results are ranked from its numbers kept in the process (issue #32 item 6):
each page of a 100,000-row board's results read and sorted all its 400,000 values for the
hundred it shows. The ranks must be those of reading every number, and every editor's change
must reach them on the next request."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards import decisions
from leaderboards.api import ranking
from leaderboards.models import Metric, Row
from tests.helpers import SEED_SLUG, add_in_admin

RESULTS = f"/api/v1/evaluations/{SEED_SLUG}/results/"


def ranks(client, per_page=5):
    """{result id: (best rank, best metric)} over every page of the seed's results."""
    found, page = {}, 1
    while True:
        body = client.get(RESULTS, {"items_per_page": per_page, "page": page}).json()
        found.update({r["id"]: (r["best_rank"], r["best_metric"]) for r in body["results"]})
        if body["next"] is None:
            return found
        page += 1


@pytest.fixture
def both_directions(seeded):
    # FPR95 lower-better by the archive's order; AUROC given one, so two metrics rank.
    Metric.objects.filter(leaderboard=seeded, name="AUROC").update(editor_direction="higher")
    return seeded


def as_large(monkeypatch):
    monkeypatch.setattr(ranking, "KEPT_FROM_ROWS", 5)  # the seed's 22 rows stand for 100,000
    ranking.numbers_kept.clear()


def test_kept_numbers_rank_as_every_number_does(
    both_directions, editor_client, client, monkeypatch
):
    add_in_admin(editor_client, both_directions)
    read_each_time = ranks(client)
    both_directions.refresh_from_db()
    assert not ranking.ranked_from_kept(both_directions)
    as_large(monkeypatch)
    assert ranks(client) == read_each_time
    assert ranking.ranked_from_kept(both_directions)
    # The added result leads FPR95 (9.87 under the archive's 16.84), and both metrics rank.
    assert sorted(read_each_time.values(), key=lambda rank: (rank[0] is None, rank))[0] == (
        1,
        "FPR95",
    )
    assert {metric for _, metric in read_each_time.values()} >= {"FPR95", "AUROC"}
    assert len(read_each_time) == 23


def test_later_pages_read_no_numbers_but_their_own(both_directions, client, monkeypatch):
    with CaptureQueriesContext(connection) as small:
        client.get(RESULTS, {"items_per_page": 5, "page": 2})
    as_large(monkeypatch)
    with CaptureQueriesContext(connection) as first:
        client.get(RESULTS, {"items_per_page": 5, "page": 3})
    with CaptureQueriesContext(connection) as later:
        client.get(RESULTS, {"items_per_page": 5, "page": 4})
    # One query each metric that ranks, once; then as many as a small board's page.
    assert len(first) == len(small) + 2
    assert len(later) == len(small)


def test_an_editors_change_reaches_the_kept_ranks(
    both_directions, editor, client, monkeypatch, django_capture_on_commit_callbacks
):
    as_large(monkeypatch)
    before = ranks(client)
    leader = next(rid for rid, rank in before.items() if rank == (1, "FPR95"))
    row = Row.objects.get(pk=int(leader))
    # The board's version is raised once the change commits.
    with django_capture_on_commit_callbacks(execute=True):
        decisions.withhold([decisions.row_ref(row.leaderboard_id, row.key)], "retracted", editor)
    after = ranks(client)
    assert leader not in after
    runner_up = next(rid for rid, rank in before.items() if rank == (2, "FPR95"))
    assert after[runner_up] == (1, "FPR95")
    # And a direction an editor sets makes a metric rank that did not.
    with django_capture_on_commit_callbacks(execute=True):
        decisions.set_direction(
            [decisions.metric_ref(row.leaderboard_id, "AUROC")], "lower", editor, reason="test"
        )
    flipped = ranks(client)
    assert flipped != after
    assert ranks(client) == flipped
    monkeypatch.setattr(ranking, "KEPT_FROM_ROWS", 10_000)
    assert ranks(client) == flipped
