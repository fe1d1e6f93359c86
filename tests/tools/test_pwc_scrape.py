"""The 951-row ImageNet board, from PwC's scraped page to a page file the site serves."""

import html as htmllib
import json
import re

import pytest
from django.urls import reverse

from tests.helpers import PWC_DATA
from tools import pwc_scrape

IMAGENET = PWC_DATA / "pwc-sota-page_image-classification-on-imagenet.json"
SLUG = "image-classification-on-imagenet"
NAMES = ["--task", "Image Classification", "--dataset", "ImageNet", "--area", "Computer Vision"]


@pytest.fixture
def imagenet_file(tmp_path):
    out = tmp_path / "imagenet.json"
    pwc_scrape.main([str(IMAGENET), str(out), *NAMES])
    return out


@pytest.fixture
def imagenet(load, imagenet_file):
    ok, out, err = load(imagenet_file)
    assert ok, err
    assert "1 created" in out


def test_every_scraped_row_is_served_as_scraped(imagenet, client):
    scraped = json.loads(IMAGENET.read_text(encoding="utf-8"))
    served = client.get(reverse("leaderboards:leaderboard_json", args=[SLUG])).json()
    assert len(served["rows"]) == len(scraped) == 951
    assert served["metrics"] == [
        "Top 1 Accuracy", "Number of params", "GFLOPs", "Hardware Burden",
        "Operations per network pass", "Accuarcy", "energy consumption",
    ]  # fmt: skip
    for row, source in zip(served["rows"], scraped, strict=True):
        assert row["rank_in_archive_order"] == source["rank"]
        assert row["model"] == source["Model"]
        # Blank cells included: the scrape's null stays null, no value is re-typed.
        assert row["metrics"] == source["metrics"]
        assert row["uses_additional_data"] == source["uses_additional_data"]
        assert row["paper"] == source["paper"]["url"]
        assert row["paper_title"] == source["paper"]["title"]
        published = source["paper"]["published"]
        assert row["paper_date"] == (published[:10] if published else None)
        assert row["evaluation_date"] == source["evaluation_date"]
        assert row["tags"] == [tag["name"] for tag in source["tags"]]


def test_the_board_shows_its_figures_and_states_nothing_unscraped(imagenet, client):
    served = client.get(reverse("leaderboards:leaderboard_json", args=[SLUG])).json()
    assert served["counts"] == {
        "rows": 951,
        "rows_with_code": 0,
        "rows_with_paper_page": 935,
        "rows_dated": 935,
        "rows_using_additional_data": 77,
    }
    assert served["source"]["rows_end_at"] == "2023-11-28"
    assert served["source"]["snapshot"] is None
    assert served["syntology"] is None
    assert set(served["metric_direction"]["by_metric"].values()) == {None}
    first = served["rows"][0]
    assert (first["model"], first["metrics"]["Top 1 Accuracy"]) == ("OmniVec", "92.4%")
    html = client.get(reverse("leaderboards:leaderboard", args=[SLUG])).content.decode()
    assert "Image Classification on ImageNet" in html
    assert "code not checked" in html


def test_a_file_name_without_a_slug_needs_one_given(tmp_path, capsys):
    copy = tmp_path / "imagenet.json"
    copy.write_bytes(IMAGENET.read_bytes())
    with pytest.raises(SystemExit) as stopped:
        pwc_scrape.main([str(copy), str(tmp_path / "out.json"), *NAMES])
    assert stopped.value.code == 1
    assert "give --slug" in capsys.readouterr().err
    pwc_scrape.main([str(copy), str(tmp_path / "out.json"), *NAMES, "--slug", SLUG])
    assert json.loads((tmp_path / "out.json").read_text())["url"] == f"/sota/{SLUG}"


def test_a_row_the_format_cannot_carry_is_named(tmp_path):
    rows = json.loads(IMAGENET.read_text(encoding="utf-8"))[:3]
    rows[2]["paper"]["published"] = "2023-11-07T13:45:00.000000"
    with pytest.raises(pwc_scrape.ScrapeError, match=r"row 2 \(rank 3\): paper.published"):
        pwc_scrape.convert(rows, SLUG, "Image Classification", "ImageNet")


# Code and tags as PwC knew them (issue #31 item 5) ----------------------------------


def test_code_pwc_knew_of_is_said_and_counted_apart_from_code_links(imagenet, client):
    scraped = json.loads(IMAGENET.read_text(encoding="utf-8"))
    said = sum(1 for row in scraped if row["paper"]["code"])
    assert said == 881
    html = client.get(reverse("leaderboards:leaderboard", args=[SLUG])).content.decode()
    figures = html[html.index('<ul class="key-figures"') : html.index("</ul>")]
    assert "<strong>0</strong> with code" in figures  # SPEC 1.1: rows with a code URL
    assert "<strong>881</strong> more with code per Papers with Code, no link given" in figures
    # The first page's rows say it in their Code cell; the URL-based filter and counts do not.
    first_page = html[html.index('id="results"') :]
    shown = [row for row in scraped[:100] if row["paper"]["code"]]
    assert first_page.count("code exists (per Papers with Code)") == len(shown)
    served = client.get(reverse("leaderboards:leaderboard_json", args=[SLUG])).json()
    assert served["counts"]["rows_with_code"] == 0
    filtered = client.get(reverse("leaderboards:leaderboard", args=[SLUG]) + "?has_code=true")
    assert "0 of 951 rows match" in filtered.content.decode()


def test_row_tags_are_shown_and_filter_the_board_by_exact_tag(imagenet, client):
    scraped = json.loads(IMAGENET.read_text(encoding="utf-8"))
    tagged = [row["Model"] for row in scraped if "JFT-3B" in [t["name"] for t in row["tags"]]]
    url = reverse("leaderboards:leaderboard", args=[SLUG])
    html = client.get(url).content.decode()
    # The form offers the board's tags, most used first, with their rows.
    assert '<option value="ImageNet-1k only">ImageNet-1k only (493)</option>' in html
    assert f'<option value="JFT-3B">JFT-3B ({len(tagged)})</option>' in html
    assert '<a class="tag" href="?tag=JFT-3B#results">JFT-3B</a>' in html
    page = client.get(url + "?tag=JFT-3B").content.decode()
    assert f"{len(tagged)} of 951 rows match" in page
    models = re.findall(r'<td class="model"><span class="clamp" title="([^"]*)"', page)
    assert [htmllib.unescape(model) for model in models] == tagged
    # A tag is matched whole: a part of one matches nothing.
    assert "0 of 951 rows match" in client.get(url + "?tag=JFT").content.decode()


def test_the_export_still_gives_the_tags_and_code_flag_as_the_file_did(
    imagenet_file, imagenet, client
):
    served = client.get(reverse("leaderboards:leaderboard_json", args=[SLUG])).json()
    assert served == json.loads(imagenet_file.read_text(encoding="utf-8"))
