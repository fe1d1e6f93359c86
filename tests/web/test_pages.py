from django.urls import reverse

from tests.helpers import SEED_SLUG, scaled_page

LEADERBOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])


def test_the_page_shows_every_row_with_values_as_stored(seeded, client):
    response = client.get(LEADERBOARD)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Out-of-Distribution Detection on ImageNet-1k vs SUN" in html
    assert html.count('<td class="num rank">') == 22
    assert "CMA(ViT-B/16, NegLabel)" in html and ">16.84<" in html and ">96.36<" in html
    assert 'href="https://github.com/ma-kjh/CMA-OoDD"' in html


def test_unknown_slug_is_a_styled_404(db, client):
    response = client.get(reverse("leaderboards:leaderboard", args=["no-such-board"]))
    assert response.status_code == 404
    assert "There is no page at this address" in response.content.decode()


def test_hostile_strings_are_text_and_only_http_code_is_linked(load, seed_page, write_page, client):
    seed_page["rows"][0]["model"] = "<script>alert(1)</script>"
    seed_page["rows"][0]["code"] = "javascript:alert(1)"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    html = client.get(LEADERBOARD).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript:' not in html


def test_page_query_count_does_not_grow_with_rows(
    load, seed_page, write_page, client, django_assert_num_queries
):
    load(write_page(seed_page))
    with django_assert_num_queries(8) as small:
        client.get(LEADERBOARD)
    big = scaled_page(seed_page, 400)
    big["syntology"]["read_at"] = "2026-10-01T00:00:00+00:00"
    ok, _, err = load(write_page(big))
    assert ok, err
    with django_assert_num_queries(len(small.captured_queries)):
        response = client.get(LEADERBOARD)
    # The first of four pages of results.
    assert response.content.decode().count('<td class="num rank">') == 100
