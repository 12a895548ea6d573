"""`{{ member.character_id|label_of:member_labels }}`: a member's name, with its id when another
member has the same name (personalab/lib/names.py)."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def label_of(item_id: str, labels: dict[str, str] | None) -> str:
    return (labels or {}).get(item_id, item_id)


@register.filter
def picture_of(item_id: str, pictures: dict[str, str] | None) -> str:
    """`{{ member.character_id|picture_of:member_pictures }}`: its picture URL, or "" (a letter)."""
    return (pictures or {}).get(item_id, "")
