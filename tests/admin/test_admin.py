"""The admin as editors use it: who gets in, what they may change, what it costs."""

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from leaderboards import record
from leaderboards.models import (
    Author,
    BusiestTask,
    Conference,
    DatasetLanguage,
    DatasetModality,
    EditorAddition,
    Leaderboard,
    Method,
    MethodArea,
    MethodCategory,
    Metric,
    PaperRepository,
    PreparedPart,
    Proceeding,
    Repository,
    Row,
    SearchEntry,
    SearchPrefix,
    SiteState,
    Suggestion,
    SuggestionVoice,
    Task,
    UpkeepPending,
)
from leaderboards.models.editorial import public_name
from tests.helpers import EDITOR_PASSWORD as PASSWORD
from tests.helpers import (
    SEED_SLUG,
    add_in_admin,
    admin_url,
    make_authors,
    make_category,
    make_code_link,
    make_method,
    make_paper,
    make_proceeding,
    make_showcase,
    scaled_page,
    sign_in,
)

# The Editors group and the command that makes editors.


def test_the_editors_group_may_curate_and_nothing_more(db):
    codenames = set(
        Group.objects.get(name="Editors").permissions.values_list("codename", flat=True)
    )
    assert {"change_metric", "change_row", "change_task", "change_leaderboard"} <= codenames
    assert "delete_leaderboard" not in codenames
    # Pages and rows come from files; the one thing editors add is a cited result.
    assert {c for c in codenames if c.startswith(("add_", "delete_"))} == {"add_editoraddition"}
    assert not {c for c in codenames if c.endswith(("_user", "_group", "_permission"))}


def test_createeditor_makes_a_staff_editor_who_can_sign_in(editor, client):
    assert editor.is_staff and not editor.is_superuser
    assert list(editor.groups.values_list("name", flat=True)) == ["Editors"]
    response = client.post(
        reverse("admin:login"),
        {"username": "erin", "password": PASSWORD, "next": reverse("admin:index")},
    )
    assert response.status_code == 302
    assert client.get(reverse("admin:index")).status_code == 200


def test_createeditor_promotes_an_existing_account_and_keeps_its_password(db):
    user = User.objects.create_user("sam", password="old-pass-phrase-77")
    call_command("createeditor", "sam", "--no-input", stdout=__import__("io").StringIO())
    user.refresh_from_db()
    assert user.is_staff and user.groups.filter(name="Editors").exists()
    assert user.check_password("old-pass-phrase-77")


def test_createeditor_without_a_password_refuses(db, monkeypatch):
    monkeypatch.delenv("SOTASITE_EDITOR_PASSWORD", raising=False)
    with pytest.raises(CommandError, match="SOTASITE_EDITOR_PASSWORD"):
        call_command("createeditor", "nopass", "--no-input")
    assert not User.objects.filter(username="nopass").exists()


def test_an_editor_cannot_manage_users_or_delete_leaderboards(seeded, editor_client):
    assert editor_client.get(reverse("admin:auth_user_changelist")).status_code == 403
    response = editor_client.get(admin_url(Leaderboard, "delete", seeded.pk))
    assert response.status_code == 403
    assert Leaderboard.objects.filter(pk=seeded.pk).exists()
    assert editor_client.get(admin_url(Row, "add")).status_code == 403
    actions = editor_client.get(admin_url(Leaderboard, "changelist")).content.decode()
    assert "delete_selected" not in actions


# The locked door.


def test_the_admin_needs_a_staff_login(seeded, client, django_user_model):
    response = client.get(admin_url(Leaderboard, "changelist"))
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]
    client.force_login(django_user_model.objects.create_user("visitor", password="x-y-z-123-abc"))
    response = client.get(admin_url(Leaderboard, "changelist"))
    assert response.status_code == 302


def test_repeated_failed_logins_from_one_client_are_locked_out(editor, client, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):
        client.post(reverse("admin:login"), {"username": "erin", "password": "wrong"})
    # Now even the right password is refused from this address.
    response = client.post(reverse("admin:login"), {"username": "erin", "password": PASSWORD})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_public_site_has_no_write_path(seeded):
    from django.test import Client

    # As a browser from elsewhere would post: no CSRF token.
    client = Client(enforce_csrf_checks=True)
    for url in (
        reverse("leaderboards:leaderboard", args=[SEED_SLUG]),
        reverse("leaderboards:leaderboard_json", args=[SEED_SLUG]),
        admin_url(Row, "changelist"),
    ):
        assert client.post(url, {"withheld": "1"}).status_code in (403, 405)
    assert Row.objects.shown().count() == 22


# Every changelist and change form opens, for an editor and a superuser.

REGISTERED = sorted(
    (model for model in admin.site._registry if model._meta.app_label == "leaderboards"),
    key=lambda model: model.__name__,
)
# What only the archive's other files describe (the papers, links, methods and
# datasets files): made directly, as the importers would leave it.
FROM_THE_ARCHIVE = {
    Author,
    Conference,
    DatasetLanguage,
    DatasetModality,
    Method,
    MethodArea,
    MethodCategory,
    PaperRepository,
    Proceeding,
    Repository,
}


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model.__name__)
def test_every_changelist_and_change_form_opens(model, seeded, editor, editor_client, admin_client):
    if model is EditorAddition:
        # The one kind editors make rather than load.
        record.add_result(
            EditorAddition(
                leaderboard=seeded,
                model="Added",
                metrics={"AUROC": "90"},
                paper_title="t",
                paper_url="https://example.org/",
                note="n",
            ),
            editor,
        )
    if model is Suggestion:
        # Sent by visitors, never loaded.
        Suggestion.objects.create(
            leaderboard=seeded, kind="correction", what="w", why="y", fingerprint="0" * 64
        )
    if model in FROM_THE_ARCHIVE:
        make_showcase()
    obj = model.objects.first()
    assert obj is not None
    for client in (editor_client, admin_client):
        changelist = client.get(admin_url(model, "changelist"))
        assert changelist.status_code == 200
        assert client.get(admin_url(model, "changelist"), {"q": "dice"}).status_code == 200
        change = client.get(admin_url(model, "change", obj.pk))
        assert change.status_code == 200
        assert "Editorial history" in change.content.decode()


def test_every_list_filter_choice_opens(seeded, admin_client):
    make_showcase()
    for model in REGISTERED:
        model_admin = admin.site._registry[model]
        request = admin_client.get(admin_url(model, "changelist")).wsgi_request
        changelist = model_admin.get_changelist_instance(request)
        for spec in changelist.filter_specs:
            for choice in spec.choices(changelist):
                url = admin_url(model, "changelist") + choice["query_string"]
                assert admin_client.get(url).status_code == 200, url


def test_every_leaderboards_model_is_in_the_admin():
    from django.apps import apps

    # SiteState (the cache's data version, the site's totals), SearchEntry and
    # SearchPrefix (the search index), UpkeepPending (end-of-load work owed) and
    # BusiestTask (the home page's ranking) are bookkeeping, not data an editor
    # looks at; so is SuggestionVoice (the suggestions' limits, addresses as digests),
    # and PreparedPart (large boards' pages made at load time, pickled).
    bookkeeping = {
        PreparedPart,
        SiteState,
        SearchEntry,
        SearchPrefix,
        UpkeepPending,
        BusiestTask,
        SuggestionVoice,
    }
    models = set(apps.get_app_config("leaderboards").get_models()) - bookkeeping
    inlined = {
        inline.model
        for model_admin in admin.site._registry.values()
        for inline in model_admin.inlines
    }
    assert models <= set(REGISTERED) | inlined


def test_garbage_in_the_changelist_query_is_not_a_500(seeded, admin_client):
    for query in ("?withheld__exact=banana", "?o=99", "?direction=sideways", "?p=-4", "?edited=x"):
        response = admin_client.get(admin_url(Row, "changelist") + query)
        assert response.status_code in (200, 302, 400), query
        response = admin_client.get(admin_url(Metric, "changelist") + query)
        assert response.status_code in (200, 302, 400), query
    assert admin_client.get(admin_url(Row, "change", 10**9)).status_code in (302, 404)


def test_fields_from_files_are_read_only_and_editorial_ones_editable(seeded, editor_client):
    html = editor_client.get(admin_url(Row, "change", seeded.rows.first().pk)).content.decode()
    assert 'name="withheld"' in html and 'name="withheld_reason"' in html
    assert 'name="model"' not in html and 'name="paper_title"' not in html
    task = Task.objects.get()
    html = editor_client.get(admin_url(Task, "change", task.pk)).content.decode()
    assert 'name="editor_description"' in html and 'name="editor_note"' in html
    assert 'name="description"' not in html and 'name="name"' not in html


def test_the_leaderboard_page_shows_metrics_and_links_to_its_rows(seeded, editor_client):
    html = editor_client.get(admin_url(Leaderboard, "change", seeded.pk)).content.decode()
    assert 'name="metrics-0-editor_direction"' in html
    assert "FPR95" in html and "AUROC" in html
    # The rows are a link to their list filtered to the board, not a table.
    rows_list = admin_url(Row, "changelist") + f"?leaderboard={SEED_SLUG}"
    assert f'href="{rows_list}"' in html
    assert f"{seeded.row_count} rows: open the rows list filtered to this board" in html
    assert "CMA(ViT-B/16, NegLabel)" not in html
    assert "View on site" in html


def test_the_leaderboard_form_puts_directions_before_what_came_from_the_file(seeded, editor_client):
    html = editor_client.get(admin_url(Leaderboard, "change", seeded.pk)).content.decode()
    description = html.index('name="editor_description"')
    directions = html.index('name="metrics-0-editor_direction"')
    from_file = html.index("From the file")
    assert description < directions < from_file
    # Save is offered at the top too.
    assert html.count('name="_save"') == 2


def test_the_admin_carries_the_sites_name(seeded, editor_client):
    html = editor_client.get(reverse("admin:index")).content.decode()
    assert "sotasite editors" in html
    assert "Django administration" not in html


def test_a_board_with_a_withheld_row_still_opens_and_marks_the_row(seeded, editor, editor_client):
    from leaderboards import decisions

    row = seeded.rows.order_by("rank").first()
    decisions.withhold([decisions.row_ref(seeded.pk, row.key, row.model)], "Spam", editor)
    response = editor_client.get(admin_url(Leaderboard, "change", seeded.pk))
    assert response.status_code == 200
    # Listed among the editors' decisions on the board's rows.
    decisions_shown = response.content.decode().split("decisions on rows")[1]
    assert row.model in decisions_shown and "Spam" in decisions_shown


# Query counts: a changelist costs the same however many rows are stored.


CHANGELIST_QUERIES = {
    "Area": 5,
    "BoardChange": 5,
    "DataLoad": 7,
    "Author": 5,
    "Conference": 5,
    "EditorAddition": 7,
    "Suggestion": 4,  # none here; at 1,000 junk: test_suggestion_queue
    "Dataset": 5,
    "DatasetLanguage": 5,
    "DatasetModality": 5,
    "Leaderboard": 6,
    "Method": 5,
    "MethodArea": 5,
    "MethodCategory": 6,
    "Metric": 5,
    "Paper": 7,
    "PaperRepository": 6,
    "Proceeding": 6,
    "Repository": 5,
    "Row": 6,
    "SyntologySnapshot": 5,
    "Task": 6,
}


def a_bigger_board(seed_page, index, rows=300):
    """A board of its own task, dataset and papers, so every changelist grows."""
    page = scaled_page(seed_page, rows)
    page["url"] = f"/sota/big-{index}"
    page["task"]["url"] = f"/task/task-{index}"
    page["dataset"]["url"] = f"/dataset/dataset-{index}"
    for row in page["rows"]:
        if row["paper"]:
            row["paper"] = f"{row['paper']}-{index}"
    return page


def more_of_the_archive(index, count=30):
    """Papers with authors, proceedings and code, methods in categories: every kind grows."""
    area = MethodArea.objects.create(name=f"Area {index}", slug=f"area-{index}")
    parent = make_category(f"Family {index}", area=area)
    for number in range(count):
        paper = make_paper(f"archive-{index}-{number}")
        make_authors(paper, f"Author {index}-{number}", "Shared Author")
        paper.proceeding = make_proceeding(f"CONF{index} 20{number:02} 6", year=2000 + number)
        paper.save()
        make_code_link(paper, f"https://github.com/x/repo-{index}-{number}", is_official=True)
        category = make_category(f"Category {index}-{number}", area=area, parent=parent)
        make_method(f"method-{index}-{number}", categories=[category], papers=[paper], paper=paper)
        tag = f"{index}-{number}"
        DatasetModality.objects.create(slug=f"modality-{tag}", name=f"Modality {tag}")
        DatasetLanguage.objects.create(slug=f"language-{tag}", name=f"Language {tag}")


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model.__name__)
def test_changelist_query_count_does_not_grow_with_rows(
    model, load, seed_page, write_page, admin_client, django_assert_num_queries
):
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    make_showcase()
    url = admin_url(model, "changelist")
    admin_client.get(url)  # the session and content types are warm from here on
    with django_assert_num_queries(CHANGELIST_QUERIES[model.__name__]):
        admin_client.get(url)
    ok, _, err = load(*(write_page(a_bigger_board(seed_page, index)) for index in range(3)))
    assert ok, err
    for index in range(2):
        more_of_the_archive(index)
    assert Row.objects.count() == 922 and Task.objects.count() == 4
    assert Method.objects.count() == 63 and Conference.objects.count() == 3
    with django_assert_num_queries(CHANGELIST_QUERIES[model.__name__]):
        response = admin_client.get(url)
    assert response.status_code == 200


# One each for the board, its metrics, area links, rows, its standing decisions.
CHANGE_FORM_QUERIES = 11


def test_leaderboard_change_form_query_count_does_not_grow_with_rows(
    load, seed_page, write_page, admin_client, django_assert_num_queries
):
    ok, _, _ = load(write_page(seed_page))
    small = Leaderboard.objects.get()
    admin_client.get(admin_url(Leaderboard, "change", small.pk))
    with django_assert_num_queries(CHANGE_FORM_QUERIES) as counted:
        admin_client.get(admin_url(Leaderboard, "change", small.pk))
    big = scaled_page(seed_page, 400)
    big["url"] = "/sota/big"
    ok, _, err = load(write_page(big))
    assert ok, err
    board = Leaderboard.objects.get(slug="big")
    with django_assert_num_queries(len(counted.captured_queries)):
        response = admin_client.get(admin_url(Leaderboard, "change", board.pk))
    assert "400 rows: open the rows list filtered to this board" in response.content.decode()


# History.


def test_every_change_is_logged_with_who_and_when_and_shown_on_the_page(seeded, editor_client):
    task = Task.objects.get()
    response = editor_client.post(
        admin_url(Task, "change", task.pk),
        {
            "editor_description": "Better words.",
            "editor_note": "",
            "parent": "",
            "_save": "Save",
        },
    )
    assert response.status_code == 302
    entry = LogEntry.objects.get(object_id=str(task.pk))
    assert entry.user.username == "erin"
    assert "Editor description" in entry.get_change_message()
    html = editor_client.get(admin_url(Task, "change", task.pk)).content.decode()
    assert "erin" in html and entry.action_time.strftime("%Y-%m-%d") in html


def test_behind_a_proxy_the_forwarded_client_is_throttled_not_the_proxy(editor, client, settings):
    settings.AXES_FAILURE_LIMIT = 2
    settings.SOTASITE_PROXY_COUNT = 1
    # Guesses at another account, so that only the address, not erin's name, is counted.
    for _ in range(2):
        client.post(
            reverse("admin:login"),
            {"username": "someone-else", "password": "wrong"},
            HTTP_X_FORWARDED_FOR="203.0.113.9",
        )
    locked = client.post(
        reverse("admin:login"),
        {"username": "erin", "password": PASSWORD},
        HTTP_X_FORWARDED_FOR="203.0.113.9",
    )
    assert locked.status_code == 429
    # Another client through the same proxy still gets in.
    other = client.post(
        reverse("admin:login"),
        {"username": "erin", "password": PASSWORD, "next": "/admin/"},
        HTTP_X_FORWARDED_FOR="198.51.100.7",
    )
    assert other.status_code == 302


def test_createeditor_asks_for_the_password_twice(db, monkeypatch):
    import io

    answers = iter(["pw-Secret-123456", "pw-Secret-123456"])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    call_command("createeditor", "alice", stdout=io.StringIO())
    assert User.objects.get(username="alice").check_password("pw-Secret-123456")


def test_createeditor_refuses_differing_or_weak_passwords(db, monkeypatch):
    for first, second, message in (
        ("pw-Secret-123456", "pw-Secret-654321", "differ"),
        ("short", "short", "too short"),
    ):
        answers = iter([first, second])
        monkeypatch.setattr("getpass.getpass", lambda prompt, answers=answers: next(answers))
        with pytest.raises(CommandError, match=message):
            call_command("createeditor", "bob")
    assert not User.objects.filter(username="bob").exists()


def test_the_rows_list_shows_each_rows_values_to_judge_it_by(seeded, editor_client):
    html = editor_client.get(admin_url(Row, "changelist") + "?q=NegLabel").content.decode()
    row = Row.objects.filter(model__icontains="NegLabel").order_by("rank").first()
    shown = " · ".join(f"{v.metric.name} {v.raw}" for v in row.values.order_by("position"))
    assert shown and f'<td class="field-values_shown">{shown}</td>' in html


def test_createeditor_full_name_is_the_name_the_public_record_gives(seeded, monkeypatch, client):
    monkeypatch.setenv("SOTASITE_EDITOR_PASSWORD", PASSWORD)
    out = __import__("io").StringIO()
    call_command(
        "createeditor", "ada", "--no-input", "--full-name", "  Ada   Lovelace ", stdout=out
    )
    ada = User.objects.get(username="ada")
    assert public_name(ada) == "Ada Lovelace"
    add_in_admin(sign_in(Client(), ada), seeded)
    assert "Ada Lovelace" in client.get(reverse("leaderboards:changes")).content.decode()
    # Named again later, the name changes and the password stays.
    call_command("createeditor", "ada", "--no-input", "--full-name", "A. Lovelace", stdout=out)
    ada.refresh_from_db()
    assert public_name(ada) == "A. Lovelace" and ada.check_password(PASSWORD)


@pytest.mark.parametrize("bad", ["Ada\x01", "x" * 151])
def test_createeditor_refuses_a_full_name_stored_text_may_not_hold(db, monkeypatch, bad):
    monkeypatch.setenv("SOTASITE_EDITOR_PASSWORD", PASSWORD)
    with pytest.raises(CommandError, match="--full-name"):
        call_command("createeditor", "bob", "--no-input", "--full-name", bad)
    assert not User.objects.filter(username="bob").exists()


def test_an_editor_sets_the_public_name_the_record_gives(seeded, editor_client, client):
    index = editor_client.get(reverse("admin:index")).content.decode()
    assert "names your decisions “an editor”" in index
    assert reverse("admin_public_name") in index
    response = editor_client.post(reverse("admin_public_name"), {"name": " Erin  Example "})
    assert response.status_code == 302
    add_in_admin(editor_client, seeded)
    assert "Erin Example" in client.get(reverse("leaderboards:changes")).content.decode()
    form = editor_client.get(reverse("admin_public_name")).content.decode()
    assert 'value="Erin Example"' in form


@pytest.mark.parametrize("bad", ["Erin\x07", "x" * 151])
def test_a_public_name_stored_text_may_not_hold_is_refused(editor_client, editor, bad):
    response = editor_client.post(reverse("admin_public_name"), {"name": bad})
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    editor.refresh_from_db()
    assert public_name(editor) == "an editor"


def test_the_public_name_page_is_for_staff(db, client, django_user_model):
    assert client.get(reverse("admin_public_name")).status_code == 302  # to the login
    client.force_login(django_user_model.objects.create_user("reader"))
    assert client.get(reverse("admin_public_name")).status_code == 302
