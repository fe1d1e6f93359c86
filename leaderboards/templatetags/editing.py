"""The "Edit" link signed-in staff see on public pages; visitors' pages never carry it.

A visitor has no session cookie, and for them the session is never read: a
page that read it would vary by cookie, and the page cache would keep none.
With the cookie, the page cache is bypassed both ways (web/page_cache.py), so a
page rendered for an editor is never stored nor served to anyone else.
"""

from django import template
from django.conf import settings
from django.urls import reverse

register = template.Library()

# A public page's URL name -> the context variable holding the object it shows.
EDITABLE = {
    "leaderboards:leaderboard": "leaderboard",
    "leaderboards:task": "task",
    "leaderboards:dataset": "dataset",
    "leaderboards:area": "area",
    "leaderboards:paper": "paper",
}


def without_session(request):
    """True for a request with no session cookie: a visitor's, whose pages read no session."""
    return request is None or settings.SESSION_COOKIE_NAME not in request.COOKIES


def for_staff(request):
    """True for a signed-in staff member; False, without reading a session, for visitors."""
    if without_session(request):
        return False
    user = getattr(request, "user", None)
    return bool(user and user.is_active and user.is_staff)


@register.inclusion_tag("editing/_edit_link.html", takes_context=True)
def edit_link(context):
    request = context.get("request")
    if not for_staff(request):
        return {}
    match = request.resolver_match
    shown = context.get(EDITABLE.get(match.view_name if match else None, ""))
    if getattr(shown, "pk", None) is None:
        return {"url": reverse("admin:index"), "label": "Admin"}
    meta = shown._meta
    return {
        "url": reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[shown.pk]),
        "label": "Edit",
        "what": meta.verbose_name,
    }
