"""What load_seeds and import_pwc both say about a load, beyond their summary lines."""


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
