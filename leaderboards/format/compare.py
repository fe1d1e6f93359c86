"""Who is ahead on a metric, and by how much: the compare view's reckoning, with no database.

Values are compared as parse_metric_value() reads them (SPEC 1.2) and only
where the metric's direction is known; the strings themselves are shown as
the archive wrote them, beside a difference computed here.
"""

import dataclasses

from leaderboards.format.values import parse_metric_value, value_scale, value_unit

HIGHER, LOWER = "higher", "lower"


@dataclasses.dataclass(frozen=True, slots=True)
class Standing:
    """One model's value of a metric beside the others'."""

    raw: str | None  # as the archive wrote it; None: the model has no value here
    ahead: bool = False  # holds the best number (ties: each of them)
    behind_by: str = ""  # the difference to the best, written out; "" when ahead or unranked


@dataclasses.dataclass(frozen=True, slots=True)
class Comparison:
    standings: list  # a Standing per model, in the order given
    # Why no one is ahead: "direction" (unknown), "numbers" (fewer than two), or "".
    undecided: str = ""
    # The values being compared write different units after their numbers.
    mixed_units: bool = False

    @property
    def level(self):
        """Every number is the best: no one is ahead of anyone."""
        ranked = [s for s in self.standings if s.ahead or s.behind_by]
        return not self.undecided and all(s.ahead for s in ranked)


def compare(raws, direction):
    """Comparison of the values `raws` (a string or None per model) by a metric's `direction`
    ("higher", "lower" or None: unknown, when no one is ahead)."""
    numbers = [parse_metric_value(raw) if raw is not None else None for raw in raws]
    present = [index for index, number in enumerate(numbers) if number is not None]
    units = {value_unit(raws[index]) for index in present}
    mixed = len(units) > 1
    if direction not in (HIGHER, LOWER):
        return Comparison([Standing(raw) for raw in raws], "direction", mixed)
    if len(present) < 2:
        return Comparison([Standing(raw) for raw in raws], "numbers", mixed)
    chosen = max if direction == HIGHER else min
    best = chosen(number for number in numbers if number is not None)
    best_raw = next(raws[index] for index in present if numbers[index] == best)
    standings = []
    for raw, number in zip(raws, numbers, strict=True):
        if number is None:
            standings.append(Standing(raw))
        elif number == best:
            standings.append(Standing(raw, ahead=True))
        else:
            gap = difference(best, number, best_raw, raw, _unit(units))
            standings.append(Standing(raw, behind_by=gap))
    return Comparison(standings, "", mixed)


def _unit(units):
    """The one unit all values share ("" where they differ: the difference is of numbers)."""
    return next(iter(units)) if len(units) == 1 else ""


def difference(best, number, best_raw, raw, unit=""):
    """|best - number| written as the values are: in the best value's K/M/B scale, to as
    many decimals as the more precise of the two, then their shared unit."""
    scale, factor, decimals = value_scale(best_raw)
    decimals = max(decimals, value_scale(raw)[2])
    gap = abs(best - number) / factor
    return f"{gap:,.{decimals}f}{scale}{unit}"
