"""The methods a papers-file record names (SPEC 2.1 `methods`), with their categories.

read() checks one record's method; write() makes a chunk's methods, their
categories (nested through `main_collection.parent`) and areas as needed. The
methods file, imported after, is the methods' authority: here a stored method's
or category's archive fields are only filled where empty, and a method that file
described gets no category from a paper. A method the site's dumps mark as
described by an editor keeps that mark where its description is the record's
(methods.keep_editors_texts says why).
"""

import itertools
from decimal import Decimal

from leaderboards.format.rules import marked_as_editors, slug_for
from leaderboards.ingest import chunks
from leaderboards.ingest.methods import keep_editors_texts
from leaderboards.ingest.record_fields import text
from leaderboards.ingest.records import RecordError
from leaderboards.models import Method, MethodArea, MethodCategory

NAME_LIMIT = 300
METHOD_FIELDS = (
    "full_name", "description", "introduced_year", "source_url", "source_title",
    "code_snippet_url",
)  # fmt: skip


def read(method, path):
    """A method the paper names: its name, its archive fields, its category chain."""
    if not isinstance(method, dict):
        raise RecordError(path, "expected an object")
    name = method.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RecordError(f"{path}.name", "a method needs a name")
    if len(name) > NAME_LIMIT:
        raise RecordError(f"{path}.name", f"{len(name):,} characters, over {NAME_LIMIT}")
    fields = {
        field: _field_text(method, field, path)
        for field in METHOD_FIELDS
        if field != "introduced_year"
    }
    year = method.get("introduced_year")
    if isinstance(year, Decimal) and year == int(year):
        year = int(year)
    if year is not None and (isinstance(year, bool) or not isinstance(year, int)):
        raise RecordError(f"{path}.introduced_year", f"expected a year, got {year!r}")
    if year is not None and not 0 < year <= 9999:
        year = None  # PwC writes 0 for "not known"
    fields["introduced_year"] = year
    return {
        "name": name.strip(),
        "fields": fields,
        "collections": _collections(method.get("main_collection"), f"{path}.main_collection"),
        "editors": marked_as_editors(method),
    }


def _field_text(value, field, path):
    try:
        return text(value, field)
    except RecordError as error:
        raise RecordError(f"{path}.{field}", error.reason) from None


def _collections(collection, path):
    """The method's category and those it is inside, innermost first:
    [(name, description, area, parent name)]."""
    chain: list[tuple] = []
    while collection is not None and len(chain) < 20:
        if isinstance(collection, str):
            collection = {"name": collection}
        if not isinstance(collection, dict):
            raise RecordError(path, "expected an object or null")
        name = collection.get("name")
        if not isinstance(name, str) or not name.strip():
            raise RecordError(f"{path}.name", "a collection needs a name")
        if len(name.strip()) > NAME_LIMIT:
            raise RecordError(f"{path}.name", f"{len(name):,} characters, over {NAME_LIMIT}")
        area = _field_text(collection, "area", path).strip()
        if len(area) > MethodArea._meta.get_field("name").max_length:
            raise RecordError(f"{path}.area", f"{len(area):,} characters: no area's name")
        parent = collection.get("parent")
        parent_name = parent.get("name") if isinstance(parent, dict) else parent
        chain.append(
            (
                name.strip(),
                _field_text(collection, "description", path),
                area or None,
                parent_name.strip()
                if isinstance(parent_name, str) and parent_name.strip()
                else None,
            )
        )
        collection, path = parent, f"{path}.parent"
    return chain


def write(items, counted):
    """{name: pk} for the methods the chunk's papers name, their categories and areas
    made as needed; an existing method's or category's archive fields filled only where
    empty (the methods file is their authority)."""
    wanted: dict[str, dict] = {}
    for item in items:
        for method in item["methods"]:
            wanted.setdefault(method["name"], method)
    if not wanted:
        return {}
    categories = _categories(wanted.values(), counted)
    found: dict[str, dict] = {}
    for field, keys in (
        ("name", list(wanted)),
        ("slug", [slug_for(name, "method", 300) for name in wanted]),
    ):
        for batch in itertools.batched(keys, 500):
            for row in (
                Method.objects.filter(**{f"{field}__in": batch})
                .order_by("-pk")
                .values("pk", "name", "slug", *METHOD_FIELDS)
            ):
                found.setdefault(field, {})[row[field]] = row
    rows, missing = {}, []
    for name in wanted:
        row = found.get("name", {}).get(name) or found.get("slug", {}).get(
            slug_for(name, "method", 300)
        )
        if row is None:
            missing.append(name)
        else:
            rows[name] = row
    counts = counted.kind("methods")
    filled, unchanged, editors = [], [], []
    for name, row in rows.items():
        empty = {
            field: value
            for field, value in wanted[name]["fields"].items()
            if value not in ("", None) and row[field] in ("", None)
        }
        if empty:
            filled.append(Method(pk=row["pk"], **{**{f: row[f] for f in METHOD_FIELDS}, **empty}))
        else:
            unchanged.append(row["pk"])
        description = wanted[name]["fields"]["description"]
        # Only where the stored description is the one the record marks.
        if wanted[name]["editors"] and empty.get("description", row["description"]) == description:
            editors.append(row["pk"])
    if filled:
        Method.objects.bulk_update(filled, METHOD_FIELDS, batch_size=500)
        counts.updated += len(filled)
    if missing:
        slugs = chunks.free_slugs(Method, missing, "method")
        made = Method.objects.bulk_create(
            [Method(slug=slugs[n], name=n, **wanted[n]["fields"]) for n in missing],
            batch_size=500,
        )
        counts.created += len(made)
        for batch in itertools.batched([slugs[n] for n in missing], 500):
            for pk, name in Method.objects.filter(slug__in=batch).values_list("pk", "name"):
                rows[name] = {"pk": pk}
                if wanted[name]["editors"]:
                    editors.append(pk)
    marked = keep_editors_texts(editors)
    # A method whose only change is the mark counts as updated.
    counts.updated += sum(pk in marked for pk in unchanged)
    counts.unchanged += sum(pk not in marked for pk in unchanged)
    ids = {name: row["pk"] for name, row in rows.items()}
    _add_categories(
        {
            (ids[name], categories[method["collections"][0][0]])
            for name, method in wanted.items()
            if method["collections"]
        }
    )
    return ids


def _categories(methods, counted):
    """{name: pk} for every category the methods' chains name, parents made first."""
    chains: dict[str, tuple] = {}
    areas = set()
    for method in methods:
        for name, description, area, parent in method["collections"]:
            chains.setdefault(name, (description, area, parent))
            if area:
                areas.add(area)
    if not chains:
        return {}
    area_ids = chunks.named(
        MethodArea,
        {area: {} for area in areas},
        counted.kind("method areas"),
        "area",
    )
    counts = counted.kind("method categories")
    ids = {}
    pending = dict(chains)
    while pending:
        # A round: those whose parent is known by now (or named by no chain here).
        ready = {
            name: entry
            for name, entry in pending.items()
            if entry[2] is None or entry[2] in ids or entry[2] not in pending
        } or pending
        parents = {entry[2] for entry in ready.values() if entry[2] and entry[2] not in ids}
        if parents:
            ids.update(MethodCategory.objects.filter(name__in=parents).values_list("name", "pk"))
        made = chunks.named(
            MethodCategory,
            {
                name: {
                    "description": description,
                    "area_id": area_ids.get(area),
                    "parent_id": ids.get(parent),
                }
                for name, (description, area, parent) in ready.items()
            },
            counts,
            "category",
            fill=("description", "area_id", "parent_id"),
        )
        ids.update(made)
        for name in ready:
            del pending[name]
    return ids


def _add_categories(pairs):
    """The (method, category) links added where missing; a method's other categories stay.

    Not to a method methods.json described (it has a pwc_slug): that file's
    collections are its categories, so a re-import of both would add and remove.
    """
    through = Method.categories.through
    if not pairs:
        return
    methods = {method for method, _ in pairs}
    described = set()
    for batch in itertools.batched(methods, 500):
        described.update(
            Method.objects.filter(pk__in=batch, pwc_slug__isnull=False).values_list("pk", flat=True)
        )
    pairs = {(method, category) for method, category in pairs if method not in described}
    have = set()
    for batch in itertools.batched({method for method, _ in pairs}, 500):
        have.update(
            through.objects.filter(method_id__in=batch).values_list(
                "method_id", "methodcategory_id"
            )
        )
    through.objects.bulk_create(
        [through(method_id=m, methodcategory_id=c) for m, c in sorted(pairs - have)], batch_size=500
    )
