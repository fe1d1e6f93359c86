"""Rows written in bulk as plain tuples: COPY on PostgreSQL, executemany elsewhere.

For the loader's rows, values and boards and the search's prefix lists: the
ORM's bulk_create builds a model instance and compiles SQL for each, which
was most of the time of writing hundreds of thousands of them.
"""

import functools
import itertools
import json

from django.db import connection
from django.db.models import BooleanField, DateField
from django.db.models.expressions import RawSQL

from leaderboards.models import OrderedJSONField


def one_of(model, name, values):
    """A condition: `model`'s field `name` holds one of `values`, however many, sent
    as one parameter (an array on PostgreSQL, a JSON list SQLite reads with
    json_each), where an IN list would take a parameter each."""
    quote = connection.ops.quote_name
    meta = model._meta
    column = f"{quote(meta.db_table)}.{quote(meta.get_field(name).column)}"
    values = list(values)
    if connection.vendor == "postgresql":
        return RawSQL(f"{column} = ANY(%s)", [values], output_field=BooleanField())
    return RawSQL(
        f"{column} IN (SELECT value FROM json_each(%s))",
        [json.dumps(values)],
        output_field=BooleanField(),
    )


def among(queryset, name, values):
    """The rows of `queryset` whose field `name` holds one of `values`, in one query.

    The values go as one parameter (see one_of). PostgreSQL: psycopg binds
    parameters on the client, splitting the SQL at each placeholder, and for
    the IN lists of tens of thousands of paper slugs of a load that cost more
    than the queries. SQLite: IN lists of 5,000 placeholders took 1.0 s of CPU
    over a load of 15,000 boards (15 chunks of 10,000 slugs), json_each 0.57.
    """
    values = list(values)
    if values:
        yield from queryset.filter(one_of(queryset.model, name, values))


def reserve_ids(model, count):
    """`count` primary keys for rows of `model` about to be inserted, taken as
    the database would give them, so the caller need not read them back.

    Reading the ids back after each insert, by the rows' unique fields, was a
    query over every new row of a chunk: a twentieth of a load. PostgreSQL
    takes them from the column's own sequence, as its inserts do, so other
    writers' inserts get others. SQLite's chunk holds the write lock from its
    first statement (transaction mode IMMEDIATE), so nothing else inserts
    before these rows; they follow the largest id the table has held, as its
    AUTOINCREMENT column would number them, and inserting them moves that on.
    """
    if not count:
        return []
    table = model._meta.db_table
    column = model._meta.pk.column
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(sequence) FROM pg_get_serial_sequence(%s, %s) AS sequence, "
                "generate_series(1, %s)",
                [connection.ops.quote_name(table), column, count],
            )
            return [pk for (pk,) in cursor.fetchall()]
        if not connection.in_atomic_block:
            raise RuntimeError("ids are reserved inside the transaction that inserts them")
        quote = connection.ops.quote_name
        cursor.execute(
            f"SELECT max(coalesce((SELECT max({quote(column)}) FROM {quote(table)}), 0), "
            "coalesce((SELECT seq FROM sqlite_sequence WHERE name = %s), 0))",
            [table],
        )
        first = cursor.fetchone()[0] + 1
    return range(first, first + count)


def prepared(fields, values):
    """Each value through its field's own preparation, as the ORM would do.

    Only dates, timestamps and JSON need it; ints, floats, text and None go to the driver
    as they are, and skipping the call for them is cheap. A plain date and our
    JSON go straight to the step that changes them: the ORM's chain of calls
    around it was a twentieth of a load.
    """
    prepare = [
        (index, _preparation(field))
        for index, field in enumerate(fields)
        if isinstance(field, OrderedJSONField | DateField)
    ]
    if not prepare:
        # A metric value's fields, say: the tuples go to the driver as they are.
        yield from values
        return
    for item in values:
        item = list(item)
        for index, prepare_value in prepare:
            item[index] = prepare_value(item[index])
        yield item


def _preparation(field):
    """What field.get_db_prep_save(value, connection) does to the values the writer has."""
    if type(field) is DateField:
        # get_prep_value() gives a date (or None) back as it is.
        return connection.ops.adapt_datefield_value
    if isinstance(field, OrderedJSONField):
        return field.get_prep_value
    return functools.partial(field.get_db_prep_save, connection=connection)


def insert(model, names, values):
    """Insert tuples of the named fields' values: COPY on PostgreSQL, else executemany.

    Building a model instance and compiling SQL for each of the 150,000 rows
    and their values of a full dump was most of a load's time. On PostgreSQL an
    INSERT per row, even batched, is a statement the server parses and plans
    each time; COPY streams the rows into the table in one. It runs in the
    chunk's transaction like any statement, so a refused chunk leaves nothing.
    """
    fields = [model._meta.get_field(name) for name in names]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The driver's own cursor (Django's wrapper has no copy()), its errors
            # raised as Django's, as the writer's fallbacks expect.
            with (
                connection.wrap_database_errors,
                cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
            ):
                for item in prepared(fields, values):
                    copy.write_row(item)
            return
        holders = ", ".join(["%s"] * len(fields))
        sql = f"INSERT INTO {table} ({columns}) VALUES ({holders})"
        for batch in itertools.batched(values, 5000):
            cursor.executemany(sql, list(prepared(fields, batch)))


def create(model, rows):
    """New rows of `model` ({field: value} each) inserted, as bulk_create would make them
    but for the model instances and the SQL compiled for each: a column no row gives takes
    its field's default. Returns their primary keys, in order (reserve_ids: none read back).

    Inside the transaction that inserts them, as reserve_ids needs on SQLite.
    """
    if not rows:
        return []
    given = {name for row in rows for name in row}
    columns = []
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        name = field.attname if field.attname in given else field.name
        if name in given or not field.has_db_default():
            # A row without it holds what an instance made without it would (a
            # default, "" or None); a column the database fills is left to it.
            columns.append((name, field.get_default))
    pks = reserve_ids(model, len(rows))
    names = [model._meta.pk.attname, *(name for name, _ in columns)]
    values = (
        (pk, *(row[name] if name in row else default() for name, default in columns))
        for pk, row in zip(pks, rows, strict=True)
    )
    insert(model, names, values)
    return list(pks)


def update(model, names, rows):
    """Rows of `model` given as (pk, value of each named field) updated, one UPDATE a row
    run as one executemany. bulk_update's single statement, a CASE for each field over
    every row, cost more to build than to run: a sixth of importing the papers file."""
    if not rows:
        return
    quote = connection.ops.quote_name
    fields = [model._meta.get_field(name) for name in names]
    settings = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = (
        f"UPDATE {quote(model._meta.db_table)} SET {settings} "
        f"WHERE {quote(model._meta.pk.column)} = %s"
    )
    with connection.cursor() as cursor:
        for batch in itertools.batched(rows, 5000):
            cursor.executemany(
                sql, [[*values, pk] for pk, *values in prepared([None, *fields], batch)]
            )
