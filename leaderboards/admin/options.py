"""What the curated models' admins share.

CuratedAdmin keeps what came from the files read-only, shows each object's
editorial history and answers a write that met a load with a message.
ChosenByKey and DirectionChoices are for rows and metrics, which a re-load
replaces: what an editor chose is found by key, and an empty direction says
what it means.
"""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import OperationalError, models
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from leaderboards import curation, decisions
from leaderboards.admin.deletes import FiguresKeptOnDelete
from leaderboards.admin.forms import held_to_limits
from leaderboards.admin.queue import BUSY
from leaderboards.models import Direction
from leaderboards.web.words import already, counted

HISTORY_SHOWN = 30
DIRECTION_CHOICES = [("", "not set: the file's direction"), *Direction.choices]


def history_html(entries):
    items = format_html_join(
        "",
        "<li><time>{}</time> · <strong>{}</strong> · {}: {}</li>",
        (
            (
                entry.action_time.strftime("%Y-%m-%d %H:%M UTC"),
                entry.user.get_username(),
                entry.object_repr,
                entry.get_change_message() or entry.get_action_flag_display(),
            )
            for entry in entries
        ),
    )
    if not items:
        return "No editorial changes yet."
    return format_html('<ul class="editorial-history">{}</ul>', items)


class CuratedAdmin(FiguresKeptOnDelete, admin.ModelAdmin):
    """Every model field read-only except `editorial_fields`; no adding by hand."""

    editorial_fields = ()
    computed_readonly = ()

    def get_readonly_fields(self, request, obj=None):
        from_files = [
            field.name
            for field in self.model._meta.get_fields()
            if field.concrete and not field.many_to_many and not field.auto_created
            if field.name not in self.editorial_fields
        ]
        return [*from_files, *self.computed_readonly, "editorial_history"]

    def has_add_permission(self, request):
        # Pages, rows and papers come from files; an editor corrects them.
        return False

    def save_model(self, request, obj, form, change):
        # Only what the editor changed: the rest of the form's object was read
        # before a load may have written newer file fields, not to be undone.
        fields = [name for name in form.changed_data if name in self.editorial_fields]
        if change and fields:
            obj.save(update_fields=fields)
        elif not change:
            super().save_model(request, obj, form, change)

    def changeform_view(self, request, *args, **kwargs):
        return self._unless_busy_or_gone(request, super().changeform_view, *args, **kwargs)

    def changelist_view(self, request, *args, **kwargs):
        return self._unless_busy_or_gone(request, super().changelist_view, *args, **kwargs)

    def _unless_busy_or_gone(self, request, view, *args, **kwargs):
        """A clear message, never a 500, when a write met a load (everything rolled back)."""
        try:
            return view(request, *args, **kwargs)
        except decisions.Gone as gone:
            self.message_user(request, str(gone), messages.WARNING)
            opts = self.model._meta
            return HttpResponseRedirect(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
            )
        except OperationalError as error:
            if not decisions.busy(error):
                raise
            self.message_user(request, BUSY, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        texts = (models.CharField, models.TextField)
        if db_field.name.startswith("editor_") and db_field.null and isinstance(db_field, texts):
            # An emptied box means "no correction: show the file's text".
            kwargs["empty_value"] = None
        return held_to_limits(super().formfield_for_dbfield(db_field, request, **kwargs))

    def history_entries(self, obj):
        content_type = ContentType.objects.get_for_model(obj, for_concrete_model=False)
        return LogEntry.objects.filter(content_type=content_type, object_id=str(obj.pk))

    @admin.display(description="Editorial history")
    def editorial_history(self, obj):
        if obj is None or obj.pk is None:
            return "—"
        entries = self.history_entries(obj).select_related("user").order_by("-action_time")
        return history_html(entries[:HISTORY_SHOWN])


class DescribedAdmin:
    """A method's or dataset's description: corrected with a reason, on the public record."""

    def save_model(self, request, obj, form, change):
        if change and "editor_description" in form.changed_data:
            curation.describe(
                self.model,
                obj.slug,
                form.cleaned_data["editor_description"],
                form.cleaned_data["reason"].strip(),
                request.user,
                was=form.was(),
                log=False,
            )
        fields = [
            name
            for name in form.changed_data
            if name in self.editorial_fields and name != "editor_description"
        ]
        if change and fields:
            obj.save(update_fields=fields)


class ChosenByKey:
    """For rows and metrics, which a re-load replaces: what an editor chose is found by key.

    Each checkbox of the list, and each change form, carries the object's key
    beside its id; an id a re-load deleted is followed to the object that has
    its key now, or reported as gone.
    """

    noun = ""  # the plural, and the singular:
    noun_one = ""

    def key_value(self, obj):
        raise NotImplementedError

    def ref(self, value):
        raise NotImplementedError

    def label(self, ref):
        raise NotImplementedError

    def action_checkbox(self, obj):
        return format_html(
            '{}<input type="hidden" name="key-{}" value="{}">',
            super().action_checkbox(obj),
            obj.pk,
            self.key_value(obj),
        )

    def chosen(self, request, queryset):
        """The objects the editor ticked, as refs: stored ones, and keys of replaced ones."""
        found = {str(obj.pk): obj for obj in queryset}
        refs = list(found.values())
        for pk in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
            if pk not in found:
                refs.append(self.ref(request.POST.get(f"key-{pk}", "")))
        return refs

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None and request.method == "POST" and "decision_key" in request.POST:
            # A form opened before a re-load replaced the object.
            ref = self.ref(request.POST["decision_key"])
            obj = self.get_queryset(request).filter(**self.lookup(ref)).first()
            if obj is None:
                raise decisions.Gone(self.gone_message([ref]))
            self.message_user(request, self.followed_message(1), messages.INFO)
        return obj

    def gone_message(self, refs):
        names = ", ".join(self.label(ref) for ref in refs)
        return (
            f"Nothing changed for {names}: the board's newer file no longer has "
            f"{'it' if len(refs) == 1 else 'them'}."
        )

    def followed_message(self, count):
        return (
            f"{counted(count, self.noun_one, self.noun)} had been replaced by a newer file "
            "since the page was shown; the change went to the one with the same key now."
        )

    def report(self, request, outcome, done):
        text = f"{counted(len(outcome.changed), self.noun_one, self.noun)} {done}."
        if outcome.unchanged:
            text += " " + already(len(outcome.unchanged))
        self.message_user(request, text, messages.SUCCESS)
        if outcome.followed:
            self.message_user(request, self.followed_message(len(outcome.followed)), messages.INFO)
        if outcome.missing:
            self.message_user(request, self.gone_message(outcome.missing), messages.WARNING)


class DirectionChoices:
    """Says what an empty editor direction means, in the metric form and inline."""

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "editor_direction":
            kwargs["choices"] = DIRECTION_CHOICES
        return super().formfield_for_choice_field(db_field, request, **kwargs)
