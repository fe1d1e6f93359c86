"""Papers' people and code: authors, conferences, proceedings, repositories and code links."""

from django.contrib import admin

from leaderboards import curation
from leaderboards.admin.actions import code_actions
from leaderboards.admin.forms import CodeLinkForm, standing_decision
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
    """A paper's code links: an editor says official or not, or not this paper's code."""

    form = CodeLinkForm
    list_display = ["paper", "repository", "is_official", "editor_official", "editor_unlinked"]
    list_filter = ["is_official", "editor_official", "editor_unlinked", "framework"]
    search_fields = ["paper__slug", "paper__title", "repository__url"]
    list_select_related = ["paper", "repository"]
    actions = code_actions
    # The editor's columns too are written only through curation.decide_code.
    fieldsets = [
        (None, {"fields": ["paper", "repository"]}),
        (
            "From the archive",
            {"fields": ["is_official", "mentioned_in_paper", "mentioned_in_github", "framework"]},
        ),
        (
            "An editor's word",
            {
                "fields": [
                    "editor_official",
                    "editor_unlinked",
                    "editor_reason",
                    "decision",
                    "reason",
                ]
            },
        ),
        ("History", {"fields": ["editorial_history"]}),
    ]

    def save_model(self, request, obj, form, change):
        decision = form.cleaned_data["decision"]
        if change and decision != standing_decision(obj):
            pair = (obj.paper.slug, obj.repository.url)
            reason = form.cleaned_data["reason"].strip()
            curation.decide_code([pair], decision, reason, request.user, log=False)

    def identities(self, queryset):
        return list(queryset.values_list("paper__slug", "repository__url"))
