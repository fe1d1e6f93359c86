"""Reading numbers out of the archive's metric strings (SPEC 1.2).

The string is what the site shows; the number parsed here is only used to sort
and to plot, so a string with no number simply has none.
"""

import math
import re

# A leading number: optional sign, digits with optional thousands separators,
# optional decimals and exponent; then an optional K/M/B scale that is not the
# start of a longer word ("2440M" is 2.44e9, "12Mb" is not scaled).
_LEADING_NUMBER = re.compile(
    r"""
    (?P<number>
        [+-]?
        (?: [1-9]\d{0,2}(?:,\d{3})+ | \d+ )? (?: \.\d+ )?
        (?: [eE][+-]?\d+ )?
    )
    \s*
    (?P<scale>[KMB](?![A-Za-z]))?
    """,
    re.VERBOSE,
)

_SCALE = {"K": 1e3, "M": 1e6, "B": 1e9}


def parse_metric_value(raw):
    """Return the number a metric string starts with, or None.

    `%`, thousands separators and a `± x` tail are ignored; a K, M or B suffix
    scales the number; any other unit after it ("95040G") is ignored.
    """
    if raw is None:
        return None
    text = str(raw).strip()
    match = _LEADING_NUMBER.match(text)
    assert match is not None  # every part of the pattern is optional: "" matches
    number = match.group("number")
    if not any(ch.isdigit() for ch in number):
        return None
    try:
        value = float(number.replace(",", ""))
    except ValueError:
        # "1.5e" or similar: a mantissa whose exponent never came.
        return None
    scale = match.group("scale")
    if scale:
        value *= _SCALE[scale]
    # "1e999" parses to infinity, which no chart or sort can place.
    return value if math.isfinite(value) else None


def value_unit(raw):
    """What a metric string writes after its number, its K/M/B scale and any `± x` tail.

    "85.3%" -> "%", "95040G" -> "G", "0.84 ± 0.01" -> "", "2440M" -> "" (a
    scale parse_metric_value() applies, so 2440M and 1.2B compare as numbers).
    Two values of one metric with different units may not measure alike.
    """
    text = str(raw or "").strip()
    match = _LEADING_NUMBER.match(text)
    assert match is not None  # every part of the pattern is optional
    return text[match.end() :].split("±")[0].strip()


def value_scale(raw):
    """(K, M, B or "", the factor it scales by, how many decimals the written number has).

    What a difference between two values is written in (format.compare).
    """
    match = _LEADING_NUMBER.match(str(raw or "").strip())
    assert match is not None
    number = match.group("number")
    decimals = len(number.split(".", 1)[1].split("e")[0].split("E")[0]) if "." in number else 0
    scale = match.group("scale") or ""
    return scale, _SCALE.get(scale, 1.0), decimals
