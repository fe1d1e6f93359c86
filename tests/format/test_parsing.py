import json

import pytest

from leaderboards.format.values import parse_metric_value
from tests.helpers import PWC_DATA


@pytest.mark.parametrize(
    ("raw", "number"),
    [
        ("0.8428 ± 0.0014", 0.8428),  # OGB, sota-extractor_ogb.json
        ("92.4%", 92.4),
        ("2179678", 2179678.0),
        ("2440M", 2.44e9),  # ImageNet params, as PwC parsed it
        ("95040G", 95040.0),  # GFLOPs: a unit that is not a scale
        (" 82", 82.0),
        (None, None),  # ANLI rows with no value
        ("—", None),
        ("", None),
        ("N/A", None),
        (" 88.1 ", 88.1),
        ("1e-3", 0.001),
        ("1,234.5", 1234.5),
        ("0,626", 0.0),  # not a thousands group: PwC read it as 0 too
        ("-3.2", -3.2),
        ("3B", 3e9),
        ("12K", 12000.0),
        ("12Mb", 12.0),  # a word, not a scale
        ("1e999", None),  # no chart can place infinity
        ("+", None),
    ],
)
def test_parse_metric_value(raw, number):
    if number is None:
        assert parse_metric_value(raw) is None
    else:
        assert parse_metric_value(raw) == pytest.approx(number)


# Where PwC's parser and SPEC 1.2 part: PwC read "1B" as 0; the spec reads B as billion.
KNOWN_DISAGREEMENTS = {("Number of params", "1B")}


@pytest.mark.parametrize(
    "name",
    [
        "pwc-sota-page_image-classification-on-imagenet.json",
        "pwc-sota-page_speech-recognition-on-aishell-1.json",
        "pwc-sota-page_natural-language-inference-on-anli-test.json",
    ],
)
def test_values_parse_as_papers_with_code_parsed_them(name):
    """PwC's pages stored a parsed number beside each string: agree with it."""
    rows = json.loads((PWC_DATA / name).read_text(encoding="utf-8"))
    disagreements, compared = set(), 0
    for row in rows:
        for metric, raw in row["metrics"].items():
            if raw is None:
                continue
            theirs, ours = row["raw_metrics"].get(metric), parse_metric_value(raw)
            compared += 1
            if ours != pytest.approx(theirs, rel=1e-9):
                disagreements.add((metric, raw))
    assert compared > 10
    assert disagreements <= KNOWN_DISAGREEMENTS
