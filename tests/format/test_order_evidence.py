"""What the archive's order says of a metric's direction, and who leads by it."""

import datetime

import pytest

from leaderboards.format.figures import OrderEvidence, leader_index, order_evidence


@pytest.mark.parametrize(
    ("numbers", "evidence", "settled"),
    [
        # Falling values down PwC's ranking: higher was better.
        ([90, 85, 80, 70, 60], OrderEvidence("higher", 4, 4), "higher"),
        ([1.2, 1.3, 1.9, 2.0, 3.1], OrderEvidence("lower", 4, 4), "lower"),
        # Rows without a number are skipped; a tie agrees with either way.
        ([90, None, 90, 85, None, 80, 70], OrderEvidence("higher", 4, 4), "higher"),
        # 9 of 10 agree: settled; 8 of 10: not.
        ([10, 9, 8, 7, 6, 5, 4, 3, 2, 3, 1], OrderEvidence("higher", 9, 10), "higher"),
        ([10, 9, 8, 7, 6, 5, 4, 5, 3, 4, 1], OrderEvidence("higher", 8, 10), None),
        # Too few results to settle anything, however well they agree.
        ([3, 2, 1, 0], OrderEvidence("higher", 3, 3), None),
        # A zigzag, or nothing but ties, leans nowhere.
        ([1, 5, 2, 4, 3], OrderEvidence(None, 0, 4), None),
        ([7, 7, 7, 7, 7, 7], OrderEvidence(None, 0, 5), None),
        ([], OrderEvidence(None, 0, 0), None),
    ],
)
def test_the_archive_order_settles_a_direction_only_when_nine_in_ten_agree(
    numbers, evidence, settled
):
    found = order_evidence(numbers)
    assert found == evidence
    assert found.settled == settled


def test_a_stored_lean_that_is_no_direction_settles_nothing():
    assert OrderEvidence("lower\x00", 20, 20).settled is None


DAY = datetime.date


@pytest.mark.parametrize(
    ("direction", "rows", "leader"),
    [
        ("higher", [(80, DAY(2020, 1, 1)), (91, DAY(2022, 1, 1)), (85, None)], 1),
        ("lower", [(80, DAY(2020, 1, 1)), (91, DAY(2022, 1, 1)), (85, None)], 0),
        # Equal best values: the earliest paper took the lead; the others matched it.
        ("higher", [(91, DAY(2023, 5, 1)), (91, DAY(2021, 2, 1)), (91, None)], 1),
        # An undated one comes after every dated one, then the archive's order.
        ("higher", [(91, None), (91, DAY(2023, 5, 1))], 1),
        ("higher", [(91, None), (91, None)], 0),
        # No number, or no direction: no leader.
        ("higher", [(None, DAY(2020, 1, 1))], None),
        (None, [(80, DAY(2020, 1, 1))], None),
        ("sideways", [(80, DAY(2020, 1, 1))], None),
    ],
)
def test_the_leader_is_the_best_value_first_reached(direction, rows, leader):
    assert leader_index(direction, rows) == leader
