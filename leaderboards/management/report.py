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


def prepare_boards(command, slugs=None):
    """Make the pages' parts of the boards not prepared for their versions, and say how many."""
    # Imported here: the web's views, which a load itself never needs.
    from leaderboards.web.prepared import rows_kept
    from leaderboards.web.views.preparing import prepare_boards as prepare

    def said(slug, rows, size):
        # A large board takes a while: say so as each is stored, not at the end.
        if rows > rows_kept.max_size:
            command.stdout.write(f"prepared {slug}: {rows:,} results, {size / 1e6:.1f} MB stored")

    try:
        outcome = prepare(slugs, on_made=said)
    except DatabaseError as error:
        # The load stands: without these, each worker makes a board's parts on its first visit.
        command.stderr.write(
            command.style.WARNING(
                f"the boards' pages were not prepared ({error}); `manage.py prepare_boards` "
                "makes them"
            )
        )
        return None
    if outcome.made or outcome.unchanged:  # a load of records alone on a site of no boards
        command.stdout.write(
            f"{len(outcome.made):,} boards' pages prepared, {len(outcome.unchanged):,} already "
            "prepared for their current versions"
        )
    return outcome
