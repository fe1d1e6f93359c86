import datetime

import pytest

from leaderboards.web.chart import Point, build_chart, mark_records, nice_step, tick_text


def point(rank, day, number, model=None):
    return Point(
        rank=rank,
        model=model or f"m{rank}",
        date=datetime.date.fromisoformat(day),
        number=number,
        raw=str(number),
    )


def test_records_are_results_that_beat_every_earlier_one_higher_is_better():
    points = [
        point(1, "2020-01-01", 70),
        point(2, "2021-01-01", 65),
        point(3, "2022-01-01", 80),
        point(4, "2019-01-01", 60),
    ]
    assert [p.rank for p in mark_records(points, "higher")] == [4, 1, 3]
    assert [p.record for p in points] == [True, False, True, True]


def test_records_when_lower_is_better():
    points = [point(1, "2020-01-01", 30), point(2, "2021-01-01", 35), point(3, "2022-01-01", 10)]
    assert [p.rank for p in mark_records(points, "lower")] == [1, 3]


def test_an_equal_result_is_not_a_new_record_and_same_day_ties_go_by_archive_rank():
    points = [point(2, "2020-01-01", 50), point(1, "2020-01-01", 50), point(3, "2021-01-01", 50)]
    assert [p.rank for p in mark_records(points, "higher")] == [1]


@pytest.mark.parametrize("direction", [None, "unknown", "sideways"])
def test_no_records_without_a_known_direction(direction):
    points = [point(1, "2020-01-01", 1), point(2, "2021-01-01", 2)]
    assert mark_records(points, direction) == []
    chart = build_chart("m", direction, points)
    assert chart.frontier == "" and chart.records == []


def test_the_frontier_steps_from_record_to_record_to_the_last_date():
    points = [point(1, "2020-01-01", 1), point(2, "2022-01-01", 3), point(3, "2024-01-01", 2)]
    chart = build_chart("m", "higher", points)
    first, second, last = points
    assert chart.frontier == (f"M{first.x},{first.y}H{second.x}V{second.y}H{last.x}")
    # Higher numbers are drawn higher up the canvas.
    assert second.y < first.y


def test_every_point_lies_on_the_canvas_and_a_single_point_still_draws():
    points = [point(1, "2020-06-01", 5.0)]
    chart = build_chart("m", "higher", points)
    assert chart.left <= points[0].x <= chart.right
    assert chart.top <= points[0].y <= chart.bottom
    assert build_chart("m", "higher", []) is None


def test_record_labels_go_above_then_below_and_are_dropped_when_both_are_taken():
    points = [
        point(1, "2020-01-01", 1.0),
        point(2, "2020-01-02", 1.001),
        point(3, "2020-01-03", 1.002),
        point(4, "2024-01-01", 9),
    ]
    build_chart("m", "higher", points)
    assert [bool(p.label) for p in points] == [False, True, True, True]
    assert points[1].label_dy > 0 > points[2].label_dy  # below, above


@pytest.mark.parametrize(("span", "step"), [(10, 2), (0.9, 0.2), (95, 20), (3e9, 1e9), (0, 1.0)])
def test_nice_step(span, step):
    assert nice_step(span) == pytest.approx(step)


@pytest.mark.parametrize(
    ("value", "step", "text"),
    [
        (80, 20, "80"),
        (0.85, 0.05, "0.85"),
        (2.5e9, 5e8, "2.5B"),
        (1500, 500, "1.5K"),
        (1500, 1, "1500"),
    ],
)
def test_tick_text(value, step, text):
    assert tick_text(value, step) == text


def test_point_markup_escapes_what_the_data_says():
    points = [point(1, "2020-01-01", 1.0, model='"><script>alert(1)</script>')]
    markup = build_chart("m", "higher", points).points_markup()
    assert "<script>" not in markup
    assert "&quot;&gt;&lt;script&gt;" in markup


@pytest.mark.parametrize(
    "numbers", [(1e308, -1e308), (1e-320, 2e-320), (5e300, 5e300), (-3.0, -3.0), (0.0, 1e15)]
)
def test_extreme_numbers_draw_or_give_no_chart_but_never_fail(numbers):
    points = [point(index, f"202{index}-01-01", number) for index, number in enumerate(numbers)]
    chart = build_chart("m", "higher", points)
    if chart is not None:
        assert all(chart.top <= p.y <= chart.bottom for p in points)
        chart.points_markup()
