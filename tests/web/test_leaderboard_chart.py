import datetime
import json
import random
import re

import pytest

from leaderboards.format.values import parse_metric_value
from leaderboards.web.chart import (
    MAX_POINTS,
    MAX_RECORDS,
    Point,
    build_chart,
    label_box,
    mark_records,
    nice_step,
    text_width,
    tick_text,
)
from tests.helpers import PWC_DATA


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


def test_record_labels_never_overlap_each_other_or_any_point_and_stay_in_the_plot():
    # Ten records on ten days, then one four years on: room to name a few, not all.
    points = [
        point(rank, f"2020-01-{rank:02d}", 1 + rank / 1000, model=f"A long model name {rank}")
        for rank in range(1, 11)
    ]
    points.append(point(11, "2024-01-01", 9, model="The newest"))
    chart = build_chart("m", "higher", points)
    assert_labels_are_clear(chart)
    assert 2 <= len(chart.labels) < 11
    assert chart.labels[0].text == "The newest"  # the newest record is named first


def test_labels_on_a_dense_real_board_are_clear():
    chart = build_chart("Top 1 Accuracy", "higher", imagenet_points())
    assert len(chart.labels) >= 5
    assert_labels_are_clear(chart)
    assert chart.labels[0].text == "OmniVec"  # the record holder keeps its name


def test_a_label_goes_where_the_other_results_are_not():
    # Every other result is on the worse side of the best-so-far line.
    points = [point(1, "2020-01-01", 5), point(2, "2021-06-01", 1), point(3, "2022-01-01", 9)]
    higher = build_chart("m", "higher", points)
    assert higher.labels[0].y < points[2].y  # above its point
    points = [point(1, "2020-01-01", 5), point(2, "2021-06-01", 9), point(3, "2022-01-01", 1)]
    lower = build_chart("m", "lower", points)
    assert lower.labels[0].y > points[2].y  # below


def assert_labels_are_clear(chart):
    label_boxes = [label_box(label) for label in chart.labels]
    for index, box in enumerate(label_boxes):
        assert chart.left <= box[0] and box[2] <= chart.right
        assert chart.top <= box[1] and box[3] <= chart.bottom
        assert not any(overlap(box, other) for other in label_boxes[index + 1 :])
        for p in chart.points:
            assert not overlap(box, (p.x - 4, p.y - 4, p.x + 4, p.y + 4)), (box, p)


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def imagenet_points():
    """PwC's ImageNet board: 930 dated Top-1 results from 2015 to 2023."""
    rows = json.loads(
        (PWC_DATA / "pwc-sota-page_image-classification-on-imagenet.json").read_text()
    )
    return [
        Point(
            rank=row["rank"],
            model=row["Model"],
            date=datetime.date.fromisoformat(row["evaluation_date"]),
            number=parse_metric_value(row["metrics"]["Top 1 Accuracy"]),
            raw=row["metrics"]["Top 1 Accuracy"],
        )
        for row in rows
        if row["evaluation_date"] and row["metrics"]["Top 1 Accuracy"]
    ]


# A big board: every record and the newest result stay, the rest are thinned.


def many(count, start="2015-01-01", days=3650, seed=7):
    rng = random.Random(seed)
    first = datetime.date.fromisoformat(start)
    return [
        point(rank, str(first + datetime.timedelta(days=rng.randrange(days))), rng.random() * 100)
        for rank in range(1, count + 1)
    ]


@pytest.mark.parametrize("direction", ["higher", "lower", None])
def test_thinning_keeps_every_record_and_the_newest_result(direction):
    points = many(5000)
    newest = max(points, key=lambda p: p.date)
    records = mark_records(
        [Point(p.rank, p.model, p.date, p.number, p.raw) for p in points], direction
    )
    chart = build_chart("m", direction, points)
    assert len(chart.points) <= MAX_POINTS
    assert len(chart.points) > MAX_POINTS * 0.9  # the budget is used, not wasted
    assert chart.total == 5000
    assert [p.rank for p in chart.records] == [p.rank for p in records]
    assert {p.rank for p in records} <= {p.rank for p in chart.points}
    assert newest.date == max(p.date for p in chart.points)
    # The cloud keeps its outline: the lowest and highest results are plotted.
    numbers = [p.number for p in chart.points]
    assert min(numbers) == min(p.number for p in points)
    assert max(numbers) == max(p.number for p in points)
    if direction:
        assert chart.thinned_note.endswith("every record-setting result is shown.")
        assert chart.thinned_note.startswith(f"{len(chart.points)} of 5,000 results plotted")


def test_thinning_is_the_same_for_the_same_rows():
    first = build_chart("m", "higher", many(3000))
    second = build_chart("m", "higher", list(reversed(many(3000))))
    assert [p.rank for p in first.points] == [p.rank for p in second.points]


def test_a_board_that_fits_is_plotted_whole():
    chart = build_chart("m", "higher", many(MAX_POINTS))
    assert len(chart.points) == MAX_POINTS and chart.thinned_note == ""


def test_a_board_where_every_result_is_a_record_stays_bounded():
    # Each result beats the one before: 20,000 records.
    first = datetime.date(2000, 1, 1)
    points = [
        point(rank, str(first + datetime.timedelta(days=rank // 3)), rank)
        for rank in range(1, 20_001)
    ]
    chart = build_chart("m", "higher", points)
    assert chart.record_total == 20_000
    assert len(chart.records) <= MAX_RECORDS < len(points)
    assert len(chart.points) <= MAX_POINTS
    assert chart.records[0].rank == 1 and chart.records[-1].rank == 20_000
    assert len(chart.frontier) < 20_000  # one step per column of the canvas at most
    assert chart.thinned_note == (
        f"{len(chart.points)} of 20,000 results plotted, among them {len(chart.records)} of the"
        " 20,000 record-setting results; the best-so-far line follows all of them."
    )
    assert len(chart.points_markup()) < 100_000


# Ticks.


def x_ticks(first, last):
    return build_chart("m", "higher", [point(1, first, 1), point(2, last, 2)]).x_ticks


def test_a_board_spanning_one_year_gets_month_ticks():
    texts = [tick.text for tick in x_ticks("2021-01-10", "2021-12-20")]
    assert len(texts) >= 4
    assert all(
        re.fullmatch(r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 202[12]", t) for t in texts
    )


def test_a_board_spanning_ten_years_gets_year_ticks():
    texts = [tick.text for tick in x_ticks("2013-05-01", "2023-05-01")]
    assert 4 <= len(texts) <= 12
    assert all(re.fullmatch(r"20\d\d", t) for t in texts)
    assert texts == sorted(texts)


@pytest.mark.parametrize(
    ("first", "last"),
    [
        ("2020-06-15", "2020-06-15"),
        ("2020-01-01", "2020-01-31"),
        ("2019-12-31", "2021-12-31"),
        ("1950-01-01", "2024-01-01"),
        ("0001-01-01", "9999-12-31"),
    ],
)
def test_never_a_single_tick_and_never_touching(first, last):
    ticks = x_ticks(first, last)
    assert len(ticks) >= 2
    for left, right in zip(ticks, ticks[1:], strict=False):
        room = (text_width(left.text) + text_width(right.text)) / 2
        assert right.position - left.position > room


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
