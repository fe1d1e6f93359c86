"""Signed-in staff see "Edit" on public pages; visitors' pages carry none and stay cached."""

import pytest
from django.test import Client
from django.urls import reverse

from leaderboards.models import Leaderboard, Task
from tests.helpers import SEED_SLUG, admin_url, cached_entries


def board_page(client):
    return client.get(reverse("leaderboards:leaderboard", args=[SEED_SLUG]))


def test_staff_see_edit_linking_to_the_boards_admin_page(seeded, editor_client):
    html = board_page(editor_client).content.decode()
    assert f'<a class="edit-link" href="{admin_url(Leaderboard, "change", seeded.pk)}"' in html


def test_staff_see_edit_on_a_task_page_and_admin_on_a_list(seeded, editor_client):
    task = Task.objects.get()
    html = editor_client.get(task.get_absolute_url()).content.decode()
    assert f'href="{admin_url(Task, "change", task.pk)}"' in html
    html = editor_client.get(reverse("leaderboards:task_list")).content.decode()
    assert f'<a class="edit-link" href="{reverse("admin:index")}">Admin</a>' in html


def test_visitors_and_signed_in_non_staff_see_no_edit_link(seeded, client, django_user_model):
    assert b"edit-link" not in board_page(client).content
    client.force_login(django_user_model.objects.create_user("reader", password="x"))
    assert b"edit-link" not in board_page(client).content


@pytest.mark.usefixtures("page_cache")
def test_a_page_rendered_for_staff_is_never_cached_nor_served_to_a_visitor(seeded, editor_client):
    visitor = Client()
    first = board_page(visitor)
    assert first["X-Page-Cache"] == "miss" and b"edit-link" not in first.content
    for_staff = board_page(editor_client)
    assert b"edit-link" in for_staff.content
    assert "X-Page-Cache" not in for_staff
    assert "no-store" in for_staff["Cache-Control"] and "private" in for_staff["Cache-Control"]
    again = board_page(visitor)
    assert again["X-Page-Cache"] == "hit" and b"edit-link" not in again.content
    assert not any(b"edit-link" in _body(entry) for entry in cached_entries())


@pytest.mark.usefixtures("page_cache")
def test_a_visitors_page_reads_no_session_so_it_stays_cacheable(seeded, client):
    response = board_page(client)
    assert "Cookie" not in response.get("Vary", "")
    assert board_page(client)["X-Page-Cache"] == "hit"


def _body(entry):
    import zlib

    _, _, content = entry
    return zlib.decompress(content)
