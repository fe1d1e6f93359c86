"""Syntology's verification snapshots of a board, as read; shown, not edited."""

from django.contrib import admin

from leaderboards.admin.inlines import VerificationInline
from leaderboards.admin.options import CuratedAdmin
from leaderboards.models import SyntologySnapshot


@admin.register(SyntologySnapshot)
class SnapshotAdmin(CuratedAdmin):
    list_display = ["leaderboard", "read_at_text", "created_at"]
    list_filter = [("read_at", admin.DateFieldListFilter)]
    search_fields = ["leaderboard__slug"]
    list_select_related = ["leaderboard__task", "leaderboard__dataset"]
    autocomplete_fields = ["leaderboard"]
    inlines = [VerificationInline]

    def view_on_site(self, obj):
        return obj.leaderboard.get_absolute_url()
