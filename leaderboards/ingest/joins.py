"""How the archive's files name each other's things, and how a name finds its row here.

A paper, method, dataset or task is named across the files by its PwC URL,
whose last segment is its slug (SPEC 2); a task also by its name or one of its
synonyms, case aside. The rules live here so every importer joins the same way.
"""

import re

from django.db import connection
from django.db.models import Q

from leaderboards.format.rules import free_slug
from leaderboards.ingest.records import ImportReport, RecordError, records
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
    for slug, pwc, pk in either_slug(model, slugs, "slug", "pwc_slug", "pk"):
        if pwc in slugs:
            found[pwc] = pk
        elif slug in slugs:
            found.setdefault(slug, pk)
    return found


def suffixed(base):
    """The slugs `base` takes with a suffix ("base-2"): those starting "base-"."""
    if connection.vendor == "sqlite":
        # SQLite's LIKE folds case, so it reads no index: every paper's slug was
        # read for each chunk of the papers file. In its binary order they lie
        # between "base-" and "base.".
        return Q(slug__gt=f"{base}-", slug__lt=f"{base}.")
    return Q(slug__startswith=f"{base}-")


def either_slug(model, slugs, *fields):
    """The `fields` of the rows of `model` with one of `slugs` as their slug here or as PwC's.

    A union of two lookups, not one with OR: SQLite read the whole table for
    `slug IN (..) OR pwc_slug IN (..)`, every chunk. Unordered: sorted by the
    model's order, SQLite walked every paper in date order (1.6 s a chunk).
    """
    slugs = list(slugs)
    by_slug = model.objects.filter(slug__in=slugs).order_by().values_list(*fields)
    by_pwc = model.objects.filter(pwc_slug__in=slugs).order_by().values_list(*fields)
    return by_slug.union(by_pwc).order_by()


def named_in(path, kind):
    """(every PwC slug, every name) the records of a methods or datasets file give.

    Read once before the import, so a record joins a row by name only when no
    other record of the file is that row's by its slug or name.
    """
    slugs, names = set(), set()
    for _, record in records(path, ImportReport()):
        slug = optional_pwc_slug(record.get("url"), kind)
        if slug is not None:
            slugs.add(slug)
        if isinstance(record.get("name"), str):
            names.add(record["name"])
    return slugs, names


class Described:
    """Which stored method or dataset (`model`) each record of a chunk describes, else its new slug.

    Found by the record's PwC slug: a row holding it as `pwc_slug`, else one with
    it as its slug that no record has described yet. Else by name: a row made
    from papers or boards (no `pwc_slug` yet) with one of the record's names, the
    first name first, the oldest row first, whose slug is no other record's PwC
    slug (`reserved`). Else the record is new, under PwC's slug, or the first
    free `<slug>-2`, ... where another row holds that one. A row is described by
    one record only.
    """

    def __init__(self, model, wanted, reserved=frozenset()):
        """wanted: [(PwC slug, [names])], a chunk's records in file order."""
        self.model = model
        self.wanted = wanted
        self.reserved = reserved
        pwc_slugs = {pwc for pwc, _ in wanted}
        self.by_pwc: dict[str, str] = {}
        self.by_slug: dict[str, str | None] = {}
        for slug, pwc in either_slug(model, pwc_slugs, "slug", "pwc_slug"):
            if pwc is not None:
                self.by_pwc[pwc] = slug
            self.by_slug[slug] = pwc
        self.by_name: dict[str, list[str]] = {}
        names = {name for _, record_names in wanted for name in record_names}
        for name, slug in (
            model.objects.filter(name__in=names, pwc_slug=None)
            .order_by("pk")
            .values_list("name", "slug")
        ):
            self.by_name.setdefault(name, []).append(slug)

    def slugs(self):
        """[(slug here, whether the row is new)], one for each of `wanted`, in order."""
        found = {}
        claimed = set()
        for index, (pwc, _) in enumerate(self.wanted):
            slug = self.by_pwc.get(pwc)
            if slug is None and pwc in self.by_slug and self.by_slug[pwc] is None:
                slug = pwc
            if slug is not None and slug not in claimed:
                found[index] = slug
                claimed.add(slug)
        for index, (pwc, names) in enumerate(self.wanted):
            if index in found:
                continue
            for name in names:
                slug = next(
                    (
                        slug
                        for slug in self.by_name.get(name, ())
                        if slug not in claimed and (slug == pwc or slug not in self.reserved)
                    ),
                    None,
                )
                if slug is not None:
                    found[index] = slug
                    claimed.add(slug)
                    break
        result = []
        for index, (pwc, _) in enumerate(self.wanted):
            if index in found:
                result.append((found[index], False))
                continue
            slug = pwc
            if slug in self.by_slug or slug in claimed:
                taken = set(
                    self.model.objects.filter(Q(slug=pwc) | suffixed(pwc)).values_list(
                        "slug", flat=True
                    )
                )
                slug = free_slug(pwc, taken | claimed, limit=300)
            claimed.add(slug)
            result.append((slug, True))
        return result
