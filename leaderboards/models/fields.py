"""What the model modules share: JSON kept in key order, readable instants, lean keys."""

import json
import logging
from datetime import UTC, datetime

from django.db import models
from django.db.models import Q

from leaderboards.format import servable
from leaderboards.format.rules import compact_json

logger = logging.getLogger(__name__)


class UnreadableJSON:
    """A stored JSON text that cannot be served, kept exactly as stored.

    What a field holds instead of a value that will not decode or that
    servable.problem() refuses: every query that selects the column still
    answers, a page shows that the block could not be shown, and saving the
    object writes the same text back.
    """

    __slots__ = ("text", "reason")

    def __init__(self, text, reason):
        self.text = text
        self.reason = reason

    def __str__(self):
        return f"(stored value cannot be shown: {self.reason})"

    def __eq__(self, other):
        return isinstance(other, UnreadableJSON) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


class OrderedJSONField(models.TextField):
    """JSON stored as text, so key order survives every database.

    PostgreSQL's jsonb sorts object keys, and the export must give back a
    file's keys in the file's order.
    """

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        try:
            decoded = json.loads(value)
        except RecursionError:
            reason = "nested deeper than Python can read"
        except ValueError as error:
            # Not JSON, or an integer of more digits than Python converts.
            reason = str(error)[:200]
        else:
            reason = servable.problem(decoded)
            if reason is None:
                return decoded
        logger.error(
            "%s.%s holds JSON that cannot be served: %s", self.model.__name__, self.name, reason
        )
        return UnreadableJSON(value, reason)

    def to_python(self, value):
        if isinstance(value, str):
            return json.loads(value)
        return value

    def get_prep_value(self, value):
        if value is None:
            return None
        if isinstance(value, UnreadableJSON):
            return value.text
        return compact_json(value)

    def value_to_string(self, obj):
        return self.get_prep_value(self.value_from_object(obj))


# The instants Python's datetime can hold, in UTC. PostgreSQL stores a wider
# range (an offset moves 0001-01-01T00:00:00+01:00 to year 0, and
# 9999-12-31T23:59:59-01:00 to year 10000), but psycopg cannot read such a
# value back, so every query that selected the row failed: lists, feeds, the API.
EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)


def readable_instant(name):
    """A check that the datetime column `name` is null or within Python's range."""
    return Q(**{f"{name}__isnull": True}) | Q(**{f"{name}__gte": EARLIEST}) & Q(
        **{f"{name}__lte": LATEST}
    )


# For a foreign key that a unique constraint or an index of its model starts
# with: that index finds a parent's rows as well as one of the key alone, which
# every insert of a load would keep up to date for nothing (two of a metric
# value's three indexes were such).
LEADING_INDEX = {"db_index": False}
