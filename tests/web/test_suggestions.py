"""Visitors suggest a correction or a newer result: short forms, held against abuse, not public."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from leaderboards.models import Row, Suggestion, SuggestionVoice
from tests.helpers import SEED_SLUG, SPAM_MODEL
from tests.hostile import SCRIPT

BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
CORRECTION = reverse("leaderboards:suggest_correction", args=[SEED_SLUG])
RESULT = reverse("leaderboards:suggest_result", args=[SEED_SLUG])
SENT = reverse("leaderboards:suggest_sent", args=[SEED_SLUG])
WRONG = "The FPR95 here is the paper's AUROC: Table 3 gives 41.2."
WHY = "Table 3 of the paper, page 7."
RESULT_FIELDS = {
    "model": "SuggestedOOD (ViT-B/16)",
    "value_0": "11.5",
    "value_1": "",
    "paper_title": "SuggestedOOD: a newer paper",
    "citation_url": "https://arxiv.org/abs/2512.00002",
    "what": "Table 1, ImageNet-1k row.",
}


def visitor(address="203.0.113.7"):
    return Client(REMOTE_ADDR=address)


def correct(client, row=None, **fields):
    data = {"what": WRONG, "why": WHY, "citation_url": "", "website": "", **fields}
    if row is not None:
        data["row"] = str(row.pk)
    return client.post(CORRECTION, data)


def test_the_board_and_each_of_its_rows_link_a_correction_and_the_board_a_newer_result(
    seeded, client
):
    html = client.get(BOARD).content.decode()
    header = html[: html.index('id="results"')]
    assert f'href="{CORRECTION}"' in header and f'href="{RESULT}"' in header
    rows = re.findall(r"<tr>\s*<td class=\"num rank\">.*?</tr>", html, re.S)
    assert len(rows) == Row.objects.filter(leaderboard=seeded).count()
    for row in rows:
        assert f'href="{CORRECTION}?row=' in row and "Suggest a correction" in row
    spam = Row.objects.get(model=SPAM_MODEL)
    form = client.get(CORRECTION, {"row": spam.pk}).content.decode()
    assert f"To the result <strong>{SPAM_MODEL}</strong>" in form
    assert "nothing you write is shown on the site unless an editor accepts it" in form


def test_a_correction_to_a_row_waits_for_an_editor_and_is_nowhere_public(seeded):
    spam = Row.objects.get(model=SPAM_MODEL)
    response = correct(visitor(), spam)
    assert response.status_code == 302 and response["Location"] == SENT
    [suggestion] = Suggestion.objects.all()
    assert (suggestion.kind, suggestion.state) == ("correction", "pending")
    assert suggestion.row_key == spam.key and suggestion.row_model == SPAM_MODEL
    assert (suggestion.what, suggestion.why, suggestion.support) == (WRONG, WHY, 1)
    # The address is kept as a keyed digest, never as written.
    [voice] = SuggestionVoice.objects.all()
    assert "203.0.113.7" not in voice.address and len(voice.address) == 64
    client = Client()
    for url in (
        BOARD,
        reverse("leaderboards:changes"),
        reverse("leaderboards:changes_feed"),
        reverse("leaderboards:leaderboard_json", args=[SEED_SLUG]),
        f"/api/v1/evaluations/{SEED_SLUG}/results/",
    ):
        assert "Table 3 gives 41.2" not in client.get(url).content.decode(), url
    thanks = client.get(SENT).content.decode()
    assert "It is not shown on the site until an editor accepts it" in thanks


def test_a_newer_result_needs_a_citation_and_a_value_under_the_boards_metrics(seeded):
    page = visitor().get(RESULT).content.decode()
    assert 'name="value_0"' in page and ">FPR95" in page and ">AUROC" in page
    response = visitor().post(RESULT, {**RESULT_FIELDS, "citation_url": ""})
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    response = visitor().post(RESULT, {**RESULT_FIELDS, "citation_url": "javascript:alert(1)"})
    assert response.status_code == 400
    assert "starts with https:// or http://" in response.content.decode()
    response = visitor().post(RESULT, {**RESULT_FIELDS, "value_0": ""})
    assert "Give the result&#x27;s value for at least one" in response.content.decode()
    assert not Suggestion.objects.exists()
    assert visitor().post(RESULT, RESULT_FIELDS).status_code == 302
    [suggestion] = Suggestion.objects.all()
    assert suggestion.kind == "result" and suggestion.values == {"FPR95": "11.5"}
    assert suggestion.citation_url == "https://arxiv.org/abs/2512.00002"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("what", SCRIPT, "Plain text only, please"),
        ("what", "a <b>bold</b> claim", "Plain text only, please"),
        ("why", "bell\x07 rings", "control character U+0007"),
        # PostgreSQL takes no NUL in text: refused with the reason, never a 500.
        ("what", "nul\x00 byte", "contains a NUL character"),
        ("citation_url", "https://example.org/\x00", "contains a NUL character"),
        ("what", "x" * 1001, "at most 1000 characters"),
        ("why", "x" * 2001, "at most 2000 characters"),
        ("what", "", "This field is required."),
    ],
)
def test_what_a_visitor_writes_is_short_plain_text(seeded, field, value, message):
    response = correct(visitor(), **{field: value})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Suggestion.objects.exists()


def test_a_huge_body_is_refused_before_it_is_read(seeded):
    response = correct(visitor(), what="x" * 40_000)
    assert response.status_code == 413
    assert not Suggestion.objects.exists()


def test_a_filled_honeypot_is_thanked_and_dropped(seeded):
    response = correct(visitor(), website="https://spam.example/")
    assert response.status_code == 302 and response["Location"] == SENT
    assert not Suggestion.objects.exists() and not SuggestionVoice.objects.exists()


def test_a_post_without_the_forms_csrf_token_is_refused(seeded):
    strict = Client(enforce_csrf_checks=True, REMOTE_ADDR="203.0.113.7")
    assert correct(strict).status_code == 403
    page = strict.get(CORRECTION)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    assert correct(strict, csrfmiddlewaretoken=token).status_code == 302
    assert Suggestion.objects.count() == 1


def test_one_address_is_held_to_its_hourly_limit_and_others_are_not(seeded, settings):
    settings.SOTASITE_SUGGESTIONS_PER_ADDRESS = 3
    one = visitor("198.51.100.1")
    for n in range(3):
        assert correct(one, what=f"{WRONG} ({n})").status_code == 302
    refused = correct(one, what=f"{WRONG} (4)")
    assert refused.status_code == 429
    assert "as many suggestions as one address may in an hour" in refused.content.decode()
    # The same /64 is the same household; another address is another visitor.
    assert correct(visitor("2001:db8::1")).status_code == 302
    for n in range(2):
        assert correct(visitor(f"2001:db8::{n + 2}"), what=f"v6 {n}").status_code == 302
    assert correct(visitor("2001:db8::9"), what="v6 again").status_code == 429
    assert correct(visitor("198.51.100.2"), what="another").status_code == 302
    assert Suggestion.objects.count() == 7


def test_the_whole_site_is_held_to_its_hourly_limit(seeded, settings):
    settings.SOTASITE_SUGGESTIONS_PER_HOUR = 20
    answers = [correct(visitor(f"192.0.2.{n}"), what=f"junk {n}").status_code for n in range(25)]
    assert answers == [302] * 20 + [429] * 5
    refused = correct(visitor("192.0.2.200"), what="one more")
    assert "more suggestions this hour than they can read" in refused.content.decode()
    assert Suggestion.objects.count() == 20


def test_the_same_suggestion_from_another_address_adds_support_not_an_entry(seeded):
    spam = Row.objects.get(model=SPAM_MODEL)
    correct(visitor("198.51.100.1"), spam)
    correct(visitor("198.51.100.1"), spam)
    # Case and spacing do not make it another suggestion.
    correct(visitor("198.51.100.2"), spam, what=f"  {WRONG.upper()} ")
    [suggestion] = Suggestion.objects.all()
    assert suggestion.support == 2
    # About another row, it is another suggestion.
    correct(visitor("198.51.100.3"))
    assert Suggestion.objects.count() == 2


def test_the_forms_are_never_cached_and_a_visitors_cookie_leaves_the_board_cached(
    seeded, page_cache
):
    client = visitor()
    client.get(BOARD)
    form = client.get(CORRECTION)
    assert "no-store" in form["Cache-Control"] and "csrftoken" in client.cookies
    assert client.get(BOARD)["X-Page-Cache"] == "hit"


@pytest.mark.parametrize("params", [{"row": "999999999"}, {"row": "x"}, {"added": "-1"}])
def test_a_row_no_longer_shown_leaves_the_correction_about_the_board(seeded, params):
    page = visitor().get(CORRECTION, params)
    assert page.status_code == 200
    assert "a wrong value, a result that does not belong" in page.content.decode()


def test_an_unknown_board_is_a_404_and_other_public_pages_still_refuse_a_post(seeded):
    assert (
        visitor().get(reverse("leaderboards:suggest_correction", args=["nope"])).status_code == 404
    )
    assert visitor().post(BOARD, {"what": WRONG}).status_code == 405
