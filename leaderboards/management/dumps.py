"""`--write-dumps` of the load commands and `export_dumps`: one way a dump set is written."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from leaderboards.dumps.export import PAGES, export_set
from leaderboards.ingest.lock import LoadRunning, one_load_at_a_time


def write_dumps(command, directory=None, wait=True):
    """A new dump set written and made current (the load commands' --write-dumps too)."""
    directory = Path(directory or settings.SOTASITE_DUMPS_DIR)
    try:
        # No load writes while the set is read, so its files agree with each other.
        with one_load_at_a_time(wait=wait, said=command.stderr.write):
            manifest = export_set(directory, said=command.stdout.write)
    except LoadRunning as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"{directory}: the dumps could not be written: {error}") from None
    pages = next(f for f in manifest["files"] if f["name"] == PAGES)["counts"]
    for slug in pages["left_out"]:
        command.stderr.write(
            f"{slug}: left out of the page files: a stored value cannot be written"
        )
    command.stdout.write(
        command.style.SUCCESS(
            f"dumps of data version {manifest['data_version']} written to {directory} "
            f"({len(manifest['files'])} files)"
        )
    )
    return manifest
