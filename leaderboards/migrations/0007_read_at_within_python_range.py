import datetime

from django.db import migrations, models

EARLIEST = datetime.datetime.min.replace(tzinfo=datetime.UTC)
LATEST = datetime.datetime.max.replace(tzinfo=datetime.UTC)


def clamp_unreadable_read_at(apps, schema_editor):
    """Move a stored read_at that Python cannot read to the nearest instant it can.

    Such a value came from a file whose offset pushed year 1 or 9999 out of
    range; the constraints below would refuse the migration while it stays.
    Filtering and updating happen in SQL, so no value is read into Python.
    The snapshot's read_at_text keeps what the file said, and the order
    between snapshots holds (the earliest stays the earliest).
    """
    using = schema_editor.connection.alias
    for name in ("Leaderboard", "SyntologySnapshot"):
        model = apps.get_model("leaderboards", name)
        rows = model.objects.using(using)
        rows.filter(read_at__lt=EARLIEST).update(read_at=EARLIEST)
        rows.filter(read_at__gt=LATEST).update(read_at=LATEST)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0006_upkeep_pending"),
    ]

    operations = [
        migrations.RunPython(clamp_unreadable_read_at, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="leaderboard",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("read_at__isnull", True),
                    models.Q(("read_at__gte", EARLIEST), ("read_at__lte", LATEST)),
                    _connector="OR",
                ),
                name="leaderboard_read_at_readable",
            ),
        ),
        migrations.AddConstraint(
            model_name="syntologysnapshot",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("read_at__isnull", True),
                    models.Q(("read_at__gte", EARLIEST), ("read_at__lte", LATEST)),
                    _connector="OR",
                ),
                name="snapshot_read_at_readable",
            ),
        ),
    ]
