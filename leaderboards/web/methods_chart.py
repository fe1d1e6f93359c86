"""A method's use over the years: one bar a year, laid out here, drawn by the template.

The counts are the papers the site holds that use the method, by their year;
the page shows them as a table too, so the chart is never the only way to
read them.
"""

from dataclasses import dataclass

# The canvas, in SVG units (site.css scales it to the page's width).
WIDTH, HEIGHT = 600, 180
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 16, 24
# A method in use for longer shows its latest years: the table holds them all.
MOST_YEARS = 40


@dataclass(slots=True)
class Bar:
    year: int
    count: int
    x: float
    y: float
    width: float
    height: float
    centre: float
    label: bool


@dataclass(slots=True)
class YearsChart:
    bars: list
    years: list
    most: int
    width: int = WIDTH
    height: int = HEIGHT
    baseline: float = HEIGHT - BOTTOM
    left: int = LEFT
    top: int = TOP

    @property
    def summary(self):
        first, last = self.years[0], self.years[-1]
        peak = max(self.years, key=lambda item: (item[1], item[0]))
        return (
            f"Papers using it each year from {first[0]} to {last[0]}; "
            f"the most, {peak[1]}, in {peak[0]}."
        )


def years_chart(years):
    """The layout for [(year, papers)] in year order; None when no paper is dated."""
    counts = {int(year): count for year, count in years if year is not None}
    if not counts:
        return None
    last = max(counts)
    first = max(min(counts), last - MOST_YEARS + 1)
    filled = [(year, counts.get(year, 0)) for year in range(first, last + 1)]
    most = max(count for _, count in filled) or 1
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - TOP - BOTTOM
    step = plot_width / len(filled)
    # Label every year when they fit, else every few, always the last.
    every = max(1, round(len(filled) / 10))
    bars = []
    for index, (year, count) in enumerate(filled):
        height = plot_height * count / most
        bars.append(
            Bar(
                year=year,
                count=count,
                x=round(LEFT + index * step + step * 0.1, 2),
                y=round(TOP + plot_height - height, 2),
                width=round(step * 0.8, 2),
                height=round(height, 2),
                centre=round(LEFT + index * step + step / 2, 2),
                label=(len(filled) - 1 - index) % every == 0,
            )
        )
    return YearsChart(bars=bars, years=[(y, c) for y, c in sorted(counts.items())], most=most)
