"""`{{ name|letter_class }}`: the class that colours a name's letter avatar."""

from __future__ import annotations

from django import template

from personalab.lib.letter_colours import letter_colour

register = template.Library()


@register.filter
def letter_class(name: object) -> str:
    return f"letter-c{letter_colour(str(name or ''))}"
