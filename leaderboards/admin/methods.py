"""The methods taxonomy's admins: areas, categories and methods, with the spam queue."""

from django.contrib import admin

from leaderboards import curation
from leaderboards.admin.actions import restore_methods, withhold_methods
from leaderboards.admin.filters import EditedTextFilter, LikelySpamFilter
from leaderboards.admin.forms import DescriptionForm
from leaderboards.admin.options import CuratedAdmin, DescribedAdmin
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
class MethodAdmin(DescribedAdmin, CuratedAdmin):
    """Methods; `?spam=any` is the spam queue, with a bulk "withhold" action."""

    form = DescriptionForm
    list_display = [
        "name",
        "slug",
        "paper_count",
        "num_papers",
        "withheld",
        "corrected",
        "spam_signs",
    ]
    list_filter = [LikelySpamFilter, "withheld", EditedTextFilter]
    search_fields = ["name", "slug", "full_name"]
    list_select_related = ["paper"]
    editorial_fields = ["editor_description"]
    actions = [withhold_methods, restore_methods]
    fieldsets = [
        (None, {"fields": ["name", "full_name", "slug"]}),
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
        (
            "Withheld",
            {
                "fields": ["withheld", "withheld_reason"],
                "description": "Withheld or restored from the list's actions, with a reason.",
            },
        ),
        ("History", {"fields": ["editorial_history"]}),
    ]

    def get_queryset(self, request):
        return curation.with_spam_signs(super().get_queryset(request))

    @admin.display(boolean=True, description="corrected")
    def corrected(self, obj):
        return obj.editor_description is not None

    @admin.display(description="signs of spam")
    def spam_signs(self, obj):
        return "; ".join(curation.spam_signs(obj)) or "—"

    def identities(self, queryset):
        return list(queryset.values_list("slug", flat=True))
