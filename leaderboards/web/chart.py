"""The progress chart: each dated result as a point over paper dates (SPEC 1.2).

Plain functions on plain data: which results set a record, which of a big
board's results are plotted, and where every mark and label goes on the SVG
canvas. The template only draws what `build_chart` laid out.
"""

import datetime
import math
from dataclasses import dataclass, field
from html import escape
from operator import attrgetter

from django.utils.safestring import mark_safe

from leaderboards.web.words import MONTHS, when

# The canvas, in SVG units. The value axis is labelled on both sides: a phone
# opens the chart at its right end, on the newest results (see site.css).
WIDTH, HEIGHT = 1000, 360
LEFT, RIGHT, TOP, BOTTOM = 60, 60, 20, 40
# Chart type in SVG units, the same at every screen width (site.css keeps it so):
# labels are placed here, on the server, so their size must be known here.
FONT = 12
RADIUS, RECORD_RADIUS = 4, 5.5

# A page's size must not grow with its rows. Past MAX_POINTS results the chart
# keeps every record and thins the others; past MAX_RECORDS records (a board that
# improves with every result) it thins those too, and the best-so-far line still
# follows them all.
MAX_POINTS = 400
MAX_RECORDS = 200

LABEL_CHARS = 26
TIP_CHARS = 60
# Below this span the x axis counts months: a year's board gets more than one tick.
MONTH_TICKS_UNDER_DAYS = 800
MOST_TICKS = 12


@dataclass(slots=True, eq=False)
class Point:
    rank: int
    model: str
    date: datetime.date
    number: float
    raw: str
    record: bool = False
    added: bool = False  # a result editors added: no archive rank, a marker of its own
    x: float = 0.0
    y: float = 0.0


@dataclass(slots=True)
class Tick:
    position: float
    text: str


@dataclass(slots=True)
class Label:
    x: float
    y: float
    anchor: str
    text: str


@dataclass(slots=True)
class Chart:
    metric: str
    direction: str | None
    points: list  # what is plotted: other results first, then records oldest first
    records: list  # the plotted records, oldest first
    total: int = 0  # results with a date and a number, plotted or not
    record_total: int = 0
    added_total: int = 0  # of them, results editors added
    frontier: str = ""
    labels: list = field(default_factory=list)
    x_ticks: list = field(default_factory=list)
    y_ticks: list = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM

    @property
    def thinned_note(self):
        """What the caption says when not every result is plotted; "" when all are."""
        if len(self.points) == self.total:
            return ""
        note = f"{len(self.points):,} of {self.total:,} results plotted"
        if len(self.records) < self.record_total:
            return (
                f"{note}, among them {len(self.records):,} of the {self.record_total:,}"
                " record-setting results; the best-so-far line follows all of them."
            )
        if self.records:
            return f"{note}; every record-setting result is shown."
        return f"{note}: the highest and lowest of each stretch of time, and the newest."

    def points_markup(self):
        """The points as SVG, built here rather than in the template.

        A template loop costs some twenty times more per point than this; every
        data string is escaped (quotes too: the model name goes into an attribute).
        Only records are tab stops: the record table lists the same results, and
        a thousand stops would keep a keyboard from ever reaching the results.
        """
        middle_x, middle_y = (self.left + self.right) / 2, (self.top + self.bottom) / 2
        parts = []
        for point in self.points:
            model, raw, day = escape(point.model), escape(point.raw), when(point.date)[1]
            tip = escape(_short(point.model, TIP_CHARS))
            # The tip opens towards the middle of the canvas, so it stays on it;
            # its offsets come from the stylesheet, not from bytes paid per point.
            classes = "point record" if point.record else "point"
            if point.added:
                classes += " added"
            if point.x > middle_x:
                classes += " end"
            if point.y > middle_y:
                classes += " up"
            focus = ' tabindex="0"' if point.record else ""
            by = " (added by editors)" if point.added else ""
            parts.append(
                # The <title> is the point's accessible name as well as its hover tip.
                f'<g class="{classes}"{focus}><title>{model}: {raw} ({day}){by}</title>'
                f"{_marker(point)}"
                f'<text class="tip" x="{point.x}" y="{point.y}">{tip}: {raw} ({day})</text></g>'
            )
        return mark_safe("".join(parts))  # noqa: S308 - built from escaped parts above


def mark_records(points, direction):
    """Flag the results that beat every earlier one; return them in date order.

    Results of one day are taken in archive order, so of two equal results on
    the same day only the first is a record. Unknown direction: no records.
    """
    return _mark_in_time(in_time(points), direction)


def _mark_in_time(points, direction):
    if direction not in ("higher", "lower"):
        return []
    records = []
    best = None
    sign = 1 if direction == "higher" else -1
    for point in points:
        if best is None or point.number * sign > best:
            best = point.number * sign
            point.record = True
            records.append(point)
    return records


def in_time(points):
    """`points` by date, results of one day in archive order."""
    # Two sorts by one key each are faster than one by a pair: the points
    # mostly come in archive order, which Python's sort runs through at once.
    return sorted(sorted(points, key=attrgetter("rank")), key=attrgetter("date"))


def _radius(point):
    return RECORD_RADIUS if point.record else RADIUS


def _marker(point):
    """A circle; a diamond for a result editors added, so it reads apart without colour."""
    x, y, r = point.x, point.y, _radius(point)
    if not point.added:
        return f'<circle cx="{x}" cy="{y}" r="{r}"/>'
    r = round(r * 1.35, 2)
    return f'<path class="diamond" d="M{x} {y - r}L{x + r} {y}L{x} {y + r}L{x - r} {y}Z"/>'


def _buckets(points, count):
    """`points` (in time order) grouped into `count` equal stretches of time."""
    low = points[0].date
    days = (points[-1].date - low).days + 1
    groups = [[] for _ in range(count)]
    for point in points:
        groups[(point.date - low).days * count // days].append(point)
    return [group for group in groups if group]


def _outline(points, budget):
    """The lowest and the highest of `points` (in time order) in each stretch of
    time, at the finest grain whose choice fits `budget`: the cloud keeps its shape.
    """
    if budget < 2 or not points:
        return set()
    # Each day's extremes first, as a stretch is made of whole days. Of equal
    # numbers the first in archive order wins, so the same rows give the same points.
    first = points[0].date
    in_time = []
    for point in points:
        if not in_time or in_time[-1][0] != point.date:
            in_time.append([point.date, point, point])
        elif point.number < in_time[-1][1].number:
            in_time[-1][1] = point
        elif point.number > in_time[-1][2].number:
            in_time[-1][2] = point
    for day in in_time:
        day[0] = (day[0] - first).days
    span = in_time[-1][0] + 1

    def choose(stretches):
        chosen, current, low, high = set(), None, None, None
        for offset, day_low, day_high in in_time:
            stretch = offset * stretches // span
            if stretch != current:
                if current is not None:
                    chosen.update((low, high))
                current, low, high = stretch, day_low, day_high
                continue
            if day_low.number < low.number:
                low = day_low
            if day_high.number > high.number:
                high = day_high
        chosen.update((low, high))
        return chosen

    # More stretches, more points: the most stretches that fit, by halving.
    best, fewest, most = set(), 1, span
    while fewest <= most:
        stretches = (fewest + most) // 2
        chosen = choose(stretches)
        if len(chosen) <= budget:
            best, fewest = chosen, stretches + 1
        else:
            most = stretches - 1
    # Many results on few days leave room even at a day's grain: spread it evenly.
    others = [p for p in points if p not in best]
    room = min(budget - len(best), len(others))
    best.update(others[index * len(others) // room] for index in range(room))
    return best


def thin(points, records, limit=MAX_POINTS, record_limit=MAX_RECORDS):
    """The results a chart plots, and the records among them: all up to `limit`.

    `points` come in time order, as `records` do.

    Past it, every record (up to `record_limit`; past that, the latest record of
    each stretch of time, and the first), the newest result, and of the rest the
    highest and the lowest of each stretch of time, as many as fit in `limit`.
    """
    if len(points) <= limit:
        return points, records
    shown_records = records
    if len(records) > record_limit:
        latest = [group[-1] for group in _buckets(records, record_limit - 1)]
        shown_records = [records[0], *(r for r in latest if r is not records[0])]
    # The newest result, and every result editors added: few, and the reason to look.
    kept = {*shown_records, points[-1], *(p for p in points if p.added)}
    rest = [p for p in points if p not in kept and not p.record]
    kept |= _outline(rest, limit - len(kept))
    return [p for p in points if p in kept], shown_records


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


# Text widths in ems for DejaVu Sans Bold, the widest of the fonts the site's font
# list falls back to: measured wide, a label never takes more room than it was given.
_EM = [
    (0.4, "'ijlIJ/\\|,.:; "),
    (0.53, '-f!()[]tr_`"*'),
    (0.87, "ABCDGHKNOQRUVX#+<=>^~&"),
    (1.11, "mwMW@%"),
]


def text_width(text, size=FONT):
    """An upper bound of `text`'s width at `size`; anything not in the table is 0.72 em,
    and a character beyond ASCII (an ideograph is a full em) counts 1 em."""
    ems = 0.0
    for char in text:
        if not char.isascii():
            ems += 1.0
            continue
        ems += next((em for em, chars in _EM if char in chars), 0.72)
    return ems * size


def _value_range(numbers):
    low, high = min(numbers), max(numbers)
    if low == high:
        pad = abs(low) * 0.05 or 1.0
        return low - pad, high + pad
    pad = (high - low) * 0.12
    return low - pad, high + pad


def _date_range(low, high):
    """The x axis' first and last day: the results padded by a few percent.

    At least 35 days each side, so even a single day spans three months starts
    (two ticks); clamped to the calendar Python can hold.
    """
    pad = datetime.timedelta(days=max(35, (high - low).days // 25))
    start = low - pad if low - datetime.date.min > pad else datetime.date.min
    end = high + pad if datetime.date.max - high > pad else datetime.date.max
    return start, end


def _month_starts(low, high, months):
    """First days of every `months`-th month (counted from January) inside (low, high]."""
    index = low.year * 12 + low.month  # the month after low's, as year * 12 + month - 1
    index += -index % months
    while True:
        year, month = divmod(index, 12)
        if year > high.year or (year == high.year and month + 1 > high.month):
            return
        yield datetime.date(year, month + 1, 1)
        index += months


def _date_ticks(low, high, scale_x, room):
    """Month ticks ("Mar 2021") for a span under about two years, year ticks beyond.

    The step is the smallest whose ticks fit `room` SVG units without touching.
    """
    by_month = (high - low).days < MONTH_TICKS_UNDER_DAYS
    if by_month:
        widest = text_width("May 2000")
        steps = (1, 2, 3, 6, 12)
    else:
        widest = text_width("2000")
        steps = tuple(years * 12 for years in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))
    most = max(2, min(MOST_TICKS, int(room // (widest + 2 * FONT))))
    for months in steps:
        days = list(_month_starts(low, high, months))
        if len(days) <= most:
            break

    def text(day):
        return f"{MONTHS[day.month - 1]} {day.year}" if by_month else str(day.year)

    return [Tick(scale_x(day), text(day)) for day in days]


def _short(text, limit):
    return text if len(text) <= limit else text[: limit - 1] + "…"


def build_chart(metric, direction, points):
    """Lay out `points` (dated, with a number) on the canvas; None when there are none."""
    if not points:
        return None
    low_y, high_y = _value_range([p.number for p in points])
    if not math.isfinite(high_y - low_y):
        # Numbers near the float limit ("1e308" and "-1e308") leave no scale to draw on.
        return None
    points = in_time(points)
    all_records = _mark_in_time(points, direction)
    shown, records = thin(points, all_records)
    chart = Chart(
        metric=metric,
        direction=direction,
        # Records last: drawn above the other results, and tabbed through oldest first.
        points=[p for p in shown if not p.record] + records,
        records=records,
        total=len(points),
        record_total=len(all_records),
        added_total=sum(1 for p in points if p.added),
    )
    low_x, high_x = _date_range(points[0].date, points[-1].date)
    days = (high_x - low_x).days

    def scale_x(day):
        return round(chart.left + (day - low_x).days / days * (chart.right - chart.left), 1)

    def scale_y(number):
        share = (number - low_y) / (high_y - low_y)
        return round(chart.bottom - share * (chart.bottom - chart.top), 1)

    for point in chart.points:
        point.x, point.y = scale_x(point.date), scale_y(point.number)

    step = nice_step(high_y - low_y)
    first = math.ceil(low_y / step)
    chart.y_ticks = [
        Tick(scale_y(index * step), tick_text(index * step, step))
        for index in range(first, math.floor(high_y / step) + 1)
    ]
    chart.x_ticks = _date_ticks(low_x, high_x, scale_x, chart.right - chart.left)

    if all_records:
        newest = scale_x(points[-1].date)
        chart.frontier = _frontier(all_records, scale_x, scale_y, newest)
        chart.labels = place_labels(chart, direction)
    return chart


def _frontier(records, scale_x, scale_y, end):
    """Best so far: flat until the next record, then a step to it, on to `end`.

    Records are steps in one direction, so those that fall on one x are one step.
    Past MAX_RECORDS records an x is a whole SVG unit: the line looks the same
    and its length is bounded by the canvas' width, not by the records.
    """
    column = round if len(records) > MAX_RECORDS else float
    steps = []
    for record in records:
        x, y = column(scale_x(record.date)), scale_y(record.number)
        if steps and steps[-1][0] == x:
            steps[-1][1] = y
        else:
            steps.append([x, y])
    first_x, first_y = steps[0]
    path = [f"M{first_x},{first_y}", *(f"H{x}V{y}" for x, y in steps[1:]), f"H{end}"]
    return "".join(path)


# Label boxes: how far a label stands off its point, and its text's extent about
# the baseline (ascenders above, descenders below).
GAP = 3
ASCENT, DESCENT = 0.95 * FONT, 0.3 * FONT


def _candidates(point, direction):
    """(anchor, x, baseline) places for a label about `point`, the likeliest free first.

    Every other result lies on the worse side of the best-so-far line, so a label
    on the better side (above for higher is better) is first, left of the point
    where the line is lower still; the sides then the worse side come after.
    """
    r = _radius(point) + GAP
    above = point.y - r - DESCENT
    below = point.y + r + ASCENT
    beside = point.y + (ASCENT - DESCENT) / 2
    better, worse = (above, below) if direction == "higher" else (below, above)
    return [
        ("end", point.x, better),
        ("middle", point.x, better),
        ("start", point.x, better),
        ("end", point.x - r, beside),
        ("start", point.x + r, beside),
        ("end", point.x, worse),
        ("middle", point.x, worse),
        ("start", point.x, worse),
    ]


def label_box(label, width=None):
    """(left, top, right, bottom) of a label's text, at most."""
    width = text_width(label.text) if width is None else width
    left = {"start": label.x, "middle": label.x - width / 2, "end": label.x - width}[label.anchor]
    return left, label.y - ASCENT, left + width, label.y + DESCENT


class _Room:
    """What is taken on the canvas, in a grid of cells so a look-up reads a few cells."""

    CELL = 48

    def __init__(self):
        self.cells = {}

    def _cells(self, box):
        left, top, right, bottom = (int(edge // self.CELL) for edge in box)
        for column in range(left, right + 1):
            for row in range(top, bottom + 1):
                yield column, row

    def take(self, box):
        for cell in self._cells(box):
            self.cells.setdefault(cell, []).append(box)

    def is_free(self, box):
        return not any(
            box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]
            for cell in self._cells(box)
            for other in self.cells.get(cell, ())
        )


def place_labels(chart, direction):
    """Name records beside their points where nothing else is; drop the rest.

    Newest records first: the current state of the art is the label that matters
    most. A label never covers a point or another label, and stays inside the
    plot; a record left unnamed is still in its tip and in the record table.
    """
    room = _Room()
    for point in chart.points:
        r = _radius(point) + 1
        room.take((point.x - r, point.y - r, point.x + r, point.y + r))
    labels = []
    for record in reversed(chart.records):
        text = _short(record.model, LABEL_CHARS)
        width = text_width(text)
        for anchor, x, y in _candidates(record, direction):
            label = Label(round(x, 1), round(y, 1), anchor, text)
            box = label_box(label, width)
            inside = (
                chart.left <= box[0]
                and box[2] <= chart.right
                and chart.top <= box[1]
                and box[3] <= chart.bottom
            )
            if inside and room.is_free(box):
                room.take(box)
                labels.append(label)
                break
    return labels
