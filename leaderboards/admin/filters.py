"""The changelists' filters: by an editor's text, by a typed slug or name, by direction,
by the signs of a spam method."""

from django.contrib import admin
from django.db.models import Q
from django.http import QueryDict

from leaderboards import curation, decisions
from leaderboards.models import Direction

KNOWN = decisions.KNOWN


class EditedTextFilter(admin.SimpleListFilter):
    title = "editor's text"
    parameter_name = "edited"

    def lookups(self, request, model_admin):
        return [("yes", "corrected by an editor"), ("no", "as the files have it")]

    def queryset(self, request, queryset):
        fields = [name for name in ("editor_description", "editor_note") if _has(queryset, name)]
        edited = Q()
        for name in fields:
            edited |= Q(**{f"{name}__isnull": False})
        if self.value() == "yes":
            return queryset.filter(edited)
        if self.value() == "no":
            return queryset.exclude(edited)
        return queryset


def _has(queryset, name):
    return any(field.name == name for field in queryset.model._meta.get_fields())


class TextFilter(admin.SimpleListFilter):
    """A filter by one typed value (a slug, a name): never a menu of every board."""

    template = "admin/leaderboards/text_filter.html"
    placeholder = ""

    def lookups(self, request, model_admin):
        # Shown as the chosen value, so the sidebar says what the list is filtered by.
        return [(self.value(), self.value())] if self.value() else [("", "")]

    def has_output(self):
        return True

    def choices(self, changelist):
        self.hidden = [
            (key, value)
            for key, values in QueryDict(
                changelist.get_query_string(remove=[self.parameter_name, "p"])[1:]
            ).lists()
            for value in values
        ]
        if self.value():
            yield {
                "selected": False,
                "query_string": changelist.get_query_string(remove=[self.parameter_name]),
                "display": "All",
            }


class MetricNameFilter(TextFilter):
    title = "metric name (exact)"
    parameter_name = "name"
    placeholder = "a metric name"

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        return queryset.filter(name=self.value())


class LeaderboardSlugFilter(TextFilter):
    title = "leaderboard (slug)"
    parameter_name = "leaderboard"
    placeholder = "a leaderboard's slug"

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        return queryset.filter(leaderboard__slug=self.value())


class MetricDirectionFilter(admin.SimpleListFilter):
    title = "direction"
    parameter_name = "direction"

    def lookups(self, request, model_admin):
        return [
            ("editor", "set by an editor"),
            ("file", "from the file"),
            ("unknown", "unknown"),
            ("undecided", "none yet (the directions queue)"),
        ]

    def queryset(self, request, queryset):
        no_editor = Q(editor_direction__isnull=True)
        from_file = no_editor & Q(source_direction__in=KNOWN)
        if self.value() == "editor":
            return queryset.exclude(no_editor)
        if self.value() == "file":
            return queryset.filter(from_file)
        if self.value() == "undecided":
            # Unknown and nobody said so: what the directions queue lists.
            return queryset.filter(pk__in=decisions.undecided_metrics().values("pk"))
        if self.value() == "unknown":
            # Django's negated lookup keeps the NULLs: no direction in the file.
            return queryset.filter(
                Q(editor_direction=Direction.UNKNOWN) | (no_editor & ~Q(source_direction__in=KNOWN))
            )
        return queryset


class LikelySpamFilter(admin.SimpleListFilter):
    """The spam queue: methods not yet withheld that show a sign of spam (curation.SPAM_SIGNS)."""

    title = "spam queue"
    parameter_name = "spam"

    def lookups(self, request, model_admin):
        signs = [(sign, words) for sign, (words, _) in curation.SPAM_SIGNS.items()]
        return [("any", "likely spam: any sign"), *signs]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "any":
            return curation.likely_spam(queryset)
        if value in curation.SPAM_SIGNS:
            return curation.likely_spam(queryset, value)
        return queryset
