"""Editors curate the archive's catalogue: papers' code, spam methods and papers, descriptions.

Each decision goes through the admin as an editor makes it, lands in the
public record by its target's stable name, and outlasts a re-import (which
updates the archive's columns in place, as the importers do).
"""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from leaderboards import curation, search
from leaderboards.models import (
    ChangeKind,
    Dataset,
    EditorialChange,
    Method,
    Paper,
    PaperRepository,
)
from tests.helpers import DATASET, admin_url, html, make_code_link, make_method, make_paper

PAPER_SLUG = "cross-modal-alignment"
REPO = "https://github.com/ma-kjh/CMA-OoDD"
SPAM_REPO = "https://github.com/spam/casino"


@pytest.fixture
def paper(db):
    paper = make_paper(PAPER_SLUG, "Cross-Modal Alignment")
    make_code_link(paper, REPO, is_official=False, framework="pytorch")
    make_code_link(paper, SPAM_REPO, is_official=True)
    return paper


def link(url):
    return PaperRepository.objects.get(repository__url=url)


def act(client, model, action, objects, reason="Checked by hand.", query=""):
    """An admin action on ticked objects, past its reason page."""
    data = {"action": action, "_selected_action": [obj.pk for obj in objects], "apply": "1"}
    if reason is not None:
        data["reason"] = reason
    return client.post(admin_url(model, "changelist") + query, data)


def record_of(kind):
    return list(
        EditorialChange.objects.filter(kind=kind)
        .order_by("pk")
        .values_list("leaderboard", "target", "subject", "old_value", "new_value", "reason")
    )


# A paper's code.


def test_an_editor_marks_a_link_not_this_papers_code_and_a_reimport_keeps_it(
    paper, editor, editor_client, client
):
    spam = link(SPAM_REPO)
    response = act(editor_client, PaperRepository, "code_unlinked", [spam], "A casino, not code.")
    assert response.status_code == 302
    assert SPAM_REPO not in html(client, reverse("leaderboards:paper", args=[PAPER_SLUG]))
    assert record_of(ChangeKind.CODE) == [
        (
            None,
            PAPER_SLUG,
            SPAM_REPO,
            "official (the archive's word)",
            "not this paper's code",
            "A casino, not code.",
        )
    ]
    assert EditorialChange.objects.get().made_by == editor
    # A re-import updates the archive's columns in place and never the editor's.
    PaperRepository.objects.filter(pk=spam.pk).update(is_official=True, framework="jax")
    assert SPAM_REPO not in html(client, reverse("leaderboards:paper", args=[PAPER_SLUG]))
    assert SPAM_REPO in html(client, reverse("leaderboards:changes"))


def test_the_change_form_marks_a_link_official_with_a_reason_shown_on_the_paper(
    paper, editor_client, client
):
    code = link(REPO)
    response = editor_client.post(
        admin_url(PaperRepository, "change", code.pk),
        {"decision": "official", "reason": "The authors' README says so.", "_save": "Save"},
    )
    assert response.status_code == 302
    page = html(client, reverse("leaderboards:paper", args=[PAPER_SLUG]))
    assert "marked official by an editor: The authors&#x27; README says so." in page
    PaperRepository.objects.filter(pk=code.pk).update(is_official=False, framework="tf")
    page = html(client, reverse("leaderboards:paper", args=[PAPER_SLUG]))
    assert "marked official by an editor" in page
    # Official links are listed first, by the editor's word over the archive's.
    assert page.index(REPO) < page.index(SPAM_REPO)
    assert record_of(ChangeKind.CODE)[0][3:] == (
        "not official (the archive's word)",
        "official",
        "The authors' README says so.",
    )


def test_a_decision_without_a_reason_is_refused_and_changes_nothing(paper, editor_client):
    code = link(REPO)
    response = editor_client.post(
        admin_url(PaperRepository, "change", code.pk),
        {"decision": "not_official", "reason": "  ", "_save": "Save"},
    )
    assert response.status_code == 200 and "Say why." in response.content.decode()
    response = act(editor_client, PaperRepository, "code_unlinked", [code], reason="")
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    code.refresh_from_db()
    assert code.editor_official is None and not code.editor_unlinked
    assert not EditorialChange.objects.exists()


def test_back_to_the_archives_word_drops_the_editors(paper, editor, editor_client, client):
    curation.decide_code([(PAPER_SLUG, SPAM_REPO)], "not_official", "Copied code.", editor)
    act(editor_client, PaperRepository, "code_archive", [link(SPAM_REPO)], "The archive was right.")
    spam = link(SPAM_REPO)
    assert spam.editor_official is None and spam.editor_reason == ""
    assert [entry[4] for entry in record_of(ChangeKind.CODE)] == [
        "not official",
        "official (the archive's word)",
    ]


def test_only_staff_allowed_to_change_code_links_may_decide(paper, client, django_user_model):
    code = link(SPAM_REPO)
    # Signed out: the login page.
    response = act(client, PaperRepository, "code_unlinked", [code])
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]
    # Staff who may only look: the action is not theirs to run.
    viewer = django_user_model.objects.create_user("vic", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_paperrepository"))
    client.force_login(viewer)
    act(client, PaperRepository, "code_unlinked", [code])
    response = client.post(
        admin_url(PaperRepository, "change", code.pk),
        {"decision": "unlinked", "reason": "r", "_save": "Save"},
    )
    assert response.status_code == 403
    code.refresh_from_db()
    assert not code.editor_unlinked and not EditorialChange.objects.exists()


# Methods: the spam queue, withholding, descriptions.


def spam_queue(client, query="?spam=any"):
    response = client.get(admin_url(Method, "changelist") + query)
    assert response.status_code == 200
    return sorted(obj.slug for obj in response.context["cl"].result_list)


@pytest.fixture
def methods(db):
    used = make_paper("resnet-paper")
    made = [
        make_method("resnet", "ResNet", paper=used, paper_count=900, description="Residual."),
        make_method("orphan", "Orphan", description="A method nobody cites."),
        make_method("just-a-link", "Link", paper=used, description="  https://spam.example/x "),
        make_method(
            "links", "Links", paper=used, description="http://a.example http://b.example http://c"
        ),
        make_method("ads", "Best CASINO bonus", paper=used, paper_count=1),
        make_method("url-name", "https://buy.example", paper=used, paper_count=1),
        make_method("nameless", "?", paper=used, paper_count=1),
        make_method("gone", "Gone", withheld=True, withheld_reason="Spam."),
    ]
    # No name at all (the helper names a method after its slug when not told).
    Method.objects.filter(slug="nameless").update(name="")
    return made


def test_the_spam_queue_picks_likely_spam_and_leaves_used_and_withheld_methods(
    methods, editor_client
):
    assert spam_queue(editor_client) == [
        "ads",
        "just-a-link",
        "links",
        "nameless",
        "orphan",
        "url-name",
    ]
    assert spam_queue(editor_client, "?spam=unused") == ["orphan"]
    assert spam_queue(editor_client, "?spam=links") == ["just-a-link", "links"]
    assert spam_queue(editor_client, "?spam=ads") == ["ads"]
    assert spam_queue(editor_client, "?spam=nameless") == ["nameless", "url-name"]
    page = editor_client.get(admin_url(Method, "changelist") + "?spam=any").content.decode()
    assert "no paper uses it" in page and "ad words" in page
    # The admin's index leads to it.
    index = editor_client.get(reverse("admin:index")).content.decode()
    assert admin_url(Method, "changelist") + "?spam=any" in index


def test_garbage_in_the_queue_or_a_decision_is_not_a_500(methods, paper, editor_client):
    for query in ("?spam=banana", "?spam=", "?spam=any&withheld__exact=x", "?o=99"):
        response = editor_client.get(admin_url(Method, "changelist") + query)
        assert response.status_code in (200, 302), query
    code = link(REPO)
    response = editor_client.post(
        admin_url(PaperRepository, "change", code.pk),
        {"decision": "banana", "reason": "r", "_save": "Save"},
    )
    assert response.status_code == 200 and "Select a valid choice." in response.content.decode()
    response = describe_in_admin(editor_client, Method.objects.get(slug="orphan"), "x", was="{")
    assert response.status_code in (200, 302)
    assert not EditorialChange.objects.exists()


def test_the_queue_withholds_in_bulk_with_a_reason_and_a_reimport_keeps_it(
    methods, editor_client, client
):
    picked = Method.objects.filter(slug__in=["orphan", "ads"])
    response = act(editor_client, Method, "withhold_methods", picked, "Spam.", "?spam=any")
    assert response.status_code == 302
    assert spam_queue(editor_client) == ["just-a-link", "links", "nameless", "url-name"]
    assert client.get(reverse("leaderboards:method", args=["ads"])).status_code == 404
    assert record_of(ChangeKind.METHOD_WITHHELD) == [
        (None, "orphan", "", "shown", "withheld", "Spam."),
        (None, "ads", "", "shown", "withheld", "Spam."),
    ]
    Method.objects.filter(slug="ads").update(description="Updated by the archive.", num_papers=3)
    assert client.get(reverse("leaderboards:method", args=["ads"])).status_code == 404
    assert Method.objects.get(slug="ads").withheld_reason == "Spam."


def test_withholding_across_the_whole_queue(methods, editor_client):
    data = {"action": "withhold_methods", "select_across": "1", "_selected_action": ["1"]}
    page = editor_client.post(admin_url(Method, "changelist") + "?spam=any", data)
    # The reason page names the methods and keeps the choice "every one of the list".
    assert page.status_code == 200 and 'name="select_across" value="1"' in page.content.decode()
    response = editor_client.post(
        admin_url(Method, "changelist") + "?spam=any", {**data, "apply": "1", "reason": "Spam."}
    )
    assert response.status_code == 302
    assert spam_queue(editor_client) == []
    assert Method.objects.filter(withheld=False).get().slug == "resnet"


def test_the_spam_queue_costs_the_same_however_many_methods(
    methods, admin_client, django_assert_num_queries
):
    url = admin_url(Method, "changelist") + "?spam=any"
    admin_client.get(url)
    with django_assert_num_queries(5):
        admin_client.get(url)
    for index in range(40):
        make_method(f"orphan-{index}", f"Orphan {index}")
    with django_assert_num_queries(5):
        response = admin_client.get(url)
    assert len(response.context["cl"].result_list) == 46


def test_restoring_a_method_needs_a_reason_and_is_recorded(methods, editor, editor_client, client):
    gone = Method.objects.get(slug="gone")
    assert act(editor_client, Method, "restore_methods", [gone], reason="").status_code == 200
    assert Method.objects.get(slug="gone").withheld
    act(editor_client, Method, "restore_methods", [gone], "Not spam: a real method.")
    assert client.get(reverse("leaderboards:method", args=["gone"])).status_code == 200
    assert record_of(ChangeKind.METHOD_RESTORED)[0][1:] == (
        "gone",
        "",
        "withheld",
        "shown",
        "Not spam: a real method.",
    )


def describe_in_admin(client, obj, text, reason="Clearer words.", was=None):
    return client.post(
        admin_url(type(obj), "change", obj.pk),
        {
            "editor_description": text,
            "reason": reason,
            "description_was": "null" if was is None else f'"{was}"',
            "parent": "",
            "_save": "Save",
        },
    )


def test_an_editor_rewrites_a_spam_description_and_a_reimport_keeps_it(
    methods, editor_client, client
):
    method = Method.objects.get(slug="just-a-link")
    assert describe_in_admin(editor_client, method, "A real description.").status_code == 302
    page = html(client, reverse("leaderboards:method", args=["just-a-link"]))
    assert "A real description." in page and "spam.example" not in page
    Method.objects.filter(pk=method.pk).update(description="https://spam.example/again")
    page = html(client, reverse("leaderboards:method", args=["just-a-link"]))
    assert "A real description." in page and "spam.example" not in page
    assert record_of(ChangeKind.METHOD_DESCRIPTION) == [
        (None, "just-a-link", "", "the archive's text", "an editor's text", "Clearer words.")
    ]
    # Its text left the queue's "link" sign.
    assert "just-a-link" in spam_queue(editor_client, "?spam=links")


def test_a_description_needs_a_reason_and_never_overwrites_a_newer_one(methods, editor_client):
    method = Method.objects.get(slug="orphan")
    response = describe_in_admin(editor_client, method, "New.", reason="")
    assert "Say why the description changes." in response.content.decode()
    # Another editor saved meanwhile: this form, opened before, is refused.
    Method.objects.filter(pk=method.pk).update(editor_description="Theirs.")
    response = describe_in_admin(editor_client, method, "Mine.")
    assert "Another editor changed this description" in response.content.decode()
    assert Method.objects.get(pk=method.pk).editor_description == "Theirs."
    # Opened after, it may change it, and emptied goes back to the archive's text.
    assert describe_in_admin(editor_client, method, "", was="Theirs.").status_code == 302
    assert Method.objects.get(pk=method.pk).editor_description is None
    assert record_of(ChangeKind.METHOD_DESCRIPTION)[0][3:5] == (
        "an editor's text",
        "the archive's text",
    )


def test_a_datasets_description_is_corrected_on_the_record(seeded, editor_client, client):
    dataset = Dataset.objects.get(slug=DATASET)
    assert describe_in_admin(editor_client, dataset, "SUN: scenes, as OoD.").status_code == 302
    Dataset.objects.filter(pk=dataset.pk).update(description="The archive's newer words.")
    assert "SUN: scenes, as OoD." in html(client, reverse("leaderboards:dataset", args=[DATASET]))
    assert record_of(ChangeKind.DATASET_DESCRIPTION)[0][:2] == (None, DATASET)


# Papers.


def test_an_editor_withholds_a_paper_and_its_page_answers_410(paper, editor_client, client):
    act(editor_client, Paper, "withhold_papers", [paper], "Retracted by its authors.")
    url = reverse("leaderboards:paper", args=[PAPER_SLUG])
    assert client.get(url).status_code == 410
    Paper.objects.filter(pk=paper.pk).update(title="Cross-Modal Alignment, v2", described=True)
    assert client.get(url).status_code == 410
    assert record_of(ChangeKind.PAPER_WITHHELD) == [
        (None, PAPER_SLUG, "", "shown", "withheld", "Retracted by its authors.")
    ]
    act(editor_client, Paper, "restore_papers", [paper], "The retraction was withdrawn.")
    assert client.get(url).status_code == 200


# The pages show a decision at once, cached or not.


def test_a_decision_retires_the_cached_pages_it_shows_on(
    paper, methods, page_cache, editor_client, client, django_capture_on_commit_callbacks
):
    from django.test import Client

    visitor = Client()
    paper_url = reverse("leaderboards:paper", args=[PAPER_SLUG])
    method_url = reverse("leaderboards:method", args=["resnet"])
    for url in (paper_url, method_url):
        visitor.get(url)
        assert visitor.get(url).headers["X-Page-Cache"] == "hit"
    with django_capture_on_commit_callbacks(execute=True):
        act(editor_client, PaperRepository, "code_unlinked", [link(SPAM_REPO)], "Not its code.")
        describe_in_admin(editor_client, Method.objects.get(slug="resnet"), "Skip connections.")
    response = visitor.get(paper_url)
    assert response.headers["X-Page-Cache"] == "miss" and SPAM_REPO not in response.text
    assert "Skip connections." in visitor.get(method_url).text


# The public record.


def test_the_record_names_catalogue_changes_and_links_their_pages(
    paper, methods, editor, client, django_assert_num_queries
):
    curation.withhold_methods(["orphan"], "Spam.", editor)
    curation.decide_code([(PAPER_SLUG, SPAM_REPO)], "unlinked", "Not its code.", editor)
    with django_assert_num_queries(1):
        page = html(client, reverse("leaderboards:changes"))
    assert f'href="{reverse("leaderboards:method", args=["orphan"])}"' in page
    assert f'href="{reverse("leaderboards:paper", args=[PAPER_SLUG])}"' in page
    assert "Method withheld as spam" in page and "Not its code." in page
    feed = client.get(reverse("leaderboards:changes_feed")).content.decode()
    assert f"Paper's code: {SPAM_REPO} on paper {PAPER_SLUG}" in feed
    assert "Method withheld as spam: method orphan" in feed


def test_decisions_by_identity_report_what_is_not_stored(paper, editor):
    outcome = curation.decide_code(
        [(PAPER_SLUG, REPO), (PAPER_SLUG, "https://github.com/no/such")], "official", "r", editor
    )
    assert len(outcome.changed) == 1 and outcome.missing == [
        (PAPER_SLUG, "https://github.com/no/such")
    ]
    again = curation.decide_code([(PAPER_SLUG, REPO)], "official", "r", editor)
    assert again.unchanged and not again.changed
    assert EditorialChange.objects.count() == 1


# Concurrent editors on PostgreSQL: the second waits for the first's lock and sees its write.


def hold_a_lock_while(table, slug, update, then):
    """Lock a row in another connection, write to it, run `then` in a thread, commit.

    Returns what `then` returned or raised, once it has; asserts it waited.
    """
    import threading

    import psycopg
    from django.db import connection

    params = connection.get_connection_params()
    done, result = threading.Event(), {}

    def run():
        try:
            result["value"] = then()
        except Exception as error:  # noqa: BLE001 (handed back to the test)
            result["error"] = error
        finally:
            connection.close()
            done.set()

    with psycopg.connect(**params) as other:
        other.execute(f"SELECT id FROM {table} WHERE slug = %s FOR UPDATE", [slug])
        other.execute(f"UPDATE {table} SET {update} WHERE slug = %s", [slug])
        worker = threading.Thread(target=run)
        worker.start()
        assert not done.wait(1), "the decision did not wait for the row's lock"
        other.commit()
    worker.join(30)
    assert done.is_set()
    return result


def only_on_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks: on SQLite every write transaction runs alone")


@pytest.mark.django_db(transaction=True)
def test_a_second_editors_description_waits_and_does_not_overwrite_the_first(django_user_model):
    only_on_postgresql()
    make_method("contested", "Contested")
    editor = django_user_model.objects.create_user("erin")
    result = hold_a_lock_while(
        "leaderboards_method",
        "contested",
        "editor_description = 'First editor''s text'",
        lambda: curation.describe(Method, "contested", "Second's", "r", editor, was=None),
    )
    assert isinstance(result.get("error"), curation.Changed)
    assert Method.objects.get(slug="contested").editor_description == "First editor's text"
    assert not EditorialChange.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_second_editors_withholding_waits_and_records_nothing_twice(django_user_model):
    only_on_postgresql()
    make_method("contested", "Contested")
    editor = django_user_model.objects.create_user("erin")
    result = hold_a_lock_while(
        "leaderboards_method",
        "contested",
        "withheld = true, withheld_reason = 'First.'",
        lambda: curation.withhold_methods(["contested"], "Second.", editor),
    )
    outcome = result["value"]
    assert outcome.unchanged and not outcome.changed
    assert Method.objects.get(slug="contested").withheld_reason == "First."


def test_a_withheld_method_leaves_the_search_at_once_and_comes_back_restored(methods, editor):
    search.refresh_index()
    assert "orphan" in found_slugs("orphan")
    curation.withhold_methods(["orphan"], "Spam.", editor)
    assert "orphan" not in found_slugs("orphan")
    curation.restore_methods(["orphan"], "Not spam after all.", editor)
    assert "orphan" in found_slugs("orphan")


def found_slugs(query):
    _, entries = search.search(query).get("method", (0, []))
    return [entry.slug for entry in entries]
