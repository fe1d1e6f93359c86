"""Authors' and conferences' pages: their papers, newest first, each with results and code."""

import re

from django.urls import reverse

from leaderboards.models import Author, Conference, Paper
from tests.helpers import make_authors, make_code_link, make_paper, make_proceeding


def author_url(slug):
    return reverse("leaderboards:author", args=[slug])


def test_an_author_lists_their_papers_newest_first_with_code(db, client):
    old = make_paper("old-paper", "Old Paper", date="2012-01-01")
    new = make_paper("new-paper", "New Paper", date="2024-03-01")
    hidden = make_paper("hidden-paper", "Hidden Paper", date="2025-01-01", withheld=True,
                        withheld_reason="spam")  # fmt: skip
    for paper in (old, new, hidden):
        make_authors(paper, "Ada Lovelace")
    make_code_link(new, "https://github.com/ada/new", is_official=True)
    html = client.get(author_url("ada-lovelace")).content.decode()
    assert "<h1>Ada Lovelace</h1>" in html
    assert "matched by name" in html
    assert html.index("New Paper") < html.index("Old Paper")
    assert "Hidden Paper" not in html
    assert "official code" in html


def test_an_author_page_paginates_in_a_pinned_number_of_queries(
    db, client, django_assert_num_queries
):
    first = make_paper("paper-0", date="2020-01-01")
    make_authors(first, "Grace Hopper")
    # The author, the ids of their papers, then the page and what it shows.
    with django_assert_num_queries(5) as small:
        client.get(author_url("grace-hopper"))
    author = Author.objects.get(slug="grace-hopper")
    for n in range(1, 70):
        paper = make_paper(f"paper-{n}", date=f"20{n % 20 + 1:02d}-01-01")
        paper.authorships.create(author=author, position=0)
        make_code_link(paper, f"https://github.com/g/{n}")
    with django_assert_num_queries(len(small.captured_queries)):
        html = client.get(author_url("grace-hopper")).content.decode()
    assert "1–50 of 70 papers" in html
    assert (
        client.get(author_url("grace-hopper") + "?page=2")
        .content.decode()
        .count('href="/paper/paper-')
        == 20
    )
    assert client.get(author_url("nobody")).status_code == 404


def test_a_conference_shows_its_proceedings_and_papers_by_year(db, client):
    older = make_proceeding("NeurIPS 2019 12", year=2019, month=12)
    newer = make_proceeding("NeurIPS 2021 12", conference=older.conference.name, year=2021)
    make_paper("a-2019-paper", "A 2019 Paper", date="2019-12-01", proceeding=older)
    make_paper("a-2021-paper", "A 2021 Paper", date="2021-12-01", proceeding=newer)
    make_paper("elsewhere", "Elsewhere", proceeding=make_proceeding("ICML 2021 7", year=2021))
    response = client.get(reverse("leaderboards:conference", args=["neurips"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>NeurIPS</h1>" in html
    assert "NeurIPS 2021 12" in html and "NeurIPS 2019 12" in html
    assert html.index("A 2021 Paper") < html.index("A 2019 Paper")
    assert "Elsewhere" not in html
    assert client.get(reverse("leaderboards:conference", args=["nope"])).status_code == 404


def test_conference_page_queries_do_not_grow_with_papers(db, client, django_assert_num_queries):
    proceeding = make_proceeding("ICLR 2020 4", year=2020)
    make_paper("p-0", proceeding=proceeding)
    url = reverse("leaderboards:conference", args=["iclr"])
    with django_assert_num_queries(4) as small:
        client.get(url)
    conference = Conference.objects.get(slug="iclr")
    for year in range(2015, 2020):
        other = make_proceeding(f"ICLR {year} 4", conference=conference.name, year=year)
        Paper.objects.bulk_create(
            Paper(slug=f"p-{year}-{n}", title=f"P {year} {n}", proceeding=other) for n in range(20)
        )
    with django_assert_num_queries(len(small.captured_queries)):
        html = client.get(url).content.decode()
    assert "1–50 of 101 papers" in html
    assert "ICLR 2015 4" in html


def test_a_conferences_pages_run_edition_after_edition_each_newest_first(db, client):
    """A page reads only the editions it spans: its papers must still be the ones, in the
    order, that sorting every paper of the conference gives."""
    conference = make_proceeding("ICML 2021 7", year=2021, month=7).conference
    editions = [
        make_proceeding(f"ICML {year} 7", conference=conference.name, year=year, month=7)
        for year in (2019, 2020)
    ] + [conference.proceedings.get(year=2021)]
    made = []
    for place, edition in enumerate(editions):
        for n in range(23 + 7 * place):
            date = None if n % 11 == 0 else f"{edition.year}-0{1 + n % 9}-{10 + n % 17}"
            made.append(make_paper(f"icml-{edition.year}-{n}", date=date, proceeding=edition))
    withheld = made[5]
    Paper.objects.filter(pk=withheld.pk).update(withheld=True)
    shown = Paper.objects.filter(withheld=False, proceeding__conference=conference)
    shown = list(shown.select_related("proceeding"))
    # Newest edition first; within one, newest first, undated last, ties by slug.
    expected = sorted(
        shown,
        key=lambda p: (
            -p.proceeding.year,
            p.date is None,
            -(p.date.toordinal() if p.date else 0),
            p.slug,
        ),
    )
    url = reverse("leaderboards:conference", args=[conference.slug])
    listed = []
    for page in (1, 2):
        html = client.get(url, {"page": page}).content.decode()
        listed += re.findall(r'href="/paper/(icml-\d+-\d+)"', html)
    assert listed == [paper.slug for paper in expected]
    assert f"1–50 of {len(shown)} papers" in client.get(url).content.decode()
