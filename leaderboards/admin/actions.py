"""The actions on ticked objects: rows and metrics through decisions, the catalogue through
curation, so they outlast a re-load.

Each action on rows or metrics takes their admin (ChosenByKey), which finds
the objects a re-load replaced since the list was shown. Each action on the
catalogue takes an admin with `identities()`, the ticked objects' stable
names, and asks for a reason first.
"""

from collections import defaultdict

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse

from leaderboards import curation, decisions
from leaderboards.admin.directions import suggest_direction
from leaderboards.admin.forms import ReasonForm, WithholdForm
from leaderboards.models import Direction
from leaderboards.web.words import already, counted

# How many of the ticked objects the reason page names; the rest are counted.
NAMED_ON_REASON_PAGE = 50


def direction_setter(direction, description):
    @admin.action(description=description, permissions=["change"])
    def action(modeladmin, request, queryset):
        refs = modeladmin.chosen(request, queryset)
        outcome = decisions.set_direction(refs, direction, request.user)
        modeladmin.report(request, outcome, "changed")

    action.__name__ = f"set_{direction or 'none'}"
    return action


@admin.action(description="Reject the suggestion: the direction is unknown", permissions=["change"])
def reject_suggestions(modeladmin, request, queryset):
    # An editor's "unknown" takes the metric out of the directions queue;
    # the reason says it was looked at, not forgotten.
    outcome = decisions.set_direction(
        modeladmin.chosen(request, queryset),
        Direction.UNKNOWN,
        request.user,
        message="Rejected the suggested direction; left unknown",
        undecided_only=True,
    )
    modeladmin.report(request, outcome, "left unknown by an editor")


@admin.action(description="Accept the suggested direction", permissions=["change"])
def accept_suggestions(modeladmin, request, queryset):
    suggested, skipped = defaultdict(list), 0
    for ref in modeladmin.chosen(request, queryset):
        suggestion = suggest_direction(ref.name)
        if suggestion is None:
            skipped += 1
        else:
            suggested[suggestion].append(ref)
    accepted, missing = 0, []
    for suggestion, refs in suggested.items():
        # Only where nobody has said: a file's or an editor's word stands.
        outcome = decisions.set_direction(
            refs,
            suggestion.direction,
            request.user,
            message=f"Accepted the suggested direction: {suggestion}",
            undecided_only=True,
        )
        accepted += len(outcome.changed)
        skipped += len(outcome.unchanged)
        missing += outcome.missing
    modeladmin.message_user(
        request,
        f"{counted(accepted, 'suggestion', 'suggestions')} accepted; "
        f"{counted(skipped, 'metric', 'metrics')} skipped "
        "(no suggestion, or a direction already set).",
        messages.SUCCESS,
    )
    if missing:
        modeladmin.message_user(request, modeladmin.gone_message(missing), messages.WARNING)


@admin.action(description="Withhold selected rows as spam…", permissions=["change"])
def withhold(modeladmin, request, queryset):
    refs = modeladmin.chosen(request, queryset)
    form = WithholdForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        outcome = decisions.withhold(refs, form.cleaned_data["reason"], request.user)
        modeladmin.report(request, outcome, "withheld")
        return None
    rows, missing = decisions.current_rows(refs)
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": "Withhold rows as spam",
        "opts": modeladmin.model._meta,
        "rows": [(row, modeladmin.key_value(row)) for row in rows],
        "missing": modeladmin.gone_message(missing) if missing else "",
        "form": form,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/leaderboards/row/withhold.html", context)


@admin.action(description="Restore selected rows", permissions=["change"])
def restore(modeladmin, request, queryset):
    outcome = decisions.restore(modeladmin.chosen(request, queryset), request.user)
    modeladmin.report(request, outcome, "restored")


def catalogue_decision(decide, *, name, description, done, explain):
    """An action that asks for a reason, then calls decide(identities, reason, user)."""

    @admin.action(description=description, permissions=["change"])
    def action(modeladmin, request, queryset):
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            outcome = decide(
                modeladmin.identities(queryset), form.cleaned_data["reason"], request.user
            )
            report_outcome(modeladmin, request, outcome, done)
            return None
        ticked = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        across = request.POST.get("select_across") == "1"
        count = queryset.count()
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": description.rstrip("…"),
            "opts": modeladmin.model._meta,
            "named": list(queryset[:NAMED_ON_REASON_PAGE]),
            "count": count,
            "unnamed": max(count - NAMED_ON_REASON_PAGE, 0),
            "ticked": [] if across else ticked,
            "across": across,
            "action": name,
            "explain": explain,
            "button": description.rstrip("…"),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leaderboards/decide.html", context)

    action.__name__ = name
    return action


def report_outcome(modeladmin, request, outcome, done):
    noun = modeladmin.model._meta
    changed = len(outcome.changed)
    text = f"{counted(changed, noun.verbose_name, noun.verbose_name_plural)} {done}."
    if outcome.unchanged:
        text += " " + already(len(outcome.unchanged))
    modeladmin.message_user(request, text, messages.SUCCESS)
    if outcome.missing:
        modeladmin.message_user(
            request,
            f"Nothing changed for {len(outcome.missing)}: no longer stored.",
            messages.WARNING,
        )


withhold_methods = catalogue_decision(
    curation.withhold_methods,
    name="withhold_methods",
    description="Withhold selected methods as spam…",
    done="withheld",
    explain="Their pages answer 404 and they leave the lists and papers' pages; "
    "the public record names each by its slug, with the reason.",
)
restore_methods = catalogue_decision(
    curation.restore_methods,
    name="restore_methods",
    description="Restore selected methods…",
    done="restored",
    explain="They come back to their pages and lists.",
)
withhold_papers = catalogue_decision(
    curation.withhold_papers,
    name="withhold_papers",
    description="Withhold selected papers…",
    done="withheld",
    explain="Their pages answer 410 Gone and they leave the paper lists; "
    "the public record names each by its slug, with the reason.",
)
restore_papers = catalogue_decision(
    curation.restore_papers,
    name="restore_papers",
    description="Restore selected papers…",
    done="restored",
    explain="Their pages and list entries come back.",
)


def code_decider(decision, description, explain):
    return catalogue_decision(
        lambda pairs, reason, user: curation.decide_code(pairs, decision, reason, user),
        name=f"code_{decision}",
        description=description,
        done=f"marked {decision.label}",
        explain=explain,
    )


code_actions = [
    code_decider(
        curation.CodeDecision.UNLINKED,
        "Mark: not this paper's code…",
        "The links leave the papers' pages; an import keeps them hidden.",
    ),
    code_decider(
        curation.CodeDecision.OFFICIAL,
        "Mark: official, the authors' own code…",
        "The papers' pages list them first, as official.",
    ),
    code_decider(
        curation.CodeDecision.NOT_OFFICIAL,
        "Mark: not official…",
        "The papers' pages no longer call them official.",
    ),
    code_decider(
        curation.CodeDecision.ARCHIVE,
        "Back to the archive's word…",
        "An editor's word on them is dropped: the pages show what the archive says.",
    ),
]
