"""What a visitor typed, as the search reads it: its words, and its text for an exact match.

The query's words are Python's; name_words() is the PostgreSQL engine's own
reading of a name, which the index's prefix lists take their words from.
"""

import re
import unicodedata

from django.contrib.postgres.search import SearchVector

MAX_TERMS = 8
MAX_QUERY_LENGTH = 200
# Words only: everything else would be syntax to one engine or the other.
WORD = re.compile(r"[^\W_]+")


def terms(query):
    """The words of a query, lower-cased, at most MAX_TERMS of them."""
    return WORD.findall(query[:MAX_QUERY_LENGTH].lower())[:MAX_TERMS]


def folded_words(text):
    """The words of a text as the full-text engines read them: lower-cased, accents off."""
    plain = unicodedata.normalize("NFKD", text.lower())
    return WORD.findall("".join(c for c in plain if not unicodedata.combining(c)))


def exact_text(query):
    """The query as typed, trimmed: a name equal to it (ignoring case) comes first."""
    return query.strip()[:MAX_QUERY_LENGTH]


def name_words():
    """The name's words as PostgreSQL's full-text engine makes them."""
    return SearchVector("name", config="simple")
