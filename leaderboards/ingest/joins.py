"""How the archive's files name each other's things, and how a name finds its row here.

A paper, method, dataset or task is named across the files by its PwC URL,
whose last segment is its slug (SPEC 2); a task also by its name or one of its
synonyms, case aside. The rules live here so every importer joins the same way.
"""

import re

from django.db.models import Q

from leaderboards.ingest.records import RecordError
from leaderboards.models import Task

_PWC_PATH = re.compile(
    r"^(?:https?://(?:www\.)?paperswithcode\.com)?/(?P<kind>[a-z-]+)/(?P<slug>[^/?#\s]+)/?$"
)
_SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")


def pwc_slug(url, kind, field="url"):
    """The slug of a PwC URL of this kind (`paper`, `method`, `dataset`, `task`).

    RecordError, naming `field`, for anything else: a URL of another kind, of
    another site, or whose slug could not be an address here.
    """
    if not isinstance(url, str) or not url.strip():
        raise RecordError(field, f"expected a PwC /{kind}/ URL, got {url!r}")
    match = _PWC_PATH.match(url.strip())
    if match is None or match["kind"] != kind:
        raise RecordError(field, f"expected a PwC /{kind}/ URL, got {url!r}")
    slug = match["slug"]
    if not _SLUG.match(slug) or len(slug) > 300:
        raise RecordError(field, f"{slug!r} is not a slug this site can serve")
    return slug


def optional_pwc_slug(url, kind):
    """pwc_slug(), or None where the URL is empty or not a PwC URL of this kind."""
    try:
        return pwc_slug(url, kind)
    except RecordError:
        return None


def _folded(name):
    return " ".join(name.split()).casefold()


class TaskNames:
    """Every task by its name and synonyms, case and spacing aside; a name wins over a synonym."""

    def __init__(self):
        self.by_name: dict[str, int] = {}
        synonyms: dict[str, int] = {}
        for pk, slug, name, task_synonyms in Task.objects.values_list(
            "pk", "slug", "name", "synonyms"
        ).order_by("pk"):
            self.by_name.setdefault(_folded(name), pk)
            self.by_name.setdefault(slug, pk)
            for synonym in task_synonyms or ():
                if isinstance(synonym, str):
                    synonyms.setdefault(_folded(synonym), pk)
        for name, pk in synonyms.items():
            self.by_name.setdefault(name, pk)

    def find(self, name, url=None):
        """The task's pk, by its URL's slug, else its name or a synonym; None if unknown."""
        slug = optional_pwc_slug(url, "task") if url else None
        if slug and slug in self.by_name:
            return self.by_name[slug]
        if isinstance(name, str) and name.strip():
            return self.by_name.get(_folded(name))
        return None


def by_pwc_slug(model, slugs):
    """{PwC slug: pk} for the papers or datasets (`model`) known by these slugs, here or on PwC.

    A thing first known from a board keeps the slug it was given here and holds
    PwC's in `pwc_slug`; that one wins over another that merely has the slug here.
    """
    slugs = set(slugs)
    found = {}
    for slug, pwc, pk in model.objects.filter(
        Q(slug__in=slugs) | Q(pwc_slug__in=slugs)
    ).values_list("slug", "pwc_slug", "pk"):
        if pwc in slugs:
            found[pwc] = pk
        elif slug in slugs:
            found.setdefault(slug, pk)
    return found
