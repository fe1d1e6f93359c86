"""The editors' tool.

What came from the page files is read-only here; editors change only the
`editor_*` fields, a metric's direction and a row's withheld flag. The loader
never writes those texts; decisions on rows and metrics, which a re-load
replaces, are kept by key (leaderboards/decisions.py), so a re-load keeps every
decision, and an action on a row or metric a re-load replaced goes to the one
that has its key now. Every change is logged (Django's LogEntry) and the log
is shown on the object's own page.

Split by job, as Django's contrib admin is: `options` (the shared base and
mixins), `filters`, `forms`, `inlines`, `actions` and `displays` (computed
columns); then one module per family of models, each registering its admins:
`catalogue` (areas, tasks, datasets, papers), `papers` (authors, conferences,
repositories, code links), `methods` (the methods taxonomy), `boards`
(leaderboards, metrics, rows), `snapshots`, `history` (what loads changed),
`additions` (results editors add) and `suggestions` (visitors' queue).
`directions` and `queue` are the directions queue, `deletes` keeps figures on
a delete, `editors` the Editors group, `auth` the login throttle."""

from django.contrib import admin

from leaderboards.admin import (
    additions,  # noqa: F401 (registers the added results' admin)
    history,  # noqa: F401 (registers the record of what loads changed)
    suggestions,  # noqa: F401 (registers the suggestions' queue)
)
from leaderboards.admin.boards import LeaderboardAdmin, MetricAdmin, RowAdmin
from leaderboards.admin.catalogue import AreaAdmin, DatasetAdmin, PaperAdmin, TaskAdmin
from leaderboards.admin.methods import MethodAdmin
from leaderboards.admin.options import CuratedAdmin
from leaderboards.admin.papers import PaperRepositoryAdmin
from leaderboards.admin.snapshots import SnapshotAdmin

__all__ = [
    "AreaAdmin",
    "CuratedAdmin",
    "DatasetAdmin",
    "LeaderboardAdmin",
    "MethodAdmin",
    "MetricAdmin",
    "PaperAdmin",
    "PaperRepositoryAdmin",
    "RowAdmin",
    "SnapshotAdmin",
    "TaskAdmin",
]

# Editors work on this site, not on "Django administration".
admin.site.site_header = "sotasite editors"
admin.site.site_title = "sotasite editors"
admin.site.index_title = "Curate the leaderboards"
