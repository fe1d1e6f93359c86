"""Badges for READMEs: valid SVG, every text escaped and cut short, cacheable, 404 when unknown."""

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import Leaderboard, Metric, MetricValue, Paper
from tests.helpers import SEED_SLUG

SVG = "{http://www.w3.org/2000/svg}"
BADGE = reverse("leaderboards:leaderboard_badge", args=[SEED_SLUG])
HOSTILE = "<script>alert(1)</script> & " + "x" * 300


def texts(response):
    """The badge's visible texts, after checking it is SVG an XML parser accepts."""
    root = ET.fromstring(response.content)
    assert root.tag == f"{SVG}svg"
    assert not [element for element in root.iter() if element.tag.lower().endswith("script")]
    assert not any(name.startswith("on") for e in root.iter() for name in e.attrib)
    return [element.text for element in root.iter(f"{SVG}text")]


def test_a_board_with_no_known_direction_shows_its_size(unsettled, client):
    response = client.get(BADGE)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert texts(response) == ["leaderboard", "22 results"]


def test_the_archive_ranking_gives_the_badge_its_best_until_an_editor_says_unknown(
    seeded, editor, client
):
    # The file gives FPR95 no direction; its rows rise down the archive's order: lower.
    assert texts(client.get(BADGE)) == ["FPR95", "16.84 · CMA(ViT-B/16, NegLabel)"]
    decisions.set_direction([Metric.objects.get(name="FPR95")], "unknown", editor)
    assert texts(client.get(BADGE)) == ["leaderboard", "22 results"]


def test_a_board_with_a_known_direction_shows_its_best_result_as_written(seeded, editor, client):
    decisions.set_direction([Metric.objects.get(name="FPR95")], "lower", editor)
    best = min(
        MetricValue.objects.filter(metric__name="FPR95", row__leaderboard=seeded),
        key=lambda value: value.number,
    )
    assert texts(client.get(BADGE)) == ["FPR95", f"{best.raw} · {best.row.model}"]


def test_a_hostile_model_name_is_escaped_and_cut_with_an_ellipsis(
    load, seed_page, write_page, client
):
    seed_page["metric_direction"]["by_metric"]["FPR95"] = "lower"
    for row in seed_page["rows"]:
        row["model"] = HOSTILE
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    response = client.get(BADGE)
    assert b"<script>" not in response.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt; &amp; xxx" in response.content
    label, message = texts(response)
    assert "<script>alert(1)</script> & xxx" in message
    assert message.endswith("…") and len(message) <= 60
    title = ET.fromstring(response.content).find(f"{SVG}title").text
    assert title.endswith("…") and len(title) <= 200


def test_badges_are_cacheable_with_an_etag_from_the_board_version(
    seeded, editor, client, django_capture_on_commit_callbacks
):
    response = client.get(BADGE)
    assert "max-age=" in response["Cache-Control"] and "public" in response["Cache-Control"]
    assert response["ETag"] == f'"board-{seeded.version}"'
    assert client.get(BADGE, headers={"if-none-match": response["ETag"]}).status_code == 304
    with django_capture_on_commit_callbacks(execute=True):
        decisions.set_direction([Metric.objects.get(name="FPR95")], "lower", editor)
    again = client.get(BADGE, headers={"if-none-match": response["ETag"]})
    assert again.status_code == 200 and again["ETag"] != response["ETag"]


def test_a_board_badge_costs_one_query(seeded, client, django_assert_num_queries):
    with django_assert_num_queries(1):
        client.get(BADGE)


def test_a_papers_badge_shows_its_best_rank(seeded, editor, client, django_assert_num_queries):
    decisions.set_direction([Metric.objects.get(name="FPR95")], "lower", editor)
    best = min(
        MetricValue.objects.filter(metric__name="FPR95", row__leaderboard=seeded),
        key=lambda value: value.number,
    )
    url = reverse("leaderboards:paper_badge", args=[best.row.paper.slug])
    # The paper, its rows, and the ranking's three: the direction decided is an
    # editorial change, so the board may hold added results, which compete.
    with django_assert_num_queries(5):
        response = client.get(url)
    assert response["Content-Type"] == "image/svg+xml"
    assert texts(response) == [seeded.task.name, f"#1 on {seeded.dataset.name}"]
    assert "max-age=" in response["Cache-Control"] and response["ETag"]
    assert client.get(url, headers={"if-none-match": response["ETag"]}).status_code == 304


def test_a_paper_with_no_ranked_result_shows_its_results(seeded, client):
    # An editor's "unknown" overrules what the archive's ranking settles.
    Metric.objects.filter(leaderboard=seeded).update(editor_direction="unknown")
    paper = Paper.objects.filter(rows__leaderboard=seeded).order_by("slug").first()
    response = client.get(reverse("leaderboards:paper_badge", args=[paper.slug]))
    count = paper.rows.count()
    assert texts(response) == [
        "sotasite",
        f"{count} result{'s' if count > 1 else ''} on 1 leaderboard",
    ]


@pytest.mark.parametrize("name", ["leaderboard_badge", "paper_badge"])
def test_unknown_slugs_are_a_404(db, client, name):
    assert (
        client.get(reverse(name.join(("leaderboards:", "")), args=["no-such"])).status_code == 404
    )


def test_the_board_and_paper_pages_offer_a_readme_snippet(seeded, client):
    html = client.get(reverse("leaderboards:leaderboard", args=[SEED_SLUG])).content.decode()
    assert "<summary>Badge for your README</summary>" in html
    assert f"[![{SEED_SLUG}](http://testserver{BADGE})](http://testserver/sota/{SEED_SLUG})" in html
    assert f'<img src="{BADGE}"' in html
    paper = Paper.objects.order_by("slug").first()
    html = client.get(paper.get_absolute_url()).content.decode()
    badge = reverse("leaderboards:paper_badge", args=[paper.slug])
    assert f"(http://testserver{badge})" in html and f'<img src="{badge}"' in html


def test_a_badge_is_cached_per_board(
    seeded, page_cache, client, django_capture_on_commit_callbacks, editor
):
    assert client.get(BADGE).headers["X-Page-Cache"] == "miss"
    assert client.get(BADGE).headers["X-Page-Cache"] == "hit"
    with django_capture_on_commit_callbacks(execute=True):
        decisions.set_direction([Metric.objects.get(name="FPR95")], "lower", editor)
    response = client.get(BADGE)
    assert response.headers["X-Page-Cache"] == "miss"
    assert texts(response)[0] == "FPR95"
    assert Leaderboard.objects.get().top_is_best
