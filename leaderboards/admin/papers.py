"""Papers' people and code: authors, conferences, proceedings, repositories and code links."""

from django.contrib import admin

from leaderboards.admin.options import CuratedAdmin
from leaderboards.models import (
    Author,
    Conference,
    PaperAuthor,
    PaperRepository,
    Proceeding,
    Repository,
)


@admin.register(Author)
class AuthorAdmin(CuratedAdmin):
    list_display = ["name", "slug", "paper_count"]
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "paper_count", "editorial_history"]


class ProceedingInline(admin.TabularInline):
    model = Proceeding
    fields = ["name", "year", "month"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Conference)
class ConferenceAdmin(CuratedAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "editorial_history"]
    inlines = [ProceedingInline]


@admin.register(Proceeding)
class ProceedingAdmin(CuratedAdmin):
    list_display = ["name", "conference", "year", "month"]
    list_filter = ["year"]
    search_fields = ["name", "slug", "conference__name"]
    list_select_related = ["conference"]
    fields = ["name", "slug", "conference", "year", "month", "editorial_history"]


@admin.register(Repository)
class RepositoryAdmin(CuratedAdmin):
    list_display = ["url", "owner", "name", "stars", "paper_count"]
    search_fields = ["url", "owner", "name"]
    fields = ["url", "owner", "name", "description", "stars", "paper_count", "editorial_history"]


class PaperAuthorInline(admin.TabularInline):
    """A paper's author list, as the papers file gives it."""

    model = PaperAuthor
    fields = ["position", "author"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "authors (from the archive)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("author")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class CodeLinkInline(admin.TabularInline):
    """A paper's code links; each opens its own form, where editors decide about it."""

    model = PaperRepository
    fields = ["repository", "is_official", "framework", "editor_official", "editor_unlinked"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    verbose_name_plural = "code links (open one to correct it)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("repository")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(PaperRepository)
class PaperRepositoryAdmin(CuratedAdmin):
    list_display = ["paper", "repository", "is_official", "editor_official", "editor_unlinked"]
    list_filter = ["is_official", "editor_official", "editor_unlinked", "framework"]
    search_fields = ["paper__slug", "paper__title", "repository__url"]
    list_select_related = ["paper", "repository"]
    editorial_fields = ["editor_official", "editor_unlinked", "editor_reason"]
    fieldsets = [
        (None, {"fields": ["paper", "repository"]}),
        (
            "From the archive",
            {"fields": ["is_official", "mentioned_in_paper", "mentioned_in_github", "framework"]},
        ),
        ("An editor's word", {"fields": ["editor_official", "editor_unlinked", "editor_reason"]}),
        ("History", {"fields": ["editorial_history"]}),
    ]
