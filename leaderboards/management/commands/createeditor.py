import getpass
import os

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from leaderboards.admin.editors import EDITORS
from leaderboards.admin.public_name import PublicNameForm
from leaderboards.models.editorial import give_public_name

PASSWORD_ENV = "SOTASITE_EDITOR_PASSWORD"


class Command(BaseCommand):
    help = (
        "Make USERNAME an editor: a staff account in the Editors group, which may "
        "curate in /admin/ and nothing more. Creates the account if it is new; asks "
        f"for its password, or reads it from ${PASSWORD_ENV} with --no-input."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--full-name",
            default=None,
            help="the name the public record gives this editor's decisions "
            '(else "an editor"; never the login)',
        )
        parser.add_argument(
            "--no-input",
            action="store_false",
            dest="interactive",
            help=f"do not prompt; a new account's password comes from ${PASSWORD_ENV}",
        )

    def handle(self, *args, username, email, interactive, full_name, **options):
        if full_name is not None:
            full_name = _public_name(full_name)
        try:
            group = Group.objects.get(name=EDITORS)
        except Group.DoesNotExist:
            raise CommandError(
                f"There is no {EDITORS} group: run `manage.py migrate` first."
            ) from None
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        password = None
        if user is None:
            password = self._password(username, interactive)
        with transaction.atomic():
            created = user is None
            if created:
                user = User(username=username, email=email)
                user.set_password(password)
            user.is_staff = True
            if full_name is not None:
                give_public_name(user, full_name)
            user.save()
            user.groups.add(group)
        verb = "created" if created else "made an editor (password unchanged)"
        self.stdout.write(self.style.SUCCESS(f"{username}: {verb}; sign in at /admin/"))

    def _password(self, username, interactive):
        if not interactive:
            password = os.environ.get(PASSWORD_ENV)
            if not password:
                raise CommandError(f"Set ${PASSWORD_ENV} for a new account with --no-input.")
        else:
            try:
                password = getpass.getpass(f"Password for {username}: ")
                again = getpass.getpass("Password (again): ")
            except (EOFError, KeyboardInterrupt):
                raise CommandError("No password given; nothing changed.") from None
            if password != again:
                raise CommandError("The passwords differ.")
        try:
            validate_password(password)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        return password


def _public_name(text):
    """The public name as given, held to the admin form's rules (length, characters)."""
    form = PublicNameForm({"name": text})
    if not form.is_valid():
        raise CommandError("--full-name: " + " ".join(form.errors["name"]))
    return form.cleaned_data["name"]
