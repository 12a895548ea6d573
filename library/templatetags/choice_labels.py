"""`{{ value|choice_label }}`: the shown name of a SillyTavern setting value (a world-info
position, a key logic, a message role); the form still sends the value. A filter, not an
included template: the 100-entry lorebook editor included one per option, 1,500 includes that
were most of its render (issue 31)."""

from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

register = template.Library()

CHOICE_LABELS = {
    "before_char": _("before the character"),
    "after_char": _("after the character"),
    "an_top": _("top of the author's note"),
    "an_bottom": _("bottom of the author's note"),
    "em_top": _("top of the examples"),
    "em_bottom": _("bottom of the examples"),
    "depth": _("at a depth"),
    "outlet": _("at an outlet"),
    "and_any": _("AND any"),
    "and_all": _("AND all"),
    "not_any": _("NOT any"),
    "not_all": _("NOT all"),
    "system": _("system"),
    "user": _("user"),
    "assistant": _("assistant"),
}


@register.filter
def choice_label(value: object) -> str:
    """Our own label, unescaped as `{% translate %}` leaves it; any other value as given (and
    escaped by the template)."""
    label = CHOICE_LABELS.get(value) if isinstance(value, str) else None
    return mark_safe(str(label)) if label is not None else value
