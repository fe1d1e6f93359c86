"""The catalogue's admins: areas, tasks, datasets (their modalities and languages), papers."""

from django.contrib import admin

from leaderboards.admin.actions import restore_papers, withhold_papers
from leaderboards.admin.filters import EditedTextFilter
from leaderboards.admin.forms import DescriptionForm
from leaderboards.admin.options import CuratedAdmin, DescribedAdmin
from leaderboards.admin.papers import CodeLinkInline, PaperAuthorInline
from leaderboards.models import Area, Dataset, DatasetLanguage, DatasetModality, Paper, Task


@admin.register(Area)
class AreaAdmin(CuratedAdmin):
    list_display = ["name", "slug", "task_count", "leaderboard_count"]
    list_filter = []
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "task_count", "leaderboard_count", "editorial_history"]


@admin.register(Task)
class TaskAdmin(CuratedAdmin):
    list_display = ["name", "slug", "leaderboard_count", "row_count", "corrected"]
    list_filter = [EditedTextFilter, "areas"]
    search_fields = ["name", "slug"]
    list_select_related = ["parent"]
    autocomplete_fields = ["parent"]
    editorial_fields = ["editor_description", "editor_note", "parent"]
    fieldsets = [
        (None, {"fields": ["name", "slug", "parent"]}),
        (
            "Description",
            {
                "fields": ["description", "editor_description", "note", "editor_note"],
                "description": "The page shows an editor's text where there is one, "
                "else the file's. Empty a correction to go back to the file's text.",
            },
        ),
        ("From the archive", {"fields": ["synonyms", "source_link"]}),
        ("Figures", {"fields": ["leaderboard_count", "row_count"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None or obj.editor_note is not None


@admin.register(Dataset)
class DatasetAdmin(DescribedAdmin, CuratedAdmin):
    form = DescriptionForm
    list_display = ["name", "slug", "leaderboard_count", "row_count", "corrected"]
    list_filter = [EditedTextFilter]
    search_fields = ["name", "slug", "full_name"]
    list_select_related = ["parent"]
    autocomplete_fields = ["parent"]
    editorial_fields = ["editor_description", "parent"]
    fieldsets = [
        (None, {"fields": ["name", "full_name", "slug", "url", "parent"]}),
        (
            "Description",
            {
                "fields": ["description", "editor_description", "reason", "description_was"],
                "description": "The page shows the editor's text where there is one, else the "
                "archive's. Empty the correction to go back to the archive's text.",
            },
        ),
        (
            "From the archive",
            {
                "fields": [
                    "pwc_slug",
                    "homepage",
                    "introduced_date",
                    "paper",
                    "paper_title",
                    "paper_url",
                    "warning",
                    "num_papers",
                    "paper_count",
                ]
            },
        ),
        ("Figures", {"fields": ["leaderboard_count", "row_count"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None


@admin.register(Paper)
class PaperAdmin(CuratedAdmin):
    list_display = ["title", "slug", "date", "arxiv_id", "has_code", "verified"]
    list_filter = ["has_code", "verified"]
    search_fields = ["title", "slug", "arxiv_id"]
    date_hierarchy = "date"
    list_select_related = ["proceeding"]
    inlines = [PaperAuthorInline, CodeLinkInline]
    actions = [withhold_papers, restore_papers]
    fieldsets = [
        (None, {"fields": ["title", "slug", "pwc_slug", "date", "arxiv_id", "proceeding"]}),
        (
            "From the archive",
            {
                "fields": [
                    "url",
                    "url_abs",
                    "url_pdf",
                    "conference_url_abs",
                    "conference_url_pdf",
                    "abstract",
                    "described",
                ]
            },
        ),
        ("Figures", {"fields": ["has_code", "verified"]}),
        (
            "Withheld",
            {
                "fields": ["withheld", "withheld_reason"],
                "description": "Withheld or restored from the list's actions, with a reason.",
            },
        ),
        ("History", {"fields": ["editorial_history"]}),
    ]

    def identities(self, queryset):
        return list(queryset.values_list("slug", flat=True))


@admin.register(DatasetModality)
class DatasetModalityAdmin(CuratedAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "editorial_history"]


@admin.register(DatasetLanguage)
class DatasetLanguageAdmin(CuratedAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "editorial_history"]
