"""The progress chart: each dated result as a point over paper dates (SPEC 1.2).

Plain functions on plain data: which results set a record, and where every
mark goes on the SVG canvas. The template only draws what `build_chart` laid out.
"""

import datetime
import math
from dataclasses import dataclass, field
from html import escape

from django.utils.safestring import mark_safe

WIDTH = 960
HEIGHT = 340
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 28, 36
# Record labels: a rough text box (11px type) to keep labels from overlapping;
# a label with no free place is left to the point's tooltip.
LABEL_CHARS = 28
CHAR_WIDTH, LABEL_HEIGHT = 6.6, 13
ABOVE, BELOW = -8, 17


@dataclass(slots=True)
class Point:
    rank: int
    model: str
    date: datetime.date
    number: float
    raw: str
    record: bool = False
    x: float = 0.0
    y: float = 0.0
    label: str = ""
    label_dy: int = ABOVE
    # The tooltip opens towards the middle so it stays on the canvas.
    tip_anchor: str = "start"


@dataclass(slots=True)
class Tick:
    position: float
    text: str


@dataclass(slots=True)
class Chart:
    metric: str
    direction: str | None
    points: list
    records: list
    frontier: str = ""
    x_ticks: list = field(default_factory=list)
    y_ticks: list = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM

    def points_markup(self):
        """The points as SVG, built here rather than in the template.

        A big board has thousands of points, and a template loop costs some
        twenty times more per point than this; every data string is escaped
        (quotes too: the model name goes into an attribute).
        """
        parts = []
        for point in self.points:
            model, raw, day = escape(point.model), escape(point.raw), point.date.isoformat()
            shift = 8 if point.tip_anchor == "start" else -8
            label = ""
            if point.label:
                label = (
                    f'<text class="label" x="{point.x}" y="{point.y}" dx="{shift}" '
                    f'dy="{point.label_dy}" text-anchor="{point.tip_anchor}">'
                    f"{escape(point.label)}</text>"
                )
            parts.append(
                # The <title> is the point's accessible name as well as its tooltip.
                # The tooltip's offset and anchor come from the stylesheet (".end"):
                # on a big board, every byte here is paid a few thousand times.
                f'<g class="point{" record" if point.record else ""}'
                f'{" end" if point.tip_anchor == "end" else ""}" tabindex="0">'
                f"<title>{model}: {raw} ({day})</title>"
                f'<circle cx="{point.x}" cy="{point.y}" r="{5 if point.record else 4}"/>{label}'
                f'<text class="tip" x="{point.x}" y="{point.y}">{model}: {raw}</text></g>'
            )
        return mark_safe("".join(parts))  # noqa: S308 - built from escaped parts above


def is_better(number, best, direction):
    if best is None:
        return True
    return number > best if direction == "higher" else number < best


def mark_records(points, direction):
    """Flag the results that beat every earlier one; return them in date order.

    Results of one day are taken in archive order, so of two equal results on
    the same day only the first is a record. Unknown direction: no records.
    """
    if direction not in ("higher", "lower"):
        return []
    records = []
    best = None
    for point in sorted(points, key=lambda p: (p.date, p.rank)):
        if is_better(point.number, best, direction):
            best = point.number
            point.record = True
            records.append(point)
    return records


def nice_step(span, target=5):
    """A 1, 2 or 5 times a power of ten step giving about `target` ticks."""
    if span <= 0:
        return 1.0
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if raw <= multiple * power:
            return multiple * power
    return 10 * power


def tick_text(value, step):
    """Axis labels: K/M/B for large values, only as many decimals as the step needs."""
    suffix = ""
    for scale, letter in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= scale and step >= scale / 10:
            value, step, suffix = value / scale, step / scale, letter
            break
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:.{decimals}f}{suffix}"


def _value_range(numbers):
    low, high = min(numbers), max(numbers)
    if low == high:
        pad = abs(low) * 0.05 or 1.0
        return low - pad, high + pad
    pad = (high - low) * 0.06
    return low - pad, high + pad


def _date_range(dates):
    low, high = min(dates), max(dates)
    pad = max(30, (high - low).days // 25)
    return low - datetime.timedelta(days=pad), high + datetime.timedelta(days=pad)


def _year_ticks(low, high, scale_x):
    years = list(range(low.year + 1, high.year + 1))
    every = max(1, math.ceil(len(years) / 8))
    return [
        Tick(scale_x(datetime.date(year, 1, 1)), str(year))
        for year in years
        if year % every == 0 or every == 1
    ]


def _short(text):
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def build_chart(metric, direction, points):
    """Lay out `points` (dated, with a number) on the canvas; None when there are none."""
    if not points:
        return None
    low_y, high_y = _value_range([p.number for p in points])
    if not math.isfinite(high_y - low_y):
        # Numbers near the float limit ("1e308" and "-1e308") leave no scale to draw on.
        return None
    records = mark_records(points, direction)
    chart = Chart(metric=metric, direction=direction, points=points, records=records)
    low_x, high_x = _date_range([p.date for p in points])
    days = (high_x - low_x).days

    def scale_x(day):
        return round(chart.left + (day - low_x).days / days * (chart.right - chart.left), 1)

    def scale_y(number):
        share = (number - low_y) / (high_y - low_y)
        return round(chart.bottom - share * (chart.bottom - chart.top), 1)

    middle = (chart.left + chart.right) / 2
    for point in points:
        point.x, point.y = scale_x(point.date), scale_y(point.number)
        point.tip_anchor = "start" if point.x < middle else "end"

    step = nice_step(high_y - low_y)
    first = math.ceil(low_y / step)
    chart.y_ticks = [
        Tick(scale_y(index * step), tick_text(index * step, step))
        for index in range(first, math.floor(high_y / step) + 1)
    ]
    chart.x_ticks = _year_ticks(low_x, high_x, scale_x)

    if records:
        # Best so far: flat until the next record, then a step to it, on to the last date.
        steps = [f"M{records[0].x},{records[0].y}"]
        for record in records[1:]:
            steps.append(f"H{record.x}V{record.y}")
        steps.append(f"H{scale_x(max(p.date for p in points))}")
        chart.frontier = "".join(steps)
        _place_labels(chart, records)
    return chart


def _label_box(point, text, dy):
    width = len(text) * CHAR_WIDTH
    left = point.x + 8 if point.tip_anchor == "start" else point.x - 8 - width
    baseline = point.y + dy
    return left, baseline - LABEL_HEIGHT + 3, left + width, baseline + 3


def _overlaps(box, other):
    return box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]


def _place_labels(chart, records):
    """Name each record above its point, else below, else not at all.

    Newest records first: the current state of the art is the label that matters most.
    """
    taken = []
    for record in reversed(records):
        text = _short(record.model)
        for dy in (ABOVE, BELOW):
            box = _label_box(record, text, dy)
            inside = chart.left <= box[0] and box[2] <= chart.right and box[1] >= 0
            if inside and not any(_overlaps(box, other) for other in taken):
                record.label, record.label_dy = text, dy
                taken.append(box)
                break
