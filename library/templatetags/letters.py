"""Names as pages show them: `{{ name|letter_class }}` colours a name's letter avatar and
`{{ name|initial }}` is its letter;
`{{ name|bdi }}` isolates a name written by a user from the text around it."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from personalab.lib import letter_colours

register = template.Library()


@register.filter
def letter_class(name: object) -> str:
    return letter_colours.letter_class(str(name or ""))


@register.filter
def initial(name: object) -> str:
    return letter_colours.letter_of(str(name or ""))


@register.filter
def bdi(name: object) -> SafeString:
    """The name in a <bdi>, for a name inside a sentence (blocktrans); a right-to-left mark
    in it (U+202E) reversed the rest of the line. Elsewhere the pages write <bdi> themselves."""
    return format_html("<bdi>{}</bdi>", "" if name is None else name)
