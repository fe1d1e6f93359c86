"""Editors acting while the same board is re-loaded in a loop: no decision lost, no 5xx.

The same run as bench/editors_vs_loads.py, for a few seconds: gunicorn on a
database of its own, editor sessions over HTTP driving the admin's actions,
a loader process re-loading the board with each file a later read_at.
"""

from bench import editors_vs_loads


def test_every_acknowledged_decision_stands_and_nothing_answers_5xx(child_database_url, tmp_path):
    result = editors_vs_loads.run(
        child_database_url, seconds=6, editors=3, production=False, workdir=tmp_path
    )
    tally = result.tally
    assert not result.crashed, result.crashed
    assert tally.server_errors == 0, tally.errors_seen
    assert not result.load_failures
    assert result.lost == []
    assert result.export_ok
    # The race did happen: re-loads replaced rows under the editors' lists.
    assert result.loads >= 3
    assert tally.acknowledged >= 10
    assert tally.followed >= 1
    assert not tally.other
