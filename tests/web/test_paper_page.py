"""A paper's page: its authors, conference, abstract, code (official first), tasks, methods."""

import pytest
from django.urls import reverse

from leaderboards.models import Dataset, Paper, Task
from tests.helpers import (
    PAPER,
    make_authors,
    make_code_link,
    make_method,
    make_paper,
    make_proceeding,
)


def paper_url(slug):
    return reverse("leaderboards:paper", args=[slug])


@pytest.fixture
def resnet(db):
    paper = make_paper(
        "deep-residual-learning-for-image",
        "Deep Residual Learning for Image Recognition",
        date="2015-12-10",
        abstract="Deeper networks are harder to train. We bound the $\\ell_2$ error.",
        url_abs="https://arxiv.org/abs/1512.03385v1",
        url_pdf="https://arxiv.org/pdf/1512.03385v1.pdf",
        arxiv_id="1512.03385",
        proceeding=make_proceeding("CVPR 2016 6", year=2016, month=6),
    )
    make_authors(paper, "Kaiming He", "Xiangyu Zhang", "Shaoqing Ren", "Jian Sun")
    make_code_link(
        paper, "https://github.com/community/resnet", framework="pytorch", mentioned_in_github=True
    )
    make_code_link(
        paper,
        "https://github.com/KaimingHe/deep-residual-networks",
        is_official=True,
        framework="caffe2",
        mentioned_in_paper=True,
    )
    make_code_link(paper, "https://github.com/spam/unrelated", editor_unlinked=True)
    make_code_link(
        paper,
        "https://github.com/other/claimed-official",
        is_official=True,
        editor_official=False,
        editor_reason="A re-implementation, not the authors'.",
    )
    make_code_link(paper, "javascript:alert(1)")
    paper.tasks.add(Task.objects.create(slug="image-classification", name="Image Classification"))
    make_method("resnet", "ResNet", papers=[paper])
    make_method("spam-method", "Buy now", papers=[paper], withheld=True, withheld_reason="spam")
    Dataset.objects.create(slug="imagenet", name="ImageNet", paper=paper)
    return paper


def test_the_paper_page_shows_what_the_archive_says_of_it(resnet, client):
    response = client.get(paper_url(resnet.slug))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Deep Residual Learning for Image Recognition</h1>" in html
    assert f'<a href="{reverse("leaderboards:author", args=["kaiming-he"])}">Kaiming He</a>' in html
    assert "Authors are matched by name, as on Papers with Code" in html
    assert f'href="{reverse("leaderboards:conference", args=["cvpr"])}">CVPR</a>' in html
    assert "CVPR 2016 6" in html
    assert '<math display="inline"><mrow><msub><mi>ℓ</mi><mn>2</mn></msub>' in html
    assert 'href="https://arxiv.org/pdf/1512.03385v1.pdf"' in html
    assert ">Image Classification</a>" in html and ">ResNet</a>" in html
    assert "Buy now" not in html
    assert 'href="/dataset/imagenet">ImageNet</a>' in html


def test_official_code_comes_first_and_an_unlinked_repository_is_hidden(resnet, client):
    html = client.get(paper_url(resnet.slug)).content.decode()
    official = html.index("github.com/KaimingHe/deep-residual-networks")
    community = html.index("github.com/community/resnet")
    demoted = html.index("github.com/other/claimed-official")
    assert official < community and official < demoted
    code = html[html.index('id="code"') :]
    assert code.count("official</span>") == 1
    assert "mentioned in the paper" in html and "mentioned in the repository" in html
    assert "marked not official by an editor: A re-implementation, not the authors&#x27;." in html
    assert "github.com/spam/unrelated" not in html
    assert 'href="javascript:' not in html and "pytorch" in html


def test_a_withheld_paper_is_gone_with_the_editors_reason(resnet, client):
    Paper.objects.filter(pk=resnet.pk).update(
        withheld=True, withheld_reason="Plagiarised from another paper."
    )
    response = client.get(paper_url(resnet.slug))
    assert response.status_code == 410
    assert "Plagiarised from another paper." in response.content.decode()
    assert "Deep Residual Learning" not in response.content.decode()


def test_the_paper_list_leaves_a_withheld_paper_out(resnet, client):
    make_paper("kept", "A Kept Paper")
    Paper.objects.filter(pk=resnet.pk).update(withheld=True, withheld_reason="Spam.")
    html = client.get(reverse("leaderboards:paper_list")).content.decode()
    assert "A Kept Paper" in html and "Deep Residual" not in html


def test_pwc_slug_redirects_permanently_and_unknown_is_404(resnet, client):
    Paper.objects.filter(pk=resnet.pk).update(pwc_slug="deep-residual-learning-for-image-1")
    response = client.get(paper_url("deep-residual-learning-for-image-1"))
    assert response.status_code == 301
    assert response["Location"] == paper_url(resnet.slug)
    assert client.get(paper_url("no-such-paper")).status_code == 404


def test_a_hostile_abstract_is_text(db, client):
    paper = make_paper("hostile", abstract="<script>alert(1)</script> $\\text{<img onerror=x>}$")
    html = client.get(paper_url(paper.slug)).content.decode()
    assert "<script>alert(1)" not in html and "onerror" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_paper_page_queries_do_not_grow_with_authors_code_or_results(
    seeded, client, django_assert_num_queries
):
    paper = Paper.objects.get(slug=PAPER)
    url = paper_url(PAPER)
    with django_assert_num_queries(9) as small:
        client.get(url)
    make_authors(paper, *[f"Author {n}" for n in range(30)])
    for n in range(20):
        make_code_link(paper, f"https://github.com/a/repo-{n}", framework="jax")
        paper.tasks.add(Task.objects.create(slug=f"task-{n}", name=f"Task {n}"))
        make_method(f"method-{n}", papers=[paper])
        Dataset.objects.create(slug=f"introduced-{n}", name=f"Introduced {n}", paper=paper)
    with django_assert_num_queries(len(small.captured_queries)):
        html = client.get(url).content.decode()
    assert "Author 29" in html and "repo-19" in html and "Introduced 19" in html


def test_a_metric_a_result_gives_no_value_for_is_left_out_not_shown_bare(
    load, seed_page, write_page, client
):
    row = seed_page["rows"][0]
    row["metrics"] = {"AUROC": "96.36", "FPR95": None}
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    html = client.get(row["paper"]).content.decode()
    values = html[html.index('<table class="paper-results">') :]
    values = values[: values.index("</table>")]
    assert '<dt>AUROC</dt><dd class="mono">96.36</dd>' in values
    assert "<dt>FPR95</dt>" not in values
    # On a phone each result is a card whose cells say what they are.
    assert 'data-label="Values"' in values and 'data-label="Rank"' in values
