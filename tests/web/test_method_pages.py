"""The methods taxonomy: areas, nested categories, and a method's own page."""

import re

import pytest
from django.urls import reverse

from leaderboards.models import Method
from leaderboards.web.methods_chart import years_chart
from tests.helpers import html as html_of
from tests.helpers import make_category, make_method, make_paper


@pytest.fixture
def taxonomy(db):
    cnn = make_category("Convolutional Neural Networks", area="Computer Vision")
    residual = make_category("Residual Blocks", area=cnn.area, parent=cnn)
    make_category("Optimizers", area="General")
    papers = [
        make_paper(slug, date=f"{slug[6:10]}-05-01")
        for slug in ("paper-2016", "paper-2016-b", "paper-2019")
    ]
    resnet = make_method(
        "resnet", "ResNet", full_name="Residual Network", categories=[cnn],
        papers=papers, paper_count=3, num_papers=2180, introduced_year=2015,
        description="A **residual** network.\n\n| Depth | Params |\n|---|---|\n| 50 | 25M |",
        code_snippet_url="https://github.com/pytorch/vision/blob/main/resnet.py#L75",
        source_url="https://arxiv.org/abs/1512.03385v1", source_title="Deep Residual Learning",
    )  # fmt: skip
    make_method("bottleneck", "Bottleneck Block", categories=[residual], paper_count=1)
    make_method("casino", "Best casino", categories=[cnn], withheld=True, withheld_reason="spam")
    return resnet


def test_the_index_nests_categories_in_areas_with_their_most_used_methods(taxonomy, client):
    html = client.get(reverse("leaderboards:method_list")).content.decode()
    assert html.index("Computer Vision") < html.index("Convolutional Neural Networks")
    cnn = html.index("Convolutional Neural Networks")
    assert cnn < html.index("ResNet") < html.index("Residual Blocks")
    assert "Best casino" not in html
    assert "3 papers" in html and "Optimizers" in html and "0 methods" in html
    nav = html[html.index('<nav class="site-nav"') :]
    assert '<a href="/methods/" aria-current="page">Methods</a>' in nav[: nav.index("</nav>")]


def test_the_index_costs_the_same_however_many_methods(taxonomy, client, django_assert_num_queries):
    url = reverse("leaderboards:method_list")
    with django_assert_num_queries(4) as small:
        client.get(url)
    cnn = taxonomy.categories.get()
    Method.objects.bulk_create(Method(slug=f"bulk-{n}", name=f"Bulk {n}") for n in range(1000))
    for n in range(30):
        make_method(f"m-{n}", categories=[cnn], paper_count=n)
        make_category(f"Extra {n}", area="General")
    with django_assert_num_queries(len(small.captured_queries)):
        html = client.get(url).content.decode()
    assert "all 31 ›" in html
    # The total as every other count on the site is written: 2 + 1,000 + 30 shown.
    assert "1,032 methods in areas" in html
    # Its five most used, most papers first.
    top = re.findall(r'<a href="/method/([^"]+)">', html[html.index("Convolutional Neural") :])
    assert top[:5] == ["m-29", "m-28", "m-27", "m-26", "m-25"]


def test_category_and_area_pages_list_methods_most_used_first(taxonomy, client):
    html = html_of(
        client, reverse("leaderboards:method_category", args=["convolutional-neural-networks"])
    )
    assert "<h1>Convolutional Neural Networks</h1>" in html and "Residual Blocks" in html
    assert "ResNet" in html and "Best casino" not in html
    html = html_of(client, reverse("leaderboards:method_area", args=["computer-vision"]))
    assert html.index("ResNet") < html.index("Bottleneck Block")
    for name in ("method_category", "method_area", "method"):
        assert client.get(reverse(f"leaderboards:{name}", args=["nope"])).status_code == 404


def test_a_method_page_has_its_description_papers_and_use_over_the_years(taxonomy, client):
    html = client.get(reverse("leaderboards:method", args=["resnet"])).content.decode()
    assert "<h1>ResNet</h1>" in html and "Residual Network" in html
    assert "<strong>residual</strong>" in html and "<td>25M</td>" in html
    assert "3 on this site" in html and "2,180 on Papers with Code" in html
    assert 'href="https://github.com/pytorch/vision/blob/main/resnet.py#L75"' in html
    assert "in 2015" in html and "Convolutional Neural Networks</a>" in html
    assert html.index("paper-2019") < html.index("paper-2016")
    # The chart's counts, readable without the picture.
    assert "the most, 2, in 2016" in html
    assert '<td>2019</td><td class="num">1</td>' in html


def test_an_editors_description_stands_over_the_archives(taxonomy, client):
    Method.objects.filter(pk=taxonomy.pk).update(editor_description="Edited *words*.")
    html = client.get(reverse("leaderboards:method", args=["resnet"])).content.decode()
    assert "<em>words</em>" in html and "residual</strong>" not in html


def test_a_withheld_method_is_404(taxonomy, client):
    assert client.get(reverse("leaderboards:method", args=["casino"])).status_code == 404


def test_method_page_queries_do_not_grow_with_papers(taxonomy, client, django_assert_num_queries):
    url = reverse("leaderboards:method", args=["resnet"])
    with django_assert_num_queries(6) as small:
        client.get(url)
    for n in range(80):
        taxonomy.papers.add(make_paper(f"more-{n}", date=f"{2000 + n % 25}-01-01"))
    with django_assert_num_queries(len(small.captured_queries)):
        html = client.get(url).content.decode()
    assert "1–50 of 83 papers" in html


def test_the_years_chart_fills_gaps_and_keeps_the_latest_years():
    chart = years_chart([(2010, 1), (2013, 4)])
    assert [bar.year for bar in chart.bars] == [2010, 2011, 2012, 2013]
    assert [bar.count for bar in chart.bars] == [1, 0, 0, 4]
    assert chart.bars[3].height > chart.bars[0].height > chart.bars[1].height == 0
    wide = years_chart([(1950, 1), (2024, 2)])
    assert wide.bars[0].year == 1985 and wide.years[0] == (1950, 1)
    assert years_chart([]) is None


@pytest.mark.parametrize(
    ("name", "slug", "queries"),
    [
        ("method_area", "computer-vision", 6),
        ("method_category", "convolutional-neural-networks", 5),
    ],
)
def test_area_and_category_pages_cost_the_same_however_many_methods(
    taxonomy, client, django_assert_num_queries, name, slug, queries
):
    url = reverse(f"leaderboards:{name}", args=[slug])
    with django_assert_num_queries(queries):
        client.get(url)
    cnn = taxonomy.categories.get()
    for n in range(60):
        make_method(f"extra-{n}", categories=[cnn], paper_count=n)
        make_category(f"More {n}", area=cnn.area, parent=cnn)
    with django_assert_num_queries(queries):
        page = html_of(client, url)
    assert "1–50 of" in page and "Extra 59" in page
