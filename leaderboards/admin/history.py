"""What loads changed in boards' data (models/history.py), as recorded; shown, not edited."""

from django.contrib import admin

from leaderboards.admin.options import CuratedAdmin
from leaderboards.models import BoardChange, DataLoad


@admin.register(DataLoad)
class DataLoadAdmin(CuratedAdmin):
    list_display = ["started_at", "boards_added", "boards_changed", "rows_added", "rows_removed"]
    date_hierarchy = "started_at"


@admin.register(BoardChange)
class BoardChangeAdmin(CuratedAdmin):
    list_display = [
        "leaderboard", "made_at", "created", "rows_added", "rows_removed", "values_changed",
    ]  # fmt: skip
    list_filter = ["created", ("made_at", admin.DateFieldListFilter)]
    search_fields = ["leaderboard__slug"]
    list_select_related = ["leaderboard__task", "leaderboard__dataset"]
    autocomplete_fields = ["leaderboard"]
    raw_id_fields = ["load"]

    def view_on_site(self, obj):
        return obj.get_absolute_url()
