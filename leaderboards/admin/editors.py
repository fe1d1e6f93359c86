"""The Editors group: what curating needs and nothing more.

Editors correct texts, directions and spam rows, papers' code links, spam
methods and papers, decide visitors' suggestions, and look at everything else.
No adding or deleting (the files are the source of pages and rows) and no
user management.
"""

EDITORS = "Editors"
EDITOR_PERMISSIONS = {
    "task": ("view", "change"),
    "dataset": ("view", "change"),
    "leaderboard": ("view", "change"),
    "metric": ("view", "change"),
    "row": ("view", "change"),
    "area": ("view",),
    # Withheld with a reason, through the admin's actions (leaderboards/curation.py).
    "paper": ("view", "change"),
    "method": ("view", "change"),
    "paperrepository": ("view", "change"),
    "author": ("view",),
    "paperauthor": ("view",),
    "conference": ("view",),
    "proceeding": ("view",),
    "repository": ("view",),
    "methodarea": ("view",),
    "methodcategory": ("view",),
    "datasetmodality": ("view",),
    "datasetlanguage": ("view",),
    "leaderboardarea": ("view",),
    "metricvalue": ("view",),
    "syntologysnapshot": ("view",),
    "rowverification": ("view",),
    # What each load changed in boards' data, recorded by the loader.
    "dataload": ("view",),
    "boardchange": ("view",),
    # Decisions are made through rows and metrics, and read here.
    "rowdecision": ("view",),
    "directiondecision": ("view",),
    # Results editors add, cited, and the public record of every change.
    "editoraddition": ("view", "add", "change"),
    "editorialchange": ("view",),
    # Visitors' suggestions: read, then accepted by a decision or rejected.
    "suggestion": ("view", "change"),
}


def ensure_editors_group(group_model, permission_model):
    """Create the group or reset its permissions; takes models so migrations can call it."""
    codenames = [
        f"{action}_{model}" for model, actions in EDITOR_PERMISSIONS.items() for action in actions
    ]
    permissions = permission_model.objects.filter(
        content_type__app_label="leaderboards", codename__in=codenames
    )
    group, _ = group_model.objects.get_or_create(name=EDITORS)
    group.permissions.set(permissions)
    return group


def refresh_editors_group(apps, schema_editor):
    """A migration's step: the permissions of the models it made, then the group's.

    Django makes a new model's permissions after the last migration; a
    migration that gives them to the group makes them first.
    """
    from django.contrib.auth.management import create_permissions

    app_config = apps.get_app_config("leaderboards")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    ensure_editors_group(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))
