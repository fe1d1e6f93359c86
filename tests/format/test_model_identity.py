"""A model's identity (format.rules.model_slug) and who is ahead (format.compare)."""

from leaderboards.format.compare import compare
from leaderboards.format.rules import is_model_slug, model_name_key, model_slug
from leaderboards.format.values import value_unit

PAPER = "/paper/deep-residual-learning-for-image"


def test_case_and_spacing_make_no_other_model():
    assert model_name_key("  ResNet-50\t (ours) ") == "resnet-50 (ours)"
    assert model_slug("ResNet-50", PAPER) == model_slug(" resnet-50  ", PAPER)


def test_another_name_or_another_paper_is_another_model():
    assert model_slug("ResNet-50", PAPER) != model_slug("ResNet50", PAPER)
    assert model_slug("ResNet-50", PAPER) != model_slug("ResNet-50", "/paper/other")
    assert model_slug("ResNet-50", PAPER) != model_slug("ResNet-50", None)


def test_the_slug_is_readable_url_safe_and_fixed():
    # Fixed: a change to the rule would move every model's address.
    assert model_slug("ResNet-50", PAPER) == "resnet-50-ab1bad9d6ca3"
    assert is_model_slug(model_slug("模型 (ViT/B-16)", None))
    long = model_slug("A" * 500, PAPER)
    assert is_model_slug(long) and len(long) <= 80
    assert not is_model_slug("compare")
    assert not is_model_slug("resnet-50-CE2BB83C93C4")


def test_the_best_value_is_ahead_and_the_others_behind_by_the_difference():
    higher = compare(["85.3%", "84.1%", None], "higher")
    assert [s.ahead for s in higher.standings] == [True, False, False]
    assert higher.standings[1].behind_by == "1.2%"
    assert higher.standings[2].raw is None and not higher.standings[2].behind_by
    lower = compare(["0.50", "0.45"], "lower")
    assert lower.standings[1].ahead and lower.standings[0].behind_by == "0.05"
    assert not lower.mixed_units and not lower.undecided


def test_an_unknown_direction_puts_no_one_ahead():
    unknown = compare(["96.36", "95.26"], None)
    assert unknown.undecided == "direction"
    assert not any(s.ahead or s.behind_by for s in unknown.standings)


def test_values_of_different_units_are_compared_as_numbers_with_a_caveat():
    mixed = compare(["85.3%", "84.1"], "higher")
    assert mixed.mixed_units
    assert mixed.standings[1].behind_by == "1.2"
    assert value_unit("95040G") == "G" and value_unit("0.84 ± 0.01") == ""


def test_a_scaled_difference_is_written_in_the_best_values_scale():
    scaled = compare(["2440M", "1.2B"], "higher")
    assert not scaled.mixed_units
    assert scaled.standings[1].behind_by == "1,240.0M"


def test_equal_values_are_level_and_one_number_decides_nothing():
    assert compare(["1.0", "1.0"], "higher").level
    assert compare(["1.0", "—"], "higher").undecided == "numbers"
