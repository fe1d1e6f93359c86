"""An editor's public name: how the public record names their decisions.

The record never shows a login; with no name given it says "an editor". Any
signed-in staff member sets their own here (createeditor --full-name sets it
from the command line).
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from leaderboards.admin.forms import EditorLimits
from leaderboards.models.editorial import give_public_name, public_name

NAME_LENGTH = get_user_model()._meta.get_field("first_name").max_length


class PublicNameForm(EditorLimits, forms.Form):
    name = forms.CharField(
        label="Public name",
        max_length=NAME_LENGTH,
        required=False,
        help_text='Shown on the public record beside your decisions. Empty: "an editor".',
    )


def public_name_view(request):
    user = request.user
    form = PublicNameForm(
        request.POST if request.method == "POST" else None,
        initial={"name": user.get_full_name()},
    )
    if form.is_valid():
        give_public_name(user, form.cleaned_data["name"])
        user.save(update_fields=["first_name", "last_name"])
        messages.success(request, f"The public record now names you “{public_name(user)}”.")
        return HttpResponseRedirect(reverse("admin_public_name"))
    context = {
        **admin.site.each_context(request),
        "title": "Your public name",
        "form": form,
        "shown_as": public_name(user),
    }
    return TemplateResponse(request, "admin/public_name.html", context)
