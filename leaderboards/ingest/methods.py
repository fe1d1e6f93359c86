"""Importing the archive's methods file (SPEC 2.3): methods, their categories and areas.

A method is the slug of its PwC URL. It is the method stored under that slug
(or holding it as `pwc_slug`); else a method the papers file made under the
same name, which keeps its slug and gets PwC's as `pwc_slug`; else a new one
under PwC's slug. This file is the authority for methods: it writes their
name and details, and its `collections` are exactly the method's categories.
A category is found by name (made with the slug of its name), its area by
name (made with the file's `area_id` where that is a slug); a category's area
is written when it has none, so a category the papers file or an earlier
record placed stays where it is. Editors' columns (`editor_description`,
`withheld`, `withheld_reason`) are never written, but for one mark: a record
this site's dumps flag `"description_source": "editor"` gives an editor's text
as its description, so that description is also stored as the editor's where
the method has no editor's text (keep_editors_texts). Without it a site
restored from the dumps would show an editor's words as the archive's; an
editor's own text here is never overwritten.
"""

import dataclasses
import re

from django.db.models import F

from leaderboards.format.rules import marked_as_editors
from leaderboards.ingest import chunks, record_fields
from leaderboards.ingest.joins import Described, by_pwc_slug, named_in, pwc_slug
from leaderboards.ingest.records import KindReport, RecordError
from leaderboards.models import Method, MethodArea, MethodCategory, Paper

KIND = "methods"
_SLUG = re.compile(r"^[-a-z0-9_]+$")
# introduced_year outside these is no year a method was introduced in.
FIRST_YEAR, LAST_YEAR = 1000, 2999


@dataclasses.dataclass(frozen=True)
class PreparedMethod:
    """One record, checked: its identity, columns, introducing paper and categories."""

    pwc: str
    name: str
    columns: dict
    paper: str | None
    # (category name, area name or "", area slug or "")
    collections: tuple
    # The description is an editor's text (rules.marked_as_editors).
    editors: bool = False


def import_file(path, report):
    """Every method of the file written; counts and refusals in report."""
    slugs, _ = named_in(path, "method")
    seen = set()

    def prepare(record):
        method = prepare_method(record)
        if method.pwc in seen:
            raise RecordError("url", f"method {method.pwc!r} again: its first record is kept")
        seen.add(method.pwc)
        return method

    def write(methods, counted):
        write_methods(methods, counted, reserved=slugs)

    chunks.import_file(path, KIND, prepare, write, report)


def prepare_method(record):
    """The record checked; RecordError for a field that cannot be stored."""
    pwc = pwc_slug(record.get("url"), "method")
    name = record_fields.name(record, "name")
    year = record.get("introduced_year")
    if year is not None and (
        isinstance(year, bool) or not isinstance(year, int) or not FIRST_YEAR <= year <= LAST_YEAR
    ):
        raise RecordError("introduced_year", f"expected a year, got {year!r}")
    paper, paper_title, paper_url = record_fields.introducing_paper(record)
    columns = {
        "name": name,
        "full_name": record_fields.text(record, "full_name"),
        "description": record_fields.text(record, "description"),
        "paper_title": paper_title,
        "paper_url": paper_url,
        "introduced_year": year,
        "source_url": record_fields.text(record, "source_url"),
        "source_title": record_fields.text(record, "source_title"),
        "code_snippet_url": record_fields.text(record, "code_snippet_url"),
        "num_papers": record_fields.count(record, "num_papers"),
    }
    return PreparedMethod(
        pwc, name, columns, paper, _collections(record), marked_as_editors(record)
    )


def _collections(record):
    found = []
    for index, item in enumerate(record_fields.items(record, "collections")):
        field = f"collections[{index}]"
        try:
            category = record_fields.name(item, "collection", 300)
            area = record_fields.text(item, "area", 200)
            area_id = item.get("area_id")
        except RecordError as error:
            raise RecordError(f"{field}.{error.field}", error.reason) from None
        area_slug = area_id if isinstance(area_id, str) and _SLUG.match(area_id) else ""
        if (category, area.strip(), area_slug[:200]) not in found:
            found.append((category, area.strip(), area_slug[:200]))
    return tuple(found)


def write_methods(methods, counted, reserved=frozenset()):
    """A chunk of prepared methods written, with their categories and areas."""
    categories = _categories(
        [collection for method in methods for collection in method.collections], counted
    )
    described = Described(Method, [(method.pwc, [method.name]) for method in methods], reserved)
    slugs = [slug for slug, _ in described.slugs()]
    papers = by_pwc_slug(Paper, {method.paper for method in methods if method.paper})
    wanted = {
        slug: {**method.columns, "pwc_slug": method.pwc, "paper_id": papers.get(method.paper)}
        for method, slug in zip(methods, slugs, strict=True)
    }
    changed: set[str] = set()
    made = KindReport()
    ids = chunks.Upsert(Method, "slug", FIELDS).write(wanted, made, changed=changed)
    links = {
        ids[slug]: [categories[category] for category, _, _ in method.collections]
        for method, slug in zip(methods, slugs, strict=True)
    }
    relinked: set[int] = set()
    chunks.set_links(
        Method.categories.through, "method_id", "methodcategory_id", links, changed=relinked
    )
    by_pk = {pk: slug for slug, pk in ids.items()}
    changed |= {by_pk[pk] for pk in relinked}
    marked = keep_editors_texts(
        [ids[slug] for method, slug in zip(methods, slugs, strict=True) if method.editors]
    )
    changed |= {by_pk[pk] for pk in marked}
    chunks.count_rows(counted.kind(KIND), len(wanted), made.created, changed)


FIELDS = (
    "name",
    "full_name",
    "description",
    "paper_title",
    "paper_url",
    "introduced_year",
    "source_url",
    "source_title",
    "code_snippet_url",
    "num_papers",
    "pwc_slug",
    "paper_id",
)


def keep_editors_texts(pks):
    """These methods' descriptions, just written from records marked as editors' texts,
    stored as their editors' too where they have none; the pks so marked.

    An editor's text already stored is kept: the WHERE leaves it alone, and on
    PostgreSQL it is checked again against a row an editor changed meanwhile.
    """
    if not pks:
        return set()
    unmarked = Method.objects.filter(pk__in=pks, editor_description__isnull=True)
    marked = set(unmarked.values_list("pk", flat=True))
    if marked:
        Method.objects.filter(pk__in=marked, editor_description__isnull=True).update(
            editor_description=F("description")
        )
    return marked


def _categories(collections, counted):
    """{category name: pk} for a chunk's collections; categories and areas made as needed.

    A category's area is the first the file gives it, written where it has none.
    """
    area_slugs = {area: slug for _, area, slug in reversed(collections) if area and slug}
    areas = chunks.named(
        MethodArea,
        {area: {} for _, area, _ in collections if area},
        counted.kind("method areas"),
        "area",
        slugs=area_slugs,
    )
    placed: dict[str, int] = {}
    for category, area, _ in collections:
        if area:
            placed.setdefault(category, areas[area])
    return chunks.named(
        MethodCategory,
        {category: {"area_id": placed.get(category)} for category, _, _ in collections},
        counted.kind("method categories"),
        "category",
        fill=("area_id",),
    )
