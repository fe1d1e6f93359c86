"""The directions queue: metric names without a direction, the most used first, decided by name."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import (
    ChangeKind,
    DirectionDecision,
    EditorialChange,
    Leaderboard,
    Metric,
)
from tests.helpers import SEED_SLUG, admin_url, unranked

QUEUE = "admin:leaderboards_metric_directions"
DECIDE = "admin:leaderboards_metric_directions_decide"


@pytest.fixture
def three_boards(load_boards, seed_page):
    """Three boards whose archive order settles no direction: nothing is inferred."""
    load_boards(
        ("ood-a", 22, ["FPR95", "AUROC"]),
        ("ood-b", 5, ["FPR95", "Score"]),
        ("ood-c", 10, ["FPR95", "Params"]),
        seed=unranked(seed_page),
    )


def queue_names(client, **query):
    response = client.get(reverse(QUEUE), query)
    assert response.status_code == 200
    return [
        (entry["name"], entry["boards"], entry["rows"]) for entry in response.context["entries"]
    ]


def test_the_queue_lists_names_by_boards_then_rows(three_boards, editor_client):
    assert queue_names(editor_client) == [
        ("FPR95", 3, 37),
        ("AUROC", 1, 22),
        ("Params", 1, 10),
        ("Score", 1, 5),
    ]


def test_the_queue_finds_a_name_in_any_case(three_boards, editor_client):
    """ImageNet's metric was not on the first of five pages, and nothing could find it."""
    assert queue_names(editor_client, q="auroc") == [("AUROC", 1, 22)]
    assert queue_names(editor_client, q="  fPr ") == [("FPR95", 3, 37)]
    html = editor_client.get(reverse(QUEUE), {"q": "no such metric"}).content.decode()
    assert "No metric name without a direction holds “no such metric”." in html


def test_the_queue_pages_keep_the_search(load_boards, seed_page, editor_client, monkeypatch):
    from leaderboards.admin import queue

    load_boards(
        *((f"b-{index}", 3, [f"Score {index}", "FPR95"]) for index in range(3)), seed=seed_page
    )
    monkeypatch.setattr(queue, "PAGE_SIZE", 2)
    html = editor_client.get(reverse(QUEUE), {"q": "score"}).content.decode()
    assert 'href="?q=score&amp;page=2"' in html
    assert "page 1 of 2 · 3 names" in html


def test_the_queue_shows_the_suggestion_and_its_reason(three_boards, editor_client):
    html = editor_client.get(reverse(QUEUE)).content.decode()
    assert "lower is better (the name says “fpr”)" in html
    assert "higher is better (the name says “auroc”)" in html


def test_the_admin_index_links_to_the_queue(db, editor_client):
    html = editor_client.get(reverse("admin:index")).content.decode()
    assert f'href="{reverse(QUEUE)}"' in html


def test_a_name_a_file_gives_a_direction_is_not_in_the_queue(seeded, editor, editor_client):
    Metric.objects.filter(name="AUROC").update(source_direction="higher")
    assert queue_names(editor_client) == [("FPR95", 1, 22)]


def test_the_confirmation_says_how_many_boards_and_rows_before_anything_changes(
    three_boards, editor_client
):
    response = editor_client.get(reverse(DECIDE), {"name": "FPR95", "decision": "lower"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "3 boards</strong> (37 rows)" in html
    assert 'value="Yes: 3 boards"' in html
    assert not DirectionDecision.objects.exists()
    assert Metric.objects.filter(name="FPR95", editor_direction__isnull=True).count() == 3


def test_setting_a_name_for_every_board_records_who_when_and_why(
    three_boards, editor, editor_client
):
    response = editor_client.post(
        reverse(DECIDE), {"name": "FPR95", "decision": "accept", "reason": ""}
    )
    assert response.status_code == 302
    assert set(Metric.objects.filter(name="FPR95").values_list("editor_direction", flat=True)) == {
        "lower"
    }
    decided = DirectionDecision.objects.filter(metric="FPR95")
    assert decided.count() == 3
    assert {(d.direction, d.decided_by, d.reason) for d in decided} == {
        ("lower", editor, "Accepted the suggested direction: lower is better (the name says “fpr”)")
    }
    # The board's history names the change, as a decision made board by board does.
    metric = Metric.objects.get(name="FPR95", leaderboard__slug="ood-b")
    entry = LogEntry.objects.get(
        content_type=ContentType.objects.get_for_model(Metric), object_id=str(metric.pk)
    )
    assert entry.user == editor and entry.object_repr == "FPR95"
    assert [name for name, _, _ in queue_names(editor_client)] == ["AUROC", "Params", "Score"]
    messages = [str(m) for m in response.wsgi_request._messages]
    assert messages == ["“FPR95”: lower is better, on 3 boards (37 rows)."]


def test_an_editors_own_reason_is_kept(three_boards, editor_client):
    editor_client.post(
        reverse(DECIDE), {"name": "Params", "decision": "lower", "reason": "fewer is cheaper"}
    )
    assert DirectionDecision.objects.get(metric="Params").reason == "fewer is cheaper"


def test_rejecting_a_suggestion_leaves_the_queue_and_the_direction_unknown(
    three_boards, editor_client
):
    editor_client.post(reverse(DECIDE), {"name": "AUROC", "decision": "reject"})
    assert "AUROC" not in [name for name, _, _ in queue_names(editor_client)]
    metric = Metric.objects.get(name="AUROC")
    assert metric.editor_direction == "unknown" and metric.direction is None
    assert DirectionDecision.objects.get(metric="AUROC").reason.startswith(
        "Rejected the suggested direction (higher is better"
    )


def test_the_decision_outlasts_a_reload(seeded, editor_client, load, write_page, seed_page):
    editor_client.post(reverse(DECIDE), {"name": "AUROC", "decision": "higher"})
    seed_page["syntology"]["read_at"] = "2026-01-01T00:00:00+00:00"
    ok, _, err = load(write_page(seed_page))
    assert ok, err
    assert Metric.objects.get(name="AUROC").editor_direction == "higher"
    assert [name for name, _, _ in queue_names(editor_client)] == ["FPR95"]


def test_a_board_whose_direction_is_set_keeps_it(three_boards, editor, editor_client):
    board_a = Leaderboard.objects.get(slug="ood-a")
    decisions.set_direction([decisions.metric_ref(board_a.pk, "FPR95")], "higher", editor)
    editor_client.post(reverse(DECIDE), {"name": "FPR95", "decision": "lower"})
    assert Metric.objects.get(leaderboard=board_a, name="FPR95").editor_direction == "higher"
    assert Metric.objects.filter(name="FPR95", editor_direction="lower").count() == 2


def test_deciding_a_name_retires_the_boards_cached_pages(
    three_boards, editor_client, django_capture_on_commit_callbacks
):
    before = dict(Leaderboard.objects.values_list("slug", "version"))
    with django_capture_on_commit_callbacks(execute=True):
        editor_client.post(reverse(DECIDE), {"name": "AUROC", "decision": "accept"})
    after = dict(Leaderboard.objects.values_list("slug", "version"))
    assert after["ood-a"] > before["ood-a"]
    assert after["ood-b"] == before["ood-b"] and after["ood-c"] == before["ood-c"]


def test_a_first_metric_decided_makes_the_board_name_its_best(three_boards, editor_client):
    board = Leaderboard.objects.get(slug="ood-a")
    assert not board.top_is_best
    editor_client.post(reverse(DECIDE), {"name": "FPR95", "decision": "accept"})
    board.refresh_from_db()
    assert board.top_is_best and board.top_metric == "FPR95"


def test_the_queue_shows_what_the_archive_ranking_settles(load_boards, seed_page, editor_client):
    # In the seed's own order FPR95 rises on every board: lower is better, inferred.
    load_boards(
        ("ood-a", 22, ["FPR95", "AUROC"]),
        ("ood-b", 5, ["FPR95", "Score"]),
        ("ood-c", 3, ["FPR95", "Params"]),  # too few results to settle anything
        seed=seed_page,
    )
    response = editor_client.get(reverse(QUEUE))
    row = response.content.decode().split('<tr data-name="FPR95">')[1].split("</tr>")[0]
    assert "lower on 2 boards (24 of 24 neighbouring results agree)" in row
    auroc = response.content.decode().split('<tr data-name="AUROC">')[1].split("</tr>")[0]
    assert "settles nothing" in auroc
    # The boards use it meanwhile; deciding the name makes it the editors' word.
    board = Leaderboard.objects.get(slug="ood-a")
    assert board.top_is_best and board.top_metric == "FPR95"
    editor_client.post(reverse(DECIDE), {"name": "FPR95", "decision": "accept"})
    assert Metric.objects.get(leaderboard=board, name="FPR95").direction_set_by == "editor"
    assert "FPR95" not in [name for name, *_ in queue_names(editor_client)]


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"name": "FPR95"},
        {"name": "FPR95", "decision": "sideways"},
        {"name": "", "decision": "lower"},
        {"name": "x" * 301, "decision": "lower"},
        {"name": "Score", "decision": "accept"},  # the name suggests nothing
    ],
)
def test_garbage_is_a_400(three_boards, editor_client, query):
    assert editor_client.get(reverse(DECIDE), query).status_code == 400
    assert editor_client.post(reverse(DECIDE), query).status_code == 400
    assert not DirectionDecision.objects.exists()


def test_a_name_no_board_has_is_a_404(three_boards, editor_client):
    query = {"name": "No such metric", "decision": "lower"}
    assert editor_client.get(reverse(DECIDE), query).status_code == 404


def test_a_name_decided_meanwhile_says_so(three_boards, editor_client):
    editor_client.post(reverse(DECIDE), {"name": "Score", "decision": "higher"})
    response = editor_client.post(reverse(DECIDE), {"name": "Score", "decision": "lower"})
    assert response.status_code == 302
    assert "already has a direction" in str(list(response.wsgi_request._messages)[-1])
    assert DirectionDecision.objects.get(metric="Score").direction == "higher"


def test_an_unknown_queue_page_shows_a_page_not_an_error(three_boards, editor_client):
    for page in ("999", "x", "-1"):
        assert editor_client.get(reverse(QUEUE), {"page": page}).status_code == 200


def test_visitors_and_staff_without_the_right_cannot_use_the_queue(three_boards, client):
    from django.contrib.auth.models import User

    response = client.get(reverse(QUEUE))
    assert response.status_code == 302 and "/login/" in response["Location"]
    staff = User.objects.create_user("viewer", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get(reverse(QUEUE)).status_code == 403
    assert client.post(reverse(DECIDE), {"name": "FPR95", "decision": "lower"}).status_code == 403
    assert not DirectionDecision.objects.exists()


def test_the_boards_link_lists_the_names_undecided_boards(three_boards, editor, editor_client):
    board_a, board_b = Leaderboard.objects.filter(slug__in=["ood-a", "ood-b"])
    decisions.set_direction([decisions.metric_ref(board_a.pk, "FPR95")], "higher", editor)
    decisions.set_direction([decisions.metric_ref(board_b.pk, "FPR95")], "unknown", editor)
    html = editor_client.get(reverse(QUEUE)).content.decode()
    link = html.split('<tr data-name="FPR95">')[1].split('href="')[1].split('"')[0]
    response = editor_client.get(link.replace("&amp;", "&"))
    assert response.status_code == 200
    shown = {(m.leaderboard.slug, m.name) for m in response.context["cl"].result_list}
    assert shown == {("ood-c", "FPR95")}


def test_rejecting_one_boards_suggestion_takes_it_out_of_the_queue(three_boards, editor_client):
    metric = Metric.objects.get(name="AUROC")
    response = editor_client.post(
        admin_url(Metric, "changelist"),
        {"action": "reject_suggestions", "_selected_action": [metric.pk]},
    )
    assert response.status_code == 302
    assert "AUROC" not in [name for name, _, _ in queue_names(editor_client)]
    assert DirectionDecision.objects.get(metric="AUROC").reason.startswith("Rejected")


# What it costs: a fixed number of statements however many boards use the name.


def decide_queries(django_assert_num_queries, editor, count):
    ContentType.objects.get_for_model(Metric)  # cached for the process, as in a server
    with django_assert_num_queries(count):
        outcome = decisions.decide_name("FPR95", "lower", editor, reason="r")
    return outcome


@pytest.mark.parametrize("boards", [3, 30])
def test_deciding_a_name_is_a_fixed_number_of_statements(
    load_boards, seed_page, editor, django_assert_num_queries, boards
):
    load_boards(*((f"ood-{i}", 3, ["FPR95", "AUROC"]) for i in range(boards)), seed=seed_page)
    # A savepoint and its release; the locked boards; the decisions; the log;
    # the public record and the boards' counts of it; the boards where it is
    # the first metric; the update; their figures (7: editors' results compete for the best).
    outcome = decide_queries(django_assert_num_queries, editor, 16)
    assert (outcome.boards, outcome.rows) == (boards, 3 * boards)
    assert DirectionDecision.objects.count() == boards
    assert LogEntry.objects.count() == boards
    changes = EditorialChange.objects.filter(kind=ChangeKind.DIRECTION, subject="FPR95")
    assert changes.count() == boards
    assert {(c.old_value, c.new_value, c.reason) for c in changes} == {("unknown", "lower", "r")}
    assert set(
        Leaderboard.objects.filter(slug__startswith="ood-").values_list(
            "editorial_change_count", flat=True
        )
    ) == {1}


@pytest.mark.parametrize("boards", [3, 30])
def test_a_name_no_board_lists_first_leaves_their_figures_alone_in_fewer_statements(
    load_boards, seed_page, editor, django_assert_num_queries, boards
):
    load_boards(*((f"ood-{i}", 3, ["AUROC", "FPR95"]) for i in range(boards)), seed=seed_page)
    tops = list(Leaderboard.objects.values_list("top_model", "top_is_best"))
    outcome = decide_queries(django_assert_num_queries, editor, 9)
    assert outcome.boards == boards
    assert list(Leaderboard.objects.values_list("top_model", "top_is_best")) == tops


@pytest.mark.parametrize("boards", [3, 30])
def test_the_queue_page_costs_the_same_however_many_boards(
    load_boards, seed_page, editor_client, django_assert_num_queries, boards
):
    load_boards(
        *((f"ood-{i}", 3, [f"FPR95 {i % 7}", f"Score {i}"]) for i in range(boards)),
        seed=seed_page,
    )
    editor_client.get(reverse(QUEUE))
    # The session, the user, the user's and the group's permissions; the
    # count of names and the page of them.
    with django_assert_num_queries(6):
        response = editor_client.get(reverse(QUEUE))
    assert response.status_code == 200
    assert len(response.context["entries"]) == min(50, boards + min(boards, 7))


def test_the_seed_board_is_in_the_queue_until_decided(seeded, editor_client):
    assert [name for name, _, _ in queue_names(editor_client)] == ["AUROC", "FPR95"]
    editor_client.post(reverse(DECIDE), {"name": "FPR95", "decision": "accept"})
    editor_client.post(reverse(DECIDE), {"name": "AUROC", "decision": "accept"})
    assert queue_names(editor_client) == []
    html = editor_client.get(reverse(QUEUE)).content.decode()
    assert "Every metric of every board has a direction." in html
    assert Leaderboard.objects.get(slug=SEED_SLUG).top_is_best


# Against a load: the boards' locks, taken as every editor's action and load takes them.


@pytest.mark.django_db(transaction=True)
def test_deciding_a_name_waits_for_a_load_and_decides_the_metric_it_wrote(
    load_boards, seed_page, django_user_model
):
    import threading

    import psycopg
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks: on SQLite every write transaction runs alone")
    load_boards(("ood-a", 3, ["FPR95", "AUROC"]), ("ood-b", 3, ["FPR95", "Score"]), seed=seed_page)
    board = Leaderboard.objects.get(slug="ood-a")
    # Not the `editor` fixture: an earlier transactional test's flush took the
    # Editors group its command needs; deciding needs only a user.
    editor = django_user_model.objects.create_user("erin")
    params = connection.get_connection_params()
    done = threading.Event()

    def decide():
        try:
            decisions.decide_name("FPR95", "lower", editor, reason="r")
        finally:
            connection.close()
            done.set()

    with psycopg.connect(**params) as load:
        # A load holds the board's lock and replaces its metric, as the writer does.
        load.execute("SELECT id FROM leaderboards_leaderboard WHERE id = %s FOR UPDATE", [board.pk])
        ids = list(Metric.objects.filter(leaderboard=board).values_list("pk", flat=True))
        load.execute("UPDATE leaderboards_metric SET id = id + 100000 WHERE id = ANY(%s)", [ids])
        load.execute(
            "UPDATE leaderboards_metricvalue SET metric_id = metric_id + 100000 "
            "WHERE metric_id = ANY(%s)",
            [ids],
        )
        worker = threading.Thread(target=decide)
        worker.start()
        assert not done.wait(1), "the decision did not wait for the board's lock"
        load.commit()
    worker.join(30)
    assert done.is_set()
    metric = Metric.objects.get(leaderboard=board, name="FPR95")
    assert metric.pk > 100000 and metric.editor_direction == "lower"
    assert DirectionDecision.objects.filter(metric="FPR95").count() == 2
