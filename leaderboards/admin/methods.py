"""The methods taxonomy's admins: areas, categories and methods."""

from django.contrib import admin

from leaderboards.admin.filters import EditedTextFilter
from leaderboards.admin.options import CuratedAdmin
from leaderboards.models import Method, MethodArea, MethodCategory


@admin.register(MethodArea)
class MethodAreaAdmin(CuratedAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "editorial_history"]


@admin.register(MethodCategory)
class MethodCategoryAdmin(CuratedAdmin):
    list_display = ["name", "slug", "area", "parent"]
    list_filter = ["area"]
    search_fields = ["name", "slug"]
    list_select_related = ["area", "parent"]
    fields = ["name", "slug", "area", "parent", "description", "editorial_history"]


@admin.register(Method)
class MethodAdmin(CuratedAdmin):
    list_display = ["name", "slug", "paper_count", "num_papers", "withheld", "corrected"]
    list_filter = ["withheld", EditedTextFilter]
    search_fields = ["name", "slug", "full_name"]
    list_select_related = ["paper"]
    editorial_fields = ["editor_description"]
    fieldsets = [
        (None, {"fields": ["name", "full_name", "slug"]}),
        ("Description", {"fields": ["description", "editor_description"]}),
        (
            "From the archive",
            {
                "fields": [
                    "paper",
                    "paper_title",
                    "paper_url",
                    "introduced_year",
                    "source_url",
                    "source_title",
                    "code_snippet_url",
                    "num_papers",
                    "paper_count",
                ]
            },
        ),
        ("Withheld", {"fields": ["withheld", "withheld_reason"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None
