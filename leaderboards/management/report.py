"""What load_seeds and import_pwc both say about a load, beyond their summary lines."""

from django.db import DatabaseError


def write_report(command, report):
    """Failures and warnings, each naming its file; and end-of-load work an earlier run left."""
    for name, message in report.failed:
        command.stderr.write(command.style.ERROR(f"{name}: {message}"))
    for name, message in report.warnings:
        command.stderr.write(command.style.WARNING(f"{name}: {message}"))
    if report.completed_earlier and not report.stopped:
        command.stdout.write(
            "An earlier load stopped before its end-of-load work (catalogue figures, search "
            "index, page cache); this run completed it."
        )


def prepare_large_boards(command, slugs=None):
    """Make the pages of the boards too large for a web worker to keep, and say which."""
    # Imported here: the web's views, which a load itself never needs.
    from leaderboards.web.views.preparing import prepare_large_boards as prepare

    try:
        outcome = prepare(slugs)
    except DatabaseError as error:
        # The load stands: without these, each worker makes a board's parts on its first visit.
        command.stderr.write(
            command.style.WARNING(
                f"the large boards' pages were not prepared ({error}); "
                "`manage.py prepare_boards` makes them"
            )
        )
        return None
    for slug, rows, size in outcome.made:
        command.stdout.write(f"prepared {slug}: {rows:,} results, {size / 1e6:.1f} MB stored")
    return outcome
