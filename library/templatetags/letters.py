"""`{{ name|letter_class }}`: the class that colours a name's letter avatar."""

from __future__ import annotations

from django import template

from personalab.lib import letter_colours

register = template.Library()


@register.filter
def letter_class(name: object) -> str:
    return letter_colours.letter_class(str(name or ""))
