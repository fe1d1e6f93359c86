"""An editor's withhold or restore of a paper or method reaches the search at once.

Saves that name the fields they write (the admin's, an editor's decision)
and touch what the search shows re-index that page's entries in the same
transaction. Other saves (a new row, a load's bulk writes) wait for the
end-of-load rebuild; code that withholds in bulk calls search.refresh_pages().
"""

from django.db.models.signals import post_save

from leaderboards.models import Method, Paper, SearchKind
from leaderboards.search.index import refresh_pages

# What each page's entries are made of (index._paper_sql, index._method_sql).
_SHOWN = {
    Paper: (SearchKind.PAPER, {"withheld", "title"}),
    Method: (SearchKind.METHOD, {"withheld", "name", "full_name"}),
}


def _on_save(sender, instance, update_fields=None, raw=False, **kwargs):
    kind, fields = _SHOWN[sender]
    if raw or not update_fields or not fields & set(update_fields):
        return
    refresh_pages(kind, [instance.slug])


def connect_signals():
    for model in _SHOWN:
        post_save.connect(_on_save, sender=model, dispatch_uid=f"search-save-{model.__name__}")
