"""Failed logins are limited per username too, not only per address (issue #11, item 7).

The rule: AXES_FAILURE_LIMIT failures within the cool-off lock out the address
they came from and, apart, the username they were aimed at. A successful login
clears nothing. So an editor who guesses at another account locks that account
everywhere and, once their own address reaches the limit, themselves too from
that address; from any other address their own account still works.
"""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.helpers import EDITOR_PASSWORD

LOGIN = reverse("admin:login")
LIMIT = 3
OTHER_PASSWORD = "another-long-passphrase-77"
# Documentation addresses (RFC 5737): only strings in the test client's requests.
OFFICE, HOME, CAFE, ELSEWHERE = "192.0.2.10", "198.51.100.20", "203.0.113.30", "192.0.2.99"


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


@pytest.fixture
def victim(db):
    return User.objects.create_user("victor", password=OTHER_PASSWORD, is_staff=True)


def sign_in(username, password, address):
    """A fresh browser at `address`; the response to its login."""
    return Client(REMOTE_ADDR=address).post(
        LOGIN, {"username": username, "password": password, "next": reverse("admin:index")}
    )


def test_guesses_at_one_username_from_many_addresses_lock_that_username(editor):
    for address in (OFFICE, HOME):
        assert sign_in("erin", "wrong", address).status_code == 200
    # The failure that reaches the limit is itself answered as locked out.
    assert sign_in("erin", "wrong", CAFE).status_code == 429
    # The right password, from an address that never failed, is refused for the hour.
    assert sign_in("erin", EDITOR_PASSWORD, ELSEWHERE).status_code == 429


def test_an_editor_alternating_guesses_with_their_own_logins_locks_the_other_account(
    editor, victim
):
    for _ in range(LIMIT):
        assert sign_in("erin", EDITOR_PASSWORD, OFFICE).status_code == 302
        assert sign_in("victor", "guess", OFFICE).status_code in (200, 429)
    # The guessed-at account is locked wherever its owner signs in from.
    assert sign_in("victor", OTHER_PASSWORD, HOME).status_code == 429
    # The guesser's own address is at the limit too: no more logins from there...
    assert sign_in("erin", EDITOR_PASSWORD, OFFICE).status_code == 429
    # ...while their own account, which no one guessed at, works from elsewhere.
    assert sign_in("erin", EDITOR_PASSWORD, HOME).status_code == 302


def test_a_successful_login_does_not_clear_earlier_failures(editor):
    for _ in range(LIMIT - 1):
        sign_in("erin", "wrong", OFFICE)
    assert sign_in("erin", EDITOR_PASSWORD, OFFICE).status_code == 302
    sign_in("erin", "wrong", OFFICE)
    assert sign_in("erin", EDITOR_PASSWORD, OFFICE).status_code == 429


def test_failures_under_the_limit_leave_every_login_open(editor, victim):
    for _ in range(LIMIT - 1):
        sign_in("victor", "guess", OFFICE)
    assert sign_in("victor", OTHER_PASSWORD, HOME).status_code == 302
    assert sign_in("erin", EDITOR_PASSWORD, OFFICE).status_code == 302


def test_padding_the_name_with_spaces_counts_against_the_same_account(editor):
    # The login form strips the name, so " erin" signs in as erin: it must count as erin.
    for address, name in ((OFFICE, " erin"), (HOME, "erin "), (CAFE, "erin")):
        sign_in(name, "wrong", address)
    assert sign_in("erin", EDITOR_PASSWORD, ELSEWHERE).status_code == 429
