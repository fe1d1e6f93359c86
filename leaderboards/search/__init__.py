"""The site search: one search over tasks, datasets, leaderboards, papers, methods,
authors and models, and on the search page over papers' abstracts.

Names are copied into SearchEntry by refresh_index() after each load; each
database matches them with its own full-text engine (PostgreSQL: to_tsvector,
with each word's first letters, over a GIN expression index; SQLite: an FTS5
table), chosen by the connection in use. Both split "out-of-distribution" into
its words and match every word of the query as a prefix, so the two backends
find the same entries.

terms.py reads the words of a query, index.py writes the entries after writes,
query.py answers visitors from them.
"""

from leaderboards.search.changes import refresh_search
from leaderboards.search.index import (
    refresh_board_rows,
    refresh_index,
    refresh_models,
    refresh_pages,
)
from leaderboards.search.query import search, search_abstracts, suggest

__all__ = [
    "refresh_board_rows",
    "refresh_index",
    "refresh_models",
    "refresh_pages",
    "refresh_search",
    "search",
    "search_abstracts",
    "suggest",
]
