"""The editors' queue of visitors' suggestions: usable at 1,000 junk ones, each decided once,
every acceptance credited in the public record, nothing a visitor wrote made public by it."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboards import suggestions
from leaderboards.models import (
    EditorAddition,
    EditorialChange,
    Metric,
    Row,
    Suggestion,
    SuggestionVoice,
)
from tests.helpers import SEED_SLUG, SPAM_MODEL, admin_url

BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
CHANGES = reverse("leaderboards:changes")
QUEUE = admin_url(Suggestion, "changelist")
SECRET_WORDS = "only-the-editors-read-this"


def suggest(board, *, support=1, n=0, **fields):
    suggestion = Suggestion(
        leaderboard=board,
        kind=fields.pop("kind", "correction"),
        what=fields.pop("what", f"{SECRET_WORDS} {n}"),
        why="Because.",
        support=support,
        **fields,
    )
    suggestion.fingerprint = suggestions.fingerprint([str(n), suggestion.what, str(fields)])
    suggestion.save()
    return suggestion


def junk(board, count):
    Suggestion.objects.bulk_create(
        Suggestion(
            leaderboard=board,
            kind="correction",
            what=f"BUY CHEAP WATCHES {n} http://spam.example/{n}",
            why="x" * 1000,
            fingerprint=f"{n:064x}",
        )
        for n in range(count)
    )


def decide(client, suggestion, **data):
    url = reverse("admin:leaderboards_suggestion_decide", args=[suggestion.pk])
    return client.post(url, data)


def test_the_queue_is_for_editors_only(seeded, client):
    suggestion = suggest(seeded)
    assert client.get(QUEUE).status_code == 302
    assert decide(client, suggestion, decision="reject", reason="no").status_code == 302
    suggestion.refresh_from_db()
    assert suggestion.state == "pending"


def test_the_queue_opens_on_waiting_ones_the_most_supported_then_the_newest(
    seeded, editor, editor_client
):
    suggest(seeded, support=5, n=1, what="Popular one")
    suggest(seeded, n=2, what="Quiet older one")
    newest = suggest(seeded, n=3, what="Quiet newest one")
    decided = suggest(seeded, support=50, n=4, what="Rejected one")
    suggestions.reject(Suggestion.objects.filter(pk=decided.pk), "spam", editor)
    html = editor_client.get(QUEUE).content.decode()
    order = [html.index(text) for text in ("Popular one", "Quiet newest one", "Quiet older one")]
    assert order == sorted(order) and str(newest) in html
    assert "Rejected one" not in html
    # Decided ones are a filter away, in the same order.
    html = editor_client.get(QUEUE, {"state": "all"}).content.decode()
    assert html.index("Rejected one") < html.index("Popular one")
    html = editor_client.get(QUEUE, {"state": "rejected"}).content.decode()
    assert "Rejected one" in html and "Popular one" not in html
    assert editor_client.get(QUEUE, {"state": "bogus"}).status_code == 200


def test_a_thousand_junk_suggestions_leave_the_queue_usable_and_the_pages_as_fast(
    seeded, editor, editor_client, django_assert_num_queries
):
    client = Client()
    with CaptureQueriesContext(connection) as before:
        client.get(BOARD)
    suggest(seeded, support=3, n=1, what="A real correction, supported thrice")
    with django_assert_num_queries(7):
        editor_client.get(QUEUE)
    junk(seeded, 1000)
    with django_assert_num_queries(7):
        html = editor_client.get(QUEUE).content.decode()
    # The supported one leads, one page of 50 is shown, and the count is not scanned twice.
    first = html.index("A real correction, supported thrice")
    assert first < html.index("BUY CHEAP WATCHES")
    assert html.count('class="action-select"') == 50
    assert "1001 suggestions" in html or "1,001 suggestions" in html
    # Public pages never read the queue: same queries, none of them about suggestions.
    with CaptureQueriesContext(connection) as after:
        assert client.get(BOARD).status_code == 200
    assert len(after) == len(before)
    assert not any("suggestion" in query["sql"] for query in after.captured_queries)
    # One action rejects the lot, in one statement however many.
    data = {"action": "reject", "select_across": "1", "_selected_action": ["1"]}
    with django_assert_num_queries(6):
        editor_client.post(QUEUE, {**data, "apply": "1", "reason": "Spam run"})
    assert Suggestion.objects.filter(state="rejected").count() == 1001
    assert not EditorialChange.objects.exists()  # a rejection is not public


def test_accepting_a_newer_result_adds_it_and_the_record_credits_the_suggestion(
    seeded, editor, editor_client
):
    client = Client(REMOTE_ADDR="203.0.113.7")
    client.post(
        reverse("leaderboards:suggest_result", args=[SEED_SLUG]),
        {
            "model": "SuggestedOOD (ViT-B/16)",
            "value_0": "11.5",
            "value_1": "97.0",
            "paper_title": "SuggestedOOD: a newer paper",
            "citation_url": "https://arxiv.org/abs/2512.00002",
            "what": f"Table 1. {SECRET_WORDS}",
        },
    )
    [suggestion] = Suggestion.objects.all()
    page = editor_client.get(admin_url(Suggestion, "change", suggestion.pk)).content.decode()
    assert SECRET_WORDS in page
    add = re.search(r'class="button accept-add" href="([^"]+)"', page)[1].replace("&amp;", "&")
    form = editor_client.get(add).content.decode()
    assert (
        "Saving accepts a visitor&#x27;s suggestion" in form or "Saving accepts a visitor's" in form
    )
    for value in ("SuggestedOOD (ViT-B/16)", "11.5", "97.0", "https://arxiv.org/abs/2512.00002"):
        assert f'value="{value}"' in form, value
    response = editor_client.post(
        add,
        {
            "leaderboard": seeded.pk,
            "suggestion": suggestion.pk,
            "model": "SuggestedOOD (ViT-B/16)",
            "value_0": "11.5",
            "value_1": "97.0",
            "paper_title": "SuggestedOOD: a newer paper",
            "paper_url": "https://arxiv.org/abs/2512.00002",
            "note": "Suggested by a visitor; Table 1 checked by an editor.",
            "_save": "Save",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    suggestion.refresh_from_db()
    assert suggestion.state == "accepted" and suggestion.decided_by == editor
    [entry] = EditorialChange.objects.all()
    assert entry.suggestion == suggestion and entry.addition.model == "SuggestedOOD (ViT-B/16)"
    public = Client()
    assert "SuggestedOOD (ViT-B/16)" in public.get(BOARD).content.decode()
    record = public.get(CHANGES, {"kind": "suggestions"}).content.decode()
    assert "suggested by a visitor" in record and "SuggestedOOD (ViT-B/16)" in record
    assert SECRET_WORDS not in record
    feed = public.get(reverse("leaderboards:changes_feed")).content.decode()
    assert "Suggested by a visitor." in feed
    # Accepted once: the same form again is refused, and nothing more is added.
    again = editor_client.post(add, {"leaderboard": seeded.pk, "suggestion": suggestion.pk})
    assert "Another editor decided this suggestion first" in again.content.decode()
    assert EditorAddition.objects.count() == 1


def test_accepting_a_correction_withholds_the_row_with_the_editors_reason(
    seeded, editor, editor_client
):
    spam = Row.objects.get(model=SPAM_MODEL)
    suggestion = suggest(seeded, row_key=spam.key, row_model=spam.model)
    page = editor_client.get(admin_url(Suggestion, "change", suggestion.pk)).content.decode()
    assert f"withhold the row “{SPAM_MODEL}”" in page
    response = decide(
        editor_client, suggestion, decision="withhold", reason="Values copied from another paper."
    )
    assert response.status_code == 302
    spam.refresh_from_db()
    assert spam.withheld and spam.withheld_reason == "Values copied from another paper."
    [entry] = EditorialChange.objects.all()
    assert entry.suggestion == suggestion and entry.kind == "row_withheld"
    suggestion.refresh_from_db()
    assert suggestion.state == "accepted"
    assert SPAM_MODEL not in Client().get(BOARD).content.decode()
    # A second decision is refused, and changes nothing.
    response = decide(editor_client, suggestion, decision="reject", reason="late")
    suggestion.refresh_from_db()
    assert suggestion.state == "accepted" and EditorialChange.objects.count() == 1


def test_accepting_a_correction_can_set_a_metrics_direction(seeded, editor, editor_client):
    suggestion = suggest(seeded)
    response = decide(
        editor_client,
        suggestion,
        decision="direction",
        metric="AUROC",
        direction="higher",
        reason="AUROC: higher is better.",
    )
    assert response.status_code == 302
    assert Metric.objects.get(leaderboard=seeded, name="AUROC").direction == "higher"
    [entry] = EditorialChange.objects.all()
    assert entry.suggestion == suggestion and entry.reason == "AUROC: higher is better."


def test_a_rejection_needs_a_reason_and_stays_with_the_editors(seeded, editor, editor_client):
    suggestion = suggest(seeded)
    page = decide(editor_client, suggestion, decision="reject", reason="")
    assert "This field is required." in page.content.decode()
    decide(editor_client, suggestion, decision="reject", reason="Not in the paper.")
    suggestion.refresh_from_db()
    assert (suggestion.state, suggestion.decision_reason) == ("rejected", "Not in the paper.")
    assert not EditorialChange.objects.exists()
    assert "Not in the paper." not in Client().get(CHANGES).content.decode()


def test_two_editors_accepting_at_once_decide_it_once(seeded, editor):
    suggestion = suggest(seeded)
    spam = Row.objects.get(model=SPAM_MODEL)

    def withhold():
        from leaderboards import decisions

        return decisions.withhold([spam], "spam", editor)

    suggestions.accept(suggestion.pk, editor, withhold)
    with pytest.raises(suggestions.AlreadyDecided):
        suggestions.accept(suggestion.pk, editor, withhold)
    assert EditorialChange.objects.count() == 1


def test_deleting_the_board_takes_its_suggestions_and_their_voices(seeded):
    suggestion = suggest(seeded)
    SuggestionVoice.objects.create(suggestion=suggestion, address="0" * 64)
    seeded.delete()
    assert not Suggestion.objects.exists() and not SuggestionVoice.objects.exists()


def test_a_decision_that_changes_nothing_leaves_the_suggestion_waiting(
    seeded, editor, editor_client
):
    from leaderboards import decisions

    spam = Row.objects.get(model=SPAM_MODEL)
    decisions.withhold([spam], "Copied values.", editor)
    suggestion = suggest(seeded, row_key=spam.key, row_model=spam.model)
    response = decide(editor_client, suggestion, decision="withhold", reason="Copied values.")
    assert response.status_code == 302
    messages = editor_client.get(response["Location"]).content.decode()
    assert "Nothing changed: the board already shows it so." in messages
    suggestion.refresh_from_db()
    assert suggestion.state == "pending"
    assert not EditorialChange.objects.filter(suggestion=suggestion).exists()


@pytest.mark.django_db(transaction=True)
def test_two_editors_at_once_on_postgresql_decide_it_once(load, django_user_model):
    import threading
    import time

    from django.db import connection

    from leaderboards import decisions
    from leaderboards.models import Leaderboard
    from tests.helpers import SEED_FILE

    if connection.vendor != "postgresql":
        pytest.skip("row locks: on SQLite every write transaction runs alone")
    ok, _, err = load(SEED_FILE)
    assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    spam = Row.objects.get(model=SPAM_MODEL)
    suggestion = suggest(board, row_key=spam.key, row_model=spam.model)
    erin = django_user_model.objects.create_user("erin")
    outcomes = []

    def withhold():
        # Holds the suggestion's lock a while: the other editor arrives meanwhile.
        time.sleep(0.5)
        return decisions.withhold([spam], "Copied values.", erin)

    def direction():
        metric = Metric.objects.get(leaderboard=board, name="AUROC")
        return decisions.set_direction([metric], "higher", erin, reason="r")

    def editor(decide):
        try:
            suggestions.accept(suggestion.pk, erin, decide)
            outcomes.append("accepted")
        except suggestions.AlreadyDecided:
            outcomes.append("told")
        finally:
            connection.close()

    first = threading.Thread(target=editor, args=(withhold,))
    second = threading.Thread(target=editor, args=(direction,))
    first.start()
    time.sleep(0.1)
    second.start()
    first.join(30)
    second.join(30)
    assert sorted(outcomes) == ["accepted", "told"]
    assert EditorialChange.objects.filter(suggestion=suggestion).count() == 1
    assert Metric.objects.get(leaderboard=board, name="AUROC").stated_direction is None


@pytest.mark.django_db(transaction=True)
def test_the_same_suggestion_sent_at_once_from_two_addresses_is_one_entry(load):
    import threading

    from django.db import connection

    from leaderboards.models import Leaderboard
    from tests.helpers import SEED_FILE

    if connection.vendor != "postgresql":
        pytest.skip("row locks: on SQLite every write transaction runs alone")
    ok, _, err = load(SEED_FILE)
    assert ok, err
    board = Leaderboard.objects.get(slug=SEED_SLUG)
    start = threading.Barrier(4)

    def send(address):
        try:
            start.wait()
            suggestion = Suggestion(leaderboard=board, kind="correction", what="w", why="y")
            suggestion.fingerprint = suggestions.fingerprint(["same"])
            suggestions.submit(suggestion, address)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(f"198.51.100.{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    [stored] = Suggestion.objects.all()
    assert stored.support == 4 and SuggestionVoice.objects.count() == 4
