import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.urls import reverse

from leaderboards import decisions
from leaderboards.models import Leaderboard, Metric, Row, SearchEntry, SearchKind
from leaderboards.upkeep.cache import _BumpAfterCommit, versions
from leaderboards.web.chart import MAX_POINTS
from leaderboards.web.page_cache import EDITOR_COOKIE
from tests.helpers import (
    EDITOR_PASSWORD,
    SEED_FILE,
    SEED_SLUG,
    admin_url,
    cached_entries,
    scaled_page,
    sign_in,
)

LEADERBOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
MODEL = "CMA(ViT-B/16, NegLabel)"


def newer(page, **changes):
    page["syntology"]["read_at"] = "2026-11-01T00:00:00+00:00"
    page.update(changes)
    return page


def test_public_page_carries_validators_and_may_be_kept_by_a_cdn(seeded, page_cache, client):
    response = client.get(LEADERBOARD)
    assert response.status_code == 200
    assert response.headers["ETag"].startswith('"')
    assert response.headers["Last-Modified"].endswith("GMT")
    control = response.headers["Cache-Control"]
    assert "public" in control and "max-age=60" in control


def test_repeat_visit_with_the_etag_is_a_304(seeded, page_cache, client):
    first = client.get(LEADERBOARD)
    again = client.get(LEADERBOARD, headers={"if-none-match": first.headers["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == first.headers["ETag"]


def test_repeat_visit_with_last_modified_is_a_304(seeded, page_cache, client):
    first = client.get(LEADERBOARD)
    again = client.get(LEADERBOARD, headers={"if-modified-since": first.headers["Last-Modified"]})
    assert again.status_code == 304


def test_a_cached_hit_costs_one_query_whatever_the_page(
    seeded, page_cache, client, django_assert_num_queries
):
    miss = client.get(LEADERBOARD)
    assert miss.headers["X-Page-Cache"] == "miss"
    with django_assert_num_queries(1):
        hit = client.get(LEADERBOARD)
    assert hit.headers["X-Page-Cache"] == "hit"
    assert hit.content == miss.content
    assert hit.headers["ETag"] == miss.headers["ETag"]


def test_a_newer_load_replaces_the_cached_page(
    seeded, page_cache, load, seed_page, write_page, client
):
    before = client.get(LEADERBOARD)
    assert MODEL in before.content.decode()
    seed_page["rows"][0]["model"] = "A model only the newer file has"
    ok, _, err = load(write_page(newer(seed_page)))
    assert ok, err
    after = client.get(LEADERBOARD, headers={"if-none-match": before.headers["ETag"]})
    assert after.status_code == 200
    assert after.headers["X-Page-Cache"] == "miss"
    assert "A model only the newer file has" in after.content.decode()
    assert after.headers["ETag"] != before.headers["ETag"]


def test_a_dry_run_leaves_cached_pages_alone(
    seeded, page_cache, load, seed_page, write_page, client
):
    client.get(LEADERBOARD)
    version = versions(SEED_SLUG)
    ok, _, err = load(write_page(newer(seed_page)), dry_run=True)
    assert ok, err
    assert versions(SEED_SLUG) == version
    assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


def test_an_editor_withholding_a_row_shows_at_once(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    assert MODEL in client.get(LEADERBOARD).content.decode()
    row = Row.objects.get(leaderboard=seeded, model=MODEL)
    row.withheld, row.withheld_reason = True, "spam"
    with django_capture_on_commit_callbacks(execute=True):
        row.save()
    response = client.get(LEADERBOARD)
    assert response.headers["X-Page-Cache"] == "miss"
    assert MODEL not in response.content.decode()


def test_an_editor_setting_a_direction_retires_the_json_export(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    url = reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])
    before = client.get(url).json()
    metric = Metric.objects.filter(leaderboard=seeded).first()
    metric.editor_direction = "lower"
    with django_capture_on_commit_callbacks(execute=True):
        metric.save()
    after = client.get(url).json()
    assert after["metric_direction"]["by_metric"][metric.name] == "lower"
    assert after != before


def test_a_deleted_leaderboard_is_gone_from_the_cache(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    assert client.get(LEADERBOARD).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        Leaderboard.objects.get(slug=SEED_SLUG).delete()
    assert client.get(LEADERBOARD).status_code == 404


def test_a_write_to_the_search_tables_alone_leaves_every_page_cached(
    seeded, page_cache, client, django_capture_on_commit_callbacks
):
    pages = [LEADERBOARD, reverse("leaderboards:home")]
    for url in pages:
        assert client.get(url).headers["X-Page-Cache"] == "miss"
    # Derived like the figures: the work that rewrites them retires the pages itself.
    with django_capture_on_commit_callbacks(execute=True):
        SearchEntry.objects.filter(kind=SearchKind.PAPER).delete()
        SearchEntry.objects.create(kind=SearchKind.TASK, name="A task", slug="a-task")
    for url in pages:
        assert client.get(url).headers["X-Page-Cache"] == "hit", url


def test_many_writes_in_one_transaction_bump_the_version_once(
    seeded, page_cache, django_capture_on_commit_callbacks
):
    version = versions(SEED_SLUG)
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        for row in Row.objects.filter(leaderboard=seeded)[:3]:
            row.withheld = True
            row.withheld_reason = "spam"
            row.save()
    assert len([c for c in callbacks if isinstance(c, _BumpAfterCommit)]) == 1
    assert versions(SEED_SLUG).board > version.board


def test_a_rolled_back_write_leaves_the_version(
    seeded, page_cache, django_capture_on_commit_callbacks
):
    version = versions(SEED_SLUG)
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        Row.objects.filter(leaderboard=seeded).first().save()
        raise RuntimeError("the editor's save failed")
    assert versions(SEED_SLUG) == version


def test_a_missing_page_is_not_cached(db, page_cache, client, load):
    assert client.get(LEADERBOARD).status_code == 404
    ok, _, err = load(SEED_FILE)
    assert ok, err
    assert client.get(LEADERBOARD).status_code == 200


def test_query_strings_are_cached_apart(seeded, page_cache, client):
    client.get(LEADERBOARD)
    assert client.get(LEADERBOARD + "?sort=date").headers["X-Page-Cache"] == "miss"
    assert client.get(LEADERBOARD + "?sort=date").headers["X-Page-Cache"] == "hit"
    assert client.get(LEADERBOARD + "?sort=model").headers["X-Page-Cache"] == "miss"


def test_the_admin_is_never_cached(db, page_cache, client):
    for _ in range(2):
        response = client.get(reverse("admin:login"))
        assert response.status_code == 200
        control = response.headers["Cache-Control"]
        assert "private" in control and "no-store" in control
        assert "public" not in control
        assert "X-Page-Cache" not in response.headers


def test_a_signed_in_editor_gets_private_fresh_pages(seeded, page_cache, client):
    client.get(LEADERBOARD)
    sign_in(client, User.objects.create_user("editor", is_staff=True))
    response = client.get(LEADERBOARD)
    assert response.status_code == 200
    assert "X-Page-Cache" not in response.headers
    control = response.headers["Cache-Control"]
    assert "private" in control and "no-store" in control


@pytest.mark.parametrize(
    "cookie", ["x", "a" * 32, "0123456789abcdefghijklmnopqrstuv", "%00", "' OR 1=1 --"]
)
def test_a_made_up_session_cookie_gets_the_cached_page(seeded, page_cache, client, cookie):
    """Any `sessionid` once skipped the cache: a cheap way to make the site render every page."""
    client.get(LEADERBOARD)
    client.cookies[settings.SESSION_COOKIE_NAME] = cookie
    response = client.get(LEADERBOARD)
    assert response.headers["X-Page-Cache"] == "hit"
    assert "public" in response.headers["Cache-Control"]


def test_an_editors_session_without_the_admins_mark_gets_the_cached_page(
    seeded, page_cache, client
):
    """Telling an editor from a visitor costs no database read unless the signed mark says so:
    a made-up `sessionid` on every request made the database answer each one."""
    client.get(LEADERBOARD)
    client.force_login(User.objects.create_user("editor", is_staff=True))
    assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


@pytest.mark.parametrize("forged", ["forged", "x:y", "{key}", "{key}:0000"])
def test_a_forged_editors_mark_gets_the_cached_page(seeded, page_cache, client, forged):
    client.get(LEADERBOARD)
    client.force_login(User.objects.create_user("editor", is_staff=True))
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    client.cookies[EDITOR_COOKIE] = forged.format(key=key)
    assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


def test_the_mark_is_worth_nothing_with_another_session(seeded, page_cache, client):
    client.get(LEADERBOARD)
    sign_in(client, User.objects.create_user("editor", is_staff=True))
    mark = client.cookies[EDITOR_COOKIE].value
    visitor = Client()
    visitor.force_login(User.objects.create_user("reader", is_staff=False))
    visitor.cookies[EDITOR_COOKIE] = mark
    assert visitor.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


def test_signing_out_takes_the_mark_away(seeded, page_cache, client):
    client.get(LEADERBOARD)
    sign_in(client, User.objects.create_user("editor", is_staff=True))
    assert "X-Page-Cache" not in client.get(LEADERBOARD).headers
    client.post(reverse("admin:logout"))
    assert client.cookies[EDITOR_COOKIE].value == ""
    assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


def test_a_made_up_cookie_costs_the_cached_page_no_query(
    seeded, page_cache, client, django_assert_num_queries
):
    client.get(LEADERBOARD)
    client.cookies[settings.SESSION_COOKIE_NAME] = "0123456789abcdefghijklmnopqrstuv"
    client.cookies[EDITOR_COOKIE] = "0123456789abcdefghijklmnopqrstuv:forged"
    with django_assert_num_queries(1):  # the page's versions, as for any visitor
        assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


def test_a_session_that_is_not_an_editors_gets_the_cached_page(seeded, page_cache, client):
    client.get(LEADERBOARD)
    client.force_login(User.objects.create_user("reader", is_staff=False))
    assert client.get(LEADERBOARD).headers["X-Page-Cache"] == "hit"


def test_posts_are_not_cached(seeded, page_cache, client):
    client.get(LEADERBOARD)
    response = client.post(LEADERBOARD)
    assert "X-Page-Cache" not in response.headers


def test_the_cache_is_off_unless_asked_in_tests(seeded, client):
    assert "X-Page-Cache" not in client.get(LEADERBOARD).headers


def test_a_big_page_is_cached_compressed_and_served_whole(
    load, seed_page, write_page, page_cache, client, django_assert_num_queries
):
    ok, _, err = load(write_page(scaled_page(seed_page, 2000)))
    assert ok, err
    miss = client.get(LEADERBOARD)
    (entry,) = cached_entries()
    assert len(entry[2]) < len(miss.content) / 5
    with django_assert_num_queries(1):
        hit = client.get(LEADERBOARD)
    assert hit.content == miss.content
    # The table shows a hundred rows; the chart plots as many points as it ever does.
    assert hit.content.decode().count('<g class="point') > MAX_POINTS * 0.9


def test_head_requests_share_the_cache(seeded, page_cache, client):
    get = client.get(LEADERBOARD)
    head = client.head(LEADERBOARD)
    assert head.status_code == 200
    assert head.headers["X-Page-Cache"] == "hit"
    assert head.headers["ETag"] == get.headers["ETag"]


# One board's change retires its own pages and the lists, not the other boards'.

BOARDS = 120


def board_pages(slug):
    return [
        reverse("leaderboards:leaderboard", args=[slug]),
        reverse("leaderboards:leaderboard_json", args=[slug]),
        reverse("leaderboards:leaderboard_csv", args=[slug]),
        reverse("api:evaluation_detail", kwargs={"id": slug}),
        reverse("api:evaluation_results", kwargs={"id": slug}),
    ]


def list_pages(board):
    return [
        reverse("leaderboards:home"),
        reverse("leaderboards:leaderboard_list"),
        board.task.get_absolute_url(),
        board.dataset.get_absolute_url(),
        reverse("leaderboards:search") + "?q=board",
        reverse("leaderboards:feed_newest"),
        reverse("sitemap"),
        reverse("api:evaluation_list"),
    ]


def board_page(index, seed_page):
    page = scaled_page(seed_page, 3)
    page["url"] = f"/sota/board-{index:04d}"
    page["task"] = {"name": f"Task {index % 4}", "url": f"/task/task-{index % 4}", "note": None}
    return page


@pytest.fixture
def boards(load, seed_page, write_page):
    paths = [write_page(board_page(index, seed_page)) for index in range(BOARDS)]
    ok, _, err = load(*paths)
    assert ok, err
    return list(Leaderboard.objects.filter(slug__startswith="board-").order_by("slug"))


def served_from_cache(client, urls):
    return [client.get(url).headers["X-Page-Cache"] == "hit" for url in urls]


def other_boards_pages(boards, changed):
    return [url for board in boards if board != changed for url in board_pages(board.slug)]


def every_page(boards):
    return [url for board in boards for url in board_pages(board.slug)] + list_pages(boards[0])


def test_an_editor_withholding_a_row_leaves_the_other_boards_cached(
    boards, page_cache, client, django_capture_on_commit_callbacks
):
    every = every_page(boards)
    assert not any(served_from_cache(client, every))
    changed = boards[7]
    row = changed.rows.first()
    editor = User.objects.create_user("editor", is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        decisions.withhold([decisions.row_ref(changed.pk, row.key)], "spam", editor)

    others = served_from_cache(client, other_boards_pages(boards, changed))
    assert sum(others) / len(others) >= 0.99
    assert not any(served_from_cache(client, board_pages(changed.slug)))
    assert row.model not in client.get(changed.get_absolute_url()).content.decode()
    # The lists show the board's figures: they are rendered afresh too.
    assert not any(served_from_cache(client, list_pages(changed)))


def test_an_editor_setting_a_direction_leaves_the_other_boards_cached(
    boards, page_cache, client, django_capture_on_commit_callbacks
):
    every = every_page(boards)
    served_from_cache(client, every)
    changed = boards[3]
    editor = User.objects.create_user("editor", is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        decisions.set_direction(changed.metrics.all()[:1], "lower", editor)
    assert all(served_from_cache(client, other_boards_pages(boards, changed)))
    assert not any(served_from_cache(client, board_pages(changed.slug)))


def test_a_reload_of_one_board_leaves_the_other_boards_cached(
    boards, page_cache, client, load, seed_page, write_page, django_capture_on_commit_callbacks
):
    served_from_cache(client, every_page(boards))
    page = newer(board_page(5, seed_page))
    page["rows"][0]["model"] = "A model only the newer file has"
    # Committed, with what each commit retires: the load's record of what it changed too.
    with django_capture_on_commit_callbacks(execute=True):
        ok, _, err = load(write_page(page))
    assert ok, err

    changed = boards[5]
    assert all(served_from_cache(client, other_boards_pages(boards, changed)))
    assert not any(served_from_cache(client, board_pages(changed.slug)))
    assert "A model only the newer file has" in client.get(changed.get_absolute_url()).text
    assert not any(served_from_cache(client, list_pages(changed)))


def test_a_change_to_what_boards_share_retires_every_page(
    boards, page_cache, client, django_capture_on_commit_callbacks
):
    served_from_cache(client, every_page(boards[:10]))
    task = boards[0].task
    task.editor_description = "The task as an editor describes it."
    with django_capture_on_commit_callbacks(execute=True):
        task.save()
    assert not any(served_from_cache(client, every_page(boards[:10])))


def test_an_editor_withholding_a_row_in_the_admin_leaves_the_other_boards_cached(
    boards, page_cache, editor_client, django_capture_on_commit_callbacks
):
    visitor = Client()
    served_from_cache(visitor, every_page(boards))
    changed = boards[9]
    row = changed.rows.first()
    form = editor_client.get(admin_url(Row, "change", row.pk)).content.decode()
    key = re.search(r'name="decision_key" value="([^"]*)"', form).group(1)
    metrics = str(changed.metrics.count())
    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post(
            admin_url(Row, "change", row.pk),
            {
                "withheld": "on",
                "withheld_reason": "Spam",
                "decision_key": key,
                "values-TOTAL_FORMS": metrics,
                "values-INITIAL_FORMS": metrics,
                "_save": "Save",
            },
        )
    assert response.status_code == 302
    assert all(served_from_cache(visitor, other_boards_pages(boards, changed)))
    assert not any(served_from_cache(visitor, board_pages(changed.slug)))
    assert row.model not in visitor.get(changed.get_absolute_url()).text


def test_signing_in_through_the_admin_marks_the_session(seeded, page_cache, client, editor):
    client.get(LEADERBOARD)
    response = client.post(
        reverse("admin:login"), {"username": "erin", "password": EDITOR_PASSWORD}
    )
    assert response.status_code == 302
    assert client.cookies[EDITOR_COOKIE].value
    assert "X-Page-Cache" not in client.get(LEADERBOARD).headers
